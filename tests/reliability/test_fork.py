"""fork(): the parent's client keeps working; the child gets a clear error or a fresh runtime."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import time

import pytest

import aerospike_fluent as af
from aerospike_fluent import errors
from aerospike_fluent import sync as af_sync
from aerospike_fluent.server import EmbeddedCluster, EmbeddedServer

pytestmark = [
    pytest.mark.timeout(60),
    pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork"),
]

# child exit codes
OK = 0
OLD_CLIENT_WORKED = 11
OLD_CLIENT_WRONG_ERROR = 12
NEW_CLIENT_FAILED = 13
CRASHED = 14


def _wait(pid: int, seconds: float = 20.0) -> int:
    """Bounded waitpid: kill the child and fail if it hangs."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    pytest.fail("the forked child hung")


def _child_sync(seeds: str, old: af.SyncClient) -> int:
    try:
        old.namespace("test").set("f").key("k").get()
    except errors.ClientClosedError:
        pass
    except BaseException:
        return OLD_CLIENT_WRONG_ERROR
    else:
        return OLD_CLIENT_WORKED
    try:
        with af_sync.connect(seeds) as db:
            rec = db.namespace("test").set("f").key("k").get()
            db.namespace("test").set("f").key("child").put({"n": 2})
        return OK if rec is not None and rec["n"] == 1 else NEW_CLIENT_FAILED
    except BaseException:
        return NEW_CLIENT_FAILED


async def _child_async(seeds: str, old: af.AsyncClient) -> int:
    try:
        await old.namespace("test").set("f").key("k").get()
    except errors.ClientClosedError:
        pass
    except BaseException:
        return OLD_CLIENT_WRONG_ERROR
    else:
        return OLD_CLIENT_WORKED
    try:
        async with af.connect(seeds) as db:
            rec = await db.namespace("test").set("f").key("k").get()
            await db.namespace("test").set("f").key("child").put({"n": 2})
        return OK if rec is not None and rec["n"] == 1 else NEW_CLIENT_FAILED
    except BaseException:
        return NEW_CLIENT_FAILED


def _fork(run: object) -> int:
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = CRASHED
        try:
            code = run()  # type: ignore[operator]
        finally:
            os._exit(code)
    return _wait(pid)


def test_fork_with_a_sync_client(server: EmbeddedServer, seeds: str) -> None:
    with af_sync.connect(seeds) as db:
        s = db.namespace("test").set("f")
        s.key("k").put({"n": 1})
        assert _fork(lambda: _child_sync(seeds, db)) == OK
        # the parent's client still works, and sees the child's write
        got = s.key("k").get()
        assert got is not None and got["n"] == 1
        child = s.key("child").get()
        assert child is not None and child["n"] == 2
        s.key("k").put({"n": 3})


def test_fork_with_an_async_client(server: EmbeddedServer, seeds: str) -> None:
    async def parent() -> None:
        async with af.connect(seeds) as db:
            s = db.namespace("test").set("f")
            await s.key("k").put({"n": 1})
            code = _fork(lambda: asyncio.run(_child_async(seeds, db)))
            assert code == OK
            got = await s.key("k").get()
            assert got is not None and got["n"] == 1
            assert await s.key("child").exists()

    asyncio.run(asyncio.wait_for(parent(), 30))


def test_repeated_forks(server: EmbeddedServer, seeds: str) -> None:
    with af_sync.connect(seeds) as db:
        s = db.namespace("test").set("f")
        s.key("k").put({"n": 1})
        for _ in range(3):
            assert _fork(lambda: _child_sync(seeds, db)) == OK
            assert s.key("k").exists()


def _refused(host: str, port: int) -> bool:
    try:
        socket.create_connection((host, port), timeout=2).close()
    except ConnectionRefusedError:
        return True
    return False


def test_a_forked_child_does_not_keep_the_servers_port(server: EmbeddedServer) -> None:
    """The child inherits the listener and the open connections: they are closed in the child,
    so the parent restarts on its port and, once stopped, its port refuses connections."""
    with af_sync.connect(server.seeds) as db:
        db.namespace("test").set("f").key("k").put({"n": 1})
        release_r, release_w = os.pipe()
        report_r, report_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            code = CRASHED
            try:
                os.close(release_w)
                seen = f"{int(server.running)}".encode()
                server.stop()  # a no-op here: must not wait for the parent's threads
                os.write(report_w, seen)
                os.read(release_r, 1)  # stay alive while the parent restarts and stops
                code = OK
            finally:
                os._exit(code)
        os.close(release_r)
        try:
            assert os.read(report_r, 1) == b"0", "the child saw the parent's server running"
            server.restart()
            assert server.running
            got = db.namespace("test").set("f").key("k").get()
            assert got is not None and got["n"] == 1
            server.stop()
            assert _refused(server.host, server.port)
        finally:
            os.close(release_w)
            assert _wait(pid) == OK


def test_a_forked_child_does_not_keep_a_clusters_ports() -> None:
    """The same for every node of an in-process cluster: the child closes their sockets, so
    a killed node restarts on its port and a stopped cluster's ports refuse connections."""
    with EmbeddedCluster(nodes=3, replication_factor=2) as cluster:
        release_r, release_w = os.pipe()
        report_r, report_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            code = CRASHED
            try:
                os.close(release_w)
                cluster.stop()  # a no-op here: must not wait for the parent's threads
                os.write(report_w, b"1")
                os.read(release_r, 1)  # stay alive while the parent restarts and stops
                code = OK
            finally:
                os._exit(code)
        os.close(release_r)
        try:
            assert os.read(report_r, 1) == b"1"
            node = cluster.nodes[1]
            node.kill(keep_data=True)
            node.restart()
            assert node.status == "up"
            with af_sync.connect(cluster.seeds) as db:
                db.namespace("test").set("f").key("k").put({"n": 1})
            cluster.stop()
            assert all(_refused(n.host, n.port) for n in cluster.nodes)
        finally:
            os.close(release_w)
            assert _wait(pid) == OK
