"""dynd-rs for Python: dynamically typed n-dimensional and ragged arrays,
and the functions that run on them.

    >>> import dynd
    >>> x = dynd.array([[1.0, 2.0, 3.0], [], [4.0, 5.0]])
    >>> x.type
    '3 * var * float64'
    >>> dynd.sum(x, axis=1).tolist()
    [6.0, 0.0, 9.0]
    >>> (x * 2 + 1)[0].tolist()
    [3.0, 5.0, 7.0]
    >>> dynd.evaluate("a*b + 1", a=x, b=x).tolist()
    [[2.0, 5.0, 10.0], [], [17.0, 26.0]]

Every builtin is a function of this module under its name (``dynd.sum``,
``dynd.softmax``, ``dynd.upper``, ...; ``dynd.builtins()`` lists them);
NumPy's ufuncs and array functions run them on dynd arrays
(``np.sin(x)``, ``np.add.reduce(x, axis=1)``, ``np.sort(x)``).
NumPy arrays and Arrow data (pyarrow, Polars, DuckDB, Awkward) come in
without a copy, and go out the same way: ``np.asarray(x)``,
``pyarrow.array(x)``.
"""

from __future__ import annotations

import keyword as _keyword
import re as _re
import sys as _sys

from . import _dynd
from ._dynd import Array, Function

__version__ = "0.1.0"


class DyndError(ValueError):
    """An error of the dynd library: what was wrong, where, and what was
    expected."""


class DyndTypeError(DyndError, TypeError):
    """No signature of a function fits the arguments, or a keyword is not
    the function's."""


class DyndIndexError(DyndError, IndexError):
    """An index or axis outside the array."""


def array(obj, type=None):
    """An array of ``obj``: a dynd array, a NumPy array (a view of its
    memory), an object with Arrow's PyCapsule interface (pyarrow, Polars,
    DuckDB: a view of its buffers), an Awkward array (through Arrow), or
    nested lists, tuples, dicts and scalars (ragged lists give ``var``
    dimensions, ``None`` NA); of ``type`` (a datashape string) if given,
    else of the type inferred."""
    if _is_awkward(obj):
        import awkward as ak

        obj = ak.to_arrow(obj, extensionarray=False)
    return _dynd.array(obj, type)


asarray = array


def _is_awkward(obj):
    return type(obj).__module__.split(".")[0] == "awkward"


def to_numpy(x):
    """``x`` as a NumPy array: a read-only view of a dense array of
    numbers; a copy for strings and NA; an error for ragged data."""
    import numpy as np

    return np.asarray(x)


def to_arrow(x):
    """``x`` as a pyarrow array over dynd's buffers."""
    import pyarrow as pa

    return pa.array(x)


def to_awkward(x):
    """``x`` as an Awkward array (through Arrow, without copying
    buffers)."""
    import awkward as ak

    return ak.from_arrow(to_arrow(x), generate_bitmasks=True)


def type_of(text):
    """The canonical text of a datashape (``"3 * var * float64"``), or a
    ``DyndError`` saying what is wrong with it."""
    return _dynd.parse_type(text)


def builtins():
    """The names of every builtin function, sorted."""
    return [name for name, _ in _dynd.builtins()]


_NAME = _re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def evaluate(ex, local_dict=None, global_dict=None, out=None, **inputs):
    """``ex`` (``"a*b + c*d - e"``, with the builtins by name and NumPy's
    operators and subscripts) over the named arrays, evaluated as one
    fused pass where it can be — numexpr's interface. The inputs are the
    keyword arguments, else ``local_dict`` and ``global_dict``, else the
    caller's variables, as numexpr finds them; ``out=`` writes the result
    into an existing array."""
    if not inputs:
        if local_dict is None and global_dict is None:
            frame = _sys._getframe(1)
            local_dict, global_dict = frame.f_locals, frame.f_globals
        scopes = [d for d in (local_dict, global_dict) if d is not None]
        for name in _NAME.findall(_strip_strings(ex)):
            if name in inputs:
                continue
            for scope in scopes:
                if name in scope and not callable(scope[name]):
                    inputs[name] = scope[name]
                    break
    return _dynd.evaluate(ex, inputs, out)


def _strip_strings(text):
    """``text`` without its string literals (their words are no names)."""
    return _re.sub(r'"(?:[^"\\]|\\.)*"', '""', text)


# NumPy's ufuncs whose dynd builtin has another name (NumPy 1's name of
# `divide`).
_UFUNC_NAMES = {"true_divide": "divide"}

# NumPy ufuncs of other extensions and the functions that run them on
# dynd arrays (`dynd_python::ufunc!` registers its ufuncs here).
_USER_UFUNCS = {}


def register_ufunc(ufunc, function):
    """Makes the NumPy ufunc ``ufunc`` run ``function`` when its arguments
    include dynd arrays: ``function`` takes the arguments (as arrays with
    Arrow's PyCapsule interface or NumPy's array interface) and returns an
    array of either kind. The ufuncs a Rust extension exports with
    ``dynd_python::ufunc!`` register themselves."""
    _USER_UFUNCS[ufunc] = function


