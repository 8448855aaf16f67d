"""NumPy: zero-copy in and out, and the ufunc and array-function
protocols running dynd's builtins (dense and ragged)."""

import numpy as np
import pytest

import dynd
from conftest import data_pointer

RAGGED = [[1.5, 2.0, 3.0], [], [4.0, -5.0], [6.0]]


@pytest.mark.parametrize(
    "dtype",
    ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
     "uint64", "float16", "float32", "float64", "complex64", "complex128"],
)
def test_numpy_arrays_are_shared_both_ways(dtype):
    n = (np.arange(12) % 3).astype(dtype).reshape(3, 4)
    d = dynd.array(n)
    assert d.dtype == {"complex64": "complex[float32]", "complex128": "complex[float64]"}.get(dtype, dtype)
    assert d.shape == (3, 4)
    assert d.tolist() == n.tolist()
    back = np.asarray(d)
    assert back.dtype == n.dtype
    assert data_pointer(back) == data_pointer(n)
    np.testing.assert_array_equal(back, n)


def test_strided_and_reversed_numpy_views_are_shared():
    n = np.arange(40.0).reshape(5, 8)
    for view in [n[::2, 1::3], n[::-1], n[:, ::-1], n.T, n[3]]:
        d = dynd.array(view)
        assert d.tolist() == view.tolist()
        assert data_pointer(d) == view.__array_interface__["data"][0]


def test_a_numpy_view_keeps_the_dynd_array_alive():
    d = dynd.array([1.0, 2.0, 3.0]) * 2
    n = np.asarray(d)
    del d
    assert n.tolist() == [2.0, 4.0, 6.0]
    assert not n.flags.writeable or n.base is not None


def test_a_dynd_view_keeps_the_numpy_array_alive():
    d = dynd.array(np.arange(5.0) + 1)
    assert dynd.sum(d).item() == 15.0


def test_non_native_byte_order_is_converted():
    n = np.arange(4, dtype=">i4")
    assert dynd.array(n).tolist() == [0, 1, 2, 3]


def test_numpy_strings_and_objects_convert_by_value():
    assert dynd.array(np.array(["a", "bc"])).tolist() == ["a", "bc"]
    assert dynd.array(np.array([1, None], dtype=object)).tolist() == [1, None]


def test_ragged_arrays_refuse_numpy_plainly():
    with pytest.raises(ValueError, match="ragged"):
        np.asarray(dynd.array(RAGGED))


def test_strings_and_na_go_to_numpy_by_value():
    assert np.asarray(dynd.array(["a", "bc"])).tolist() == ["a", "bc"]


@pytest.mark.parametrize("ufunc", [np.sin, np.exp, np.negative, np.sqrt, np.floor, np.isnan])
def test_unary_ufuncs_on_dense_and_ragged(ufunc):
    n = np.array([[0.5, 1.0], [2.0, 3.0]])
    np.testing.assert_allclose(np.asarray(ufunc(dynd.array(n))), ufunc(n))
    r = ufunc(dynd.array(RAGGED))
    assert isinstance(r, dynd.Array)
    with np.errstate(invalid="ignore"):
        expected = [[ufunc(v) for v in row] for row in np.array(RAGGED, dtype=object)]
    got = r.tolist()
    for row_got, row_expected in zip(got, expected):
        np.testing.assert_allclose(np.array(row_got, dtype=float), np.array(row_expected, dtype=float))


@pytest.mark.parametrize("ufunc", [np.add, np.subtract, np.multiply, np.divide, np.maximum, np.power, np.less, np.arctan2])
def test_binary_ufuncs_broadcast_as_numpy(ufunc):
    a = np.arange(6.0).reshape(2, 3) + 1
    b = np.array([0.5, 1.5, 2.5])
    r = ufunc(dynd.array(a), dynd.array(b))
    np.testing.assert_allclose(np.asarray(r), ufunc(a, b))
    # A NumPy array beside a dynd one: dynd runs it.
    r = ufunc(a, dynd.array(b))
    assert isinstance(r, dynd.Array)
    np.testing.assert_allclose(np.asarray(r), ufunc(a, b))


def test_ufuncs_over_ragged_rows_broadcast_per_row():
    x = dynd.array(RAGGED)
    y = dynd.array([10.0, 20.0, 30.0, 40.0])[:, None]
    assert np.add(x, y).tolist() == [[11.5, 12.0, 13.0], [], [34.0, 25.0], [46.0]]


def test_out_writes_into_a_dynd_array():
    out = dynd.array([0.0, 0.0, 0.0])
    r = np.add(dynd.array([1.0, 2.0, 3.0]), dynd.array([1.0, 1.0, 1.0]), out=out)
    assert r is out
    assert out.tolist() == [2.0, 3.0, 4.0]


