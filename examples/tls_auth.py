"""TLS and password login against the embedded server, end to end on this machine.

Generates a throwaway self-signed certificate with ``cryptography``, starts an
:class:`~aerospike_fluent.server.EmbeddedServer` that speaks TLS and requires a login, then
connects with the SDK (trusting that certificate, logging in as ``app``) and does a put and a get.
It also shows what a wrong password and a missing login look like.

This is how to test TLS/auth code paths without a real cluster. The certificate and the password
here are for this demo only.

Run: ``python examples/tls_auth.py`` (needs ``cryptography``).
"""

from __future__ import annotations

import datetime
import ipaddress
import secrets
import tempfile
from pathlib import Path

import anyio
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

import aerospike_fluent as af
from aerospike_fluent import errors
from aerospike_fluent.server import EmbeddedServer

TLS_NAME = "embedded.local"
"""The name the server's certificate carries; the client checks it (``tls_name=``)."""


def self_signed(directory: Path) -> tuple[str, str]:
    """Write a self-signed certificate for ``TLS_NAME`` / 127.0.0.1 and its key; return paths."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, TLS_NAME)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName(TLS_NAME), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    cert_file = directory / "server-cert.pem"
    key_file = directory / "server-key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return str(cert_file), str(key_file)


async def main() -> None:
    password = secrets.token_urlsafe(16)
    with tempfile.TemporaryDirectory() as tmp:
        cert_file, key_file = self_signed(Path(tmp))
        with EmbeddedServer(
            tls_cert_file=cert_file, tls_key_file=key_file, users={"app": password}
        ) as server:
            print(f"TLS server with a login on {server.seeds}")
            async with af.connect(
                server.seeds,
                user="app",
                password=password,
                tls_ca_file=cert_file,
                tls_name=TLS_NAME,
            ) as db:
                users = db.namespace("test").set("users")
                await users.key("ann").put({"name": "Ann", "age": 30})
                rec = await users.key("ann").get()
                assert rec is not None
                print(f"over TLS, logged in as app: {rec.bins}")

            try:
                await af.connect(
                    server.seeds,
                    user="app",
                    password="not-it",
                    tls_ca_file=cert_file,
                    tls_name=TLS_NAME,
                )
            except errors.AuthenticationError as exc:
                print(f"wrong password refused: AuthenticationError {exc.result_code}")

            async with af.connect(
                server.seeds, tls_ca_file=cert_file, tls_name=TLS_NAME
            ) as anonymous:
                try:
                    await anonymous.namespace("test").set("users").key("ann").get()
                except errors.AuthenticationError as exc:
                    print(f"no login: AuthenticationError {exc.result_code} on the first command")


if __name__ == "__main__":
    anyio.run(main)
