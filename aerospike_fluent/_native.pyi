"""Private native core (Rust). The fluent layer is its only intended caller.

Conventions:
    * Every operation exists twice: ``op(done, ...)`` starts it on the Tokio runtime and returns
      a :class:`Pending`; when it finishes, ``done(result, error)`` is called exactly once from a
      native thread while holding the GIL (``error`` is ``None`` on success); ``done`` may instead
      be a ``(Completer, asyncio.Future)`` pair (see :class:`Completer`). ``op_blocking(...)``
      runs the same future on the calling thread with the GIL released and returns the result or
      raises. Blocking calls raise :class:`ClientError` when a running asyncio/trio event loop is
      detected on the calling thread.
    * Keys are tuples ``(namespace, set_name, user_key, digest)``: ``set_name`` may be ``""``;
      exactly one of ``user_key`` (str | int | bytes) and ``digest`` (20 bytes) is not ``None``.
    * Operations (operate, batch operate) are tuples ``(op_name, bin_name, *args)``; expression
      nodes are tuples ``(node_name, *args)``. See ``docs/internals/native-plan.md``.
"""

import asyncio
import builtins
from collections.abc import (
    Callable,
    ItemsView,
    Iterator,
    KeysView,
    Mapping,
    Sequence,
    Sized,
    ValuesView,
)
from typing import Any, Final, Literal, final

Key = tuple[str, str, str | int | bytes | None, bytes | None]
Op = tuple[Any, ...]
Exp = tuple[Any, ...]
Done = Callable[[Any, BaseException | None], None] | tuple[Completer, asyncio.Future[Any]]
PrivilegeArg = tuple[str, str | None, str | None]

__version__: str
LOOP_RUNTIME_AFTER: Final[int]
PRIVILEGE_NAMES: Final[list[str]]
"""An asyncio loop gets its own runtime at its this-many-th call (all clients together)."""

# ---------------------------------------------------------------- errors (declared in Rust)
class AerospikeError(Exception):
    """Base of every error raised by this SDK."""

    result_code: int | None
    in_doubt: bool
    key: Key | None
    partial: Any

class ClientError(AerospikeError): ...
class InvalidArgumentError(ClientError, ValueError): ...
class ClientClosedError(ClientError): ...
class ConnectionError(ClientError): ...
class MaxErrorRateError(ConnectionError): ...
class DeserializeError(ClientError): ...
class ModelError(ClientError): ...
class ArrowSchemaError(ClientError): ...
class ResumeTokenError(ClientError): ...
class TimeoutError(AerospikeError, builtins.TimeoutError): ...
class QueueTimeoutError(ClientError, TimeoutError): ...
class ServerError(AerospikeError): ...
class RecordNotFoundError(ServerError): ...
class RecordExistsError(ServerError): ...
class GenerationError(ServerError): ...
class ParameterError(ServerError): ...
class RecordTooBigError(ServerError): ...
class BinTypeError(ServerError): ...
class BinNotFoundError(ServerError): ...
class KeyBusyError(ServerError): ...
class NamespaceNotFoundError(ServerError): ...
class FilteredOutError(ServerError): ...
class ElementNotFoundError(ServerError): ...
class ElementExistsError(ServerError): ...
class OpNotApplicableError(ServerError): ...
class EnterpriseOnlyError(ServerError): ...
class ForbiddenError(ServerError): ...
class RoleViolationError(ForbiddenError): ...
class AccessControlError(ServerError): ...
class SecondaryIndexError(ServerError): ...
class IndexAlreadyExistsError(SecondaryIndexError): ...
class IndexNotFoundError(SecondaryIndexError): ...

class BackgroundTaskError(ServerError):
    succeeded: int
    failed: int

class UdfError(ServerError): ...
class AuthenticationError(ServerError): ...
class QuotaExceededError(ServerError): ...
class TransactionError(AerospikeError): ...
class TransactionBlockedError(TransactionError): ...
class TransactionVersionMismatchError(TransactionError): ...
class TransactionExpiredError(TransactionError): ...
class TransactionTooManyWritesError(TransactionError): ...
class TransactionCommittedError(TransactionError): ...
class TransactionAbortedError(TransactionError): ...
class TransactionFinishedError(TransactionError): ...

class CommitError(TransactionError):
    stage: str | None
    records: tuple[tuple[Key, int], ...]
    cause: AerospikeError | None

