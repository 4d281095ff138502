"""The one JSON client the harness talks to the test kube-apiserver with.

Why not the official client: the harness needs generic paths (any kind, ``finalize``,
discovery, status subresources) and must not share state with the client under test.
Why not the product's own client (``constructs_nld.deploy.kube``): a test that checks what the
deploy wrote must not read it back through the code under test.

One :class:`Rest` is one user: the control plane's fixture user
(:meth:`tests.harness.controlplane.ControlPlane.fixture_api`), the user of an official
``ApiClient`` (:meth:`Rest.of_api_client`, for :mod:`tests.integration.rest`), or a pod's
service account (:meth:`Rest.in_cluster`, for the kube-state-metrics exporter).
"""

from __future__ import annotations

import json
import os
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Final, cast

from tests.harness.health import NO_PROXY

__all__ = ["ANY_STATUS", "ApiError", "Rest"]

ANY_STATUS: Final = range(100, 600)
"""``ok=`` for a caller that looks at the status itself."""

_OF_API_CLIENTS: dict[tuple[str, str, str], Rest] = {}


class ApiError(RuntimeError):
    """An unexpected HTTP status from the apiserver, with method, path and body."""

    def __init__(self, method: str, path: str, status: int, body: Any) -> None:
        """Say which request got which answer."""
        super().__init__(f"{method} {path}: HTTP {status}: {body}")
        self.status = status
        self.body = body


class Rest:
    """Minimal JSON REST client: one bearer token, one CA, one server.

    Parameters:
        server: ``https://HOST:PORT``.
        token: The bearer token.
        ca_path: PEM bundle verifying the serving certificate. Read at the first request:
            the apiserver writes its self-signed certificate before it listens, so until the
            file exists the server counts as not up (``ConnectionRefusedError``).
    """

    def __init__(self, server: str, token: str, ca_path: Path) -> None:
        """Talk to ``server`` as the owner of ``token``."""
        self.server = server
        self._token = token
        self._ca_path = ca_path
        self._opener: urllib.request.OpenerDirector | None = None

    @classmethod
    def of_api_client(cls, api: Any) -> Rest:
        """The server, token and CA of an official ``kubernetes.client.ApiClient`` (built from a kubeconfig).

        One :class:`Rest` per distinct (server, token, CA), kept for later calls.
        """
        configuration = api.configuration
        bearer = str(configuration.auth_settings()["BearerToken"]["value"])
        key = (str(configuration.host), bearer.removeprefix("Bearer "), str(configuration.ssl_ca_cert))
        if key not in _OF_API_CLIENTS:
            _OF_API_CLIENTS[key] = cls(key[0], key[1], Path(key[2]))
        return _OF_API_CLIENTS[key]

    @classmethod
    def in_cluster(cls, account: Path) -> Rest:
        """A pod's client, as ``rest.InClusterConfig()`` makes it: ``KUBERNETES_SERVICE_*``, files in ``account``."""
        host, port = os.environ["KUBERNETES_SERVICE_HOST"], os.environ["KUBERNETES_SERVICE_PORT"]
        return cls(f"https://{host}:{port}", (account / "token").read_text().strip(), account / "ca.crt")

    def _open(self, request: urllib.request.Request, timeout: float) -> tuple[int, bytes]:
        if self._opener is None:
            if not self._ca_path.exists():
                raise ConnectionRefusedError(f"{self._ca_path} not written yet")
            context = ssl.create_default_context(cafile=str(self._ca_path))
            self._opener = urllib.request.build_opener(NO_PROXY, urllib.request.HTTPSHandler(context=context))
        try:
            with self._opener.open(request, timeout=timeout) as response:
                return int(response.status), bytes(response.read())
        except urllib.error.HTTPError as error:
            return int(error.code), bytes(error.read())

    def request(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        query: Mapping[str, str] | None = None,
        content_type: str = "application/json",
        ok: Iterable[int] = (200, 201, 202),
        timeout: float = 10.0,
    ) -> tuple[int, Any]:
        """Send one request; return (status, parsed body); raise :class:`ApiError` on a status not in ``ok``.

        The body is parsed as JSON, else returned as text (``/readyz`` answers ``ok``), None
        when empty. A 429 answer ("storage is (re)initializing": a new CRD's storage or a
        restarted apiserver's watch cache warming up) is retried until ``timeout`` has passed.
        """
        url = self.server + path
        if query:
            url += "?" + urllib.parse.urlencode(query)
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(url, data=data, method=method)
        request.add_header("Authorization", f"Bearer {self._token}")
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", content_type)
        deadline = time.monotonic() + timeout
        while True:
            status, raw = self._open(request, timeout)
            if status != 429 or time.monotonic() >= deadline:
                break
            time.sleep(0.1)
        try:
            parsed: Any = json.loads(raw) if raw else None
        except ValueError:
            parsed = raw.decode(errors="replace")
        if status not in set(ok):
            raise ApiError(method, path, status, parsed)
        return status, parsed

    def get(self, path: str, **query: str) -> dict[str, Any] | None:
        """GET a JSON object; None on 404."""
        status, parsed = self.request("GET", path, query=query or None, ok=(200, 404))
        return None if status == 404 else cast("dict[str, Any]", parsed)

    def items(self, collection: str, **query: str) -> list[dict[str, Any]]:
        """The items of a list; empty when the collection is not served."""
        listed = self.get(collection, **query)
        return [] if listed is None else list(listed.get("items") or [])
