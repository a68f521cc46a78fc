"""Each auto-batched caller gets an error of its own, naming its own key, even where a copyreg
reducer hands copies the original's ``__dict__`` (tblib's, which importing dask installs for
every exception class defined by then)."""

from __future__ import annotations

import copyreg
from collections.abc import Iterator

import pytest

from aerospike_fluent import errors
from aerospike_fluent._autobatch_rows import _own


@pytest.fixture
def tblib_reducer() -> Iterator[None]:
    pickling = pytest.importorskip("tblib.pickling_support")
    cls = errors.KeyBusyError
    saved = copyreg.dispatch_table.get(cls)
    copyreg.dispatch_table[cls] = pickling.pickle_exception
    try:
        yield
    finally:
        if saved is None:
            del copyreg.dispatch_table[cls]
        else:
            copyreg.dispatch_table[cls] = saved


@pytest.mark.parametrize("reducer", [False, True], ids=["plain", "tblib"])
def test_each_copy_names_its_own_key(request: pytest.FixtureRequest, reducer: bool) -> None:
    if reducer:
        request.getfixturevalue("tblib_reducer")
    error = errors.KeyBusyError("key busy")
    error.key = ("test", "s", 0, None)
    copies = [_own(error, ("test", "s", i, None), False) for i in (1, 2, 3)]
    assert all(isinstance(c, errors.KeyBusyError) for c in copies)
    assert [getattr(c, "key", None) for c in copies] == [("test", "s", i, None) for i in (1, 2, 3)]
    assert [getattr(c, "in_doubt", None) for c in copies] == [False] * 3
    assert error.key == ("test", "s", 0, None)
