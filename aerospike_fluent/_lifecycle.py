"""Context-manager behaviour (``stop()`` or ``close()`` on exit); async ``close()``'s result."""

from __future__ import annotations

from collections.abc import Generator
from types import TracebackType
from typing import Any, Self, final


class _OnExit:
    """Sync and async context manager calling ``self._on_exit()`` on exit."""

    __slots__ = ()

    def _on_exit(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._on_exit()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._on_exit()


class StopsOnExit(_OnExit):
    """Sync and async context manager calling ``self.stop()`` on exit."""

    __slots__ = ()

    def stop(self) -> None:
        """Stop; idempotent."""
        raise NotImplementedError

    def _on_exit(self) -> None:
        self.stop()


class ClosesOnExit(_OnExit):
    """Sync and async context manager calling ``self.close()`` on exit; ``aclose()``."""

    __slots__ = ()

    def close(self) -> None:
        """Close; idempotent."""
        raise NotImplementedError

    def _on_exit(self) -> None:
        self.close()

    async def aclose(self) -> None:
        """Close (for ``contextlib.aclosing`` and async generators' protocol)."""
        self.close()


@final
class Closed:
    """What an async client's ``close()`` returns: awaiting it returns at once (it is closed)."""

    __slots__ = ()

    def __await__(self) -> Generator[Any, None, None]:
        return
        yield  # a generator that ends at once

    def __repr__(self) -> str:
        return "<closed>"
