from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from aerospike_fluent import F, ListOrder, MapOrder, Return, _native, cdt
from aerospike_fluent._exec import Sync
from aerospike_fluent.batch import Batch
from aerospike_fluent.errors import InvalidArgumentError, InvalidTypeError
from aerospike_fluent.scopes import Namespace, RecordSet

from .recorder import Recorder

KEY = ("test", "users", "u1", None)


def test_builders_are_immutable(users: RecordSet[Sync]) -> None:
    k = users.key("u1")
    k2 = k.add("n", 1)
    assert k.ops == () and k2.ops == (("add", "n", 1),)
    assert k2.append("s", "x") is not k2
    with pytest.raises(AttributeError):
        k._key = KEY
    with pytest.raises(AttributeError):
        users._set = "x"
    q = users.query()
    assert q.where(F.bin("a") > 1).filter is not None and q.filter is None


def test_put_get_compile_to_single_calls(users: RecordSet[Sync], rec: Recorder) -> None:
    users.key("u1").put({"name": "Ann", "age": 30})
    users.key("u1").get()
    users.key("u1").get("name", "age")
    users.key("u1").get_header()
    assert [(c.method, c.args) for c in rec.calls] == [
        ("put", (KEY, {"name": "Ann", "age": 30}, None)),
        ("get", (KEY, None, False, None)),
        ("get", (KEY, ("name", "age"), False, None)),
        ("get", (KEY, None, True, None)),
    ]


def test_five_op_chain_is_one_operate(users: RecordSet[Sync], rec: Recorder) -> None:
    (
        users.key("u1")
        .add("age", 1)
        .append("log", "x")
        .prepend("log", ">")
        .bin("tags")
        .list.append("t")
        .read("age", "log")
        .execute()
    )
    assert len(rec.calls) == 1
    call = rec.calls[0]
    assert call.method == "operate"
    assert call.args[0] == KEY
    assert call.args[1] == [
        ("add", "age", 1),
        ("append", "log", "x"),
        ("prepend", "log", ">"),
        ("list_append", "tags", (), (0, 0), "t"),
        ("read", "age"),
        ("read", "log"),
    ]


def test_put_with_pending_ops_is_one_operate(users: RecordSet[Sync], rec: Recorder) -> None:
    users.key("u1").add("n", 1).insert({"a": 1})
    (call,) = rec.calls
    assert call.method == "operate"
    assert call.args[1] == [("write", "a", 1), ("add", "n", 1)]
    assert isinstance(call.args[2], _native.Policy)


def test_nested_cdt_contexts(users: RecordSet[Sync]) -> None:
    chain = (
        users.key("u1")
        .bin("prefs")
        .map.put("theme", "dark")
        .bin("doc")
        .map.at_key("a")
        .list.at_index(0)
        .map.put("k", 1, order=MapOrder.KEY_ORDERED)
        .bin("doc")
        .map.at_key_create("b", MapOrder.KEY_ORDERED)
        .list.get_by_rank_range(0, 2, Return.COUNT, inverted=True)
        .bin("l")
        .list.at_index_create(3, ListOrder.ORDERED, True)
        .list.remove_by_value_range(1, 5)
    )
    assert chain.ops == (
        ("map_put", "prefs", (), (0, 0), "theme", "dark"),
        ("map_put", "doc", (("map_key", "a"), ("list_index", 0)), (1, 0), "k", 1),
        (
            "list_get_by_rank_range_count",
            "doc",
            (("map_key_create", "b", 1),),
            0,
            2,
            5 | 0x10000,
        ),
        ("list_remove_by_value_range", "l", (("list_index_create", 3, 1, True),), 0, 1, 5),
    )


def test_many_keys_is_one_batch(users: RecordSet[Sync], rec: Recorder) -> None:
    rec.reply = lambda call: []
    users.keys(range(1000)).add("n", 1).read("n").execute()
    users.keys(["a", "b"]).get("x")
    users.keys(["a"]).delete(durable=True)
    assert [c.method for c in rec.calls] == ["batch", "batch", "batch"]
    rows = rec.calls[0].args[0]
    assert len(rows) == 1000
    assert rows[7][:3] == ("write", ("test", "users", 7, None), [("add", "n", 1), ("read", "n")])
    assert isinstance(rows[7][3], _native.Policy)  # reads answer alone: respond_all_ops off
    assert rec.calls[1].args[0][1] == ("read", ("test", "users", "b", None), ["x"], False, None)
    delete_row = rec.calls[2].args[0][0]
    assert delete_row[0] == "delete" and isinstance(delete_row[2], _native.Policy)


