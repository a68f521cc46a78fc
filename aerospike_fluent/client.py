"""The client: connection, scopes, batches, info, UDF registration.

``Client[Async]`` (from :func:`aerospike_fluent.connect`) and ``Client[Sync]`` (from
:func:`aerospike_fluent.sync.connect`) are the same class; only the executor differs.
"""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Awaitable, Callable, Coroutine, Generator, Mapping
from datetime import timedelta
from pathlib import Path
from types import MappingProxyType, TracebackType
from typing import Any, Generic, TypeVar, Unpack, overload

from aerospike_fluent import _autobatch, _native, _validate
from aerospike_fluent._cluster import EmbeddedCluster
from aerospike_fluent._config_watch import Watcher
from aerospike_fluent._exec import (
    Async,
    AsyncExecutor,
    Call,
    Executor,
    M,
    Sync,
    SyncExecutor,
    discard,
)
from aerospike_fluent._indexes import IndexInfo, parse_index_list
from aerospike_fluent._lifecycle import Closed
from aerospike_fluent._options import ConnectOptions, Prepared, check_rack, config, prepare
from aerospike_fluent._seeds import Embedded, Seeds, start
from aerospike_fluent.admin import Admin
from aerospike_fluent.batch import Batch
from aerospike_fluent.errors import InvalidArgumentError, InvalidTypeError
from aerospike_fluent.metrics import MetricsSnapshot, NodeInfo, node_infos
from aerospike_fluent.policy import Policy, PolicyOptions
from aerospike_fluent.scopes import Namespace
from aerospike_fluent.transaction import Retry, Transaction, run_async, run_sync

T = TypeVar("T")

DRAIN_TIMEOUT = 10.0
"""Seconds a closing client (leaving ``with`` / ``async with``, ``aclose()``) gives the calls
in flight to finish."""


