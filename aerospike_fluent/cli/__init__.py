"""The ``aerospike-fluent`` command line (also ``python -m aerospike_fluent``).

It needs the ``cli`` extra (Click, Rich, pyarrow); without them :func:`main` says which to
install instead of failing on an import.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

__all__ = ["INSTALL_HINT", "main"]

INSTALL_HINT = "the command line needs its extra: pip install 'aerospike-fluent[cli]'"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: the process arguments); return its exit code."""
    try:
        import click  # noqa: F401
        import pyarrow  # type: ignore[import-untyped, unused-ignore]  # noqa: F401
        import rich  # noqa: F401
    except ImportError as missing:
        print(f"aerospike-fluent: {INSTALL_HINT} ({missing.name} is missing)", file=sys.stderr)
        return 2
    from aerospike_fluent.cli.app import run

    return run(argv)
