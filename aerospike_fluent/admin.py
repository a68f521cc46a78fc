"""Security administration (``db.admin``): users, roles, privileges, allowlists and quotas.

Needs a node with security on (Enterprise) and a user holding ``user-admin``; any user may
query itself and change its own password. Arguments are checked before anything is sent
(``InvalidArgumentError`` naming what was wrong); the node's refusals raise
``AccessControlError`` (a user or role that exists, an unknown role, a bad privilege),
``AuthenticationError`` (an unknown user) or ``RoleViolationError`` (not allowed).
"""

from __future__ import annotations

from collections.abc import Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, get_args, overload

from aerospike_fluent import _validate
from aerospike_fluent._exec import Async, Call, Executor, M, Sync, discard
from aerospike_fluent.errors import InvalidArgumentError, InvalidTypeError

PrivilegeCode = Literal[
    "user-admin",
    "sys-admin",
    "data-admin",
    "udf-admin",
    "sindex-admin",
    "read",
    "read-write",
    "read-write-udf",
    "write",
    "truncate",
]
"""The privilege names; the first five are global (no namespace or set)."""

PRIVILEGE_CODES: tuple[PrivilegeCode, ...] = get_args(PrivilegeCode)
GLOBAL_CODES: frozenset[str] = frozenset(PRIVILEGE_CODES[:5])


@dataclass(frozen=True, slots=True)
class Privilege:
    """A privilege: its name and, for data privileges, a namespace and a set (None: all)."""

    code: PrivilegeCode
    namespace: str | None = None
    set: str | None = None

    def __post_init__(self) -> None:
        _validate.choice("privilege", self.code, PRIVILEGE_CODES)
        for what, value in (("namespace", self.namespace), ("set", self.set)):
            if value is not None and not isinstance(value, str):
                raise InvalidTypeError(f"privilege {what} must be a str or None, not {value!r}")
        if self.code in GLOBAL_CODES and (self.namespace or self.set):
            raise InvalidArgumentError(
                f"privilege {self.code!r} is global: give it no namespace or set"
            )
        if self.set and not self.namespace:
            raise InvalidArgumentError(f"privilege {self.code!r}: a set needs its namespace")


@dataclass(frozen=True, slots=True)
class User:
    """A user: its roles, the node's read and write statistics and its open connections."""

    name: str
    roles: tuple[str, ...]
    read_info: tuple[int, ...]
    """Read quota, single-record TPS, scan/query RPS, limitless scans (empty: quotas off)."""
    write_info: tuple[int, ...]
    """The same for writes."""
    connections: int


@dataclass(frozen=True, slots=True)
class Role:
    """A role: privileges, the addresses its users may connect from, and quotas (0: none)."""

    name: str
    privileges: tuple[Privilege, ...]
    allowlist: tuple[str, ...]
    read_quota: int
    write_quota: int


