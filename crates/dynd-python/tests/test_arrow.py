"""Arrow's PyCapsule interface: pyarrow, Awkward and Polars-style
producers in, Arrow arrays out, sharing buffers."""

import awkward as ak
import pyarrow as pa
import pytest

import dynd


def values_address(arr):
    """The address of an Arrow array's values buffer (the last one)."""
    return arr.buffers()[-1].address


def test_pyarrow_numbers_are_shared():
    p = pa.array([1.5, 2.5, 3.5])
    d = dynd.array(p)
    assert d.type == "3 * float64"
    back = pa.array(d)
    assert back.equals(p)
    assert values_address(back) == values_address(p)


def test_pyarrow_nulls_lists_and_strings():
    assert dynd.array(pa.array([1, None, 3])).tolist() == [1, None, 3]
    assert dynd.array(pa.array([1, None, 3])).type == "3 * ?int64"
    lists = pa.array([[1, 2], [], [3]])
    assert dynd.array(lists).tolist() == [[1, 2], [], [3]]
    # dynd has no optional dimensions: a null list is refused, named.
    with pytest.raises(dynd.DyndError, match="1 null list.*first at row 2"):
        dynd.array(pa.array([[1, 2], [], None, [3]]))
    s = pa.array(["a", None, "ccc"])
    d = dynd.array(s)
    assert d.tolist() == ["a", None, "ccc"]
    assert pa.array(dynd.upper(d)).to_pylist() == ["A", None, "CCC"]


def test_ragged_arrays_go_out_as_arrow_lists_over_the_same_values():
    x = dynd.array([[1.0, 2.0], [], [3.0]])
    p = pa.array(x)
    assert p.type == pa.list_(pa.field("item", pa.float64(), nullable=False))
    assert p.to_pylist() == [[1.0, 2.0], [], [3.0]]
    again = dynd.array(p)
    assert values_address(pa.array(again).values) == values_address(p.values)


def test_chunked_streams_are_concatenated():
    c = pa.chunked_array([[1, 2], [3], []])
    assert dynd.array(c).tolist() == [1, 2, 3]
    one = pa.chunked_array([[4.0, 5.0]])
    assert dynd.array(one).tolist() == [4.0, 5.0]


def test_record_batches_as_records():
    b = pa.record_batch({"x": [1, 2], "y": ["a", "b"]})
    d = dynd.array(b)
    assert d.type == "2 * {x: int64, y: string}"
    assert d.x.tolist() == [1, 2]


def test_awkward_arrays_in_and_out():
    a = ak.Array([[1.5, 2.0, 3.0], [], [4.0]])
    d = dynd.array(a)
    assert d.type == "3 * var * float64"
    assert dynd.sum(d, axis=1).tolist() == ak.sum(a, axis=1).tolist()
    back = dynd.to_awkward(d)
    assert back.tolist() == a.tolist()


def test_zero_dimensional_arrays_have_no_arrow_form():
    with pytest.raises(dynd.DyndError):
        pa.array(dynd.array(1.5))


def test_polars_series_and_frames_both_ways():
    import polars as pl

    s = pl.Series("x", [[1.0, 2.0], [], [3.0]])
    d = dynd.array(s)
    assert d.type == "3 * var * float64"
    assert dynd.sum(d, axis=1).tolist() == [3.0, 0.0, 3.0]
    df = pl.DataFrame({"a": [1, 2], "b": ["x", "y"]})
    r = dynd.array(df)
    assert r.type == "2 * {a: int64, b: string}"
    assert r.b.tolist() == ["x", "y"]
    assert pl.Series(dynd.array([1.5, 2.5])).to_list() == [1.5, 2.5]
    assert pl.from_arrow(dynd.array([[1, 2], [3]])).to_list() == [[1, 2], [3]]
