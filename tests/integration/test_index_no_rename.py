"""A new name for a bin's existing index is refused, not a silent rename."""

from __future__ import annotations

import pytest

from aerospike_fluent import errors

from ._flavor import Flavor


async def test_a_second_name_for_the_same_index_is_refused(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    assert await fl.run(s.create_index("age", "numeric", name=f"{set_name}_a")) == f"{set_name}_a"
    try:
        with pytest.raises(errors.IndexAlreadyExistsError, match=f"{set_name}_a") as raised:
            await fl.run(s.create_index("age", "numeric", name=f"{set_name}_b"))
        assert raised.value.result_code == 200
        names = [i.name for i in await fl.run(fl.db.indexes("test")) if i.set == set_name]
        assert names == [f"{set_name}_a"]
        # the same name and definition again: a quiet no-op
        assert await fl.run(s.create_index("age", "numeric", name=f"{set_name}_a")) == (
            f"{set_name}_a"
        )
        # another type on the same bin is another index
        await fl.run(s.create_index("age", "string", name=f"{set_name}_s"))
        await fl.run(s.drop_index(f"{set_name}_s"))
    finally:
        await fl.run(s.drop_index(f"{set_name}_a"))
