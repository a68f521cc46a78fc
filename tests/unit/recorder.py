"""An executor that records the native calls a chain compiles to (no I/O)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from aerospike_fluent._exec import Call, Executor, Program, Sync, T, single


class Recorder(Executor[Sync]):
    """Runs programs without I/O: records every call and answers with ``reply(call)``."""

    __slots__ = ("calls", "reply")

    def __init__(self, reply: Callable[[Call], Any] | None = None) -> None:
        super().__init__(self)  # type: ignore[arg-type]  # verbs bind to the recorder
        self.calls: list[Call] = []
        self.reply = reply or (lambda call: None)

    @staticmethod
    def _bind(recorder: Any, method: str) -> Callable[..., Any]:
        return partial(recorder.record, method)

    def record(self, method: str, *args: Any) -> Any:
        """Record a direct verb call as the one-step program it stands for."""
        return self.run(single(Call(method, args)))

    def run(self, program: Program[T]) -> T:
        try:
            step = next(program)
            while True:
                self.calls.append(step)
                step = program.send(self.reply(step))
        except StopIteration as stop:
            return stop.value  # type: ignore[no-any-return]
