"""One dynamic configuration file, read by the official C-based client and by this SDK: each
resolves the same call defaults from it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import aerospike
import pytest
import yaml

import aerospike_fluent.sync as af_sync

SHARED = (Path(__file__).parent.parent / "config" / "aerospike.yaml").read_text()
REPLICAS = {0: "master", 1: "master_proles", 2: "sequence", 3: "prefer_rack"}
READ_MODES_AP = {0: "one", 1: "all"}
FAMILIES = {"read": "read", "write": "write", "query": "query", "batch": "batch"}
"""The official client's policy section each of this SDK's command families matches."""


def _ms(seconds: float | None) -> int:
    assert seconds is not None
    return round(seconds * 1000)


def _official(host: str, port: int, path: Path, lua: Path) -> dict[str, Any]:
    provider = aerospike.ConfigProvider(str(path), 5000)
    config = {"hosts": [(host, port)], "lua": {"user_path": str(lua)}, "config_provider": provider}
    client = aerospike.client(config).connect()
    try:
        return client.get_policies()
    finally:
        client.close()


@pytest.mark.compat
def test_both_clients_resolve_the_same_policies(
    server_address: tuple[str, int], lua_path: Path, tmp_path: Path
) -> None:
    path = tmp_path / "aerospike.yaml"
    path.write_text(SHARED)
    host, port = server_address
    theirs = _official(host, port, path, lua_path)
    with af_sync.connect(f"{host}:{port}", config=str(path)) as db:
        ours = db.policy.resolved()

    compared = 0
    for family, section in FAMILIES.items():
        limits = getattr(ours, family)
        given = yaml.safe_load(SHARED)["dynamic"]["batch_read" if family == "batch" else family]
        for key, mine in (
            ("total_timeout", _ms(limits.total_timeout)),
            ("socket_timeout", _ms(limits.socket_timeout)),
            ("max_retries", limits.max_retries),
            ("sleep_between_retries", _ms(limits.retry_pause)),
        ):
            if key in given:
                assert (family, key, mine) == (family, key, theirs[section][key])
                compared += 1
    assert REPLICAS[theirs["read"]["replica"]] == ours.replica == "master"
    assert READ_MODES_AP[theirs["read"]["read_mode_ap"]] == ours.read_mode_ap == "all"
    assert (theirs["write"]["key"] == aerospike.POLICY_KEY_SEND) is ours.send_key is True
    assert theirs["write"]["durable_delete"] is ours.durable_delete is True
    assert compared == 7