class Admin(Generic[M]):
    """Users and roles of the cluster, from ``db.admin`` (no I/O until a method is called)."""

    __slots__ = ("_ex",)

    def __init__(self, executor: Executor[M]) -> None:
        self._ex: Executor[M] = executor

    def _call(self, method: str, args: tuple[Any, ...], finish: Any) -> Any:
        return self._ex.call(Call(method, args, finish=finish))

    @overload
    def create_user(
        self: Admin[Async], user: str, password: str, roles: Sequence[str] = ()
    ) -> Coroutine[Any, Any, None]: ...
    @overload
    def create_user(
        self: Admin[Sync], user: str, password: str, roles: Sequence[str] = ()
    ) -> None: ...
    def create_user(self, user: str, password: str, roles: Sequence[str] = ()) -> Any:
        """Create ``user`` with ``password`` and ``roles`` (predefined or created ones)."""
        return self._call(
            "admin_create_user",
            (_text("user", user), _text("password", password), _names("roles", roles)),
            discard,
        )

    @overload
    def drop_user(self: Admin[Async], user: str) -> Coroutine[Any, Any, None]: ...
    @overload
    def drop_user(self: Admin[Sync], user: str) -> None: ...
    def drop_user(self, user: str) -> Any:
        """Remove ``user``; its sessions end."""
        return self._call("admin_drop_user", (_text("user", user),), discard)

    @overload
    def change_password(
        self: Admin[Async], user: str, password: str
    ) -> Coroutine[Any, Any, None]: ...
    @overload
    def change_password(self: Admin[Sync], user: str, password: str) -> None: ...
    def change_password(self, user: str, password: str) -> Any:
        """Set ``user``'s password; the client's own user proves the password it logged in with."""
        return self._call(
            "admin_change_password", (_text("user", user), _text("password", password)), discard
        )

    @overload
    def grant_roles(
        self: Admin[Async], user: str, roles: Sequence[str]
    ) -> Coroutine[Any, Any, None]: ...
    @overload
    def grant_roles(self: Admin[Sync], user: str, roles: Sequence[str]) -> None: ...
    def grant_roles(self, user: str, roles: Sequence[str]) -> Any:
        """Add ``roles`` to ``user``."""
        return self._call(
            "admin_grant_roles", (_text("user", user), _names("roles", roles)), discard
        )

    @overload
    def revoke_roles(
        self: Admin[Async], user: str, roles: Sequence[str]
    ) -> Coroutine[Any, Any, None]: ...
    @overload
    def revoke_roles(self: Admin[Sync], user: str, roles: Sequence[str]) -> None: ...
    def revoke_roles(self, user: str, roles: Sequence[str]) -> Any:
        """Remove ``roles`` from ``user``."""
        return self._call(
            "admin_revoke_roles", (_text("user", user), _names("roles", roles)), discard
        )

    @overload
    def query_users(
        self: Admin[Async], user: str | None = None
    ) -> Coroutine[Any, Any, list[User]]: ...
    @overload
    def query_users(self: Admin[Sync], user: str | None = None) -> list[User]: ...
    def query_users(self, user: str | None = None) -> Any:
        """Return ``user`` (a list of one) or every user."""
        return self._call("admin_query_users", (_text("user", user, None),), _users)

    @overload
    def query_roles(
        self: Admin[Async], role: str | None = None
    ) -> Coroutine[Any, Any, list[Role]]: ...
    @overload
    def query_roles(self: Admin[Sync], role: str | None = None) -> list[Role]: ...
    def query_roles(self, role: str | None = None) -> Any:
        """Return ``role`` (a list of one) or every role, predefined ones included."""
        return self._call("admin_query_roles", (_text("role", role, None),), _roles)

    @overload
    def create_role(
        self: Admin[Async],
        role: str,
        privileges: Sequence[Privilege | PrivilegeCode],
        *,
        allowlist: Sequence[str] = (),
        read_quota: int = 0,
        write_quota: int = 0,
    ) -> Coroutine[Any, Any, None]: ...
    @overload
    def create_role(
        self: Admin[Sync],
        role: str,
        privileges: Sequence[Privilege | PrivilegeCode],
        *,
        allowlist: Sequence[str] = (),
        read_quota: int = 0,
        write_quota: int = 0,
    ) -> None: ...
    def create_role(
        self,
        role: str,
        privileges: Sequence[Privilege | PrivilegeCode],
        *,
        allowlist: Sequence[str] = (),
        read_quota: int = 0,
        write_quota: int = 0,
    ) -> Any:
        """Create ``role`` with ``privileges``.

        ``allowlist``: the addresses its users may connect from (empty: any); quotas in
        records per second (0: none).
        """
        return self._call(
            "admin_create_role",
            (
                _text("role", role),
                _privileges(privileges),
                _names("allowlist", allowlist),
                _int("read_quota", read_quota),
                _int("write_quota", write_quota),
            ),
            discard,
        )

    @overload
    def drop_role(self: Admin[Async], role: str) -> Coroutine[Any, Any, None]: ...
    @overload
    def drop_role(self: Admin[Sync], role: str) -> None: ...
    def drop_role(self, role: str) -> Any:
        """Remove ``role``; users holding it lose it."""
        return self._call("admin_drop_role", (_text("role", role),), discard)

    @overload
    def grant_privileges(
        self: Admin[Async], role: str, privileges: Sequence[Privilege | PrivilegeCode]
    ) -> Coroutine[Any, Any, None]: ...
    @overload
    def grant_privileges(
        self: Admin[Sync], role: str, privileges: Sequence[Privilege | PrivilegeCode]
    ) -> None: ...
    def grant_privileges(self, role: str, privileges: Sequence[Privilege | PrivilegeCode]) -> Any:
        """Add ``privileges`` to ``role``."""
        return self._call(
            "admin_grant_privileges", (_text("role", role), _privileges(privileges)), discard
        )

    @overload
    def revoke_privileges(
        self: Admin[Async], role: str, privileges: Sequence[Privilege | PrivilegeCode]
    ) -> Coroutine[Any, Any, None]: ...
    @overload
    def revoke_privileges(
        self: Admin[Sync], role: str, privileges: Sequence[Privilege | PrivilegeCode]
    ) -> None: ...
    def revoke_privileges(self, role: str, privileges: Sequence[Privilege | PrivilegeCode]) -> Any:
        """Remove ``privileges`` from ``role``."""
        return self._call(
            "admin_revoke_privileges", (_text("role", role), _privileges(privileges)), discard
        )

    @overload
    def set_allowlist(
        self: Admin[Async], role: str, allowlist: Sequence[str]
    ) -> Coroutine[Any, Any, None]: ...
    @overload
    def set_allowlist(self: Admin[Sync], role: str, allowlist: Sequence[str]) -> None: ...
    def set_allowlist(self, role: str, allowlist: Sequence[str]) -> Any:
        """Replace ``role``'s allowlist: addresses or networks (``10.0.0.0/8``); empty: any."""
        return self._call(
            "admin_set_allowlist", (_text("role", role), _names("allowlist", allowlist)), discard
        )

    @overload
    def set_quotas(
        self: Admin[Async], role: str, read_quota: int = 0, write_quota: int = 0
    ) -> Coroutine[Any, Any, None]: ...
    @overload
    def set_quotas(
        self: Admin[Sync], role: str, read_quota: int = 0, write_quota: int = 0
    ) -> None: ...
    def set_quotas(self, role: str, read_quota: int = 0, write_quota: int = 0) -> Any:
        """Set ``role``'s read and write quotas in records per second (0: none)."""
        return self._call(
            "admin_set_quotas",
            (_text("role", role), _int("read_quota", read_quota), _int("write_quota", write_quota)),
            discard,
        )