def error_for_code(
    result_code: int, message: str, in_doubt: bool = ..., key: Key | None = ...
) -> AerospikeError:
    """The exception instance the SDK raises for a server result code (one mapping, in Rust)."""

# ---------------------------------------------------------------- values
@final
class GeoJSON:
    """A GeoJSON value (particle type GEOJSON) as opposed to a plain string."""

    def __new__(cls, geojson: str) -> GeoJSON: ...
    @property
    def value(self) -> str: ...
    def __eq__(self, other: object, /) -> bool: ...

INFINITY: object  # CDT range bound above every value
WILDCARD: object  # CDT value matching anything

def bins_ok(values: object) -> bool:
    """Whether ``values`` is certainly a valid bins ``dict`` (False: check it in Python)."""

def value_ok(value: object) -> bool:
    """Whether ``value`` is certainly a storable plain value (False: check it in Python)."""

def key_tuples(
    namespace: str, set: str, keys: object
) -> tuple[tuple[str, str, str | int | bytes, None], ...] | None:
    """Key tuples of ``keys`` (a list or tuple) when every key is certainly valid, else None."""

# ---------------------------------------------------------------- results
@final
class Record:
    """A record as read: bins, key, generation and TTL (seconds; ``None`` = never expires)."""

    @property
    def key(self) -> Key | None: ...
    @property
    def bins(self) -> dict[str, Any]: ...
    @property
    def generation(self) -> int: ...
    @property
    def ttl(self) -> int | None: ...
    @property
    def results(self) -> list[Any] | None:
        """Operate chains only (one key, or a batch row): every op's result in request order,
        ``None`` for ops that answer nothing (writes, ``touch``, ``delete``). ``bins`` then
        holds, per bin, the last result of an op that reports one (reads, CDT ops,
        ``exp_read``)."""
    @property
    def user_key(self) -> str | int | bytes | None:
        """The user key (``None`` when only the digest is known)."""
    def __getitem__(self, bin_name: str, /) -> Any: ...
    def get(self, bin_name: str, default: Any = None) -> Any: ...
    def __contains__(self, bin_name: object, /) -> bool: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[str]: ...
    def keys(self) -> KeysView[str]:
        """The bin names (a view of the bins)."""
    def values(self) -> ValuesView[Any]:
        """The bin values (a view of the bins)."""
    def items(self) -> ItemsView[str, Any]:
        """``(name, value)`` pairs (a view of the bins)."""
    @staticmethod
    def _restore(
        bins: dict[str, Any],
        key: Key | None,
        generation: int,
        ttl: int | None,
        results: list[Any] | None,
    ) -> Record:
        """Rebuild a record from what ``__reduce__`` gave (pickling, ``copy``)."""
    def __reduce__(self) -> tuple[Any, ...]: ...

@final
class BatchRow:
    """One row of a batch: its key, the record (when any) and the row's own outcome."""

    @property
    def key(self) -> Key: ...
    @property
    def record(self) -> Record | None: ...
    @property
    def udf_result(self) -> Any:
        """A UDF row's return value (``None`` for other rows and failed calls)."""
    @property
    def bins(self) -> dict[str, Any] | None:
        """The record's bins, when the row returned one."""
    @property
    def result_code(self) -> int: ...
    @property
    def error(self) -> AerospikeError | None: ...
    @property
    def in_doubt(self) -> bool: ...
    @property
    def node_failed(self) -> bool:
        """Whether the row failed because its node's part of the batch failed as a whole."""

