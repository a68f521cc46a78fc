"""Blocking API: the same builders as the async client, with terminals that return values.

Example:
    >>> import aerospike_fluent.sync as afs
    >>> with afs.connect("127.0.0.1:3000") as db:
    ...     db.namespace("test").set("users").key("u1").put({"name": "Ann"})

"""

from __future__ import annotations

from aerospike_fluent.client import Client, SyncClient
from aerospike_fluent.client import connect_sync as connect

__all__ = ["Client", "SyncClient", "connect"]
