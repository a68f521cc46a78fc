"""Security administration on ``db.admin`` against an Enterprise embedded server with users:
users, roles, privileges scoped by namespace and set, allowlists, quotas, and the codes a real
node answers. Each test runs on asyncio, trio and the sync client."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from aerospike_fluent import errors
from aerospike_fluent.admin import Privilege, Role, User
from aerospike_fluent.server import EmbeddedServer

from ._flavor import Flavor

ADMIN, ADMIN_PASSWORD = "admin", "admin-secret"


@pytest.fixture(scope="module")
def secured() -> Iterator[str]:
    """Seeds of an Enterprise server with security on and one administrator."""
    with EmbeddedServer(edition="enterprise", users={ADMIN: ADMIN_PASSWORD}) as server:
        yield server.seeds


def unique(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:8]}"


async def test_a_read_user_reads_and_its_write_is_a_role_violation(
    fl: Flavor, secured: str
) -> None:
    name, set_name = unique("reader"), unique("s")
    async with fl.connect(secured, user=ADMIN, password=ADMIN_PASSWORD) as db:
        await fl.run(db.admin.create_user(name, "pw-1", ["read"]))
        await fl.run(db.namespace("test").set(set_name).key(1).put({"a": 1}))
        [user] = await fl.run(db.admin.query_users(name))
        assert user == User(name, ("read",), (), (), 0)
    async with fl.connect(secured, user=name, password="pw-1") as reader:
        key = reader.namespace("test").set(set_name).key(1)
        assert (await fl.run(key.get()))["a"] == 1
        with pytest.raises(errors.RoleViolationError) as caught:
            await fl.run(key.put({"a": 2}))
        assert caught.value.result_code == 81
        assert isinstance(caught.value, errors.ForbiddenError)
        assert (await fl.run(key.get()))["a"] == 1


async def test_a_role_scoped_to_a_set_writes_there_only(fl: Flavor, secured: str) -> None:
    name, role, set_name = unique("writer"), unique("role"), unique("s")
    scoped = Privilege("read-write", "test", set_name)
    async with fl.connect(secured, user=ADMIN, password=ADMIN_PASSWORD) as db:
        await fl.run(
            db.admin.create_role(
                role, [scoped], allowlist=["127.0.0.1", "10.0.0.0/8"], read_quota=50
            )
        )
        await fl.run(db.admin.create_user(name, "pw-2", [role]))
        [got] = await fl.run(db.admin.query_roles(role))
        assert got == Role(role, (scoped,), ("127.0.0.1", "10.0.0.0/8"), 50, 0)
        async with fl.connect(secured, user=name, password="pw-2") as writer:
            await fl.run(writer.namespace("test").set(set_name).key(1).put({"a": 1}))
            other = writer.namespace("test").set(set_name + "x").key(1)
            with pytest.raises(errors.RoleViolationError):
                await fl.run(other.put({"a": 1}))
            await fl.run(db.admin.revoke_privileges(role, [scoped]))
            with pytest.raises(errors.RoleViolationError):
                await fl.run(writer.namespace("test").set(set_name).key(2).put({"a": 1}))
            await fl.run(db.admin.grant_privileges(role, ["read-write"]))
            await fl.run(other.put({"a": 1}))
        await fl.run(db.admin.set_allowlist(role, []))
        await fl.run(db.admin.set_quotas(role, 7, 8))
        [got] = await fl.run(db.admin.query_roles(role))
        assert got == Role(role, (Privilege("read-write"),), (), 7, 8)
        await fl.run(db.admin.drop_role(role))
        [user] = await fl.run(db.admin.query_users(name))
        assert user.roles == ()


async def test_roles_are_granted_revoked_and_passwords_changed(fl: Flavor, secured: str) -> None:
    name = unique("user")
    async with fl.connect(secured, user=ADMIN, password=ADMIN_PASSWORD) as db:
        await fl.run(db.admin.create_user(name, "old-pw", ["read"]))
        await fl.run(db.admin.grant_roles(name, ["read-write", "truncate"]))
        await fl.run(db.admin.revoke_roles(name, ["read"]))
        [user] = await fl.run(db.admin.query_users(name))
        assert user.roles == ("read-write", "truncate")
        await fl.run(db.admin.change_password(name, "new-pw"))
    with pytest.raises(errors.AuthenticationError) as caught:
        async with fl.connect(secured, user=name, password="old-pw"):
            pass
    assert caught.value.result_code == 65
    async with fl.connect(secured, user=name, password="new-pw") as own:
        await fl.run(own.admin.change_password(name, "newer-pw"))
        [me] = await fl.run(own.admin.query_users(name))
        assert me.name == name and me.connections >= 1
        with pytest.raises(errors.RoleViolationError):
            await fl.run(own.admin.create_user(unique("x"), "pw", ["read"]))
        with pytest.raises(errors.RoleViolationError):
            await fl.run(own.admin.query_users())
    async with fl.connect(secured, user=ADMIN, password=ADMIN_PASSWORD) as db:
        names = [u.name for u in await fl.run(db.admin.query_users())]
        assert ADMIN in names and name in names
        await fl.run(db.admin.drop_user(name))
        with pytest.raises(errors.AuthenticationError) as gone:
            await fl.run(db.admin.query_users(name))
        assert gone.value.result_code == 60


async def test_the_predefined_roles_are_listed(fl: Flavor, secured: str) -> None:
    async with fl.connect(secured, user=ADMIN, password=ADMIN_PASSWORD) as db:
        roles = {r.name: r for r in await fl.run(db.admin.query_roles())}
    predefined = [
        "read", "read-write", "read-write-udf", "write", "sys-admin",
        "user-admin", "data-admin", "sindex-admin", "udf-admin", "truncate",
    ]  # fmt: skip
    for name in predefined:
        assert roles[name].privileges == (Privilege(name),)  # type: ignore[arg-type]


async def test_the_server_refuses_with_the_real_codes(fl: Flavor, secured: str) -> None:
    name, role = unique("dup"), unique("role")
    async with fl.connect(secured, user=ADMIN, password=ADMIN_PASSWORD) as db:
        await fl.run(db.admin.create_user(name, "pw", []))
        await fl.run(db.admin.create_role(role, ["read"]))
        denied = errors.AccessControlError
        refusals: list[tuple[Callable[[], Any], type[errors.ServerError], int]] = [
            (lambda: db.admin.create_user(name, "pw", []), errors.AccessControlError, 61),
            (lambda: db.admin.create_user(unique("u"), "pw", ["nope"]), denied, 70),
            (lambda: db.admin.grant_roles(name, ["nope"]), errors.AccessControlError, 70),
            (lambda: db.admin.drop_user(unique("none")), errors.AuthenticationError, 60),
            (lambda: db.admin.create_role(role, ["read"]), errors.AccessControlError, 71),
            (lambda: db.admin.create_role("read", ["read"]), errors.AccessControlError, 71),
            (lambda: db.admin.drop_role(unique("none")), errors.AccessControlError, 70),
            (lambda: db.admin.drop_role("read"), errors.AccessControlError, 70),
            (lambda: db.admin.set_quotas(unique("none"), 1, 1), errors.AccessControlError, 70),
        ]  # fmt: skip
        for call, kind, code in refusals:
            with pytest.raises(kind) as caught:
                await fl.run(call())
            assert caught.value.result_code == code


async def test_bad_input_is_refused_before_sending(fl: Flavor, secured: str) -> None:
    async with fl.connect(secured, user=ADMIN, password=ADMIN_PASSWORD) as db:
        with pytest.raises(errors.InvalidArgumentError, match="read-write-udf"):
            await fl.run(db.admin.create_role(unique("r"), ["raed"]))  # type: ignore[list-item]
        with pytest.raises(errors.InvalidArgumentError, match="is global"):
            Privilege("sys-admin", "test")
        with pytest.raises(errors.InvalidArgumentError, match="a set needs its namespace"):
            Privilege("read", None, "s")
        with pytest.raises(errors.InvalidTypeError, match="roles must be a list"):
            await fl.run(db.admin.create_user(unique("u"), "pw", "read"))
        with pytest.raises(errors.InvalidTypeError, match="user must be a str, not 7"):
            await fl.run(db.admin.drop_user(7))  # type: ignore[call-overload]
        with pytest.raises(errors.InvalidTypeError, match="role must be a str"):
            await fl.run(db.admin.query_roles(b"r"))  # type: ignore[call-overload]
        with pytest.raises(errors.InvalidArgumentError, match='allowlist entry "nowhere"'):
            await fl.run(db.admin.set_allowlist(unique("r"), ["nowhere"]))
        with pytest.raises(errors.InvalidArgumentError, match="read_quota -1"):
            await fl.run(db.admin.set_quotas(unique("r"), -1, 0))
        with pytest.raises(errors.InvalidArgumentError, match='user ""'):
            await fl.run(db.admin.drop_user(""))
        with pytest.raises(errors.InvalidArgumentError, match="password must not be empty"):
            await fl.run(db.admin.create_user(unique("u"), "", []))


async def test_batch_rows_and_queries_are_checked_per_set(fl: Flavor, secured: str) -> None:
    name, role, allowed, other = unique("rows"), unique("role"), unique("s"), unique("s")
    async with fl.connect(secured, user=ADMIN, password=ADMIN_PASSWORD) as db:
        for set_name in (allowed, other):
            await fl.run(db.namespace("test").set(set_name).key(1).put({"a": 1}))
        await fl.run(db.admin.create_role(role, [Privilege("read", "test", allowed)]))
        await fl.run(db.admin.create_user(name, "pw-3", [role]))
    async with fl.connect(secured, user=name, password="pw-3") as user:
        here, there = (user.namespace("test").set(s).key(1) for s in (allowed, other))
        result = await fl.run(user.batch().get(here).get(there).put(here, {"a": 2}).execute())
        assert [row.result_code for row in result] == [0, 81, 81]
        assert isinstance(result.errors[0].error, errors.RoleViolationError)
        rows = await fl.run(user.namespace("test").set(allowed).query().collect())
        assert [r["a"] for r in rows] == [1]
        with pytest.raises(errors.RoleViolationError):
            await fl.run(user.namespace("test").set(other).query().collect())
        with pytest.raises(errors.RoleViolationError):
            await fl.run(user.namespace("test").set(allowed).truncate())


async def test_an_allowlist_without_this_address_refuses_the_login(
    fl: Flavor, secured: str
) -> None:
    name, role = unique("far"), unique("role")
    async with fl.connect(secured, user=ADMIN, password=ADMIN_PASSWORD) as db:
        await fl.run(db.admin.create_role(role, ["read"], allowlist=["10.0.0.0/8"]))
        await fl.run(db.admin.create_user(name, "pw-4", [role]))
        with pytest.raises(errors.ForbiddenError) as caught:
            async with fl.connect(secured, user=name, password="pw-4"):
                pass
        assert caught.value.result_code == 82
        await fl.run(db.admin.set_allowlist(role, ["10.0.0.0/8", "127.0.0.0/8"]))
        async with fl.connect(secured, user=name, password="pw-4") as near:
            assert await fl.run(near.namespace("test").set(role).key(1).get()) is None