def _text(what: str, value: str | None, *none_ok: None) -> Any:
    """Return ``value`` when it is a str (or None, when ``none_ok`` is given)."""
    if isinstance(value, str) or (none_ok and value is None):
        return value
    raise InvalidTypeError(f"{what} must be a str, not {value!r}")


def _names(what: str, values: Sequence[str]) -> list[str]:
    """Return ``values`` as a list of names (a bare str would read as its letters: refused)."""
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise InvalidTypeError(f"{what} must be a list of str, not {values!r}")
    for v in values:
        if not isinstance(v, str):
            raise InvalidTypeError(f"{what} must hold str, not {v!r}")
    return list(values)


def _int(what: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidTypeError(f"{what} must be an int, not {value!r}")
    return value


def _privileges(
    values: Sequence[Privilege | PrivilegeCode],
) -> list[tuple[str, str | None, str | None]]:
    """Privileges as the native call takes them (a name alone: the privilege everywhere)."""
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise InvalidTypeError(f"privileges must be a list of Privilege, not {values!r}")
    out: list[tuple[str, str | None, str | None]] = []
    for v in values:
        p = Privilege(v) if isinstance(v, str) else v
        if not isinstance(p, Privilege):
            raise InvalidTypeError(f"privileges must hold Privilege or a name, not {v!r}")
        out.append((p.code, p.namespace, p.set))
    return out


def _users(raw: list[dict[str, Any]]) -> list[User]:
    return [
        User(
            name=u["user"],
            roles=tuple(u["roles"]),
            read_info=tuple(u["read_info"]),
            write_info=tuple(u["write_info"]),
            connections=u["connections"],
        )
        for u in raw
    ]


def _roles(raw: list[dict[str, Any]]) -> list[Role]:
    return [
        Role(
            name=r["name"],
            privileges=tuple(Privilege(code, ns, s) for code, ns, s in r["privileges"]),
            allowlist=tuple(r["allowlist"]),
            read_quota=r["read_quota"],
            write_quota=r["write_quota"],
        )
        for r in raw
    ]
