"""Record-wide operations inside a chain: ``.record.touch()``, ``.record.delete()``."""

from __future__ import annotations

from typing import Generic

from aerospike_fluent._collections import C
from aerospike_fluent._plan import scalar_op


class RecordOps(Generic[C]):
    """The record itself, at this point of the chain; each op returns the chain."""

    __slots__ = ("_chain",)

    def __init__(self, chain: C) -> None:
        self._chain = chain

    def touch(self) -> C:
        """Reset the record's TTL (to ``execute(ttl=...)``, or the namespace default).

        The whole chain then needs the record to exist (RecordNotFoundError otherwise).
        """
        return self._chain._with_op(scalar_op("touch", None))

    def delete(self) -> C:
        """Remove every bin; later writes in the chain start a new record.

        A chain that leaves no bins deletes the record.
        """
        return self._chain._with_op(scalar_op("delete", None))
