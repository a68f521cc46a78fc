"""Background queries: operations or a record UDF applied on the servers.

Every node applies them to each record the query selects; a task reports progress. Mirrors
``crates/native/src/request/background.rs`` (the request) and
``crates/native/src/crate_calls/background.rs`` (the task).

Example:
    >>> task = await users.query().where("$.age > 60").background().add("discount", 5).execute()
    >>> await task.wait()  # raises BackgroundTaskError if some records were not written
    >>> task = await users.query().background_udf("counters", "bump", "visits", 1)

"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, Generic, Literal, overload

from aerospike_fluent import _policy
from aerospike_fluent._chain import OpChain
from aerospike_fluent._exec import Async, Call, Executor, M, Program, Sync
from aerospike_fluent.errors import BackgroundTaskError, InvalidArgumentError, TransactionError

if TYPE_CHECKING:
    from aerospike_fluent import _native
    from aerospike_fluent.query import Query

Status = Literal["in_progress", "complete"]


def _failed(
    task_id: int, progress: dict[str, Any], udf: tuple[str, str] | None
) -> BackgroundTaskError:
    succeeded, failed = progress["succeeded"], progress["failed"]
    if udf is None:
        why = (
            "the server refused its work on them, e.g. an operation that does not apply to "
            "the bin's type"
        )
    else:
        module, function = udf
        why = (
            f"UDF {module}.{function} failed on them: is module {module!r} registered, does it "
            f"define {function!r}, and does it run on these records?"
        )
    error = BackgroundTaskError(
        f"background task {task_id} completed with {failed} of {succeeded + failed} records "
        f"not written ({why})"
    )
    error.succeeded = succeeded
    error.failed = failed
    return error


class BackgroundTask(Generic[M]):
    """A background query running on the cluster: ``status()``, ``progress()``, ``wait()``."""

    __slots__ = ("_ex", "_task", "_udf")
    _ex: Executor[M]
    _task: _native.BackgroundTask
    _udf: tuple[str, str] | None

    def __init__(
        self, ex: Executor[M], task: _native.BackgroundTask, udf: tuple[str, str] | None = None
    ) -> None:
        self._ex = ex
        self._task = task
        self._udf = udf  # (module, function) of a UDF job, for its errors

    def __repr__(self) -> str:
        return f"<BackgroundTask {self.task_id}>"

    @property
    def task_id(self) -> int:
        """The id the servers know the job by."""
        return self._task.task_id

    @overload
    def status(self: BackgroundTask[Async]) -> Coroutine[Any, Any, Status]: ...
    @overload
    def status(self: BackgroundTask[Sync]) -> Status: ...
    def status(self) -> Any:
        """``"in_progress"`` or ``"complete"`` (every node has finished)."""
        return self._ex.call(Call("status", (), target=self._task))

    @overload
    def progress(self: BackgroundTask[Async]) -> Coroutine[Any, Any, dict[str, Any]]: ...
    @overload
    def progress(self: BackgroundTask[Sync]) -> dict[str, Any]: ...
    def progress(self) -> Any:
        """``{complete, succeeded, failed, percent}`` summed over the nodes."""
        return self._ex.call(Call("progress", (), target=self._task))

    @overload
    def wait(
        self: BackgroundTask[Async], timeout: float | None = None
    ) -> Coroutine[Any, Any, Status]: ...
    @overload
    def wait(self: BackgroundTask[Sync], timeout: float | None = None) -> Status: ...
    def wait(self, timeout: float | None = None) -> Any:
        """Wait until complete (or ``timeout`` seconds pass); return the status.

        Raises:
            BackgroundTaskError: the task completed, but some records it selected were not
                written (e.g. an operation that does not apply to the bin's type); the error
                carries ``succeeded`` and ``failed`` (see :meth:`progress`).

        """
        if timeout is not None and (
            isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout < 0
        ):
            raise InvalidArgumentError(f"timeout must be seconds >= 0 or None, not {timeout!r}")
        return self._ex.run(self._waited(timeout))

    def _waited(self, timeout: float | None) -> Program[Status]:
        status: Status = yield Call("wait", (timeout,), target=self._task)
        if status == "complete":
            progress = yield Call("progress", (), target=self._task)
            if progress["failed"]:
                raise _failed(self.task_id, progress, self._udf)
        return status


class BackgroundWrite(OpChain[M], Generic[M]):
    """Operations the server applies to every record the query selects (``execute()``).

    Chain bin operations as on a key (``add``, ``set_bins``, ``bin("l").list.append(...)``);
    records the query selects that no longer exist are skipped, as on a real server.
    """

    __slots__ = ()

    @overload
    def execute(self: BackgroundWrite[Async]) -> Coroutine[Any, Any, BackgroundTask[Async]]: ...
    @overload
    def execute(self: BackgroundWrite[Sync]) -> BackgroundTask[Sync]: ...
    def execute(self) -> Any:
        """Start the job on every node; returns its task once every node accepted it."""
        if not self._ops:
            raise InvalidArgumentError("a background write needs operations (add, set_bins...)")
        _, filt, lim, query = self._base
        return start(query, filt, lim, ops=self._ops)


def start(
    query: Query[M],
    filter: tuple[Any, ...] | None,
    lim: _policy.Limits | None,
    *,
    ops: tuple[Any, ...] | None = None,
    udf: tuple[str, str, list[Any]] | None = None,
) -> Any:
    """Send a background query (``ops`` or ``udf``); the call returns its task."""
    ex = query._ex
    if ex.transaction is not None:
        raise TransactionError(
            "a background task cannot run inside a transaction (it is not transactional): "
            "start it from the client"
        )
    policy = _policy.build(filter=filter, lim=lim, pace=query._pace)
    args = (query._ns, query._set, query._index, policy, ops, udf)
    named = None if udf is None else (udf[0], udf[1])

    def finish(task: _native.BackgroundTask) -> BackgroundTask[M]:
        return BackgroundTask(ex, task, named)

    return ex.call(Call("query_background", args, finish=finish))
