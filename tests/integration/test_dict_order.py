"""A dict is written in its own order: a map bin reads back as it was built, and ops that
answer in stored order (the indexes of a key range on an unordered map) answer the same way
for the same dict, every time."""

from __future__ import annotations

import random

from aerospike_fluent import Return

from ._flavor import Flavor


async def test_a_map_reads_back_in_the_order_it_was_written(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    rng = random.Random(7)
    for i in range(20):
        keys = [f"k{j}" for j in range(8)]
        rng.shuffle(keys)
        written = {k: n for n, k in enumerate(keys)}
        await fl.run(s.key(i).put({"m": written, "l": [written]}))
        rec = await fl.run(s.key(i).get())
        assert list(rec["m"]) == keys
        assert list(rec["l"][0]) == keys


async def test_a_key_range_answers_the_same_indexes_for_the_same_dict(
    fl: Flavor, set_name: str
) -> None:
    s = fl.db.namespace("test").set(set_name)
    answers = set()
    for i in range(12):
        await fl.run(s.key(i).put({"m": {"n": 1, "a": 2, "x": 3, "c": 4}}))
        chain = s.key(i).bin("m").map.get_by_key_range("a", None, Return.INDEX)
        rec = await fl.run(chain.execute())
        answers.add(tuple(rec["m"]))
    assert len(answers) == 1
