"""Unknown values inside expressions (a missing bin, an integer division by zero), as a real node
answers them: a `cond` whose condition is unknown is unknown as a whole (an expression read
fails with OP_NOT_APPLICABLE), while `and` / `or` settle on a known operand and `let` ignores an
unused definition."""

from __future__ import annotations

from typing import Any

import pytest
from aerospike import exception as ex
from aerospike_helpers import expressions as exp  # type: ignore[import-untyped]
from aerospike_helpers.operations import expression_operations as eo  # type: ignore[import-untyped]

pytestmark = pytest.mark.compat

MISSING = exp.GT(exp.IntBin("missing"), 1)
DIV_ZERO = exp.GT(exp.Div(5, exp.IntBin("zero")), 1)
UNKNOWN = object()


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        (exp.Cond(MISSING, 5, 6), UNKNOWN),
        (exp.Cond(DIV_ZERO, 5, 6), UNKNOWN),
        (exp.Cond(exp.GT(exp.IntBin("a"), 5), 5, DIV_ZERO, 7, 6), UNKNOWN),
        (exp.Cond(exp.GT(exp.IntBin("a"), 0), 5, DIV_ZERO, 7, 6), 5),
        (exp.Cond(exp.GT(exp.IntBin("a"), 0), 5, exp.Div(5, exp.IntBin("zero"))), 5),
        (exp.And(MISSING, exp.Eq(1, 2)), False),
        (exp.Or(DIV_ZERO, exp.Eq(1, 1)), True),
        (exp.Not(DIV_ZERO), UNKNOWN),
        (exp.Min(exp.Div(5, exp.IntBin("zero")), 1), UNKNOWN),
        (exp.Let(exp.Def("x", exp.Div(5, exp.IntBin("zero"))), 3), 3),
    ],
)
def test_unknown_inside_an_expression(
    client: Any, set_name: str, expr: Any, expected: object
) -> None:
    key = ("test", set_name, "u")
    client.put(key, {"a": 3, "zero": 0})
    read = [eo.expression_read("x", expr.compile())]
    if expected is UNKNOWN:
        with pytest.raises(ex.OpNotApplicable):
            client.operate(key, read)
    else:
        assert client.operate(key, read)[2]["x"] == expected