class Client(Generic[M]):
    """A connected client. Start chains with :meth:`namespace` or :meth:`batch`."""

    __slots__ = (
        "__weakref__",
        "_ex",
        "_has_rack",
        "_native",
        "_policy",
        "_profiles",
        "_server",
        "_watch",
    )
    _ex: Executor[M]

    def __init__(
        self,
        native: _native.Client,
        executor: Executor[M],
        server: Embedded | None = None,
        policy: Policy | None = None,
        profiles: Mapping[str, Policy] | None = None,
        *,
        has_rack: bool = False,
    ) -> None:
        self._native = native
        self._ex = executor
        self._server = server
        self._policy = policy or Policy()
        self._profiles: Mapping[str, Policy] = MappingProxyType(dict(profiles or {}))
        self._has_rack = has_rack
        self._watch: Watcher | None = None

    def __repr__(self) -> str:
        kind = "async" if self._ex.is_async else "sync"
        state = "closed" if self._native.closed else "connected"
        return f"<aerospike_fluent {kind} client, {state}>"

    # ------------------------------------------------------------------ scopes
    def namespace(self, name: str) -> Namespace[M]:
        """Return a namespace scope (no I/O)."""
        return Namespace(self._ex, name)

    def batch(self) -> Batch[M]:
        """Return an empty mixed batch; add rows, then ``execute()`` sends them in one request."""
        return Batch(self._ex)

    # ------------------------------------------------------------------ state
    @property
    def native(self) -> _native.Client:
        """The native client (escape hatch)."""
        return self._native

    @property
    def embedded_server(self) -> _native.EmbeddedServer | None:
        """The in-process server started by ``connect("embedded://")``, if any."""
        return self._server if isinstance(self._server, _native.EmbeddedServer) else None

    @property
    def embedded_cluster(self) -> EmbeddedCluster | None:
        """The in-process cluster started by ``connect("embedded://?nodes=N")``, if any.

        The same class as ``aerospike_fluent.server.EmbeddedCluster``: ``nodes[i].kill()``...
        """
        return self._server if isinstance(self._server, EmbeddedCluster) else None

    @property
    def is_connected(self) -> bool:
        """Whether the client is open and a node of the cluster answered its last tend.

        It turns False at the first tend (every ``tend_interval``) after the last node stopped
        answering, and True again once one answers.
        """
        return self._native.is_connected and _native.nodes_answering(self._native)

    def node_names(self) -> list[str]:
        """Names of the cluster's nodes."""
        return self._native.node_names()

    @property
    def policy(self) -> Policy:
        """The defaults of this client's calls: what was set, over :data:`.policy.BUILT_IN`.

        ``db.policy.resolved()`` gives every setting its value.
        """
        return self._policy

    @property
    def profiles(self) -> Mapping[str, Policy]:
        """The named profiles, for :meth:`with_policy` (from ``connect()`` or a config file)."""
        return self._profiles

    def with_policy(
        self, policy: Policy | str | None = None, /, **changes: Unpack[PolicyOptions]
    ) -> Client[M]:
        """Return a view of this client whose calls have other defaults.

        ``policy`` (an :class:`~aerospike_fluent.Policy` or a profile's name) and ``changes``
        (the same keywords, e.g. ``total_timeout=30``) apply over this client's defaults;
        what they leave unset stays. A call's own options still win. The view shares the
        connections, the metrics and auto-batching settings (its calls batch among
        themselves); closing the view or the client closes both.
        """
        if isinstance(policy, str):
            if policy not in self._profiles:
                message = _validate.unknown("profile", policy, self._profiles, "profiles")
                raise InvalidArgumentError(message)
            policy = self._profiles[policy]
        elif policy is not None and not isinstance(policy, Policy):
            raise InvalidTypeError(
                f"with_policy takes an af.Policy or a profile's name, not {policy!r}"
            )
        layered = (policy or Policy()).over(self._policy)
        if changes:
            layered = Policy.from_mapping(dict(changes), where="with_policy option").over(layered)
        check_rack(layered, self._has_rack, "with_policy")
        native = self._native.with_defaults(layered._call_defaults())
        ex = self._ex.on(native)
        return Client(native, ex, None, layered, self._profiles, has_rack=self._has_rack)

    def transaction(self, timeout: float | timedelta | None = None) -> Transaction[M]:
        """Start a multi-record transaction (no I/O): a view whose calls run inside it.

        ``async with db.transaction() as tx:`` commits on a clean exit and aborts on an
        exception. ``timeout`` (whole seconds) is how long the server keeps it open; by
        default the namespace's ``transaction-duration``. See :mod:`.transaction`.
        """
        return Transaction(self, timeout)

    @overload
    def run_transaction(
        self: Client[Async],
        fn: Callable[[Transaction[Async]], Awaitable[T]],
        *,
        attempts: int = ...,
        backoff: float = ...,
        max_backoff: float = ...,
        timeout: float | timedelta | None = ...,
    ) -> Coroutine[Any, Any, T]: ...
    @overload
    def run_transaction(
        self: Client[Sync],
        fn: Callable[[Transaction[Sync]], T],
        *,
        attempts: int = ...,
        backoff: float = ...,
        max_backoff: float = ...,
        timeout: float | timedelta | None = ...,
    ) -> T: ...
    def run_transaction(
        self,
        fn: Callable[[Any], Any],
        *,
        attempts: int = 5,
        backoff: float = 0.01,
        max_backoff: float = 1.0,
        timeout: float | timedelta | None = None,
    ) -> Any:
        """Run ``fn(tx)`` in a transaction and commit; return what ``fn`` returned.

        On a conflict (a record blocked by another transaction, a version mismatch, a failed
        verify) the whole transaction runs again, up to ``attempts`` times, after a jittered
        pause growing from ``backoff`` to ``max_backoff`` seconds. Other errors abort it and
        are raised at once. A commit in doubt is retried until it settles.
        """
        retry = Retry(attempts, backoff, max_backoff)
        if self._ex.is_async:
            return run_async(self, fn, retry, timeout)  # type: ignore[arg-type]
        return run_sync(self, fn, retry, timeout)  # type: ignore[arg-type]

    def metrics(self) -> MetricsSnapshot:
        """Return what the client has done since it connected (no I/O; see :mod:`.metrics`)."""
        snapshot = MetricsSnapshot.from_native(self._native.metrics())
        if self._watch is None:
            return snapshot
        return dataclasses.replace(snapshot, config=self._watch.counts())

    @overload
    def nodes(self: Client[Async]) -> Coroutine[Any, Any, list[NodeInfo]]: ...
    @overload
    def nodes(self: Client[Sync]) -> list[NodeInfo]: ...
    def nodes(self) -> Any:
        """Return the cluster's nodes.

        Each with its address, whether it is active, the partitions it holds per namespace,
        and the connections this client holds to it.
        """
        return self._ex.call(Call("nodes", (), finish=self._node_infos))

    def _node_infos(self, raw: list[dict[str, Any]]) -> list[NodeInfo]:
        return node_infos(raw, self.metrics())

    @overload
    def ping(self: Client[Async], timeout: float = 1.0) -> Coroutine[Any, Any, bool]: ...
    @overload
    def ping(self: Client[Sync], timeout: float = 1.0) -> bool: ...
    def ping(self, timeout: float = 1.0) -> Any:
        """Whether a node of the cluster answers within ``timeout`` seconds (all asked at once).

        ``False`` when none does; a closed client raises ``ClientClosedError``.
        """
        millis = max(1, round(_validate_timeout(timeout) * 1000))
        return self._ex.call(Call("ping", (self._native, millis), target=_native))

    @overload
    def close(self: Client[Async], timeout: float | None = None) -> Closed: ...
    @overload
    def close(self: Client[Sync], timeout: float | None = None) -> None: ...
    def close(self, timeout: float | None = None) -> Closed | None:
        """Close the connection (and stop an embedded server); idempotent.

        Without ``timeout``, calls in flight fail with ``ClientClosedError`` (a write among
        them is in doubt). With it (sync clients), new calls are refused and those in flight
        get up to ``timeout`` seconds to finish first; async clients drain with
        :meth:`aclose`. On an async client the client is closed when ``close()`` returns, and
        ``await db.close()`` works too.
        """
        if timeout is not None:
            if self._ex.is_async:
                raise InvalidArgumentError(
                    "an async client drains with 'await db.aclose(timeout=...)': close() "
                    "would block the event loop"
                )
            timeout = _validate_timeout(timeout)
            try:
                self._drain_blocking(timeout)
            finally:
                self._close_now()
        else:
            self._close_now()
        return Closed() if self._ex.is_async else None

    async def aclose(self: Client[Async], timeout: float | None = DRAIN_TIMEOUT) -> None:
        """Close after draining the calls in flight.

        New calls are refused (``ClientClosedError``), calls in flight get up to ``timeout``
        seconds to finish, then the rest are cut short as :meth:`close` does. ``timeout=None``
        closes at once. Leaving ``async with`` drains the same way.
        """
        if timeout is not None:
            timeout = _validate_timeout(timeout)
            if not self._native.closed and self._native.in_flight:
                try:
                    await self._ex.call(Call("drain", (timeout,)))
                except BaseException:
                    self._close_now()
                    raise
        self._close_now()

    def _drain_blocking(self, timeout: float) -> None:
        if not self._native.closed and self._native.in_flight:
            self._native.drain_blocking(timeout)

    def _close_now(self) -> None:
        if self._watch is not None:
            self._watch.stop()
        try:
            self._native.close()
        finally:
            if self._server is not None:
                self._server.stop()

    # ------------------------------------------------------------------ admin
    @property
    def admin(self) -> Admin[M]:
        """Users, roles and privileges (security administration, see :mod:`.admin`)."""
        return Admin(self._ex)

    @overload
    def info(
        self: Client[Async], command: str, *, node: str | None = None
    ) -> Coroutine[Any, Any, dict[str, str]]: ...
    @overload
    def info(self: Client[Sync], command: str, *, node: str | None = None) -> dict[str, str]: ...
    def info(self, command: str, *, node: str | None = None) -> Any:
        """Send an info command (to ``node`` or a random node); returns name → value."""
        if not isinstance(command, str) or not command:
            raise InvalidArgumentError("info command must be a non-empty str")
        return self._ex.call(Call("info", (command, node)))

    @overload
    def info_all(
        self: Client[Async], command: str
    ) -> Coroutine[Any, Any, dict[str, dict[str, str]]]: ...
    @overload
    def info_all(self: Client[Sync], command: str) -> dict[str, dict[str, str]]: ...
    def info_all(self, command: str) -> Any:
        """Send an info command to every node at once; returns node name → (name → value)."""
        if not isinstance(command, str) or not command:
            raise InvalidArgumentError("info command must be a non-empty str")
        return self._ex.call(Call("info_all", (command,)))

    @overload
    def indexes(
        self: Client[Async], namespace: str | None = None
    ) -> Coroutine[Any, Any, list[IndexInfo]]: ...
    @overload
    def indexes(self: Client[Sync], namespace: str | None = None) -> list[IndexInfo]: ...
    def indexes(self, namespace: str | None = None) -> Any:
        """List the secondary indexes (of ``namespace``, or all) with their definition and state."""
        if namespace is not None:
            _validate.namespace(namespace)
        command = "sindex-list:" if namespace is None else f"sindex-list:namespace={namespace}"
        return self._ex.call(
            Call("info", (command, None), finish=lambda r: parse_index_list(r[command]))
        )

    @overload
    def udf_register(
        self: Client[Async], source: str | Path | bytes, name: str | None = None
    ) -> Coroutine[Any, Any, str]: ...
    @overload
    def udf_register(
        self: Client[Sync], source: str | Path | bytes, name: str | None = None
    ) -> str: ...
    def udf_register(self, source: str | Path | bytes, name: str | None = None) -> Any:
        """Register a Lua module from a file path or its code (``bytes``).

        Returns:
            The server-side name (``name`` or the file's name).

        """
        code, server_path = _udf_source(source, name)
        return self._ex.call(
            Call("udf_register", (code, server_path), finish=lambda _: server_path)
        )

    @overload
    def udf_remove(self: Client[Async], name: str) -> Coroutine[Any, Any, None]: ...
    @overload
    def udf_remove(self: Client[Sync], name: str) -> None: ...
    def udf_remove(self, name: str) -> Any:
        """Remove the registered Lua module ``name`` (e.g. ``"mymod.lua"``)."""
        if not isinstance(name, str) or not name:
            raise InvalidArgumentError("udf module name must be a non-empty str")
        return self._ex.call(Call("udf_remove", (name,), finish=discard))

    # ------------------------------------------------------------------ context managers
    async def __aenter__(self: Client[Async]) -> Client[Async]:
        return self

    async def __aexit__(
        self: Client[Async],
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def __enter__(self: Client[Sync]) -> Client[Sync]:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close(DRAIN_TIMEOUT)


def _validate_timeout(timeout: float) -> float:
    if isinstance(timeout, bool) or not isinstance(timeout, int | float):
        raise InvalidTypeError(f"timeout is a number of seconds, not {timeout!r}")
    if not 0 <= timeout < float("inf"):
        raise InvalidArgumentError(
            f"timeout must be a finite number of seconds >= 0, not {timeout}"
        )
    return float(timeout)


AsyncClient = Client[Async]
SyncClient = Client[Sync]


def _udf_source(source: str | Path | bytes, name: str | None) -> tuple[bytes, str]:
    if isinstance(source, bytes):
        if not name:
            raise InvalidArgumentError("registering code from bytes needs a name ('mod.lua')")
        return source, name
    if isinstance(source, str | Path):
        path = Path(source)
        return path.read_bytes(), name or path.name
    raise InvalidTypeError("udf source is a path or the module's code as bytes")


class Connecting:
    """What :func:`aerospike_fluent.connect` returns: ``await`` it or ``async with`` it."""

    __slots__ = ("_auto_batch", "_client", "_options")

    def __init__(self, seeds: Seeds, options: dict[str, Any]) -> None:
        self._options: Prepared | None = prepare(seeds, options, stacklevel=3)
        self._auto_batch = _autobatch.max_keys(self._options.auto_batch)
        self._client: Client[Async] | None = None

    async def _connect(self) -> Client[Async]:
        from aerospike_fluent import _bridge

        prepared, self._options = self._options, None  # no password kept past the connect
        if prepared is None:
            raise InvalidArgumentError("a connect() is awaited once: call connect() again")
        seeds, server = start(prepared.seeds)
        try:
            native = await _bridge.call(_native.connect, config(seeds, prepared))
        except BaseException:
            if server is not None:
                server.stop()
            raise
        executor = AsyncExecutor(native, self._auto_batch).with_codecs(prepared.codecs)
        return _client(native, executor, server, prepared)

    def __await__(self) -> Generator[Any, None, Client[Async]]:
        return self._connect().__await__()

    async def __aenter__(self) -> Client[Async]:
        self._client = await self._connect()
        return self._client

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            await client.aclose()


def connect(seeds: Seeds = None, **options: Unpack[ConnectOptions]) -> Connecting:
    """Connect to a cluster: ``async with af.connect(...) as db`` or ``db = await af.connect()``.

    Args:
        seeds: ``"host:port[,host:port]"``, a list of them, ``"embedded://"`` for an in-process
            in-memory server (stopped on close), ``"embedded://?nodes=3&replication_factor=2"``
            for an in-process cluster, or None for ``AEROSPIKE_HOST`` /
            ``127.0.0.1:3000``.
        **options: connection settings (``user``, ``password``, ``cluster_name``,
            ``tls_ca_file``, ``total_timeout`` and other durations in seconds, pool sizes...;
            the table in Getting started lists every one), and
            ``auto_batch``: True (or the most keys per request, 2-5000) to send plain
            ``get`` calls started in the same event-loop iteration as batch reads, each caller
            still getting its own record or error (see docs/performance.md); ``metrics``:
            False to stop counting calls (see :meth:`Client.metrics`); ``policy``: an
            :class:`~aerospike_fluent.Policy` of call defaults per command family;
            ``profiles``: named policies for :meth:`Client.with_policy`; ``config``: a TOML
            file of all these (``AEROSPIKE_FLUENT_CONFIG`` names one too; explicit arguments
            win over it), or the official clients' dynamic YAML file (``.yaml``; also named by
            ``AEROSPIKE_CLIENT_CONFIG_URL``), re-read while the client runs.

    """
    return Connecting(seeds, dict(options))


def connect_sync(seeds: Seeds = None, **options: Unpack[ConnectOptions]) -> Client[Sync]:
    """Connect and block until connected; the client is a context manager (see ``connect``)."""
    prepared = prepare(seeds, dict(options), stacklevel=2)
    if prepared.auto_batch is not None:
        raise InvalidArgumentError(
            "auto_batch batches the reads of one event loop: it is an option of async clients"
        )
    seeds_text, server = start(prepared.seeds)
    try:
        native = _native.connect_blocking(config(seeds_text, prepared))
    except BaseException:
        if server is not None:
            server.stop()
        raise
    executor = SyncExecutor(native).with_codecs(prepared.codecs)
    return _client(native, executor, server, prepared)


def _client(
    native: _native.Client, executor: Executor[M], server: Embedded | None, prepared: Prepared
) -> Client[M]:
    has_rack = prepared.native.get("rack_ids") is not None
    client = Client(native, executor, server, prepared.policy, prepared.profiles, has_rack=has_rack)
    if prepared.dynamic is not None:
        config, layers = prepared.dynamic
        client._watch = Watcher(
            config, layers, _defaults_setter(client, native), weakref.ref(client)
        )
    return client


def _defaults_setter(client: Client[M], root: _native.Client) -> Callable[[Policy], None]:
    """Return what gives ``client`` (and every builder of it) other call defaults at once."""
    ref = weakref.ref(client)

    def use(policy: Policy) -> None:
        target = ref()
        if target is None:
            return
        check_rack(policy, target._has_rack, "dynamic configuration file")
        native = root.with_defaults(policy._call_defaults())
        target._ex.retarget(native)
        target._native, target._policy = native, policy

    return use