def test_mixed_batch_rows(ns: Namespace[Sync], rec: Recorder) -> None:
    rec.reply = lambda call: []
    users = ns.set("users")
    b = Batch(rec).put(users.key("u1"), {"a": 1}).get(users.key("u2"), "a")
    b = b.delete(users.key("u3")).operate(users.key("u4").add("n", 2))
    b = b.udf(users.key("u5"), "mod", "fn", 1, "x")
    assert len(b) == 5
    b.execute()
    (call,) = rec.calls
    assert [row[0] for row in call.args[0]] == ["write", "read", "delete", "write", "udf"]
    assert call.args[0][4][2:5] == ("mod", "fn", [1, "x"])
    with pytest.raises(InvalidArgumentError):
        Batch(rec).operate(users.key("u1"))


def test_where_and_options_build_a_policy(users: RecordSet[Sync], rec: Recorder) -> None:
    users.key("u1").where("$.age > 1").timeout(0.5, retries=1).put({"a": 1}, ttl=timedelta(hours=1))
    policy = rec.calls[0].args[2]
    assert isinstance(policy, _native.Policy)


def test_query_plan(users: RecordSet[Sync], ns: Namespace[Sync]) -> None:
    q = users.query().where(F.bin("age") > 25).select("name").limit(10)
    assert q.filter == ("gt", ("int_bin", "age"), ("int_val", 25))
    age = users.query().where_index("age").between(20, 30).index_filter
    assert age == ("range", "age", 20, 30, None, None)
    name = users.query().where_index("name").equals("Ann").index_filter
    assert name == ("equal", "name", "Ann", None, None)
    tags = users.query().where_index("tags", collection="list").contains("x")
    assert tags.index_filter == ("equal", "tags", "x", "list", None)
    first = users.query().where_index("m", context=[cdt.ctx_map_key("a")]).between(1, 2)
    assert first.index_filter == ("range", "m", 1, 2, None, (cdt.ctx_map_key("a"),))
    by_name = users.query().where_index(index="ix").within_radius(1, 2, 30)
    assert by_name.index_filter == ("geo_radius", ("index", "ix"), 1.0, 2.0, 30.0, None, None)
    by_exp = users.query().where_index(abs(F.int_bin("a"))).equals(3).index_filter
    assert by_exp is not None and by_exp[1] == ("exp", abs(F.int_bin("a")).compile())
    with pytest.raises(InvalidArgumentError, match="a bin name, an expression or index="):
        users.query().where_index("a", index="ix")
    with pytest.raises(InvalidArgumentError, match="latitude"):
        users.query().where_index("loc").within_radius(0, 91, 10)
    with pytest.raises(InvalidArgumentError):
        users.query().where_index("age").between(5, 1)
    with pytest.raises(InvalidArgumentError):
        users.query().where_index("age").contains(1)
    with pytest.raises(InvalidArgumentError):
        users.query().limit(0)
    with pytest.raises(InvalidTypeError):
        users.query().resume("token")  # type: ignore[arg-type]
    assert repr(ns.query()) == "Query('test', '')"