@final
class Completer:
    """Completion queue of one asyncio loop: ``done=(completer, future)`` queues the outcome
    without the GIL; watch :meth:`fileno` with ``loop.add_reader(fd, completer.drain)``.

    With ``schedule`` (the loop's ``call_soon``), operations started in the same loop iteration
    are coalesced: the first schedules :meth:`flush`, which hands them all to the runtime in one
    go.

    With ``loop_runtime=True`` (and ``call_later`` and ``watch``, the loop's ``call_later``
    and ``add_reader``) a busy loop also gets its own runtime, built at its eighth call and
    driven by the loop thread: single-record operations run there (up to ``loop_ops`` in
    flight, default 16), so a reply wakes only the loop. The completer watches the runtime
    with ``watch(fd, completer.tick)`` and schedules its own periodic tick. With ``ready``
    (asyncio's ``loop._ready``), an operation started alone while it is empty may poll for its
    reply (the client's ``spin_wait_us``) and settle its future before the call returns."""

    def __new__(
        cls,
        schedule: Callable[[Callable[[], None]], object] | None = None,
        call_later: Callable[[float, Callable[[], None]], object] | None = None,
        watch: Callable[[int, Callable[[], None]], object] | None = None,
        loop_runtime: bool = False,
        loop_ops: int | None = None,
        ready: Sized | None = None,
    ) -> Completer: ...
    def fileno(self) -> int: ...
    def flush(self) -> None:
        """Spawn the operations queued since the last flush; call on the loop thread."""
    def drain(self) -> None:
        """Settle every queued future (cancelled ones are skipped); call on the loop thread."""
    def runtime_fileno(self) -> int | None:
        """The loop runtime's descriptor (None: the loop has no runtime of its own yet)."""
    def tick(self) -> None:
        """Drive the loop's runtime without blocking and settle what finished."""
    def periodic(self) -> None:
        """The periodic tick (timers, cluster tending); schedules the next one."""
    def release(self) -> None:
        """The loop is closed: drop the operations, clients and outcomes it still holds."""
    @property
    def loop_ops_started(self) -> int:
        """Operations started on the loop's own runtime so far."""
    @property
    def loop_ops_polled(self) -> int:
        """Operations on the loop's own runtime answered while their call polled for the reply."""

@final
class Pending:
    """Handle of an operation started with a ``done`` callback."""

    def cancel(self) -> bool:
        """Abort the native task; ``done`` is then never called. True if it was still running."""

# ---------------------------------------------------------------- policies
_Family = tuple[int, int, int, int]

@final
class CallDefaults:
    """The defaults of calls, every field given: per family ``(total ms, socket ms, retries,
    pause ms)``."""

    def __new__(
        cls,
        *,
        read: _Family,
        write: _Family,
        batch: _Family,
        query: _Family,
        udf: _Family,
        info_timeout_ms: int,
        retry_writes: bool,
        send_key: bool,
        ttl: int,
        durable_delete: bool,
        compress: bool,
        replica: str,
        read_mode_ap: str,
        read_mode_sc: str,
        bytes_keys: str = "blob",
        read_touch_ttl_percent: int = 0,
    ) -> CallDefaults: ...
    def __eq__(self, value: object, /) -> bool: ...

@final
class Policy:
    """Per-call options, immutable; ``None`` takes the client's default.

    Args:
        ttl: seconds; -1 never expire, -2 do not change on update, 0 the namespace's default,
            None the client's default.
        generation: expected generation (write fails with GenerationError if it differs).
        exists: 0 upsert, 1 update-only, 2 replace, 3 replace-only, 4 create-only.
        send_key: store the user key with the record.
        durable_delete: leave a tombstone on delete.
        filter: compiled expression tree; rows it rejects fail with FilteredOutError.
        total_timeout_ms, socket_timeout_ms, max_retries: transaction limits (0 = none).
        retry_writes: whether a write may be retried after a timeout (off: writes are not
            idempotent).
        records_per_second: query pacing per node (0 = unlimited).
        short_query: a query expected to return few records.
        generation_gt: the write's generation must exceed the record's (else equal it).
    """

    def __new__(
        cls,
        *,
        ttl: int | None = None,
        generation: int | None = None,
        exists: int = 0,
        send_key: bool | None = None,
        durable_delete: bool | None = None,
        filter: Exp | None = None,
        total_timeout_ms: int | None = None,
        socket_timeout_ms: int | None = None,
        max_retries: int | None = None,
        retry_writes: bool | None = None,
        respond_all_ops: bool = True,
        records_per_second: int = 0,
        short_query: bool = False,
        generation_gt: bool = False,
    ) -> Policy: ...

# ---------------------------------------------------------------- models
@final
class ModelPlan:
    """How records become instances of one model (``aerospike_fluent.models``)."""

    def __new__(
        cls,
        make: Callable[..., Any],
        how: Literal["dict", "kwargs", "call"],
        fields: Sequence[tuple[str, str, str, bool]],
        defaults: dict[str, Any],
        key: str | None = None,
        generation: str | None = None,
        ttl: str | None = None,
    ) -> ModelPlan: ...

def records_as(records: list[Any], plan: ModelPlan) -> list[Any]:
    """Instances from records; ``None`` for each that does not fit plainly (or is ``None``)."""

