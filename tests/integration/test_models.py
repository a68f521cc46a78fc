"""Typed records: dataclasses, pydantic, attrs, msgspec and TypedDict models written as records
and read back as instances, on every read path, with codecs for the types the server does not
store and errors that name the key, the field and the value."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Annotated, Any, TypedDict
from uuid import UUID, uuid4

import attrs
import msgspec
import pydantic
import pytest

from aerospike_fluent import errors
from aerospike_fluent.models import TTL, Bin, Generation, Key, codecs

from ._flavor import Flavor


class Plan(enum.Enum):
    FREE = "free"
    PRO = "pro"


@dataclass
class Address:
    city: str
    zip: str = ""


@dataclass
class User:
    id: Annotated[str, Key]
    name: str
    email: Annotated[str, Bin("mail")]
    joined: datetime
    uid: UUID
    balance: Decimal
    plan: Plan
    birthday: date | None = None
    tags: tuple[str, ...] = ()
    roles: frozenset[str] = frozenset()
    addresses: list[Address] = field(default_factory=list)
    seen: Annotated[datetime | None, codecs.DATETIME_ISO] = None
    version: Annotated[int, Generation] = 0
    ttl: Annotated[int | None, TTL] = None


class PUser(pydantic.BaseModel):
    id: Annotated[str, Key]
    name: str
    joined: datetime
    score: float = 0.0
    version: Annotated[int, Generation] = 0


@attrs.define
class AUser:
    id: Annotated[str, Key]
    name: str
    score: int = 0


class MUser(msgspec.Struct):
    id: Annotated[str, Key]
    name: str
    uid: UUID | None = None


class TUser(TypedDict):
    name: str
    score: int


def _ann() -> User:
    return User(
        id="ann",
        name="Ann",
        email="ann@example.com",
        joined=datetime(2024, 5, 1, 12, 30, 15, 123456, tzinfo=UTC),
        uid=uuid4(),
        balance=Decimal("10.25"),
        plan=Plan.PRO,
        birthday=date(1990, 2, 3),
        tags=("a", "b"),
        roles=frozenset({"admin"}),
        addresses=[Address("Paris", "75001"), Address("Lyon")],
        seen=datetime(2024, 6, 1, tzinfo=UTC),
    )


async def test_a_dataclass_round_trips_through_every_read_path(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    ann = _ann()
    await fl.run(s.put(ann))
    rec = await fl.run(s.key("ann").get())
    assert rec is not None
    assert rec["mail"] == "ann@example.com"  # the field's bin name
    assert rec["joined"] == 1714566615123456000  # UTC nanoseconds: sortable, filterable
    assert rec["uid"] == ann.uid.bytes and rec["balance"] == "10.25" and rec["plan"] == "pro"
    assert rec["seen"] == "2024-06-01T00:00:00+00:00"
    assert rec["addresses"] == [{"city": "Paris", "zip": "75001"}, {"city": "Lyon", "zip": ""}]
    assert "id" not in rec.bins and rec.user_key == "ann"  # the key field is the stored key
    expected = {**vars(ann), "version": 1}

    got = await fl.run(s.key("ann").get(as_=User))
    assert got is not None and vars(got) == expected
    rows = await fl.run(s.keys(["ann", "nobody"]).get(as_=User))
    assert rows[1] is None and rows[0] is not None and vars(rows[0]) == expected
    everyone = await fl.run(s.query().as_(User).collect())
    assert [vars(u) for u in everyone] == [expected]
    first = await fl.run(s.query().where("$.plan == 'pro'").as_(User).first())
    assert first is not None and first.addresses[1] == Address("Lyon")
    page = await fl.run(s.query().as_(User).page(10))
    assert [u.id for u in page.records] == ["ann"] and page.token is None


async def test_pydantic_attrs_msgspec_and_typeddict_models(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    joined = datetime(2023, 1, 2, tzinfo=UTC)
    await fl.run(s.put(PUser(id="p", name="Pia", joined=joined, score=1.5)))
    await fl.run(s.put(AUser("a", "Al", 3)))
    uid = uuid4()
    await fl.run(s.put(MUser("m", "Mo", uid)))
    await fl.run(s.key("t").put(TUser(name="Ty", score=4)))
    p = await fl.run(s.key("p").get(as_=PUser))
    assert p == PUser(id="p", name="Pia", joined=joined, score=1.5, version=1)
    assert await fl.run(s.key("a").get(as_=AUser)) == AUser("a", "Al", 3)
    assert await fl.run(s.key("m").get(as_=MUser)) == MUser("m", "Mo", uid)
    assert await fl.run(s.key("t").get(as_=TUser)) == {"name": "Ty", "score": 4}


async def test_an_operate_chain_reads_into_a_model(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.put(AUser("a", "Al", 1)))
    got = await fl.run(s.key("a").add("score", 2).read("name", "score").execute(as_=AUser))
    assert got == AUser("a", "Al", 3)


async def test_writes_of_a_model_follow_their_verb(fl: Flavor, set_name: str) -> None:
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.insert(AUser("a", "Al")))
    with pytest.raises(errors.RecordExistsError):
        await fl.run(s.insert(AUser("a", "Al")))
    await fl.run(s.update(AUser("a", "Al", 7)))
    with pytest.raises(errors.RecordNotFoundError):
        await fl.run(s.update(AUser("b", "Bo")))
    await fl.run(s.put_many([AUser("c", "Cy"), AUser("d", "Di")]))
    found = await fl.run(s.keys(["a", "c", "d"]).get(as_=AUser))
    assert found == [AUser("a", "Al", 7), AUser("c", "Cy"), AUser("d", "Di")]
    with pytest.raises(errors.InvalidArgumentError, match=r"AUser\.id is 'a' but the record's key"):
        await fl.run(s.key("zzz").put(AUser("a", "Al")))


async def test_a_record_that_does_not_fit_names_key_field_and_value(
    fl: Flavor, set_name: str
) -> None:
    s = fl.db.namespace("test").set(set_name)
    await fl.run(s.key("x").put({"name": "X", "score": "high", "joined": 5}))
    with pytest.raises(errors.ModelError) as raised:
        await fl.run(s.key("x").get(as_=AUser))
    text = str(raised.value)
    assert f"test/{set_name}/'x'" in text and "'score'" in text and "str 'high'" in text
    with pytest.raises(errors.ModelError) as from_pydantic:
        await fl.run(s.key("x").get(as_=PUser))
    assert isinstance(from_pydantic.value.__cause__, pydantic.ValidationError)
    assert "'x'" in str(from_pydantic.value) and "score" in str(from_pydantic.value)
    await fl.run(s.key("y").put({"name": "Y"}))
    with pytest.raises(errors.ModelError, match="field 'email' \\(bin 'mail'\\) is missing"):
        await fl.run(s.key("y").get(as_=User))


def test_models_are_checked_when_first_used() -> None:
    @dataclass
    class Long:
        a_very_long_field_name: int

    @dataclass
    class Naive:
        at: datetime

    from aerospike_fluent.models import mapping_of

    with pytest.raises(errors.InvalidArgumentError, match=r"a_very_long_field_name.*15 bytes"):
        mapping_of(Long, codecs.DEFAULT)
    with pytest.raises(errors.InvalidArgumentError, match="has no timezone"):
        mapping_of(Naive, codecs.DEFAULT).encode(Naive(datetime(2024, 1, 1)))

    class Opaque:
        pass

    @dataclass
    class Holder:
        thing: Any

    with pytest.raises(errors.InvalidTypeError, match=r"Holder\.thing: cannot store .*Opaque"):
        mapping_of(Holder, codecs.DEFAULT).encode(Holder(Opaque()))


async def test_numpy_and_pandas_values_are_stored_as_plain_values(
    fl: Flavor, set_name: str
) -> None:
    np = pytest.importorskip("numpy")
    pd = pytest.importorskip("pandas")

    @dataclass
    class Reading:
        id: Annotated[str, Key]
        count: int
        level: float
        ok: bool
        at: datetime

    s = fl.db.namespace("test").set(set_name)
    at = pd.Timestamp("2024-05-01 12:00:00.000000123", tz="UTC")
    await fl.run(s.put(Reading("r", np.int64(7), np.float32(0.5), np.bool_(True), at)))
    rec = await fl.run(s.key("r").get())
    assert rec is not None
    assert rec.bins == {"count": 7, "level": 0.5, "ok": True, "at": 1714564800000000123}
    back = await fl.run(s.key("r").get(as_=Reading))
    assert back == Reading("r", 7, 0.5, True, datetime(2024, 5, 1, 12, tzinfo=UTC))


@dataclass(frozen=True)
class Point:
    x: int
    y: int


POINT = codecs.Codec(Point, lambda p: [p.x, p.y], lambda v: Point(*v), "Point as [x, y]")


@dataclass
class Place:
    id: Annotated[str, Key]
    at: Point
    tags: set[str] = field(default_factory=set)


async def test_a_client_codec_applies_to_dict_puts_and_models(fl: Flavor, set_name: str) -> None:
    async with fl.connect(fl.seeds, codecs=[POINT]) as db:
        s = db.namespace("test").set(set_name)
        await fl.run(s.key("d").put({"at": Point(1, 2), "where": [Point(3, 4)]}))
        await fl.run(s.put(Place("p", Point(5, 6), {"x"})))
        rec = await fl.run(s.key("d").get())
        assert rec is not None and rec.bins == {"at": [1, 2], "where": [[3, 4]]}
        place = await fl.run(s.key("p").get(as_=Place))
        assert place == Place("p", Point(5, 6), {"x"})
        view = db.with_policy(total_timeout=5)  # a view keeps the client's codecs
        await fl.run(view.namespace("test").set(set_name).key("v").put({"at": Point(7, 8)}))
    s = fl.db.namespace("test").set(set_name)
    assert (await fl.run(s.key("v").get()))["at"] == [7, 8]
    with pytest.raises(errors.InvalidTypeError, match="UUID"):
        await fl.run(s.key("u").put({"id": uuid4()}))  # no codec registered: refused
    await fl.run(s.put(Place("q", Point(1, 1))))  # no codec here: a dataclass nests as a map
    assert (await fl.run(s.key("q").get()))["at"] == {"x": 1, "y": 1}
