"""A changed dynamic configuration file reaches a running client: its builders, its metrics."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

import aerospike_fluent as af
import aerospike_fluent.sync as af_sync
from aerospike_fluent import errors

FIRST = """\
version: "1.0.0"
static:
  client:
    config_interval: 1
dynamic:
  read:
    total_timeout: 4000
  write:
    send_key: false
"""
WAIT = 20.0  # seconds before a test gives up waiting for the watcher (interval: 1 s)


def _limits(policy: af.Policy, family: str) -> af.Limits:
    section = getattr(policy, family)
    assert isinstance(section, af.Limits)
    return section


def _until(done: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT
    while not done():
        if time.monotonic() > deadline:
            pytest.fail(f"the file was not re-read within {WAIT} s")
        time.sleep(0.05)


def _stored_keys(db: af_sync.SyncClient, set_name: str) -> dict[str, bool]:
    return {
        str(r.bins["name"]): r.key is not None and r.key[2] is not None
        for r in db.namespace("test").set(set_name).query()
    }


def test_a_changed_file_applies_to_builders_made_before_it(
    seeds: str, set_name: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "aerospike.yaml"
    path.write_text(FIRST)
    with af_sync.connect(seeds, config=str(path)) as db:
        records = db.namespace("test").set(set_name)
        records.key("before").put({"name": "before"})
        read = _limits(db.policy.resolved(), "read")
        assert read is not None and read.total_timeout == 4.0
        assert db.metrics().config.path == str(path)

        with caplog.at_level(logging.INFO, logger="aerospike_fluent.config"):
            path.write_text(
                FIRST.replace("send_key: false", "send_key: true").replace("4000", "2500")
            )
            _until(lambda: db.metrics().config.applied == 1)
        records.key("after").put({"name": "after"})

        assert _stored_keys(db, set_name) == {"before": False, "after": True}
        read = _limits(db.policy.resolved(), "read")
        assert read is not None and read.total_timeout == 2.5
        assert db.native.call_defaults == db.policy._call_defaults()
        assert any(
            "applied the new dynamic configuration" in r.getMessage() for r in caplog.records
        )


def test_a_bad_edit_keeps_the_last_good_configuration(
    seeds: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "aerospike.yaml"
    path.write_text(FIRST)
    with af_sync.connect(seeds, config=str(path)) as db:
        before = db.policy
        with caplog.at_level(logging.WARNING, logger="aerospike_fluent.config"):
            path.write_text(FIRST.replace("total_timeout: 4000", "total_timeout: soon"))
            _until(lambda: db.metrics().config.rejected == 1)
        assert db.policy == before
        assert db.metrics().config.applied == 0
        warning = f"{path}: keeping the last good configuration: {path}: dynamic.read.total_timeout"
        assert any(r.getMessage().startswith(warning) for r in caplog.records)

        path.write_text(FIRST.replace("4000", "3000"))  # a good edit after a bad one applies
        _until(lambda: db.metrics().config.applied == 1)
        read = _limits(db.policy.resolved(), "read")
        assert read is not None and read.total_timeout == 3.0


def test_explicit_arguments_still_win_after_a_reload(seeds: str, tmp_path: Path) -> None:
    path = tmp_path / "aerospike.yaml"
    path.write_text(FIRST)
    with af_sync.connect(seeds, config=str(path), policy={"send_key": False}) as db:
        path.write_text(FIRST.replace("send_key: false", "send_key: true").replace("4000", "900"))
        _until(lambda: db.metrics().config.applied == 1)
        policy = db.policy.resolved()
        assert policy.send_key is False
        assert _limits(policy, "read").total_timeout == 0.9


def test_a_client_without_the_file_reports_no_reloads(sdb: af_sync.SyncClient) -> None:
    assert sdb.metrics().config.path is None
    assert sdb.metrics().config.applied == 0


def test_a_file_refused_at_connect_connects_nothing(seeds: str, tmp_path: Path) -> None:
    path = tmp_path / "aerospike.yaml"
    path.write_text(FIRST.replace("send_key: false", "send_key: maybe"))
    with pytest.raises(errors.InvalidTypeError, match=r"dynamic\.write\.send_key is true or false"):
        af_sync.connect(seeds, config=str(path))


@pytest.mark.anyio
async def test_an_auto_batching_async_client_follows_the_file(
    seeds: str, set_name: str, tmp_path: Path
) -> None:
    path = tmp_path / "aerospike.yaml"
    path.write_text(FIRST)
    async with af.connect(seeds, config=str(path), auto_batch=True) as db:
        records = db.namespace("test").set(set_name)
        await records.key("before").put({"name": "before"})
        path.write_text(FIRST.replace("send_key: false", "send_key: true"))
        deadline = time.monotonic() + WAIT
        while db.metrics().config.applied == 0:
            assert time.monotonic() < deadline, f"the file was not re-read within {WAIT} s"
            await anyio.sleep(0.05)
        await records.key("after").put({"name": "after"})
        got = [await records.key(k).get() for k in ("before", "after")]  # through the batcher
        assert [r.bins["name"] if r else None for r in got] == ["before", "after"]
        stored = {
            str(r.bins["name"]): r.key is not None and r.key[2] is not None
            async for r in records.query()
        }
        assert stored == {"before": False, "after": True}