# ---------------------------------------------------------------- client
@final
class ClientConfig:
    """Connection settings; ``seeds`` is ``"host:port[,host:port...]"``."""

    def __new__(
        cls,
        seeds: str,
        *,
        cluster_name: str | None = None,
        user: str | None = None,
        password: str | None = None,
        auth_mode: Literal["internal", "external", "pki"] | None = None,
        tls_name: str | None = None,
        tls_ca_file: str | None = None,
        tls_cert_file: str | None = None,
        tls_key_file: str | None = None,
        connect_timeout_ms: int = 1000,
        defaults: CallDefaults | None = None,
        max_conns_per_node: int = 256,
        min_conns_per_node: int = 0,
        tend_interval_ms: int = 1000,
        idle_timeout_ms: int = 55000,
        spin_wait_us: int = 200,
        metrics: bool = True,
        rack_ids: list[int] | None = None,
        max_in_flight: int | None = None,
        queue_timeout_ms: int = 0,
        max_error_rate: int = 100,
        error_rate_window: int = 1,
    ) -> ClientConfig: ...

def connect(done: Done, config: ClientConfig) -> Pending:
    """Connect (async); ``done`` receives the :class:`Client`."""

def connect_blocking(config: ClientConfig) -> Client: ...
def _wire_op_specs() -> list[tuple[str, str, int, list[tuple[str, int]]]]:
    """The list and map op tables of the SDK's own encoding (for its tests)."""

def nodes_answering(client: Client) -> bool:
    """Whether some node of the client's cluster answered its last tend."""

def ping(done: Done, client: Client, timeout_ms: int) -> Pending:
    """Ask every node of ``client``'s cluster for its name at once: whether one answered within
    ``timeout_ms`` (async: ``done`` receives it)."""

def ping_blocking(client: Client, timeout_ms: int) -> bool:
    """:func:`ping`, blocking."""

def idle(done: Done, *args: Any) -> Pending:
    """Complete with None on the worker runtime, sending and reading nothing: the floor under
    an async call (``args`` are ignored)."""

def set_worker_threads(n: int) -> None:
    """Tokio worker count for the runtime (before its first use; default 1)."""

@final
class PutChunk:
    def __len__(self) -> int: ...

@final
class ArrowWriter:
    def __new__(cls, data: Any, namespace: str, set: str, key: str) -> ArrowWriter: ...
    def next_chunk(self, rows: int) -> PutChunk | None:
        """The next ``rows`` rows (fewer at the end; None when none are left), converted."""

@final
class Transaction:
    def __new__(cls, timeout: int = 0) -> Transaction: ...
    @property
    def id(self) -> int: ...
    @property
    def state(self) -> str: ...
    @property
    def namespace(self) -> str | None: ...
    @property
    def timeout(self) -> int: ...
    @property
    def in_doubt(self) -> bool: ...
    @property
    def reads(self) -> int: ...
    @property
    def writes(self) -> int: ...

