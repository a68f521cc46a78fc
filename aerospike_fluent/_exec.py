"""Executors: the only place where async and sync differ.

Builders compile a chain into a *program*: a generator that yields :class:`Call` steps (one native
call each) and returns the final value. The async executor awaits each step through
``_bridge.call``; the sync executor runs the ``*_blocking`` twin. Most programs are one step.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar, Generic, NamedTuple, TypeVar, final

from aerospike_fluent import _autobatch, _bridge
from aerospike_fluent.models.codecs import DEFAULT as DEFAULT_CODECS
from aerospike_fluent.models.codecs import Codecs

if TYPE_CHECKING:
    from aerospike_fluent import _native

T = TypeVar("T")
M = TypeVar("M", "Async", "Sync")


@final
class Async:
    """Marker: terminals return awaitables."""


@final
class Sync:
    """Marker: terminals block and return values."""


class Call(NamedTuple):
    """One native call: ``target.method(done, *args)`` or ``target.method_blocking(*args)``.

    ``target`` is ``None`` for the connected native client. A named tuple: built once per
    terminal verb, and a tuple is several times cheaper to build than a frozen dataclass.
    """

    method: str
    args: tuple[Any, ...]
    target: Any = None
    finish: Callable[[Any], Any] | None = None


Program = Generator[Call, Any, T]


def then(program: Program[Any], finish: Callable[[Any], T]) -> Program[T]:
    """``program``, its result passed through ``finish``."""
    result = yield from program
    return finish(result)


def discard(_: object) -> None:
    """Drop the native result: the :attr:`Call.finish` of verbs that return nothing."""
    return None


def single(call: Call) -> Program[Any]:
    """Return a program of one call, post-processing its result with ``call.finish``."""
    result = yield call
    return call.finish(result) if call.finish is not None else result


class Verbs(dict[str, Callable[..., Any]]):
    """Native methods by name, bound on first use: ``verbs["put"](key, bins, policy)``.

    Sync executors bind the ``*_blocking`` twin; async ones a coroutine function running the
    method on the current event loop. One dict lookup per call instead of building a
    :class:`Call` and resolving the method again.
    """

    __slots__ = ("_bind", "_native")

    def __init__(self, native: Any, bind: Callable[[Any, str], Callable[..., Any]]) -> None:
        super().__init__()
        self._native = native
        self._bind = bind

    def __missing__(self, method: str) -> Callable[..., Any]:
        fn = self[method] = self._bind(self._native, method)
        return fn


class Executor(Generic[M]):
    """Runs programs against a native client; shared by every builder of one client."""

    __slots__ = ("_native", "codecs", "dict_codecs", "indexes", "transaction", "verbs")
    is_async: ClassVar[bool] = False

    def __init__(self, native: _native.Client) -> None:
        self._native = native
        self.verbs = self._verbs(native)
        self.transaction: _native.Transaction | None = None
        """The transaction the calls run in (the executor of a transaction's view)."""
        self.codecs: Codecs = DEFAULT_CODECS
        """The codecs of model fields: the built-ins and the client's."""
        self.dict_codecs: Codecs | None = None
        """The client's own codecs (``connect(codecs=...)``), which plain dict puts use too."""
        from aerospike_fluent._index_choice import Catalog

        self.indexes: Catalog = Catalog()
        """The namespaces' secondary indexes, for automatic index choice (shared by views)."""

    def with_codecs(self, codecs: Codecs | None) -> Executor[M]:
        """Use ``codecs`` (the client's own) for dict puts, and with the built-ins for models."""
        if codecs:
            self.codecs = DEFAULT_CODECS.with_(codecs.all())
            self.dict_codecs = codecs
        return self

    @property
    def native(self) -> _native.Client:
        """The native client."""
        return self._native

    def _verbs(self, native: _native.Client) -> Verbs:
        return Verbs(native, type(self)._bind)

    def retarget(self, native: _native.Client) -> None:
        """Send the calls of every builder of this executor through ``native`` from now on.

        ``native`` is a view of the same client with other call defaults (a reloaded
        configuration file); calls already started keep the old ones.
        """
        self.verbs = self._verbs(native)
        self._native = native

    @staticmethod
    def _bind(native: Any, method: str) -> Callable[..., Any]:
        """Return the callable that runs ``native.method`` for this executor."""
        raise NotImplementedError

    def _fn(self, call: Call) -> Callable[..., Any]:
        """Return the callable running ``call``: the bound verb, or one on its target."""
        if call.target is None:
            return self.verbs[call.method]
        return self._bind(call.target, call.method)

    def run(self, program: Program[T]) -> Any:
        """Run ``program``: an awaitable for async clients, the value for sync ones."""
        raise NotImplementedError

    def on(self, native: _native.Client) -> Executor[M]:
        """Return an executor like this one on another native client (a view of the same)."""
        raise NotImplementedError

    def call(self, call: Call) -> Any:
        """Run a single call (shortcut for ``run(single(call))``)."""
        return self.run(single(call))

    def in_transaction(self, native: _native.Client, txn: _native.Transaction) -> Executor[M]:
        """Return an executor like this one, never auto-batching, for a transaction's view.

        ``native`` is the view of the client whose calls run in ``txn``.
        """
        other = type(self)(native)
        other.with_codecs(self.dict_codecs)
        other.transaction = txn
        other.indexes = self.indexes
        return other


@final
class AsyncExecutor(Executor[Async]):
    """Awaits each step on the running asyncio or trio loop."""

    __slots__ = ("_auto_batch",)
    is_async: ClassVar[bool] = True

    def __init__(self, native: _native.Client, auto_batch: int | None = None) -> None:
        self._auto_batch = auto_batch
        super().__init__(native)

    def _verbs(self, native: _native.Client) -> Verbs:
        verbs = super()._verbs(native)
        if self._auto_batch is not None:
            direct = {verb: verbs[verb] for verb in _autobatch.VERBS}
            verbs.update(_autobatch.Batcher(native, self._auto_batch, direct).verbs())
        return verbs

    @staticmethod
    def _bind(native: Any, method: str) -> Callable[..., Any]:
        return partial(_bridge.named(_bridge.call, method), getattr(native, method))

    def on(self, native: _native.Client) -> AsyncExecutor:
        """Return an executor like this one (auto-batching too) on another native client."""
        other = AsyncExecutor(native, self._auto_batch)
        other.with_codecs(self.dict_codecs)
        other.indexes = self.indexes
        return other

    def run(self, program: Program[T]) -> Any:
        """Return a coroutine running ``program``."""
        return self._drive(program)

    def call(self, call: Call) -> Any:
        """Return a coroutine running one call (the common case, without a generator)."""
        fn = self._fn(call)
        if call.finish is None:
            return fn(*call.args)
        return self._finish(fn, call.args, call.finish)

    @staticmethod
    async def _finish(
        fn: Callable[..., Awaitable[Any]], args: tuple[Any, ...], finish: Callable[[Any], Any]
    ) -> Any:
        return finish(await fn(*args))

    async def _drive(self, program: Program[T]) -> T:
        try:
            step = next(program)
            while True:
                try:
                    result = await self._fn(step)(*step.args)
                except BaseException as exc:
                    step = program.throw(exc)
                else:
                    step = program.send(result)
        except StopIteration as stop:
            return stop.value  # type: ignore[no-any-return]
        finally:
            program.close()


@final
class SyncExecutor(Executor[Sync]):
    """Calls the blocking twin of each step on the calling thread."""

    __slots__ = ()

    @staticmethod
    def _bind(native: Any, method: str) -> Callable[..., Any]:
        return getattr(native, method + "_blocking")  # type: ignore[no-any-return]

    def on(self, native: _native.Client) -> SyncExecutor:
        """Return an executor like this one on another native client."""
        other = SyncExecutor(native)
        other.with_codecs(self.dict_codecs)
        other.indexes = self.indexes
        return other

    def call(self, call: Call) -> Any:
        """Run one call on the calling thread."""
        result = self._fn(call)(*call.args)
        return call.finish(result) if call.finish is not None else result

    def run(self, program: Program[T]) -> T:
        """Run ``program`` to completion and return its value."""
        try:
            step = next(program)
            while True:
                blocking = self._fn(step)
                try:
                    result = blocking(*step.args)
                except BaseException as exc:
                    step = program.throw(exc)
                else:
                    step = program.send(result)
        except StopIteration as stop:
            return stop.value  # type: ignore[no-any-return]
        finally:
            program.close()
