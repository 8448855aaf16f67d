"""`dynd_python::ufunc!`: the example extension's #[elemental] fns as
genuine NumPy ufuncs, and the same ufuncs over dynd's ragged arrays."""

import math

import numpy as np
import pytest

import dynd
import dynd_ufunc_example as g


def haversine(a, b):
    lat1, lon1, lat2, lon2 = map(math.radians, (a[0], a[1], b[0], b[1]))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * 6371.0 * math.asin(math.sqrt(h))


def test_they_are_numpy_ufuncs():
    for f in [g.haversine, g.rel_diff, g.row_dot, g.bigger]:
        assert isinstance(f, np.ufunc)
    assert g.haversine.signature == "(2),(2)->()"
    assert g.row_dot.signature == "(n),(n)->()"
    assert g.rel_diff.signature is None
    assert g.rel_diff.types == ["ff->f", "dd->d"]
    assert (g.rel_diff.nin, g.rel_diff.nout) == (2, 1)
    assert "float64" in g.rel_diff.__doc__


def test_numpy_broadcasts_and_resolves_types():
    x = np.array([[1.0], [2.0], [0.0]])
    y = np.array([2.0, 4.0])
    r = g.rel_diff(x, y)
    expected = np.abs(x - y) / np.maximum(np.abs(x), np.abs(y))
    np.testing.assert_allclose(r, expected)
    assert g.rel_diff(np.float32(1), np.float32(3)).dtype == np.float32
    assert g.rel_diff(1, 2).dtype == np.float64  # ints take the float64 loop


def test_generalized_ufuncs_take_core_dimensions():
    pts = np.array([[0.0, 0.0], [10.0, 10.0], [-33.9, 18.4]])
    ref = np.array([51.5, -0.1])
    np.testing.assert_allclose(g.haversine(pts, ref), [haversine(p, ref) for p in pts])
    a = np.arange(12.0).reshape(4, 3)
    np.testing.assert_allclose(g.row_dot(a, a[::-1]), np.einsum("ij,ij->i", a, a[::-1]))
    np.testing.assert_allclose(g.row_dot(a[:, ::-1], np.ones(3)), a.sum(axis=1))
    with pytest.raises(ValueError, match="core dimension"):
        g.haversine(np.zeros(3), np.zeros(2))


def test_out_where_reduce_accumulate():
    out = np.full(4, -1.0)
    r = g.rel_diff(np.arange(4.0), 1.0, out=out, where=np.array([True, False, True, False]))
    assert r is out
    np.testing.assert_allclose(out, [1.0, -1.0, 0.5, -1.0])
    x = np.arange(5.0)
    g.rel_diff(x, 2.0, out=x)  # the output is an input
    np.testing.assert_allclose(x, [1.0, 0.5, 0.0, 1 / 3, 0.5])
    m = np.array([[3, 9, 2], [1, 1, 5]])
    np.testing.assert_array_equal(g.bigger.reduce(m, axis=1), [9, 5])
    np.testing.assert_array_equal(g.bigger.reduce(m, axis=0), [3, 9, 5])
    np.testing.assert_array_equal(g.bigger.accumulate(np.array([3, 1, 7, 2])), [3, 3, 7, 7])
    np.testing.assert_array_equal(g.bigger.outer(np.array([1, 5]), np.array([3, 4])), [[3, 4], [5, 5]])


def test_strided_and_large_inputs():
    x = np.linspace(-5, 5, 100_001)
    np.testing.assert_allclose(g.rel_diff(x[::3], 1.0), np.abs(x[::3] - 1) / np.maximum(np.abs(x[::3]), 1.0))


def test_dynd_arrays_run_through_the_same_ufunc_ragged_included():
    routes = dynd.array([[[0.0, 0.0], [0.0, 90.0]], [], [[10.0, 10.0]]])
    r = g.haversine(routes, dynd.array([0.0, 90.0]))
    assert isinstance(r, dynd.Array)
    assert r.type == "3 * var * float64"
    got = r.tolist()
    assert got[1] == []
    assert got[0] == pytest.approx([haversine([0, 0], [0, 90]), 0.0])
    assert got[2] == pytest.approx([haversine([10, 10], [0, 90])])
    d = g.rel_diff(dynd.array([[1.0, 2.0], [], [3.0]]), 2.0)
    assert d.tolist() == [[0.5, 0.0], [], [1 / 3]]
    out = dynd.array([0.0, 0.0])
    g.rel_diff(dynd.array([1.0, 4.0]), dynd.array([2.0, 2.0]), out=out)
    assert out.tolist() == [0.5, 0.5]
