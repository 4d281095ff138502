"""A reverse proxy on loopback that passes HTTP requests to a real server, or breaks them as a test says.

Why: a client's deadlines and errors are only proven against a network that misbehaves the
way real ones do. :class:`FaultProxy` stands between the tool and a real server (the test
kube-apiserver, a real Prometheus) and, for the requests a :class:`Fault` matches:

``hang``
    reads the request and never answers;
``drip``
    answers the server's real answer one byte every quarter of a second;
``reset``
    sends the real headers and half the body, then resets the connection;
``html``
    answers 200 with an HTML login page, as an authenticating proxy does;
``status``
    answers ``status`` (a 500, a 503) with a JSON ``Status``;
``body``
    answers 200 with ``body`` (a malformed JSON answer).

Every other request passes. Each exchange is recorded (:class:`Exchange`): when the request
came and when the client gave up on it or had it whole, as the proxy saw it, so a test
measures a deadline without timing the tool's start-up. With ``bearer``, a request without
that token is answered 401, and with ``tls`` the proxy listens over TLS: an authenticating
front for a server that has no such auth of its own.
"""

from __future__ import annotations

import http.client
import select
import socket
import ssl
import struct
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Final, Literal

__all__ = ["Exchange", "Fault", "FaultProxy"]

FaultKind = Literal["hang", "drip", "reset", "html", "status", "body"]

DRIP_INTERVAL: Final = 0.25
_HOP: Final = {"connection", "keep-alive", "transfer-encoding", "content-length", "proxy-connection", "upgrade"}
_LOGIN_PAGE: Final = b"<!doctype html><html><head><title>Sign in</title></head><body><form>...</form></body></html>"


@dataclass
class Fault:
    """What to do to the requests ``match`` picks (by method and path), the first ``times`` of them (0: all)."""

    kind: FaultKind
    match: Callable[[str, str], bool] = lambda method, path: True
    times: int = 0
    status: int = 500
    body: bytes = b""
    used: int = 0


@dataclass
class Exchange:
    """One request as the proxy saw it."""

    method: str
    path: str
    fault: FaultKind | None
    started: float
    ended: float | None = None
    """When the client closed the connection, or had the whole answer (monotonic)."""

    @property
    def seconds(self) -> float:
        """How long the exchange lasted."""
        assert self.ended is not None, f"{self.method} {self.path} has not ended"
        return self.ended - self.started


