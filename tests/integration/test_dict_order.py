"""A dict is written in its own order, so the same dict always makes the same request, and
ops that answer in stored order (the indexes of a key range on an unordered map) answer the
same way for the same dict, every time."""

from __future__ import annotations

import random

from aerospike_fluent import Return
from aerospike_fluent import _native as n

from ._flavor import Flavor
from ._recorder import recording


def test_a_dicts_pairs_go_out_in_its_order(server_address: tuple[str, int]) -> None:
    rng = random.Random(7)
    with recording(server_address) as rec:
        client = n.connect_blocking(n.ClientConfig(f"127.0.0.1:{rec.port}"))
        try:
            for i in range(20):
                keys = [f"k{j}" for j in range(8)]
                rng.shuffle(keys)
                rec.take()
                client.put_blocking(
                    ("test", "dict_order", i, None), {"m": dict.fromkeys(keys, 1)}, None
                )
                (sent,) = rec.take()
                where = [sent.index(k.encode()) for k in keys]
                assert where == sorted(where), keys
        finally:
            client.close()


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
