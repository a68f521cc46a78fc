"""Executors: the only place where async and sync differ.

Builders compile a chain into a *program*: a generator that yields :class:`Call` steps (one native
call each) and returns the final value. The async executor awaits each step through
``_bridge.wait``; the sync executor runs the ``*_blocking`` twin. Most programs are one step.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any, ClassVar, Final, Generic, NamedTuple, TypeVar, final

from aerospike_fluent import _bridge

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


def single(call: Call) -> Program[Any]:
    """Return a program of one call, post-processing its result with ``call.finish``."""
    result = yield call
    return call.finish(result) if call.finish is not None else result


class Executor(Generic[M]):
    """Runs programs against a native client; shared by every builder of one client."""

    __slots__ = ("_native",)
    is_async: ClassVar[bool] = False

    def __init__(self, native: _native.Client) -> None:
        self._native: Final = native

    @property
    def native(self) -> _native.Client:
        """The native client."""
        return self._native

    def run(self, program: Program[T]) -> Any:
        """Run ``program``: an awaitable for async clients, the value for sync ones."""
        raise NotImplementedError

    def call(self, call: Call) -> Any:
        """Run a single call (shortcut for ``run(single(call))``)."""
        return self.run(single(call))


@final
class AsyncExecutor(Executor[Async]):
    """Awaits each step on the running asyncio or trio loop."""

    __slots__ = ()
    is_async: ClassVar[bool] = True

    def run(self, program: Program[T]) -> Any:
        """Return a coroutine running ``program``."""
        return self._drive(program)

    def call(self, call: Call) -> Any:
        """Return a coroutine running one call (the common case, without a generator)."""
        target = self._native if call.target is None else call.target
        if call.finish is None:
            return _bridge.call(getattr(target, call.method), call.args)
        return self._call(getattr(target, call.method), call.args, call.finish)

    @staticmethod
    async def _call(
        method: Callable[..., Any], args: tuple[Any, ...], finish: Callable[[Any], Any]
    ) -> Any:
        return finish(await _bridge.call(method, args))

    async def _drive(self, program: Program[T]) -> T:
        try:
            step = next(program)
            while True:
                target = self._native if step.target is None else step.target
                try:
                    result = await _bridge.call(getattr(target, step.method), step.args)
                except BaseException as exc:
                    step = program.throw(exc)
                else:
                    step = program.send(result)
        except StopIteration as stop:
            return stop.value  # type: ignore[no-any-return]
        finally:
            program.close()


_BLOCKING: dict[str, str] = {}


def _blocking_name(method: str) -> str:
    name = _BLOCKING[method] = method + "_blocking"
    return name


@final
class SyncExecutor(Executor[Sync]):
    """Calls the blocking twin of each step on the calling thread."""

    __slots__ = ()

    def call(self, call: Call) -> Any:
        """Run one call on the calling thread."""
        target = self._native if call.target is None else call.target
        name = _BLOCKING.get(call.method) or _blocking_name(call.method)
        result = getattr(target, name)(*call.args)
        return call.finish(result) if call.finish is not None else result

    def run(self, program: Program[T]) -> T:
        """Run ``program`` to completion and return its value."""
        try:
            step = next(program)
            while True:
                target = self._native if step.target is None else step.target
                blocking = getattr(target, step.method + "_blocking")
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
