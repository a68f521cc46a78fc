"""``put_arrow``: the rows of an Arrow table, record batch stream or DataFrame written as records.

The columns are read natively (``_native.ArrowWriter``), a chunk of ``batch_size`` rows at a
time; each round sends ``concurrency`` chunks as batch requests (``put_chunks``), then reports
progress. Rows that fail do not stop the others: the result lists them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from aerospike_fluent import _native, _policy, _validate
from aerospike_fluent._exec import Call, Program
from aerospike_fluent._policy import expiry as _expiry
from aerospike_fluent.errors import AerospikeError, InvalidArgumentError, InvalidTypeError
from aerospike_fluent.progress import OnWriteProgress, WriteProgress, write_callback

if TYPE_CHECKING:
    from aerospike_fluent._policy import TTL
    from aerospike_fluent._types import Key

WriteMode = Literal["upsert", "insert", "update", "replace"]

MODES: dict[str, str] = {
    "upsert": "upsert",
    "insert": "create",
    "update": "update",
    "replace": "replace",
}


@dataclass(frozen=True, slots=True)
class ArrowWriteResult:
    """What a ``put_arrow`` did: rows written, and each failed row's key and error."""

    written: int
    failed: Sequence[tuple[Key, AerospikeError]] = field(default_factory=tuple)

    @property
    def ok(self) -> bool:
        """Whether every row was written."""
        return not self.failed

    def raise_on_error(self) -> ArrowWriteResult:
        """Raise the first failed row's error (noting how many failed); else return ``self``."""
        if not self.failed:
            return self
        error = self.failed[0][1]
        note = f"{len(self.failed)} of {self.written + len(self.failed)} rows failed"
        if note not in getattr(error, "__notes__", ()):
            error.add_note(note)
        raise error


def _source(data: object) -> object:
    """Return ``data`` as an object exporting an Arrow stream (pandas through pyarrow)."""
    if hasattr(data, "__arrow_c_stream__") or hasattr(data, "__arrow_c_array__"):
        return data
    if type(data).__module__.startswith("pandas"):
        try:
            import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
        except ImportError:
            raise ModuleNotFoundError(
                "writing a pandas DataFrame needs pyarrow: pip install 'aerospike-fluent[pandas]'"
            ) from None
        return pa.Table.from_pandas(data, preserve_index=False)
    raise InvalidTypeError(
        "put_arrow() takes what exports an Arrow stream (a pyarrow Table or RecordBatchReader, "
        f"a polars DataFrame, a DuckDB result) or a pandas DataFrame, not {type(data).__name__}"
    )


def _check_bin_columns(source: object, key: str) -> None:
    """Refuse NUL in the names of the columns written as bins (the native reader checks sizes).

    The names come from the schema a pyarrow object carries, or the ``columns`` of a polars
    DataFrame or DuckDB result; other sources are left to the native reader.
    """
    names = getattr(getattr(source, "schema", None), "names", None)
    if not isinstance(names, list):
        names = getattr(source, "columns", None)
    if not isinstance(names, list):
        return
    for name in names:
        if isinstance(name, str) and name != key and "\0" in name:
            raise InvalidArgumentError(f"column {name!r} cannot be a bin: its name holds a NUL")


def _rows_total(data: object) -> int | None:
    for name in ("num_rows", "height"):
        n = getattr(data, name, None)
        if isinstance(n, int):
            return n
    try:
        return len(data)  # type: ignore[arg-type]
    except TypeError:
        return None


def _positive(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidArgumentError(f"{name} must be an int >= 1, not {value!r}")
    return value


def put_arrow(
    namespace: str,
    set_name: str,
    data: object,
    *,
    key: str,
    mode: WriteMode,
    ttl: TTL,
    expire_at: datetime | None,
    send_key: bool | None,
    batch_size: int,
    concurrency: int,
    timeout: float | None,
    progress: OnWriteProgress | None,
    raise_on_error: bool,
) -> Program[ArrowWriteResult]:
    """Return the program of ``RecordSet.put_arrow``, every option checked before sending."""
    if not isinstance(key, str):
        raise InvalidTypeError(f"key names the column of user keys, not {key!r}")
    if mode not in MODES:
        raise InvalidArgumentError(f"mode must be one of {list(MODES)}, not {mode!r}")
    size, rounds = _positive("batch_size", batch_size), _positive("concurrency", concurrency)
    report = write_callback(progress)
    lim = _policy.limits(timeout, None, None)
    policy = _policy.build(
        ttl=_validate.ttl(_expiry(ttl, expire_at)),
        exists=_policy.exists(MODES[mode]),
        send_key=_policy.flag("send_key", send_key),
        lim=lim,
    )
    source = _source(data)
    _check_bin_columns(source, key)
    total = _rows_total(data)
    writer = _native.ArrowWriter(source, namespace, set_name, key)
    return _run(writer, policy, size, rounds, total, report, raise_on_error)


def _run(
    writer: _native.ArrowWriter,
    policy: _native.Policy | None,
    size: int,
    rounds: int,
    total: int | None,
    report: Any,
    raise_on_error: bool,
) -> Program[ArrowWriteResult]:
    written = 0
    failed: list[tuple[Key, AerospikeError]] = []
    try:
        while True:
            chunks = []
            for _ in range(rounds):
                chunk = writer.next_chunk(size)
                if chunk is None:
                    break
                chunks.append(chunk)
            if not chunks:
                break
            done, bad = yield Call("put_chunks", (chunks, policy, rounds))
            written += done
            failed.extend(bad)
            if report is not None:
                report(WriteProgress(written + len(failed), len(failed), total, False))
    finally:
        if report is not None:
            report(WriteProgress(written + len(failed), len(failed), total, True))
    result = ArrowWriteResult(written, tuple(failed))
    return result.raise_on_error() if raise_on_error else result