@final
class Client:
    @property
    def is_connected(self) -> bool: ...
    @property
    def closed(self) -> bool:
        """Whether ``close()`` ran (or the client was inherited over ``fork()``)."""
    def close(self) -> None:
        """Close the cluster; in-flight operations fail with ClientClosedError."""
    def node_names(self) -> list[str]: ...
    def wire_connections(self) -> dict[str, int]: ...
    def metrics(self) -> dict[str, Any]:
        """Calls per namespace, node and kind; connections and bytes per node; cluster events."""
    def with_defaults(self, defaults: CallDefaults) -> Client:
        """A view sharing the connections whose calls have other defaults."""
    def with_transaction(self, txn: Transaction) -> Client:
        """A view whose record and batch calls run inside ``txn``."""
    @property
    def txn(self) -> Transaction | None:
        """The transaction of this view (None outside one)."""
    def put_chunks(
        self, done: Done, chunks: Sequence[PutChunk], policy: Policy | None, concurrency: int
    ) -> Pending: ...
    def put_chunks_blocking(
        self, chunks: Sequence[PutChunk], policy: Policy | None, concurrency: int
    ) -> tuple[int, list[tuple[Key, AerospikeError]]]: ...
    def commit(self, done: Done, txn: Transaction) -> Pending: ...
    def commit_blocking(self, txn: Transaction) -> str: ...
    def abort(self, done: Done, txn: Transaction) -> Pending: ...
    def abort_blocking(self, txn: Transaction) -> str: ...
    @property
    def call_defaults(self) -> CallDefaults:
        """The defaults of calls through this client."""
    def drain(self, done: Done, timeout: float) -> Pending:
        """Refuse new calls, wait for those in flight (``timeout`` s at most): all finished?"""
    def drain_blocking(self, timeout: float) -> bool: ...
    @property
    def in_flight(self) -> int:
        """Calls in flight now."""
    def nodes(self, done: Done) -> Pending: ...
    def nodes_blocking(self) -> list[dict[str, Any]]: ...
    def get(
        self,
        done: Done,
        key: Key,
        bins: Sequence[str] | None,
        header_only: bool,
        policy: Policy | None,
    ) -> Pending: ...
    def get_blocking(
        self, key: Key, bins: Sequence[str] | None, header_only: bool, policy: Policy | None
    ) -> Record | None: ...
    def put(
        self, done: Done, key: Key, bins: Mapping[str, Any], policy: Policy | None
    ) -> Pending: ...
    def put_blocking(self, key: Key, bins: Mapping[str, Any], policy: Policy | None) -> None: ...
    def delete(self, done: Done, key: Key, policy: Policy | None) -> Pending: ...
    def delete_blocking(self, key: Key, policy: Policy | None) -> bool: ...
    def exists(self, done: Done, key: Key, policy: Policy | None) -> Pending: ...
    def exists_blocking(self, key: Key, policy: Policy | None) -> bool: ...
    def touch(self, done: Done, key: Key, policy: Policy | None) -> Pending: ...
    def touch_blocking(self, key: Key, policy: Policy | None) -> None: ...
    def operate(
        self, done: Done, key: Key, ops: Sequence[Op], policy: Policy | None
    ) -> Pending: ...
    def operate_blocking(
        self, key: Key, ops: Sequence[Op], policy: Policy | None
    ) -> Record | None: ...
    def batch(self, done: Done, rows: Sequence[tuple[Any, ...]], policy: Policy | None) -> Pending:
        """Rows: ``("read", key, bins|None, header_only, policy|None)``,
        ``("write", key, ops, policy|None)``, ``("put", key, bins, policy|None)``,
        ``("delete", key, policy|None)``,
        ``("udf", key, module, function, args, policy|None)``.
        Result: list of :class:`BatchRow` in row order."""
    def batch_blocking(
        self, rows: Sequence[tuple[Any, ...]], policy: Policy | None
    ) -> list[BatchRow]: ...
    def batch_arrow(
        self,
        done: Done,
        rows: Sequence[tuple[Any, ...]],
        policy: Policy | None,
        spec: ArrowSpec,
    ) -> Pending:
        """Read rows of a batch as an :class:`ArrowTable`: a row per key, in order."""
    def batch_arrow_blocking(
        self, rows: Sequence[tuple[Any, ...]], policy: Policy | None, spec: ArrowSpec
    ) -> ArrowTable: ...
    def query(
        self,
        namespace: str,
        set_name: str,
        bins: Sequence[str] | None,
        index_filter: tuple[Any, ...] | None,
        policy: Policy | None,
        max_records: int,
        partitions: tuple[int, int] | bytes | None,
        chunk_size: int,
    ) -> QueryStream:
        """Start a scan (no ``index_filter``) or secondary-index query. ``index_filter`` is
        ``("equal", bin, value)`` or ``("range", bin, low, high)`` (plus an optional ctx/collection
        type). ``partitions`` is ``(begin, count)`` or a resume token from
        :meth:`QueryStream.resume_token`."""
    def info(self, done: Done, command: str, node: str | None) -> Pending: ...
    def info_blocking(self, command: str, node: str | None) -> dict[str, str]: ...
    def query_background(
        self,
        done: Done,
        namespace: str,
        set_name: str,
        index_filter: tuple[Any, ...] | None,
        policy: Policy | None,
        ops: Sequence[tuple[Any, ...]] | None,
        udf: tuple[str, str, Sequence[Any]] | None,
    ) -> Pending: ...
    def query_background_blocking(
        self,
        namespace: str,
        set_name: str,
        index_filter: tuple[Any, ...] | None,
        policy: Policy | None,
        ops: Sequence[tuple[Any, ...]] | None,
        udf: tuple[str, str, Sequence[Any]] | None,
    ) -> BackgroundTask: ...
    def info_all(self, done: Done, command: str) -> Pending: ...
    def info_all_blocking(self, command: str) -> dict[str, dict[str, str]]: ...
    def partition_owners(self, done: Done, namespace: str) -> Pending: ...
    def partition_owners_blocking(self, namespace: str) -> dict[str, tuple[int, int]]: ...
    def truncate(self, done: Done, namespace: str, set_name: str, before_ns: int) -> Pending: ...
    def truncate_blocking(self, namespace: str, set_name: str, before_ns: int) -> None: ...
    def create_index(
        self,
        done: Done,
        namespace: str,
        set_name: str,
        bin_name: str,
        index_name: str,
        index_type: str,
        collection: str | None,
        context: tuple[tuple[Any, ...], ...] | None,
        expression: tuple[Any, ...] | None,
    ) -> Pending: ...
    def create_index_blocking(
        self,
        namespace: str,
        set_name: str,
        bin_name: str,
        index_name: str,
        index_type: str,
        collection: str | None,
        context: tuple[tuple[Any, ...], ...] | None,
        expression: tuple[Any, ...] | None,
    ) -> None: ...
    def drop_index(self, done: Done, namespace: str, set_name: str, index_name: str) -> Pending: ...
    def drop_index_blocking(self, namespace: str, set_name: str, index_name: str) -> None: ...
    def aggregate(
        self,
        done: Done,
        namespace: str,
        set_name: str,
        index_filter: Any,
        module: str,
        function: str,
        args: Sequence[Any],
        policy: Policy | None,
    ) -> Pending: ...
    def aggregate_blocking(
        self,
        namespace: str,
        set_name: str,
        index_filter: Any,
        module: str,
        function: str,
        args: Sequence[Any],
        policy: Policy | None,
    ) -> list[Any]: ...
    def udf_register(self, done: Done, code: bytes, server_path: str) -> Pending: ...
    def udf_register_blocking(self, code: bytes, server_path: str) -> None: ...
    def udf_remove(self, done: Done, server_path: str) -> Pending: ...
    def udf_remove_blocking(self, server_path: str) -> None: ...
    def admin_create_user(
        self, done: Done, user: str, password: str, roles: Sequence[str]
    ) -> Pending: ...
    def admin_create_user_blocking(
        self, user: str, password: str, roles: Sequence[str]
    ) -> None: ...
    def admin_drop_user(self, done: Done, user: str) -> Pending: ...
    def admin_drop_user_blocking(self, user: str) -> None: ...
    def admin_change_password(self, done: Done, user: str, password: str) -> Pending: ...
    def admin_change_password_blocking(self, user: str, password: str) -> None: ...
    def admin_grant_roles(self, done: Done, user: str, roles: Sequence[str]) -> Pending: ...
    def admin_grant_roles_blocking(self, user: str, roles: Sequence[str]) -> None: ...
    def admin_revoke_roles(self, done: Done, user: str, roles: Sequence[str]) -> Pending: ...
    def admin_revoke_roles_blocking(self, user: str, roles: Sequence[str]) -> None: ...
    def admin_query_users(self, done: Done, user: str | None) -> Pending: ...
    def admin_query_users_blocking(self, user: str | None) -> list[dict[str, Any]]: ...
    def admin_query_roles(self, done: Done, role: str | None) -> Pending: ...
    def admin_query_roles_blocking(self, role: str | None) -> list[dict[str, Any]]: ...
    def admin_create_role(
        self,
        done: Done,
        role: str,
        privileges: Sequence[PrivilegeArg],
        allowlist: Sequence[str],
        read_quota: int,
        write_quota: int,
    ) -> Pending: ...
    def admin_create_role_blocking(
        self,
        role: str,
        privileges: Sequence[PrivilegeArg],
        allowlist: Sequence[str],
        read_quota: int,
        write_quota: int,
    ) -> None: ...
    def admin_drop_role(self, done: Done, role: str) -> Pending: ...
    def admin_drop_role_blocking(self, role: str) -> None: ...
    def admin_grant_privileges(
        self, done: Done, role: str, privileges: Sequence[PrivilegeArg]
    ) -> Pending: ...
    def admin_grant_privileges_blocking(
        self, role: str, privileges: Sequence[PrivilegeArg]
    ) -> None: ...
    def admin_revoke_privileges(
        self, done: Done, role: str, privileges: Sequence[PrivilegeArg]
    ) -> Pending: ...
    def admin_revoke_privileges_blocking(
        self, role: str, privileges: Sequence[PrivilegeArg]
    ) -> None: ...
    def admin_set_allowlist(self, done: Done, role: str, allowlist: Sequence[str]) -> Pending: ...
    def admin_set_allowlist_blocking(self, role: str, allowlist: Sequence[str]) -> None: ...
    def admin_set_quotas(
        self, done: Done, role: str, read_quota: int, write_quota: int
    ) -> Pending: ...
    def admin_set_quotas_blocking(self, role: str, read_quota: int, write_quota: int) -> None: ...
    def udf_apply(
        self,
        done: Done,
        key: Key,
        module: str,
        function: str,
        args: Sequence[Any],
        policy: Policy | None,
    ) -> Pending: ...
    def udf_apply_blocking(
        self, key: Key, module: str, function: str, args: Sequence[Any], policy: Policy | None
    ) -> Any: ...

