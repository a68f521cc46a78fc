"""The TOML configuration file: the documented example parses, explicit arguments win over it,
and every mistake names the file, the table and the key."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import aerospike_fluent as af
from aerospike_fluent import errors
from aerospike_fluent._options import config, prepare

DOCS = Path(__file__).parents[2] / "docs" / "guide" / "policies.md"


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "aerospike.toml"
    path.write_text(text)
    return path


def _documented_example() -> str:
    (block,) = re.findall(r"```toml\n(.*?)```", DOCS.read_text(), flags=re.S)
    return str(block)


def test_the_documented_example_parses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AEROSPIKE_HOST", raising=False)
    path = _write(tmp_path, _documented_example())
    prepared = prepare(None, {"config": path, "password": "secret"}, stacklevel=1)
    assert prepared.seeds == ["10.0.1.10:3000", "10.0.2.10:3000"]
    assert prepared.native["cluster_name"] == "prod"
    assert prepared.native["rack_ids"] == [1]
    assert prepared.policy.resolved().send_key is True
    assert prepared.policy.read == af.Limits(total_timeout=0.2)
    nightly = prepared.profiles["nightly"]
    assert nightly == af.Policy(
        total_timeout=30, max_retries=5, retry_writes=True, batch={"total_timeout": 120}
    )
    config("127.0.0.1:3000", prepared)  # the native config takes it all


def test_explicit_arguments_win_over_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write(
        tmp_path,
        'seeds = "10.0.0.1:3000"\n[connection]\nmax_conns_per_node = 64\ntotal_timeout = 3\n'
        "[policy]\nsend_key = true\nmax_retries = 4\n",
    )
    monkeypatch.setenv("AEROSPIKE_FLUENT_CONFIG", str(path))
    monkeypatch.delenv("AEROSPIKE_HOST", raising=False)
    prepared = prepare(
        "127.0.0.1:4000",
        {"max_conns_per_node": 8, "policy": af.Policy(max_retries=1)},
        stacklevel=1,
    )
    assert prepared.seeds == "127.0.0.1:4000"
    assert prepared.native == {"max_conns_per_node": 8}
    assert prepared.policy.resolved().max_retries == 1
    assert prepared.policy.resolved().send_key is True
    assert prepared.policy.resolved().total_timeout == 3
    monkeypatch.setenv("AEROSPIKE_HOST", "127.0.0.1:5000")
    assert prepare(None, {}, stacklevel=1).seeds is None  # AEROSPIKE_HOST beats the file's


@pytest.mark.parametrize(
    ("text", "error", "message"),
    [
        ("sedes = []\n", errors.InvalidArgumentError, "unknown key 'sedes'; did you mean 'seeds'"),
        ("seeds = 5\n", errors.InvalidTypeError, "seeds is 'host:port'"),
        (
            "user = 'u'\n",
            errors.InvalidArgumentError,
            "unknown key 'user': it goes in [connection]",
        ),
        ("ttl = 5\n", errors.InvalidArgumentError, "unknown key 'ttl': it goes in [policy]"),
        (
            "[connection]\nmax_conns = 3\n",
            errors.InvalidArgumentError,
            ": unknown [connection] option 'max_conns'; did you mean",
        ),
        ("[connection]\ntotal_timeout_ms = 3\n", errors.InvalidArgumentError, "old name"),
        ("[connection]\ntend_interval = 'x'\n", errors.InvalidTypeError, "tend_interval"),
        (
            "[connection]\nmax_error_rate = -7\n",
            errors.InvalidArgumentError,
            "[connection] option max_error_rate must be within 0..",
        ),
        ("[connection]\nerror_rate_window = 1.5\n", errors.InvalidTypeError, "error_rate_window"),
        ("[policy]\nttl = 'forever'\n", errors.InvalidArgumentError, "[policy]: policy option ttl"),
        ("[policy.read]\ntotal = 1\n", errors.InvalidArgumentError, "policy section read 'total'"),
        ("[profiles.a]\nfrom = 'b'\n", errors.InvalidArgumentError, "from profile 'b'"),
        (
            "[profiles.a]\nfrom = 'b'\n[profiles.b]\nfrom = 'a'\n",
            errors.InvalidArgumentError,
            "loop: a -> b -> a",
        ),
        ("seeds = [\n", errors.InvalidArgumentError, "not valid TOML"),
    ],
)
def test_mistakes_name_the_file_and_the_key(
    tmp_path: Path, text: str, error: type[Exception], message: str
) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(error) as raised:
        prepare(None, {"config": path}, stacklevel=1)
    assert str(path) in str(raised.value)
    assert message in str(raised.value)


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(errors.InvalidArgumentError, match="does not exist"):
        prepare(None, {"config": tmp_path / "nope.toml"}, stacklevel=1)


def test_policies_check_their_values_when_made() -> None:
    cases: list[tuple[dict[str, Any], type[Exception], str]] = [
        ({"replica": "nearest"}, errors.InvalidArgumentError, "replica must be one of"),
        ({"send_key": 1}, errors.InvalidTypeError, "send_key is True or False"),
        ({"ttl": 1.5}, errors.InvalidTypeError, "ttl is seconds"),
        ({"total_timeout": -1}, errors.InvalidArgumentError, "total_timeout"),
        ({"info": {"max_retries": 3}}, errors.InvalidArgumentError, "info takes only"),
        ({"read": 5}, errors.InvalidTypeError, "policy section read"),
    ]
    for options, error, message in cases:
        with pytest.raises(error, match=re.escape(message)):
            af.Policy(**options)
