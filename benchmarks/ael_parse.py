"""AEL parse time against text size: ``python -m benchmarks.ael_parse [--sizes 1000,2000]``.

Parses texts of a few shapes, each at several operand counts, and prints the median time per
parse, its time per operand and the text length. Linear parsing keeps the time per operand flat
as the count grows; text past the parser's limits is refused, and the time to refuse it is what
is shown ("refused"); ``--lift-limits`` raises them to show the time past them. Runs on one
core, no server; the same script measures an older tree (put it first on ``PYTHONPATH``).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from aerospike_fluent import F
from aerospike_fluent.errors import InvalidArgumentError

SHAPES: dict[str, Callable[[int], str]] = {
    "and-chain": lambda n: " and ".join(f"$.a{i % 10} == {i}" for i in range(n)),
    "or-of-ands": lambda n: " or ".join(f"($.a == {i} and $.b < {i})" for i in range(n // 2)),
    "sum": lambda n: "$.a == 1" + " + 1" * (n - 1),
    "mixed +/-": lambda n: "$.a == 1" + "".join(" + 1" if i % 50 else " - 1" for i in range(n)),
    "in-list": lambda n: "$.a in [" + ", ".join(str(i) for i in range(n)) + "]",
}


def time_parse(text: str, repeat: int) -> tuple[float, bool]:
    """Median seconds to parse ``text``, and whether it was refused."""
    times = []
    refused = False
    for _ in range(repeat):
        start = time.perf_counter()
        try:
            F.parse(text)
        except InvalidArgumentError:
            refused = True
        times.append(time.perf_counter() - start)
    return statistics.median(times), refused


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.ael_parse", description=__doc__)
    p.add_argument("--sizes", default="250,1000,2000,4000,20000", help="operand counts")
    p.add_argument("--shapes", default=",".join(SHAPES), help="which shapes")
    p.add_argument("--repeat", type=int, default=3, help="parses per point (median)")
    p.add_argument(
        "--lift-limits", action="store_true", help="raise the text and token limits 100-fold"
    )
    args = p.parse_args(argv)
    if args.lift_limits:
        from aerospike_fluent.exp import _ael_limits

        _ael_limits.MAX_TEXT *= 100
        _ael_limits.MAX_TOKENS *= 100
    sizes = [int(s) for s in args.sizes.split(",")]
    print("| shape | operands | characters | ms per parse | µs per operand | outcome |")
    print("|---|---:|---:|---:|---:|---|")
    for shape in args.shapes.split(","):
        for n in sizes:
            text = SHAPES[shape](n)
            seconds, refused = time_parse(text, args.repeat)
            outcome = "refused" if refused else "parsed"
            print(
                f"| {shape} | {n:,} | {len(text):,} | {seconds * 1e3:.1f} "
                f"| {seconds / n * 1e6:.1f} | {outcome} |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
