"""Arrays: made from Python values, their type, shape, indexing and
conversion back, against NumPy and Awkward on the same data."""

import math

import awkward as ak
import numpy as np
import pytest

import dynd


RAGGED = [[1.5, 2.0, 3.0], [], [4.0, -5.0], [6.0]]


def test_nested_lists_infer_the_type():
    assert dynd.array([1, 2, 3]).type == "3 * int64"
    assert dynd.array([1.0, None]).type == "2 * ?float64"
    assert dynd.array(RAGGED).type == "4 * var * float64"
    assert dynd.array([[1, 2], [3, 4]]).type == "2 * 2 * int64"
    assert dynd.array(["a", None, "cc"]).type == "3 * ?string"
    assert dynd.array([True, False]).type == "2 * bool"
    assert dynd.array([{"x": 1, "y": 2.5}]).type == "1 * {x: int64, y: float64}"
    assert dynd.array(7).type == "int64"
    assert dynd.array(1 + 2j).type == "complex[float64]"


def test_a_given_type_is_kept():
    a = dynd.array([1, 2, 3], type="3 * float32")
    assert a.type == "3 * float32"
    assert a.tolist() == [1.0, 2.0, 3.0]
    d = dynd.array(["2024-02-29", None], type="2 * ?date")
    assert d.type == "2 * ?date"
    assert dynd.year(d).tolist() == [2024, None]
    # A NumPy array given a type is cast after it is shared.
    assert dynd.array(np.arange(3), type="3 * float64").tolist() == [0.0, 1.0, 2.0]


def test_shape_len_ndim_dtype():
    x = dynd.array(RAGGED)
    assert x.shape == (4, None)
    assert len(x) == 4
    assert x.ndim == 2
    assert x.dtype == "float64"
    assert dynd.array(np.zeros((2, 3))).shape == (2, 3)
    with pytest.raises(TypeError):
        len(dynd.array(1.5))


def test_tolist_matches_awkward():
    x = dynd.array(RAGGED)
    assert x.tolist() == ak.Array(RAGGED).tolist()
    assert dynd.array([[1, None], []]).tolist() == [[1, None], []]
    assert dynd.array([{"a": "x", "b": [1, 2]}]).tolist() == [{"a": "x", "b": [1, 2]}]
    assert dynd.array([1 + 2j, 3j]).tolist() == [1 + 2j, 3j]


def test_scalars_convert():
    s = dynd.sum(dynd.array([1.5, 2.0]))
    assert float(s) == 3.5
    assert int(dynd.array(7)) == 7
    assert [10, 20, 30][dynd.array(1)] == 20
    assert bool(dynd.array(True)) is True
    with pytest.raises(ValueError, match="ambiguous"):
        bool(dynd.array([1, 2]))
    assert dynd.array(2.5).item() == 2.5


def test_indexing_as_numpy_on_dense_data():
    n = np.arange(24).reshape(2, 3, 4)
    d = dynd.array(n)
    for key in [
        0,
        -1,
        (1, 2),
        (1, 2, 3),
        slice(1, None),
        (slice(None), 0),
        (slice(None, None, -1), slice(1, 3)),
        (Ellipsis, 1),
        (0, Ellipsis),
        (None, 0),
        (slice(None), None, 1),
        (0, slice(None, None, 2), -1),
    ]:
        assert d[key].tolist() == n[key].tolist(), key
        assert d[key].shape == n[key].shape, key


def test_indexing_ragged_rows_per_row():
    x = dynd.array(RAGGED)
    a = ak.Array(RAGGED)
    assert x[2].tolist() == a[2].tolist()
    assert x[1:3].tolist() == a[1:3].tolist()
    assert x[:, :2].tolist() == a[:, :2].tolist()
    assert x[::-1].tolist() == a[::-1].tolist()
    assert x[2, 1] .tolist() == a[2, 1]


def test_masks_and_integer_arrays():
    x = dynd.array([10, 20, 30, 40])
    assert x[x > 15].tolist() == [20, 30, 40]
    assert x[np.array([True, False, True, False])].tolist() == [10, 30]
    assert x[[3, 0]].tolist() == [40, 10]
    r = dynd.array(RAGGED)
    assert r[r > 2].tolist() == ak.Array(RAGGED)[ak.Array(RAGGED) > 2].tolist()


def test_iteration_gives_the_rows():
    x = dynd.array(RAGGED)
    assert [row.tolist() for row in x] == RAGGED


def test_record_fields():
    p = dynd.array([{"x": 1, "y": 2.5}, {"x": 3, "y": -1.0}])
    assert p.x.tolist() == [1, 3]
    assert p["y"].tolist() == [2.5, -1.0]
    assert (p.x * 2.0 + p.y).tolist() == [4.5, 5.0]
    with pytest.raises(AttributeError, match="has no field 'z'"):
        p.z


def test_repr_and_str():
    x = dynd.array([[1, 2], [3]])
    assert repr(x) == 'dynd.array([[1, 2], [3]], type="2 * var * int64")'
    assert str(x) == "[[1, 2], [3]]"


def test_type_of_parses_datashapes():
    assert dynd.type_of("3 *  var * float64") == "3 * var * float64"
    with pytest.raises(dynd.DyndError, match="flaot64"):
        dynd.type_of("3 * flaot64")


def test_values_that_cannot_be_arrays_are_errors():
    with pytest.raises(dynd.DyndTypeError, match="cannot make a dynd value of a Python object"):
        dynd.array([object()])
    with pytest.raises(dynd.DyndError):
        dynd.array([1, "a"], type="2 * int32")
    with pytest.raises(dynd.DyndError, match="outside every integer type"):
        dynd.array(2**200)
    deep = [1]
    for _ in range(100):
        deep = [deep]
    with pytest.raises(dynd.DyndError, match="nested"):
        dynd.array(deep)


def test_nan_and_infinity_round_trip():
    x = dynd.array([math.inf, -math.inf, math.nan])
    v = x.tolist()
    assert v[0] == math.inf and v[1] == -math.inf and math.isnan(v[2])
