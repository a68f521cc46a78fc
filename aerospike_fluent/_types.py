"""Type aliases of the native plan format (runtime twins of the ones in ``_native.pyi``)."""

from __future__ import annotations

from typing import Any

Key = tuple[str, str, str | int | bytes | None, bytes | None]
"""``(namespace, set_name, user_key, digest)``; exactly one of user_key / digest is set."""
Op = tuple[Any, ...]
"""``(op_name, bin_name, *args)``."""
