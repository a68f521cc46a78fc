"""What a command names: ``NS[.SET]``, a user key typed on the command line."""

from __future__ import annotations

import re
from typing import Literal, NamedTuple

from aerospike_fluent.cli.output import fail
from aerospike_fluent.client import SyncClient

KeyType = Literal["auto", "str", "int", "bytes"]
KEY_TYPES = ("auto", "str", "int", "bytes")
_INTEGER = re.compile(r"-?\d+")


class Target(NamedTuple):
    """A namespace, and a set in it (``None``: the whole namespace)."""

    namespace: str
    set: str | None

    def __str__(self) -> str:
        return self.namespace if self.set is None else f"{self.namespace}.{self.set}"


def target(text: str, *, need_set: bool = False) -> Target:
    """Read ``NS`` or ``NS.SET`` (the set is what follows the first dot)."""
    namespace, dot, set_name = text.partition(".")
    if not namespace or (dot and not set_name):
        fail(f"{text!r} is not NS or NS.SET (e.g. test.users)")
    if need_set and not dot:
        fail(f"{text!r} names no set: give NS.SET (e.g. test.users)")
    return Target(namespace, set_name if dot else None)


def user_key(text: str, key_type: KeyType) -> str | int | bytes:
    """Return the user key ``text`` stands for: ``auto`` reads an integer as int, else str."""
    if key_type == "str" or (key_type == "auto" and not _INTEGER.fullmatch(text)):
        return text
    if key_type == "bytes":
        try:
            return bytes.fromhex(text.removeprefix("0x"))
        except ValueError:
            fail(f"key {text!r} is not hex bytes (--key-type bytes)")
    try:
        return int(text)
    except ValueError:
        fail(f"key {text!r} is not an integer (--key-type int)")


def check_namespace(db: SyncClient, namespace: str) -> None:
    """Stop with the namespaces the cluster serves when ``namespace`` is not one of them."""
    served = [n for n in db.info("namespaces")["namespaces"].split(";") if n]
    if namespace not in served:
        fail(f"unknown namespace {namespace!r}: the cluster serves {', '.join(served) or 'none'}")
