"""A test CA and the certificates it signs, made with the openssl CLI (``cryptography`` is not a dependency).

Why: a TLS client is only tested against a real handshake. :func:`make_pki` writes a CA, a
server certificate for ``localhost``, ``127.0.0.1`` and ``::1``, and a client certificate,
each key beside it, into a directory.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Pki", "make_pki"]


@dataclass(frozen=True)
class Pki:
    """The files :func:`make_pki` wrote."""

    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path


def _openssl(*args: str) -> None:
    done = subprocess.run(["openssl", *args], capture_output=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"openssl {' '.join(args)} failed: {done.stderr.decode(errors='replace')}")


def _signed(directory: Path, name: str, subject: str, extensions: str, ca: Path, ca_key: Path) -> tuple[Path, Path]:
    key, request, cert, ext = (directory / f"{name}{suffix}" for suffix in (".key", ".csr", ".crt", ".ext"))
    ext.write_text(extensions)
    _openssl(
        "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
        "-keyout", str(key), "-out", str(request), "-subj", subject,
    )  # fmt: skip
    _openssl(
        "x509", "-req", "-in", str(request), "-CA", str(ca), "-CAkey", str(ca_key), "-CAcreateserial",
        "-days", "2", "-out", str(cert), "-extfile", str(ext),
    )  # fmt: skip
    return cert, key


def make_pki(directory: Path) -> Pki:
    """A CA, a server and a client certificate in ``directory`` (created when missing)."""
    directory.mkdir(parents=True, exist_ok=True)
    ca, ca_key = directory / "ca.crt", directory / "ca.key"
    _openssl(
        "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
        "-subj", "/CN=nld-test-ca", "-keyout", str(ca_key), "-out", str(ca),
    )  # fmt: skip
    server = _signed(
        directory,
        "server",
        "/CN=localhost",
        "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\nextendedKeyUsage=serverAuth\n",
        ca,
        ca_key,
    )
    client = _signed(directory, "client", "/CN=nld-test-client", "extendedKeyUsage=clientAuth\n", ca, ca_key)
    return Pki(ca, *server, *client)
