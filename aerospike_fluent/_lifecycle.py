"""Context-manager behaviour shared by the embedded server and cluster: ``stop()`` on exit."""

from __future__ import annotations

from types import TracebackType
from typing import Self


class StopsOnExit:
    """Sync and async context manager calling ``self.stop()`` on exit."""

    __slots__ = ()

    def stop(self) -> None:
        """Stop; idempotent."""
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
