"""A misspelled option, wherever it is given, is refused with the closest known name; a seed
with a scheme says the form is ``host:port``; ``dask.read_set("embedded://")`` says why not."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]
import pytest

import aerospike_fluent as af
from aerospike_fluent import _arrow, errors
from aerospike_fluent._options import prepare
from aerospike_fluent._seeds import embedded_options as _embedded_options
from aerospike_fluent._seeds import seeds_string
from aerospike_fluent.polars import scan
from aerospike_fluent.scopes import RecordSet


def _hint(make: Callable[[], object], close: str) -> None:
    with pytest.raises(errors.InvalidArgumentError, match=f"did you mean '{close}'"):
        make()


def test_every_option_set_names_the_closest_option(users: RecordSet[Any], tmp_path: Path) -> None:
    config = tmp_path / "aerospike.toml"
    config.write_text("[connection]\nidle_timout = 5\n")
    _hint(lambda: prepare(None, {"max_retires": 1}, stacklevel=1), "max_retries")
    _hint(lambda: prepare(None, {"config": config}, stacklevel=1), "idle_timeout")
    _hint(lambda: prepare(None, {"policy": {"read": {"total_timout": 1}}}, 1), "total_timeout")
    _hint(lambda: af.Policy.from_mapping({"replcia": "master"}), "replica")
    _hint(lambda: users.put_arrow(pa.table({"id": [1]}), key="id", progres=print), "progress")  # type: ignore[call-overload]
    _hint(lambda: _arrow.spec({"digets": True}, None, batch=False), "digest")
    _hint(lambda: _embedded_options("?node=3"), "nodes")
    _hint(lambda: scan(users, sampel_size=5), "sample_size")  # type: ignore[call-arg]
    _hint(lambda: af.Policy(totl_timeout=1), "total_timeout")  # type: ignore[call-arg]
    _hint(lambda: af.Limits(max_retry=1), "max_retries")  # type: ignore[call-arg]
    _hint(lambda: af.Policy().derive(replcia="master"), "replica")  # type: ignore[call-arg]
    config.write_text("totl_timeout = 1\n")
    _hint(lambda: prepare(None, {"config": config}, stacklevel=1), "total_timeout")


@pytest.mark.parametrize("seed", ["http://127.0.0.1:3000", "aerospike://db1:3000,db2:3000"])
def test_a_seed_with_a_scheme_names_the_form(seed: str) -> None:
    with pytest.raises(errors.InvalidArgumentError, match="not host:port: give it without a"):
        seeds_string(seed)


@pytest.mark.parametrize("seeds", ["embedded://", "embedded://?nodes=3"])
def test_dask_read_set_says_why_an_embedded_server_cannot_serve_it(seeds: str) -> None:
    from aerospike_fluent import dask as afd

    with pytest.raises(errors.InvalidArgumentError, match="would start one per worker"):
        afd.read_set(seeds, "test", "s")