@final
class QueryStream:
    """Records of a scan/query, pulled in chunks through a bounded buffer."""

    def set_model(self, plan: ModelPlan) -> None:
        """Deliver records as instances of ``plan``'s model (misfits stay ``Record``s)."""
    def next_chunk(self, done: Done) -> Pending:
        """``done`` receives a list of up to ``chunk_size`` records, or ``None`` at the end."""
    def ready_chunk(self) -> tuple[bool, list[Record] | None]:
        """The next chunk if it is buffered already: ``(True, records)`` (``None`` at the end),
        or ``(False, None)`` when the caller must wait for it with ``next_chunk``."""
    def next_chunk_blocking(self) -> list[Record] | None: ...
    def resume_token(self, consumed: int | None = None) -> bytes:
        """Opaque token: pass it as ``partitions`` to continue after the first ``consumed``
        records delivered (None: all of them)."""
    def progress(self) -> tuple[int, int, int]:
        """``(records, partitions, partitions_total)`` handed out so far."""
    def close(self) -> None: ...

# ---------------------------------------------------------------- Arrow
@final
class ArrowSpec:
    """The columns of an Arrow read."""

    def __new__(
        cls,
        schema: object = None,
        bins: Sequence[str] | None = None,
        key: str | None = None,
        digest: str | None = None,
        generation: str | None = None,
        ttl: str | None = None,
        mixed: str | None = None,
        found: str | None = None,
    ) -> ArrowSpec: ...
    @property
    def schema_bins(self) -> list[str] | None: ...

