"""Every client under test, in report order; client packages are imported in ``connect``."""

from __future__ import annotations

from benchmarks.adapters.aerospike_py import AerospikePyAsync, AerospikePySync
from benchmarks.adapters.aerospike_sdk import SdkAsync, SdkAsyncBuilder, SdkSync, SdkSyncBuilder
from benchmarks.adapters.base import AsyncClient, Skip, SyncClient, Target
from benchmarks.adapters.c_client import CClient
from benchmarks.adapters.fluent import (
    FluentAsync,
    FluentAsyncNoSpin,
    FluentAutoBatch,
    FluentFloor,
    FluentNative,
    FluentSync,
    FluentSyncNoSpin,
)
from benchmarks.adapters.rust import RustCeiling

Client = SyncClient | AsyncClient | RustCeiling

# (short id used on the command line and as key prefix, class)
ALL: list[tuple[str, type[SyncClient] | type[AsyncClient] | type[RustCeiling]]] = [
    ("ours-sync", FluentSync),
    ("ours-async", FluentAsync),
    ("ours-native", FluentNative),
    ("ours-floor", FluentFloor),
    ("ours-autobatch", FluentAutoBatch),
    ("ours-sync-nospin", FluentSyncNoSpin),
    ("ours-async-nospin", FluentAsyncNoSpin),
    ("c", CClient),
    ("py-sync", AerospikePySync),
    ("py-async", AerospikePyAsync),
    ("sdk-sync", SdkSync),
    ("sdk-sync-builder", SdkSyncBuilder),
    ("sdk-async", SdkAsync),
    ("sdk-async-builder", SdkAsyncBuilder),
    ("rust", RustCeiling),
]

__all__ = ["ALL", "AsyncClient", "Client", "RustCeiling", "Skip", "SyncClient", "Target"]