def _array_ufunc(self, ufunc, method, inputs, kwargs):
    user = _USER_UFUNCS.get(ufunc)
    if user is not None:
        return _user_ufunc(user, ufunc, method, inputs, kwargs)
    name = _UFUNC_NAMES.get(ufunc.__name__, ufunc.__name__)
    try:
        f = _dynd.function(name)
    except DyndTypeError:
        return NotImplemented
    out = kwargs.pop("out", None)
    if isinstance(out, tuple):
        if len(out) != 1:
            return NotImplemented
        out = out[0]
    where = kwargs.pop("where", True)
    dtype = kwargs.pop("dtype", None)
    kwargs.pop("casting", None)
    kwargs.pop("order", None)
    kwargs.pop("subok", None)
    if dtype is not None:
        import numpy as np

        t = np.dtype(dtype).name
        inputs = tuple(array(i).cast(_with_dtype(array(i), t)) for i in inputs)
    if where is not True:
        if out is None:
            raise DyndTypeError(f"{name}: where= needs out= (the elements it leaves alone)")
        r = _ufunc_method(f, method, inputs, kwargs, None)
        if r is NotImplemented:
            return r
        _dynd.assign(out, _dynd.function("where")(where, r, out))
        return out
    return _ufunc_method(f, method, inputs, kwargs, out)


def _user_ufunc(function, ufunc, method, inputs, kwargs):
    """A registered ufunc called with dynd arrays: its dynd function."""
    if method != "__call__" or kwargs.get("where", True) is not True:
        return NotImplemented
    out = kwargs.pop("out", None)
    if isinstance(out, tuple):
        (out,) = out
    unknown = set(kwargs) - {"where", "casting", "order", "subok", "dtype"}
    if unknown or kwargs.get("dtype") is not None:
        return NotImplemented
    r = array(function(*[array(i) for i in inputs]))
    if out is not None:
        return _dynd.assign(out, r)
    return r


# The builtins that are a ufunc's `reduce` and `accumulate`.
_REDUCTIONS = {
    "reduce": {
        "add": "sum",
        "multiply": "prod",
        "maximum": "max",
        "minimum": "min",
        "logical_and": "all",
        "logical_or": "any",
    },
    "accumulate": {"add": "cumsum", "multiply": "cumprod"},
}


def _ufunc_method(f, method, inputs, kwargs, out):
    """NumPy's ufunc ``method`` as the dynd function ``f`` runs it."""
    if out is not None:
        kwargs["out"] = out
    if method == "__call__":
        return f(*inputs, **kwargs)
    if method in ("reduce", "accumulate"):
        (x,) = inputs
        kwargs.setdefault("axis", 0)
        if kwargs.get("axis") is None:
            kwargs.pop("axis")
        # The named reductions run over ragged dimensions too.
        named = _REDUCTIONS[method].get(f.__name__)
        run = _dynd.function(named) if named else getattr(f, method)
        initial = kwargs.pop("initial", None)
        if initial is not None:
            kwargs.pop("out", None)
            r = f(run(x, **kwargs), initial)
            return r if out is None else _dynd.assign(out, r)
        return run(x, **kwargs)
    if method == "outer" and out is None:
        return f.outer(*inputs)
    return NotImplemented


def _with_dtype(x, dtype):
    """``x``'s type with its data type replaced by ``dtype``."""
    t = x.type
    return t[: len(t) - len(x.dtype)] + dtype


# NumPy's array functions whose dynd builtin has another name.
_FUNCTION_NAMES = {"amax": "max", "amin": "min", "round_": "round", "around": "round"}


def _array_function(self, func, types, args, kwargs):
    name = _FUNCTION_NAMES.get(func.__name__, func.__name__)
    if name in ("concatenate", "stack"):
        arrays, *rest = args
        kwargs = dict(kwargs)
        if rest:
            kwargs["axis"] = rest[0]
        if kwargs.get("out") is not None or kwargs.get("dtype") is not None:
            return NotImplemented
        kwargs.pop("out", None)
        kwargs.pop("dtype", None)
        kwargs.pop("casting", None)
        try:
            f = _dynd.function(name)
        except DyndTypeError:
            return NotImplemented
        return f(*arrays, **kwargs)
    try:
        f = _dynd.function(name)
    except DyndTypeError:
        return NotImplemented
    kwargs = {k: v for k, v in kwargs.items() if v is not None}
    return f(*args, **kwargs)


_dynd.register(DyndError, DyndTypeError, DyndIndexError, _array_ufunc, _array_function)

__all__ = [
    "Array",
    "Function",
    "DyndError",
    "DyndTypeError",
    "DyndIndexError",
    "array",
    "asarray",
    "evaluate",
    "builtins",
    "to_numpy",
    "to_arrow",
    "to_awkward",
    "type_of",
    "register_ufunc",
]


def _export_builtins():
    names = set(globals())
    for name, _doc in _dynd.builtins():
        if name in names or _keyword.iskeyword(name):
            continue
        globals()[name] = _dynd.function(name)
        __all__.append(name)


_export_builtins()
del _export_builtins
