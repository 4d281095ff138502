"""One HTTP exchange under a wall-clock deadline, its answer capped, its TLS credentials held in memory.

urllib3's timeouts bound each socket operation, not an exchange: a server (or a proxy) that
sends a byte every quarter of a second holds a request for as long as it likes, and a
connect, a TLS handshake and a body read each get the whole timeout again. Here every
exchange runs under :func:`deadline`: the sockets it uses (a new connection's, or the pooled
one it reuses) are shut down when the deadline passes, so whatever the exchange is blocked
in returns at once, and :attr:`Watch.expired` says why.

The clients of this package (:mod:`constructs_nld.deploy.kube`, :mod:`constructs_nld.deploy.promapi`)
read answers through :func:`read_body`, which refuses one larger than a cap, and reach
their servers through pools whose connections report their sockets (:func:`watched_pools`).

Credentials never touch the disk: :func:`tls_context` loads a CA and a client certificate
and key from memory (a key through an anonymous ``memfd``), where the official kubeconfig
loader writes each ``*-data`` field to a temporary file that only a normal exit removes.
"""

from __future__ import annotations

import os
import socket
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any, Final

from urllib3 import BaseHTTPResponse, PoolManager
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.util.ssl_ import create_urllib3_context

__all__ = [
    "READ_CHUNK",
    "ResponseTooLargeError",
    "TlsMaterial",
    "Watch",
    "deadline",
    "read_body",
    "tls_context",
    "watched_pools",
]

READ_CHUNK: Final = 1 << 16
"""Bytes read from a body at a time."""

_local: Final = threading.local()


class Watch:
    """The sockets one exchange uses; :meth:`expire` shuts them down, so that a blocked read or write returns."""

    def __init__(self) -> None:
        """An exchange that has used no socket yet."""
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._done = False
        self.expired = False
        """True once the deadline passed while the exchange ran."""

    def add(self, sock: socket.socket) -> None:
        """The exchange uses ``sock``: shut it down at once when the deadline has passed already."""
        with self._lock:
            if self._done:
                return
            if self.expired:
                _shut(sock)
            else:
                self._sockets.append(sock)

    def expire(self) -> None:
        """The deadline passed: shut down every socket of the exchange (unless it ended meanwhile)."""
        with self._lock:
            if self._done:
                return
            self.expired = True
            for sock in self._sockets:
                _shut(sock)

    def finish(self) -> None:
        """The exchange ended: its sockets (back in their pool) are no longer watched."""
        with self._lock:
            self._done = True
            self._sockets.clear()


def _shut(sock: socket.socket) -> None:
    with suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


def _register(sock: socket.socket | None) -> None:
    watch: Watch | None = getattr(_local, "watch", None)
    if watch is not None and sock is not None:
        watch.add(sock)


@contextmanager
def deadline(seconds: float) -> Iterator[Watch]:
    """Run the block's exchange (in this thread) for at most ``seconds`` of wall-clock time.

    The exchange must go through :func:`watched_pools`' connections. Past the deadline its
    sockets are shut down: the block sees a connection error, and the watch says it expired.
    """
    watch = Watch()
    _local.watch = watch
    timer = threading.Timer(max(seconds, 0.0), watch.expire)
    timer.daemon = True
    timer.start()
    try:
        yield watch
    finally:
        watch.finish()
        timer.cancel()
        _local.watch = None


class _WatchedHTTPConnection(HTTPConnection):
    """A connection that reports its socket to the exchange's watch: when it is made, and when it is reused."""

    def _new_conn(self) -> socket.socket:
        sock = super()._new_conn()
        _register(sock)
        return sock

    def request(self, *args: Any, **kwargs: Any) -> None:
        """Send a request, its socket watched (a pooled connection's too)."""
        _register(self.sock)
        super().request(*args, **kwargs)


class _WatchedHTTPSConnection(_WatchedHTTPConnection, HTTPSConnection):
    """:class:`_WatchedHTTPConnection` over TLS: the raw socket is watched from before its handshake."""


class _WatchedHTTPPool(HTTPConnectionPool):
    ConnectionCls = _WatchedHTTPConnection


class _WatchedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _WatchedHTTPSConnection


def watched_pools(manager: PoolManager, context: ssl.SSLContext | None = None) -> PoolManager:
    """Make ``manager``'s connections watched (and use ``context`` for TLS, with no file paths); ``manager``."""
    manager.pool_classes_by_scheme = {"http": _WatchedHTTPPool, "https": _WatchedHTTPSPool}
    if context is not None:
        manager.connection_pool_kw.update(
            ssl_context=context, ca_certs=None, ca_cert_data=None, cert_file=None, key_file=None
        )
    return manager


class ResponseTooLargeError(Exception):
    """An answer passed the cap; it was not read further."""

    def __init__(self, cap: int) -> None:
        """The cap, in bytes."""
        super().__init__(f"its answer passed {cap // (1 << 20)} MiB, the most one response may hold")
        self.cap = cap


def read_body(response: BaseHTTPResponse, cap: int) -> bytes:
    """The whole body of ``response``, in chunks; :class:`ResponseTooLargeError` past ``cap`` bytes.

    Run it under the exchange's :func:`deadline`: a chunk that never comes is cut off there.
    """
    chunks: list[bytes] = []
    size = 0
    try:
        while chunk := response.read(READ_CHUNK):
            size += len(chunk)
            if size > cap:
                raise ResponseTooLargeError(cap)
            chunks.append(chunk)
    except BaseException:
        response.close()
        raise
    finally:
        response.release_conn()
    return b"".join(chunks)


@dataclass(frozen=True)
class TlsMaterial:
    """What a client verifies its server with and proves itself with: PEM data, or the user's own files."""

    ca_data: bytes | None = None
    ca_file: str | None = None
    cert_data: bytes | None = None
    cert_file: str | None = None
    key_data: bytes | None = None
    key_file: str | None = None
    verify: bool = True
    """False: the server's certificate is not checked (``insecure-skip-tls-verify``)."""


@contextmanager
def _in_memory(data: bytes | None, path: str | None, name: str) -> Iterator[str | None]:
    """A path to ``data`` that lives in memory only (an anonymous memfd), else ``path``."""
    if data is None:
        yield path
        return
    fd = os.memfd_create(name, os.MFD_CLOEXEC)
    try:
        os.write(fd, data)
        yield f"/proc/self/fd/{fd}"
    finally:
        os.close(fd)


def tls_context(material: TlsMaterial) -> ssl.SSLContext:
    """A TLS context holding ``material``: the CA (else the system's), the client certificate and key if any.

    Raises ``ssl.SSLError`` or ``OSError`` when one does not load.
    """
    context = create_urllib3_context(cert_reqs=ssl.CERT_REQUIRED if material.verify else ssl.CERT_NONE)
    if material.ca_data is not None:
        context.load_verify_locations(cadata=material.ca_data.decode("ascii", errors="replace"))
    elif material.ca_file is not None:
        context.load_verify_locations(cafile=material.ca_file)
    else:
        context.load_default_certs()
    with (
        _in_memory(material.cert_data, material.cert_file, "nld-client-certificate") as cert,
        _in_memory(material.key_data, material.key_file, "nld-client-key") as key,
    ):
        if cert is not None:
            context.load_cert_chain(cert, key)
    return context
