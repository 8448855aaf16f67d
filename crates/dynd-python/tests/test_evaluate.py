"""dynd.evaluate: numexpr's interface over the fused expression."""

import numpy as np
import pytest

import dynd


def test_evaluate_matches_numpy():
    rng = np.random.default_rng(7)
    a, b, c, d, e = (rng.standard_normal(1000) for _ in range(5))
    r = dynd.evaluate("a*b + c*d - e", a=a, b=b, c=c, d=d, e=e)
    np.testing.assert_allclose(np.asarray(r), a * b + c * d - e)


def test_evaluate_finds_the_callers_variables():
    x = np.array([1.0, 2.0, 3.0])
    y = dynd.array([[1.0], [], [2.0, 3.0]])
    assert dynd.evaluate("x * 2 + 1").tolist() == [3.0, 5.0, 7.0]
    assert dynd.evaluate("sum(y, axis=1) + x").tolist() == [2.0, 2.0, 8.0]
    assert dynd.evaluate("x + 1", local_dict={"x": np.array([5.0])}).tolist() == [6.0]


def test_evaluate_into_out():
    out = dynd.array([0.0, 0.0])
    r = dynd.evaluate("a + b", a=[1.0, 2.0], b=[3.0, 4.0], out=out)
    assert r is out and out.tolist() == [4.0, 6.0]
    n = np.zeros(2)
    dynd.evaluate("a * 2", a=[1.0, 2.0], out=n)
    assert n.tolist() == [2.0, 4.0]


def test_evaluate_errors_say_where():
    with pytest.raises(dynd.DyndError, match="at byte"):
        dynd.evaluate("a +", a=[1.0])
    with pytest.raises(dynd.DyndError, match="unknown name 'b'"):
        dynd.evaluate("a + b", a=[1.0])
    with pytest.raises(dynd.DyndTypeError, match="did you mean 'mean'"):
        dynd.evaluate("mena(a)", a=[1.0])


def test_long_chains_are_bounded_not_a_crash():
    assert dynd.evaluate("+".join(["a"] * 50000), a=[1.0]).tolist() == [50000.0]
    with pytest.raises(dynd.DyndError, match="more than 100000 operators"):
        dynd.evaluate("+".join(["a"] * 100002), a=[1.0])
