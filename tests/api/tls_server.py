"""A real TLS server on loopback for the TLS failure tests, and its certificates.

The certificate is made in the test: with the ``cryptography`` package when
it is installed, else with the ``openssl`` command; without either, the
tests that need one are skipped.
"""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import shutil
import ssl
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

_ANSWER = (
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
    b"Content-Length: 2\r\nConnection: close\r\n\r\n{}"
)


def self_signed(directory: Path, name: str) -> tuple[Path, Path]:
    """A self-signed certificate for ``name`` (DNS name or IP): (cert.pem, key.pem)."""
    cert_path, key_path = directory / f"{name}.crt", directory / f"{name}.key"
    try:
        _with_cryptography(name, cert_path, key_path)
    except ImportError:
        _with_openssl(name, cert_path, key_path)
    return cert_path, key_path


def _with_cryptography(name: str, cert_path: Path, key_path: Path) -> None:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    try:
        alt: x509.GeneralName = x509.IPAddress(ipaddress.ip_address(name))
    except ValueError:
        alt = x509.DNSName(name)
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.SubjectAlternativeName([alt]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )


def _with_openssl(name: str, cert_path: Path, key_path: Path) -> None:
    if shutil.which("openssl") is None:
        pytest.skip("neither cryptography nor openssl is available to make a certificate")
    kind = "IP" if _is_ip(name) else "DNS"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
            "-nodes", "-days", "2", "-subj", f"/CN={name}",
            "-addext", f"subjectAltName={kind}:{name}",
            "-keyout", str(key_path), "-out", str(cert_path),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


@asynccontextmanager
async def tls_server(cert: Path, key: Path) -> AsyncIterator[int]:
    """Serve TLS on 127.0.0.1 (any request gets ``200 {}``); yields the port."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await reader.readuntil(b"\r\n\r\n")
            writer.write(_ANSWER)
            await writer.drain()
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0, ssl=context)
    port = server.sockets[0].getsockname()[1]
    try:
        yield port
    finally:
        server.close()
        await server.wait_closed()
