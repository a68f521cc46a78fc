"""The official C client's security administration against an Enterprise embedded server with
users: the answers and result codes a real Enterprise node gives."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import aerospike
import pytest
from aerospike import exception as ex

from aerospike_fluent.server import EmbeddedServer

ADMIN, ADMIN_PASSWORD = "admin", "admin-secret"
PREDEFINED = [
    "data-admin", "read", "read-write", "read-write-udf", "sindex-admin",
    "sys-admin", "truncate", "udf-admin", "user-admin", "write",
]  # fmt: skip


@pytest.fixture(scope="module")
def secured() -> Iterator[tuple[str, int]]:
    with EmbeddedServer(edition="enterprise", users={ADMIN: ADMIN_PASSWORD}) as server:
        yield server.host, server.port


def login(address: tuple[str, int], lua_path: Path, user: str, password: str) -> Any:
    config: dict[str, Any] = {"hosts": [address], "user": user, "password": password}
    config["lua"] = {"user_path": str(lua_path)}
    return aerospike.client(config).connect()


@pytest.fixture
def admin(secured: tuple[str, int], lua_path: Path) -> Iterator[Any]:
    c = login(secured, lua_path, ADMIN, ADMIN_PASSWORD)
    try:
        yield c
    finally:
        c.close()


def unique(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:8]}"


def test_users_are_created_queried_and_dropped(admin: Any) -> None:
    name = unique("bob")
    admin.admin_create_user(name, "pw-1", ["read"])
    info = admin.admin_query_user_info(name)
    assert info["roles"] == ["read"] and info["conns_in_use"] == 0
    admin.admin_grant_roles(name, ["write"])
    admin.admin_revoke_roles(name, ["read"])
    assert admin.admin_query_users_info()[name]["roles"] == ["write"]
    assert sorted(admin.admin_query_users_info()[ADMIN]["roles"]) == PREDEFINED
    admin.admin_drop_user(name)
    with pytest.raises(ex.InvalidUser) as caught:
        admin.admin_query_user_info(name)
    assert caught.value.code == 60


def test_roles_keep_privileges_allowlist_and_quotas(admin: Any) -> None:
    role, set_name = unique("role"), unique("s")
    scoped = {"code": aerospike.PRIV_READ_WRITE, "ns": "test", "set": set_name}
    admin.admin_create_role(role, [scoped], whitelist=["10.0.0.0/8"], read_quota=5, write_quota=6)
    got = admin.admin_get_role(role)
    assert got == {
        "privileges": [scoped],
        "whitelist": ["10.0.0.0/8"],
        "read_quota": 5,
        "write_quota": 6,
    }
    admin.admin_grant_privileges(role, [{"code": aerospike.PRIV_SINDEX_ADMIN}])
    admin.admin_revoke_privileges(role, [scoped])
    admin.admin_set_whitelist(role, [])
    admin.admin_set_quotas(role, 7, 8)
    got = admin.admin_get_role(role)
    assert got["privileges"] == [{"ns": "", "set": "", "code": aerospike.PRIV_SINDEX_ADMIN}]
    assert (got["whitelist"], got["read_quota"], got["write_quota"]) == ([], 7, 8)
    assert set(PREDEFINED) | {role} <= set(admin.admin_get_roles())
    admin.admin_drop_role(role)
    assert role not in admin.admin_get_roles()


def test_a_read_user_is_refused_writes_with_role_violation(
    admin: Any, secured: tuple[str, int], lua_path: Path
) -> None:
    name, role, set_name = unique("reader"), unique("role"), unique("s")
    admin.admin_create_user(name, "pw-2", ["read"])
    admin.put(("test", set_name, 1), {"a": 1})
    reader = login(secured, lua_path, name, "pw-2")
    try:
        assert reader.get(("test", set_name, 1))[2] == {"a": 1}
        with pytest.raises(ex.RoleViolation) as caught:
            reader.put(("test", set_name, 1), {"a": 2})
        assert caught.value.code == 81
        scoped = {"code": aerospike.PRIV_WRITE, "ns": "test", "set": set_name}
        admin.admin_create_role(role, [scoped])
        admin.admin_grant_roles(name, [role])
        reader.put(("test", set_name, 1), {"a": 2})
        with pytest.raises(ex.RoleViolation):
            reader.put(("test", set_name + "x", 1), {"a": 2})
        with pytest.raises(ex.RoleViolation):
            reader.admin_create_user(unique("eve"), "pw", ["read"])
        with pytest.raises(ex.RoleViolation):
            reader.truncate("test", set_name, 0)
        assert admin.admin_query_user_info(name)["conns_in_use"] >= 1
    finally:
        reader.close()
    assert admin.get(("test", set_name, 1))[2] == {"a": 2}


def test_refusals_carry_the_real_codes(admin: Any) -> None:
    name, role = unique("dup"), unique("role")
    admin.admin_create_user(name, "pw", ["read"])
    read = [{"code": aerospike.PRIV_READ}]
    admin.admin_create_role(role, read)
    cases: list[tuple[Callable[[], object], type[ex.AerospikeError], int]] = [
        (lambda: admin.admin_create_user(name, "pw", ["read"]), ex.UserExistsError, 61),
        (lambda: admin.admin_create_user(unique("u"), "pw", ["nope"]), ex.InvalidRole, 70),
        (lambda: admin.admin_drop_user(unique("none")), ex.InvalidUser, 60),
        (lambda: admin.admin_create_role(role, read), ex.RoleExistsError, 71),
        (lambda: admin.admin_drop_role(unique("none")), ex.InvalidRole, 70),
        (lambda: admin.admin_grant_roles(name, ["nope"]), ex.InvalidRole, 70),
        (lambda: admin.admin_set_whitelist(role, ["bad"]), ex.AdminError, 73),
        (lambda: admin.admin_create_role(unique("r"), [{"code": 99}]), ex.InvalidPrivilege, 72),
    ]  # fmt: skip
    for call, kind, code in cases:
        with pytest.raises(kind) as caught:
            call()
        assert caught.value.code == code


def test_a_login_from_outside_the_allowlist_is_refused(
    admin: Any, secured: tuple[str, int], lua_path: Path
) -> None:
    name, role = unique("far"), unique("role")
    admin.admin_create_role(role, [{"code": aerospike.PRIV_READ}], whitelist=["10.0.0.0/8"])
    admin.admin_create_user(name, "pw-5", [role])
    with pytest.raises(ex.AerospikeError) as caught:
        login(secured, lua_path, name, "pw-5")
    assert caught.value.code == 82
    admin.admin_set_whitelist(role, ["127.0.0.1"])
    login(secured, lua_path, name, "pw-5").close()