@final
class ArrowTable:
    """Arrow data read from the database: one schema, zero or more record batches.

    Exported through the Arrow PyCapsule interface: ``pyarrow.table(t)``,
    ``polars.DataFrame(t)`` and ``duckdb`` take it without a copy.
    """

    @property
    def num_rows(self) -> int: ...
    @property
    def num_columns(self) -> int: ...
    @property
    def num_batches(self) -> int: ...
    @property
    def column_names(self) -> list[str]: ...
    @property
    def schema_text(self) -> str: ...
    def __len__(self) -> int: ...
    def __arrow_c_schema__(self) -> object: ...
    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object: ...
    def __arrow_c_array__(
        self, requested_schema: object | None = None
    ) -> tuple[object, object]: ...
    def to_pyarrow(self) -> Any:
        """A ``pyarrow.Table`` (needs pyarrow)."""
    def to_pandas(self) -> Any:
        """A ``pandas.DataFrame`` (needs pandas and pyarrow)."""
    def to_polars(self) -> Any:
        """A ``polars.DataFrame`` (needs polars)."""
    @staticmethod
    def concat(tables: Sequence[ArrowTable]) -> ArrowTable: ...

@final
class ArrowReader:
    """A query stream's chunks as Arrow record batches."""

    def __new__(
        cls, stream: QueryStream, spec: ArrowSpec, limit: int = 0, widen: bool = False
    ) -> ArrowReader: ...
    def next_batch(self, done: Done) -> Pending:
        """``done`` receives the next chunk as a one-batch table, or ``None`` at the end."""
    def next_batch_blocking(self) -> ArrowTable | None: ...
    def empty(self) -> ArrowTable: ...
    @property
    def stream(self) -> QueryStream: ...

