"""The package itself: stubs, docstrings, exceptions."""

from pathlib import Path

import dynd
from dynd import _stubs


def test_the_committed_stubs_are_what_the_builtins_table_gives():
    path = Path(dynd.__file__).with_name("__init__.pyi")
    assert path.read_text() == _stubs.render(), (
        "stale stubs: run `python -m dynd._stubs > crates/dynd-python/python/dynd/__init__.pyi`"
    )


def test_functions_carry_their_docs_and_signatures():
    assert "Signatures:" in dynd.sqrt.__doc__
    assert "(float64) -> float64" in dynd.sqrt.signatures
    assert repr(dynd.add) == "<dynd function add>"


def test_the_exceptions_are_value_type_and_index_errors():
    assert issubclass(dynd.DyndError, ValueError)
    assert issubclass(dynd.DyndTypeError, TypeError)
    assert issubclass(dynd.DyndIndexError, IndexError)
    assert issubclass(dynd.DyndTypeError, dynd.DyndError)