@pytest.mark.parametrize(
    ("build", "error"),
    [
        (lambda ns: ns.set(""), InvalidArgumentError),
        (lambda ns: ns.set("s" * 64), InvalidArgumentError),
        (lambda ns: ns.set(1), InvalidTypeError),
        (lambda ns: ns.key(True), InvalidTypeError),
        (lambda ns: ns.key(2**64), InvalidArgumentError),
        (lambda ns: ns.key(1.5), InvalidTypeError),
        (lambda ns: ns.digest(b"short"), InvalidArgumentError),
        (lambda ns: ns.keys("abc"), InvalidTypeError),
        (lambda ns: ns.key("k").bin("b" * 16), InvalidArgumentError),
        (lambda ns: ns.key("k").bin(""), InvalidArgumentError),
        (lambda ns: ns.key("k").bin("a").set(object()), InvalidTypeError),
        (lambda ns: ns.key("k").bin("a").set({1.5: "x"}), InvalidTypeError),
        (lambda ns: ns.key("k").bin("a").add("1"), InvalidTypeError),
        (lambda ns: ns.key("k").bin("a").append(1), InvalidTypeError),
        (lambda ns: ns.key("k").bin("a").list.at_index("0"), InvalidTypeError),
        (lambda ns: ns.key("k").bin("a").map.put(1.5, 1), InvalidTypeError),
        (lambda ns: ns.key("k").put({}), InvalidArgumentError),
        (lambda ns: ns.key("k").put({"a": 2**63}), InvalidArgumentError),
        (lambda ns: ns.key("k").put({"a": {1, 2}}), InvalidTypeError),
        (lambda ns: ns.key("k").put({"a": 1}, ttl=-3), InvalidArgumentError),
        (lambda ns: ns.key("k").put({"a": 1}, ttl=2**32), InvalidArgumentError),
        (lambda ns: ns.key("k").put({"a": 1}, ttl=timedelta(seconds=1.5)), InvalidArgumentError),
        (lambda ns: ns.key("k").put({"a": 1}, generation=-1), InvalidArgumentError),
        (lambda ns: ns.key("k").timeout(-1), InvalidArgumentError),
        (lambda ns: ns.key("k").where(F.bin("a") + 1), InvalidArgumentError),
        (lambda ns: ns.key("k").where(42), InvalidTypeError),
        (lambda ns: ns.key("k").execute(), InvalidArgumentError),
        (lambda ns: ns.key("k").execute(exists="sometimes"), InvalidArgumentError),
        (lambda ns: ns.key("k").add("a", 1).exists(), InvalidArgumentError),
        (lambda ns: ns.key("k").udf("", "f"), InvalidArgumentError),
        (lambda ns: ns.set("s").create_index("a", "date"), InvalidArgumentError),
    ],
)
def test_bad_input_raises_before_any_call(
    ns: Namespace[Sync], rec: Recorder, build: Any, error: type[Exception]
) -> None:
    with pytest.raises(error):
        build(ns)
    assert rec.calls == []


def test_namespace_name_limits(rec: Recorder) -> None:
    with pytest.raises(InvalidArgumentError):
        Namespace(rec, "n" * 32)
    with pytest.raises(InvalidArgumentError):
        Namespace(rec, "")
    assert Namespace(rec, "n" * 31).name == "n" * 31
    assert Namespace(rec, "t").set("é" * 31).name == "é" * 31  # 62 bytes
    with pytest.raises(InvalidArgumentError):
        Namespace(rec, "t").set("é" * 32)  # 64 bytes


def test_admin_calls(users: RecordSet[Sync], rec: Recorder) -> None:
    rec.reply = lambda call: {} if call.method == "info" else None  # no index exists yet
    assert users.create_index("age") == "users_age_numeric"
    users.drop_index("users_age_numeric")
    users.truncate()
    assert [(c.method, c.args) for c in rec.calls] == [
        ("info", ("sindex-list:namespace=test", None)),
        (
            "create_index",
            ("test", "users", "age", "users_age_numeric", "numeric", None, None, None),
        ),
        ("drop_index", ("test", "users", "users_age_numeric")),
        ("truncate", ("test", "users", 0)),
    ]


def test_retry_writes_reaches_the_native_policy(
    users: RecordSet[Sync], rec: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[dict[str, Any]] = []

    def fake_policy(**kw: Any) -> dict[str, Any]:
        seen.append(kw)
        return kw

    monkeypatch.setattr(_native, "Policy", fake_policy)
    users.key("u1").timeout(retries=3, retry_writes=True).put({"a": 1})
    users.key("u1").timeout(retries=3).put({"a": 1})
    users.key("u1").timeout(retry_writes=True).delete()
    assert [(kw["max_retries"], kw["retry_writes"]) for kw in seen] == [
        (3, True),
        (3, None),
        (None, True),
    ]
    assert users.key("u1").timeout().put({"a": 1}) is None
    assert rec.calls[-1].args[2] is None  # all defaults: no policy object at all
    with pytest.raises(InvalidTypeError):
        users.key("u1").timeout(retry_writes=1)  # type: ignore[arg-type]