def test_out_writes_into_a_numpy_array():
    out = np.zeros(3)
    r = np.multiply(dynd.array([1.0, 2.0, 3.0]), 2.0, out=out)
    assert r is out
    assert out.tolist() == [2.0, 4.0, 6.0]


def test_where_with_out():
    out = dynd.array([-1.0, -1.0, -1.0])
    np.add(dynd.array([1.0, 2.0, 3.0]), 1.0, out=out, where=dynd.array([True, False, True]))
    assert out.tolist() == [2.0, -1.0, 4.0]


def test_reduce_and_accumulate_over_any_axis_ragged_included():
    n = np.arange(12.0).reshape(3, 4)
    d = dynd.array(n)
    for axis in [0, 1, None]:
        np.testing.assert_allclose(np.asarray(np.add.reduce(d, axis=axis)), np.add.reduce(n, axis=axis))
        np.testing.assert_allclose(np.asarray(np.maximum.reduce(d, axis=axis)), np.maximum.reduce(n, axis=axis))
    np.testing.assert_allclose(np.asarray(np.add.accumulate(d, axis=1)), np.add.accumulate(n, axis=1))
    r = dynd.array(RAGGED)
    assert np.add.reduce(r, axis=1).tolist() == [6.5, 0.0, -1.0, 6.0]
    assert np.multiply.accumulate(r, axis=1).tolist() == [[1.5, 3.0, 9.0], [], [4.0, -20.0], [6.0]]
    assert np.add.reduce(r, axis=1, initial=10.0).tolist() == [16.5, 10.0, 9.0, 16.0]


def test_outer():
    a, b = np.array([1.0, 2.0]), np.array([10.0, 20.0, 30.0])
    np.testing.assert_allclose(np.asarray(np.multiply.outer(dynd.array(a), dynd.array(b))), np.multiply.outer(a, b))


def test_array_functions_run_dynd_builtins():
    n = np.array([[3.0, 1.0, 2.0], [9.0, 7.0, 8.0]])
    d = dynd.array(n)
    for f, kwargs in [
        (np.sort, {}),
        (np.sort, {"axis": 0}),
        (np.argsort, {}),
        (np.argmax, {"axis": 1}),
        (np.sum, {"axis": 0}),
        (np.mean, {"axis": 1}),
        (np.cumsum, {"axis": 1}),
        (np.flip, {"axis": 1}),
        (np.diff, {}),
    ]:
        r = f(d, **kwargs)
        assert isinstance(r, dynd.Array), f
        np.testing.assert_allclose(np.asarray(r), f(n, **kwargs), err_msg=f.__name__)
    r = np.concatenate([dynd.array([1, 2]), dynd.array([3])])
    assert r.tolist() == [1, 2, 3]
    r = np.sort(dynd.array([[3, 1, 2], [], [9, 8]]))
    assert r.tolist() == [[1, 2, 3], [], [8, 9]]


def test_numpy_scalars_work_as_arguments():
    assert (dynd.array([1.0, 2.0]) * np.float64(2)).tolist() == [2.0, 4.0]
    assert dynd.array([np.int32(3), np.int32(4)]).tolist() == [3, 4]


def test_numpy_views_of_dynd_memory_are_read_only():
    d = dynd.array([1.0, 2.0, 3.0]) * 2
    n = np.asarray(d)
    assert not n.flags.writeable
    with pytest.raises(ValueError):
        n[0] = 5.0


def test_the_buffer_protocol():
    d = dynd.array(np.arange(12.0).reshape(3, 4))[::2, 1:]
    m = memoryview(d)
    assert (m.format, m.shape, m.strides, m.readonly) == ("d", (2, 3), (64, 8), True)
    assert m.tolist() == [[1.0, 2.0, 3.0], [9.0, 10.0, 11.0]]
    assert memoryview(dynd.array([1 + 2j])).format == "Zd"
    with pytest.raises(BufferError, match="ragged"):
        memoryview(dynd.array([[1.0], []]))


def test_dlpack_shares_memory():
    d = dynd.array(np.arange(12.0).reshape(3, 4))[::2, 1:]
    t = np.from_dlpack(d)
    assert t.tolist() == [[1.0, 2.0, 3.0], [9.0, 10.0, 11.0]]
    assert t.__array_interface__["data"][0] == data_pointer(d)
    assert not t.flags.writeable
    assert d.__dlpack_device__() == (1, 0)
    for values in ([True, False], [1 + 2j, 3j], np.arange(5, dtype=np.int16)):
        x = dynd.array(values)
        assert np.from_dlpack(x).tolist() == np.asarray(values).tolist()
    del d
    assert t.sum() == 36.0  # the tensor keeps the dynd array alive
