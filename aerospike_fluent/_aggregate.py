"""Stream-UDF aggregations: the native call behind ``Query.aggregate``.

Each node runs the stream function over its matching records up to its first ``reduce`` and
sends its partial results; the client runs the rest of the function over them (the module's
source is fetched from the cluster), as the official clients do.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aerospike_fluent import _native
from aerospike_fluent._exec import Call
from aerospike_fluent.errors import InvalidArgumentError


def aggregate_call(
    namespace: str,
    set_name: str,
    index: tuple[Any, ...] | None,
    policy: _native.Policy | None,
    module: str,
    function: str,
    args: Sequence[Any],
    unsupported: Sequence[str],
    *,
    where: bool,
    short: bool,
) -> Call:
    """Build the native call running ``module.function(stream, *args)`` over the records.

    A server refuses an aggregation with a filter expression (code 16) or as a short query
    (code 4), so ``where`` and ``short`` are refused here, before the wire.
    """
    for what, name in (("module", module), ("function", function)):
        if not isinstance(name, str) or not name:
            raise InvalidArgumentError(f"aggregate {what} name must be a non-empty str")
    if where:
        raise InvalidArgumentError(
            "aggregate() takes no where() expression (a server refuses one): select with "
            "where_index() and filter in the stream function"
        )
    if short:
        raise InvalidArgumentError("aggregate() cannot run as a short() query")
    if unsupported:
        raise InvalidArgumentError(
            f"aggregate() runs over every matching record: drop {', '.join(unsupported)}"
        )
    return Call("aggregate", (namespace, set_name, index, module, function, list(args), policy))
