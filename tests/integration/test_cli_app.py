"""The ``aerospike-fluent`` program: its extra, connection options and config file, ``serve``."""

from __future__ import annotations

import os
import pty
import signal
import subprocess
import sys
from pathlib import Path

import aerospike_fluent as af
from aerospike_fluent import sync as af_sync

from ._cli import ROOT, cli, cli_env, cli_process


def test_without_its_extra_it_says_what_to_install() -> None:
    code = (
        "import sys; sys.modules['rich'] = None; "
        "from aerospike_fluent.cli import main; sys.exit(main(['info']))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=cli_env(None),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "aerospike-fluent: the command line needs its extra: pip install 'aerospike-fluent[cli]' "
        "(rich is missing)"
    )


def test_help_lists_every_command() -> None:
    done = cli(None, "--help")
    assert done.returncode == 0
    commands = done.stdout.split("Commands:")[1].split()
    for name in ("info", "query", "import", "get", "put", "delete", "serve"):
        assert name in commands


def test_a_config_file_gives_the_seeds(
    seeds: str, sdb: af.SyncClient, set_name: str, tmp_path: Path
) -> None:
    sdb.namespace("test").set(set_name).key(1).put({"from": "config"})
    config = tmp_path / "fluent.toml"
    config.write_text(f'seeds = "{seeds}"\n')
    done = cli(None, "get", f"test.{set_name}", "1", "--config", str(config), "--json")
    assert done.returncode == 0, done.stderr
    assert '"from": "config"' in done.stdout


def test_host_wins_over_the_environment_before_or_after_the_command(
    seeds: str, sdb: af.SyncClient, set_name: str
) -> None:
    sdb.namespace("test").set(set_name).key(1).put({"a": 1})
    for args in (
        ["get", f"test.{set_name}", "1", "--host", seeds],
        ["--host", seeds, "get", f"test.{set_name}", "1"],
        ["--host", "127.0.0.1:2", "get", f"test.{set_name}", "1", "--host", seeds],
    ):
        done = cli("127.0.0.1:1", *args)
        assert done.returncode == 0, (args, done.stderr)
        assert "generation 1" in done.stdout


def test_an_unreachable_cluster_fails_with_the_reason() -> None:
    done = cli("127.0.0.1:1", "info", "--connect-timeout", "0.5")
    assert done.returncode == 1
    assert done.stderr.startswith("Error: ConnectionError:")


def test_a_bad_config_file_fails_naming_it(tmp_path: Path) -> None:
    done = cli(None, "info", "--config", str(tmp_path / "missing.toml"))
    assert done.returncode == 1
    assert "missing.toml does not exist" in done.stderr


def test_serve_runs_the_embedded_server_until_ctrl_c() -> None:
    proc = cli_process(None, "serve", "--port", "0", "--namespace", "cli")
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("aerospike_fluent embedded server listening on ")
        address = first.rsplit(" ", 1)[1].strip()
        with af_sync.connect(address) as db:
            assert db.info("namespaces")["namespaces"] == "cli"
    finally:
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0
    assert "stopping" in out


def test_serve_help_is_the_servers() -> None:
    done = cli(None, "serve", "--help")
    assert done.returncode == 0
    assert done.stdout.startswith("usage: aerospike-fluent serve")
    assert "--replication-factor" in done.stdout


def test_a_terminal_gets_a_progress_bar_on_stderr(
    seeds: str, sdb: af.SyncClient, set_name: str, tmp_path: Path
) -> None:
    records = sdb.namespace("test").set(set_name)
    for i in range(50):
        records.key(i).put({"v": i})
    out = tmp_path / "rows.csv"
    terminal, stderr_end = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "aerospike_fluent", "query", f"test.{set_name}", "-o", str(out)],
        cwd=ROOT,
        env=cli_env(seeds),
        stdout=subprocess.DEVNULL,
        stderr=stderr_end,
    )
    os.close(stderr_end)
    drawn = b""
    while chunk := _read(terminal):
        drawn += chunk
    assert proc.wait(timeout=60) == 0
    os.close(terminal)
    text = drawn.decode()
    assert "partitions" in text and "4096/4096" in text and "50 records" in text
    assert "50 record(s) written" in text
    quiet = cli(seeds, "query", f"test.{set_name}", "-o", str(out))
    assert quiet.stderr.strip() == f"50 record(s) written to {out}"


def _read(fd: int) -> bytes:
    try:
        return os.read(fd, 65536)
    except OSError:  # the other end closed
        return b""
