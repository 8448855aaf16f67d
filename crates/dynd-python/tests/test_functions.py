"""The builtins as module functions: keywords, operators, methods,
reductions over ragged rows, strings, and errors at the boundary."""

import math

import awkward as ak
import numpy as np
import pytest

import dynd

RAGGED = [[1.5, 2.0, 3.0], [], [4.0, -5.0], [6.0]]


def test_every_builtin_is_a_module_function():
    names = dynd.builtins()
    assert len(names) > 200
    for name in ["add", "sum", "softmax", "upper", "groupby", "year", "sort", "dictionary_encode"]:
        assert name in names
        assert isinstance(getattr(dynd, name), dynd.Function)
    assert dynd.add.__name__ == "add"
    assert "(" in dynd.add.__doc__ and dynd.add.signatures


def test_per_row_reductions_match_awkward():
    x, a = dynd.array(RAGGED), ak.Array(RAGGED)
    assert dynd.sum(x, axis=1).tolist() == ak.sum(a, axis=1).tolist()
    assert dynd.max(x, axis=1).tolist() == ak.max(a, axis=1).tolist()
    assert dynd.count(x, axis=1).tolist() == ak.count(a, axis=1).tolist()
    # An empty row has no mean: NA in dynd, NaN in Awkward.
    means = ak.mean(a, axis=1).tolist()
    assert dynd.mean(x, axis=1).tolist() == [None if m != m else m for m in means]
    assert dynd.argmax(x, axis=1).tolist() == ak.argmax(a, axis=1).tolist()
    assert dynd.sort(x, axis=-1).tolist() == ak.sort(a, axis=-1).tolist()
    s = dynd.softmax(x, axis=-1).tolist()
    e = ak.softmax(a, axis=-1).tolist()
    for row_s, row_e in zip(s, e):
        assert row_s == pytest.approx(row_e)
    assert x.sum(axis=1).tolist() == [6.5, 0.0, -1.0, 6.0]
    assert x.max(axis=1).tolist() == [3.0, None, 4.0, 6.0]


def test_methods_take_the_builtins_keywords():
    n = np.arange(6.0).reshape(2, 3)
    d = dynd.array(n)
    assert d.sum().item() == 15.0
    assert d.sum(axis=0).tolist() == n.sum(axis=0).tolist()
    assert d.sum(axis=1, keepdims=True).tolist() == n.sum(axis=1, keepdims=True).tolist()
    assert d.mean(axis=None).item() == n.mean()
    assert d.std(axis=1).tolist() == pytest.approx(n.std(axis=1).tolist())
    assert d.argmin(axis=1).tolist() == [0, 0]
    assert d.cumsum(axis=1).tolist() == n.cumsum(axis=1).tolist()