# ---------------------------------------------------------------- embedded server
@final
class EmbeddedServer:
    """An in-memory Aerospike-compatible server on its own threads."""

    def __new__(
        cls,
        host: str = "127.0.0.1",
        port: int = 0,
        namespaces: Sequence[str] = ("test", "bar"),
        *,
        tls_cert_file: str | None = None,
        tls_key_file: str | None = None,
        users: Mapping[str, str] | None = None,
        edition: Literal["community", "enterprise"] = "community",
        strong_consistency: Sequence[str] = (),
        cluster_name: str | None = None,
    ) -> EmbeddedServer:
        """Start it (port 0 = a free port); TLS when both PEM files are given; with ``users``
        (name -> password), data commands need a login; ``cluster_name`` is what
        ``cluster-name`` answers (``null`` without one)."""
    @property
    def tls(self) -> bool:
        """Whether connections use TLS."""
    @property
    def security(self) -> bool:
        """Whether data commands need a login."""
    @property
    def host(self) -> str: ...
    @property
    def port(self) -> int: ...
    @property
    def running(self) -> bool: ...
    def stop(self) -> None:
        """Stop listening and close every connection; idempotent."""
    def restart(self) -> None:
        """Stop and start again on the same port, keeping the data."""
    def _forget_after_fork(self) -> None:
        """In a forked child: this copy of the parent's server reports itself stopped."""
    def stats(self) -> dict[str, int]:
        """Counters: requests by kind (``info``, ``read``, ``write``, ``operate``, ``batch``,
        ``scan``, ``query``, ``udf``), ``connections_open``, ``connections_total``, ``records``."""
    def reset_stats(self) -> None: ...
    def fault_delay(self, millis: int, count: int | None = None) -> None:
        """Delay the next ``count`` replies (all while None) by ``millis``."""
    def fault_drop(self, after: int) -> None:
        """Drop the connection of the next request once ``after`` more requests have been served."""
    def fault_fail(self, result_code: int, count: int) -> None:
        """Answer the next ``count`` record requests with ``result_code``."""
    def fault_pause_accept(self, paused: bool) -> None: ...
    def clear_faults(self) -> None: ...

@final
class BackgroundTask:
    """A background query running on the cluster."""

    @property
    def task_id(self) -> int: ...
    def status(self, done: Done) -> Pending: ...
    def status_blocking(self) -> Literal["in_progress", "complete"]: ...
    def progress(self, done: Done) -> Pending: ...
    def progress_blocking(self) -> dict[str, Any]: ...
    def wait(self, done: Done, timeout: float | None = None) -> Pending: ...
    def wait_blocking(self, timeout: float | None = None) -> Literal["in_progress", "complete"]: ...

@final
class EmbeddedCluster:
    """An in-memory cluster of Aerospike-compatible nodes on their own threads."""

    def __new__(
        cls,
        nodes: int = 3,
        replication_factor: int = 2,
        host: str = "127.0.0.1",
        port: int = 0,
        namespaces: Sequence[str] = ("test", "bar"),
        *,
        tls_cert_file: str | None = None,
        tls_key_file: str | None = None,
        users: Mapping[str, str] | None = None,
        edition: Literal["community", "enterprise"] = "community",
        racks: int = 0,
        strong_consistency: Sequence[str] = (),
        cluster_name: str | None = None,
    ) -> EmbeddedCluster:
        """Start ``nodes`` nodes (consecutive ports from ``port``; 0 = free ports) keeping
        ``replication_factor`` copies of every partition."""
    @property
    def host(self) -> str: ...
    @property
    def size(self) -> int:
        """Node slots ever started, removed ones included."""
    def rack_id(self, slot: int) -> int: ...
    def port(self, slot: int) -> int: ...
    def node_name(self, slot: int) -> str: ...
    def status(self, slot: int) -> Literal["up", "paused", "isolated", "down", "removed"]: ...
    def generation(self, slot: int) -> int: ...
    def kill(self, slot: int, keep_data: bool = False) -> None: ...
    def restart(self, slot: int) -> None: ...
    def pause(self, slot: int, paused: bool) -> None: ...
    def isolate(self, slot: int, isolated: bool) -> None: ...
    def add_node(self) -> int: ...
    def remove_node(self, slot: int) -> None: ...
    @property
    def ports(self) -> list[int]: ...
    def _forget_after_fork(self) -> None: ...
    def stop(self) -> None: ...
    def stats(self, slot: int) -> dict[str, int]: ...
    def reset_stats(self, slot: int) -> None: ...
    def fault_delay(self, slot: int, millis: int, count: int | None = None) -> None: ...
    def fault_fail(self, slot: int, result_code: int, count: int) -> None: ...
    def clear_faults(self, slot: int) -> None: ...