@dataclass
class FaultProxy:
    """The proxy; a context manager serving on 127.0.0.1 while the block runs."""

    upstream: str
    upstream_ca: Path | None = None
    tls: tuple[Path, Path] | None = None
    """A certificate and key to listen over TLS with."""
    bearer: str | None = None
    faults: list[Fault] = field(default_factory=list)
    exchanges: list[Exchange] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None
    _stop: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        """Where the proxy listens."""
        assert self._server is not None
        scheme = "https" if self.tls else "http"
        return f"{scheme}://127.0.0.1:{self._server.server_address[1]}"

    def fault(self, fault: Fault) -> Fault:
        """Break the requests ``fault`` matches from now on; the fault (its ``used`` counts them)."""
        with self._lock:
            self.faults.append(fault)
        return fault

    def clear(self) -> None:
        """Pass every request from now on."""
        with self._lock:
            self.faults.clear()

    def faulted(self, kind: FaultKind) -> list[Exchange]:
        """The exchanges broken by ``kind`` so far."""
        return [exchange for exchange in self.exchanges if exchange.fault == kind]

    def _pick(self, method: str, path: str) -> Fault | None:
        with self._lock:
            for fault in self.faults:
                if (fault.times == 0 or fault.used < fault.times) and fault.match(method, path):
                    fault.used += 1
                    return fault
        return None

    def __enter__(self) -> FaultProxy:
        """Serve in a thread."""
        proxy = self

        class Handler(_Handler):
            owner = proxy

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        if self.tls is not None:
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            context.load_cert_chain(str(self.tls[0]), str(self.tls[1]))
            server.socket = context.wrap_socket(server.socket, server_side=True)
        self._server = server
        threading.Thread(target=server.serve_forever, name="fault-proxy", daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        """Stop serving; a hung exchange is let go."""
        self._stop.set()
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()

    def forward(
        self, method: str, path: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, str, list[Any], bytes]:
        """The upstream's answer to the request: status, reason, headers, body."""
        target = urllib.parse.urlsplit(self.upstream)
        connection: http.client.HTTPConnection
        if target.scheme == "https":
            context = ssl.create_default_context(cafile=str(self.upstream_ca) if self.upstream_ca else None)
            connection = http.client.HTTPSConnection(target.netloc, context=context, timeout=60)
        else:
            connection = http.client.HTTPConnection(target.netloc, timeout=60)
        try:
            sent = {k: v for k, v in headers.items() if k.lower() not in _HOP and k.lower() != "host"}
            connection.request(method, path, body=body or None, headers=sent)
            answer = connection.getresponse()
            return answer.status, answer.reason, answer.getheaders(), answer.read()
        finally:
            connection.close()


class _Handler(BaseHTTPRequestHandler):
    owner: FaultProxy
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002  # the base class's name
        pass

    def _any(self) -> None:
        proxy = self.owner
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        fault = proxy._pick(self.command, self.path)
        exchange = Exchange(self.command, self.path, fault.kind if fault else None, time.monotonic())
        with proxy._lock:
            proxy.exchanges.append(exchange)
        try:
            if proxy.bearer is not None and self.headers.get("Authorization") != f"Bearer {proxy.bearer}":
                self._answer(401, "Unauthorized", [("Content-Type", "text/plain")], b"Unauthorized\n")
            elif fault is None:
                self._answer(*proxy.forward(self.command, self.path, dict(self.headers), body))
            else:
                self._break(fault, body)
        except OSError:
            self.close_connection = True
        exchange.ended = time.monotonic()

    def _answer(self, status: int, reason: str, headers: list[Any], body: bytes, *, drip: bool = False) -> None:
        self.send_response(status, reason)
        for name, value in headers:
            if name.lower() not in _HOP and name.lower() not in ("date", "server"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not drip:
            self.wfile.write(body)
            return
        self.wfile.flush()
        for index in range(len(body)):
            # The client sends nothing while it reads an answer: the socket turning readable is
            # its close, seen at once rather than at the next byte's failed write.
            if self.owner._stop.is_set() or select.select([self.connection], [], [], DRIP_INTERVAL)[0]:
                break
            self.wfile.write(body[index : index + 1])
            self.wfile.flush()

    def _break(self, fault: Fault, body: bytes) -> None:
        if fault.kind == "hang":
            self.close_connection = True
            self.connection.settimeout(120)
            while not self.owner._stop.is_set():
                if not self.connection.recv(1):  # the client shut the connection down
                    return
        elif fault.kind == "drip":
            self.close_connection = True
            self._answer(*self.owner.forward(self.command, self.path, dict(self.headers), body), drip=True)
        elif fault.kind == "reset":
            status, reason, headers, answer = self.owner.forward(self.command, self.path, dict(self.headers), body)
            self.send_response(status, reason)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer[: len(answer) // 2])
            self.wfile.flush()
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            self.connection.close()
        elif fault.kind == "html":
            self._answer(200, "OK", [("Content-Type", "text/html; charset=utf-8")], _LOGIN_PAGE)
        elif fault.kind == "status":
            failure = b'{"kind":"Status","apiVersion":"v1","status":"Failure","message":"injected","code":%d}'
            self._answer(fault.status, "Injected", [("Content-Type", "application/json")], failure % fault.status)
        else:
            self._answer(200, "OK", [("Content-Type", "application/json")], fault.body)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _any  # noqa: N815  # http.server's names