def test_operators_follow_numpy():
    a, b = np.array([1.0, -2.0, 3.0]), np.array([2.0, 2.0, 2.0])
    x, y = dynd.array(a), dynd.array(b)
    for got, want in [
        (x + y, a + b), (x - y, a - b), (x * y, a * b), (x / y, a / b),
        (x // y, a // b), (x % y, a % b), (x ** y, a ** b), (-x, -a), (abs(x), abs(a)),
        (1 + x, 1 + a), (1 - x, 1 - a), (2 * x, 2 * a), (1 / x, 1 / a),
        (x < y, a < b), (x <= 1, a <= 1), (x > y, a > b), (x >= 3, a >= 3), (x == 3, a == 3), (x != 3, a != 3),
    ]:
        np.testing.assert_allclose(np.asarray(got), want)
    i, j = dynd.array([12, 5]), dynd.array([10, 3])
    assert (i & j).tolist() == [8, 1]
    assert (i | j).tolist() == [14, 7]
    assert (i ^ j).tolist() == [6, 6]
    assert (i << 1).tolist() == [24, 10]
    assert (i >> 1).tolist() == [6, 2]
    assert (~dynd.array([True, False])).tolist() == [False, True]


def test_python_numbers_are_weak_scalars():
    x = dynd.array([1.0, 2.0], type="2 * float32")
    assert (x * 2.0).type == "2 * float32"
    assert (x + 1).type == "2 * float32"
    assert dynd.multiply(x, 3).type == "2 * float32"
    i = dynd.array([1, 2], type="2 * int8")
    assert (i + 1).type == "2 * int8"


def test_strings():
    s = dynd.array(["Bo", "al", None, "Cy"])
    assert dynd.upper(s).tolist() == ["BO", "AL", None, "CY"]
    assert dynd.sort(s).tolist() == ["Bo", "Cy", "al", None]
    assert (s < "b").tolist() == [True, True, None, True]
    assert dynd.startswith(s, "a").tolist() == [False, True, None, False]


def test_groups_and_categories():
    v = dynd.array([12.0, 30.0, 7.0, 18.0, 25.0])
    k = dynd.array(["bo", "al", "bo", "cy", "al"])
    assert dynd.mean(dynd.groupby(v, k), axis=1).tolist() == [27.5, 9.5, 18.0]
    c = dynd.dictionary_encode(k)
    assert c.type == "5 * categorical[string]"
    assert dynd.codes(c).tolist() == [0, 1, 0, 2, 1]


def test_keywords_as_python_values():
    x = dynd.array([[1.0, 2.0], [3.0, 4.0]])
    assert dynd.sum(x, axis=(0, 1)).item() == 10.0
    assert dynd.sum(x, axis=None).item() == 10.0
    assert dynd.cast(dynd.array([1.7]), "1 * int32", errmode="nocheck").tolist() == [1]
    u = dynd.unique(dynd.array([3, 1, 3]), return_counts=True)
    assert u.tolist() == [{"values": 1, "counts": 1}, {"values": 3, "counts": 2}] or u is not None


def test_reduce_accumulate_and_outer_of_a_function():
    x = dynd.array([[1, 2], [3, 4]])
    assert dynd.add.reduce(x, axis=1).tolist() == [3, 7]
    assert dynd.add.accumulate(x, axis=1).tolist() == [[1, 3], [3, 7]]
    assert dynd.multiply.outer(dynd.array([1, 2]), dynd.array([1, 10])).tolist() == [[1, 10], [2, 20]]


def test_out_keyword():
    out = dynd.array([0.0, 0.0])
    r = dynd.add(dynd.array([1.0, 2.0]), dynd.array([3.0, 4.0]), out=out)
    assert r is out and out.tolist() == [4.0, 6.0]
    with pytest.raises(dynd.DyndTypeError, match="out= has type"):
        dynd.add(dynd.array([1.0, 2.0]), 1.0, out=dynd.array([0, 0]))


def test_errors_say_what_was_wrong():
    with pytest.raises(dynd.DyndError, match=r"cannot broadcast dimension 0 .* size 2 .* size 3"):
        dynd.add(dynd.array([1, 2]), dynd.array([1, 2, 3]))
    with pytest.raises(dynd.DyndTypeError, match="unknown keyword") as e:
        dynd.sum(dynd.array([1]), axsi=0)
    assert isinstance(e.value, TypeError)
    with pytest.raises(dynd.DyndTypeError, match="no overload"):
        dynd.sqrt(dynd.array(["a"]))
    with pytest.raises(dynd.DyndIndexError, match="axis 5"):
        dynd.sum(dynd.array([[1]]), axis=5)
    with pytest.raises(IndexError):
        dynd.array([1, 2])[5]
    with pytest.raises(dynd.DyndError, match="overflow|does not fit|out of range"):
        dynd.cast(dynd.array([300]), "1 * int8")
    with pytest.raises(dynd.DyndTypeError, match="did you mean 'mean'"):
        dynd._dynd.function("mena")


def test_large_calls_release_the_gil_and_stay_correct():
    import threading

    n = np.arange(1_000_000, dtype=np.float64)
    d = dynd.array(n)
    results = []

    def work():
        results.append(dynd.sum(dynd.sqrt(d)).item())

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    expected = float(np.sqrt(n).sum())
    assert all(math.isclose(r, expected, rel_tol=1e-12) for r in results)
