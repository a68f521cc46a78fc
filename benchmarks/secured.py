"""Plain, login and login+TLS side by side: ``python -m benchmarks.secured [--quick]``.

One server process serves three embedded servers (plain, password login, password login over
TLS with a throwaway CA); each round runs every workload against each of them, in turns, with
this SDK and the C client, so the ratios come from one interleaved run. Writes
``results/secured.{md,json}``.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.interleaved import Measure, medians, run_rounds

RESULTS = Path(__file__).resolve().parent / "results"
TLS_NAME = "bench.local"
USER, PASSWORD = "bench", "bench-password-1"
MODES = ("plain", "login", "login+tls")

SERVERS = f"""
import sys, time
from aerospike_fluent.server import EmbeddedServer
ca, cert, key = sys.argv[1:4]
users = {{{USER!r}: {PASSWORD!r}}}
servers = [
    EmbeddedServer(),
    EmbeddedServer(users=users),
    EmbeddedServer(users=users, tls_cert_file=cert, tls_key_file=key),
]
print(" ".join(str(s.port) for s in servers), flush=True)
sys.stdin.read()
"""


def make_pki(folder: Path) -> tuple[str, str, str]:
    """A CA and a server certificate for ``TLS_NAME`` (files in ``folder``)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.UTC)
    later = now + datetime.timedelta(days=1)

    def name(cn: str) -> x509.Name:
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder()
        .subject_name(name("bench CA"))
        .issuer_name(name("bench CA"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(later)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(name(TLS_NAME))
        .issuer_name(ca.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(later)
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(TLS_NAME)]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    paths = [folder / "ca.pem", folder / "cert.pem", folder / "key.pem"]
    paths[0].write_bytes(ca.public_bytes(pem))
    paths[1].write_bytes(cert.public_bytes(pem))
    paths[2].write_bytes(
        key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return str(paths[0]), str(paths[1]), str(paths[2])


def fluent_options(mode: str, ca: str) -> dict[str, Any]:
    opts: dict[str, Any] = {}
    if mode != "plain":
        opts.update(user=USER, password=PASSWORD)
    if mode == "login+tls":
        opts.update(tls_ca_file=ca, tls_name=TLS_NAME)
    return opts


def c_client(mode: str, port: int, ca: str) -> Any:
    import aerospike

    host: tuple[Any, ...] = ("127.0.0.1", port)
    config: dict[str, Any] = {}
    if mode == "login+tls":
        host = ("127.0.0.1", port, TLS_NAME)
        config["tls"] = {"enable": True, "cafile": ca}
    config["hosts"] = [host]
    if mode != "plain":
        config.update(user=USER, password=PASSWORD)
    return aerospike.client(config).connect()


def workloads(ops: int, records: int) -> dict[str, Callable[[Any, Any, Any], Measure]]:
    """Per workload: (sync fluent client, async loop+client, C client) -> one timed run."""

    def sync_get(db: Any, _a: Any, _c: Any) -> Measure:
        k = db.namespace("test").set("sec").key("k")

        def run() -> int:
            for _ in range(ops):
                k.get()
            return ops

        return run

    def sync_put(db: Any, _a: Any, _c: Any) -> Measure:
        k = db.namespace("test").set("sec").key("k")

        def run() -> int:
            for i in range(ops):
                k.put({"v": i})
            return ops

        return run

    def c50_get(_db: Any, a: Any, _c: Any) -> Measure:
        loop, adb = a
        keys = [adb.namespace("test").set("sec").key(f"r{i}") for i in range(50)]

        async def worker(k: Any) -> None:
            for _ in range(ops // 50):
                await k.get()

        def run() -> int:
            async def all_of() -> None:
                await asyncio.gather(*(worker(k) for k in keys))

            loop.run_until_complete(all_of())
            return (ops // 50) * 50

        return run

    def scan(db: Any, _a: Any, _c: Any) -> Measure:
        q = db.namespace("test").set("scan")

        def run() -> int:
            return sum(1 for _ in q.query())

        return run

    def c_get(_db: Any, _a: Any, c: Any) -> Measure:
        key = ("test", "sec", "k")

        def run() -> int:
            for _ in range(ops):
                c.get(key)
            return ops

        return run

    def c_put(_db: Any, _a: Any, c: Any) -> Measure:
        key = ("test", "sec", "k")

        def run() -> int:
            for i in range(ops):
                c.put(key, {"v": i})
            return ops

        return run

    return {
        "sync get": sync_get,
        "sync put": sync_put,
        "async c50 get": c50_get,
        "scan": scan,
        "C client get": c_get,
        "C client put": c_put,
    }


def main(argv: list[str] | None = None) -> int:
    import aerospike_fluent as af
    from aerospike_fluent import sync as afs

    p = argparse.ArgumentParser(prog="python -m benchmarks.secured", description=__doc__)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--rounds", type=int)
    p.add_argument("--out", type=Path, default=RESULTS)
    args = p.parse_args(argv)
    ops, records = (300, 2_000) if args.quick else (3_000, 20_000)
    rounds = args.rounds or (3 if args.quick else 5)

    folder = Path(tempfile.mkdtemp(prefix="bench-pki-"))
    ca, cert, key = make_pki(folder)
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVERS, ca, cert, key],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    ports = [int(p) for p in proc.stdout.readline().split()]
    loop = asyncio.new_event_loop()
    clients: dict[str, tuple[Any, Any, Any]] = {}
    try:
        for mode, port in zip(MODES, ports, strict=True):
            seeds = f"127.0.0.1:{port}"
            db = afs.connect(seeds, **fluent_options(mode, ca))
            adb = loop.run_until_complete(af.connect(seeds, **fluent_options(mode, ca)))
            c = c_client(mode, port, ca)
            s = db.namespace("test").set("scan")
            s.put_many({i: {"i": i, "s": "x" * 20} for i in range(records)}).raise_on_error()
            for i in range(50):
                db.namespace("test").set("sec").key(f"r{i}").put({"v": i})
            db.namespace("test").set("sec").key("k").put({"v": 0})
            clients[mode] = (db, (loop, adb), c)
        samples = run_rounds(workloads(ops, records), clients, rounds)
    finally:
        for db, (_, adb), c in clients.values():
            db.close()
            adb.close()
            c.close()
        loop.close()
        proc.stdin.close() if proc.stdin else None
        proc.wait(timeout=20)

    write(args.out, medians(samples), rounds, ops, records)
    return 0


def write(
    out: Path, table: dict[str, dict[str, dict[str, float]]], rounds: int, ops: int, records: int
) -> None:
    out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.datetime.now().isoformat(timespec="seconds")
    (out / "secured.json").write_text(
        json.dumps(
            {"when": stamp, "rounds": rounds, "ops": ops, "records": records, "results": table},
            indent=2,
        )
    )
    lines = [
        "# Plain, login, login+TLS",
        "",
        f"{stamp} · embedded server (3 instances, one process) · {rounds} rounds (median) · "
        f"{ops} ops per sequential round, {records} records per scan",
        "",
        "µs per operation (per record for scan), and the time relative to plain.",
        "",
        "| workload | plain | login | login+TLS | login / plain | login+TLS / plain "
        "| CPU/op plain | CPU/op login+TLS |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for wname, by_mode in table.items():
        p, lg, t = (by_mode[m]["us_per_op"] for m in MODES)
        cp, ct = by_mode["plain"]["cpu_us_per_op"], by_mode["login+tls"]["cpu_us_per_op"]
        lines.append(
            f"| {wname} | {p:.2f} | {lg:.2f} | {t:.2f} | {lg / p:.2f} | {t / p:.2f} "
            f"| {cp:.2f} | {ct:.2f} |"
        )
    (out / "secured.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
