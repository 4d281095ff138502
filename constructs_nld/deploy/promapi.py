"""A small client of the Prometheus HTTP API (``/api/v1``): instant and range queries.

``soak`` and the cutover's gate need a handful of GETs of plain JSON, sent through urllib3
(the official Kubernetes client's transport) with this package's deadline
(:mod:`constructs_nld.deploy.transport`): each query ends within ``--prometheus-timeout``,
however slowly the server answers, and an answer is capped. Errors become
:class:`PrometheusError` (could not ask, or Prometheus refused or garbled the answer), one
line naming the URL (never its credentials) and what Prometheus said.

Credentials are files, as Prometheus' own ``http_config`` takes them: a bearer token file
(read at each query, so a rotated token is picked up), a basic-auth file, and a CA bundle
for a server whose certificate a private CA signs. They are sent over https only.
"""

from __future__ import annotations

import base64
import json
import math
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from urllib3 import PoolManager

from constructs_nld import defaults
from constructs_nld.deploy.errors import DeployError, InvalidConfigError, printable
from constructs_nld.deploy.options import PrometheusAuth
from constructs_nld.deploy.redact import keep_secret, redact
from constructs_nld.deploy.transport import (
    ResponseTooLargeError,
    TlsMaterial,
    deadline,
    read_body,
    tls_context,
    watched_pools,
)

__all__ = ["PrometheusAPI", "PrometheusError", "Series"]

_ERROR_BODY: Final = 300


class PrometheusError(DeployError):
    """Prometheus could not be reached, or refused a query."""


@dataclass(frozen=True)
class Series:
    """One series of a query result: its labels and its ``(unix time, value)`` samples."""

    labels: Mapping[str, str]
    samples: tuple[tuple[float, float], ...]


def _secret_file(path: str, flag: str) -> str:
    """The one line of a credential file, registered as a secret; refused on one line when unreadable or empty."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        why = getattr(error, "strerror", None) or "not UTF-8 text"
        raise InvalidConfigError(f"{flag} {path}: cannot read it ({str(why).lower()})") from None
    value = text.strip()
    if not value or "\n" in value:
        raise InvalidConfigError(f"{flag} {path}: must hold one non-empty line")
    keep_secret(value)
    return value


def _shown(url: str) -> str:
    """``url`` as messages show it: without userinfo, query or fragment."""
    parsed = urllib.parse.urlsplit(url)
    host = parsed.netloc.rpartition("@")[2]
    return printable(urllib.parse.urlunsplit((parsed.scheme, host, parsed.path, "", "")))


class PrometheusAPI:
    """The HTTP API of the Prometheus at ``url`` (``http://host:9090``, or with a path prefix)."""

    def __init__(
        self, url: str, *, timeout: float = defaults.DEPLOY_TIMEOUT, auth: PrometheusAuth | None = None
    ) -> None:
        """Check ``url`` and the credential files; nothing is sent yet.

        A URL with ``user:password@`` is refused (it would be printed and logged); so are
        credentials over plain http, where anyone on the path reads them.
        """
        auth = auth or PrometheusAuth()
        if auth.bearer_token_file and auth.basic_auth_file:  # one Authorization header
            raise InvalidConfigError(
                "--prometheus-bearer-token-file and --prometheus-basic-auth-file: give one, not both"
            )
        parsed = urllib.parse.urlsplit(url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise InvalidConfigError(
                f"--prometheus: must be an http(s) URL such as http://prometheus:9090, got {redact(printable(url))!r}"
            )
        if "@" in parsed.netloc:
            raise InvalidConfigError(
                f"--prometheus {_shown(url)}: no user:password in the URL (it ends up in logs); "
                "give --prometheus-basic-auth-file FILE"
            )
        if parsed.scheme == "http" and auth.credentials:
            raise InvalidConfigError(
                f"--prometheus {_shown(url)}: credentials go over https only (plain http shows them to the path)"
            )
        self.url = url.rstrip("/")
        self.shown = _shown(self.url)
        """The URL as messages show it."""
        self.timeout = timeout
        self._auth = auth
        self._authorization()  # the files are checked now, before any cluster is touched
        context = None
        if parsed.scheme == "https":
            try:
                context = tls_context(TlsMaterial(ca_file=auth.ca_file))
            except (OSError, ValueError) as error:
                raise InvalidConfigError(f"--prometheus-ca-file {auth.ca_file}: does not load ({error})") from None
        self._pool = watched_pools(PoolManager(retries=False), context)

    def _authorization(self) -> dict[str, str]:
        auth = self._auth
        if auth.bearer_token_file:
            return {"Authorization": f"Bearer {_secret_file(auth.bearer_token_file, '--prometheus-bearer-token-file')}"}
        if auth.basic_auth_file:
            pair = _secret_file(auth.basic_auth_file, "--prometheus-basic-auth-file")
            if ":" not in pair:
                raise InvalidConfigError(
                    f"--prometheus-basic-auth-file {auth.basic_auth_file}: must hold user:password"
                )
            keep_secret(pair.partition(":")[2])
            encoded = base64.b64encode(pair.encode()).decode()
            keep_secret(encoded)
            return {"Authorization": f"Basic {encoded}"}
        return {}

    def _get(self, path: str, params: Mapping[str, str] | None = None) -> Any:
        url = f"{self.url}{path}"
        if params:
            url += "?" + urllib.parse.urlencode(params)
        headers = {"Accept": "application/json", **self._authorization()}
        with deadline(self.timeout) as watch:
            try:
                response = self._pool.request(
                    "GET", url, headers=headers, timeout=self.timeout, preload_content=False, redirect=False
                )
                data = read_body(response, defaults.API_RESPONSE_CAP)
            except ResponseTooLargeError as error:
                raise PrometheusError(f"Prometheus at {self.shown}: {path}: {error}") from None
            except Exception as error:  # urllib3's connection errors have no common base worth naming
                why = f"no answer within --prometheus-timeout {self.timeout:g}s" if watch.expired else _reason(error)
                raise PrometheusError(f"cannot query Prometheus at {self.shown}: {why}") from None
        text = data.decode("utf-8", errors="replace")
        try:
            body = json.loads(text)
        except ValueError:
            body = None
        if response.status != 200:
            said = body.get("error", text) if isinstance(body, dict) else text
            said = printable(" ".join(str(said).split()))[:_ERROR_BODY]
            raise PrometheusError(f"Prometheus at {self.shown} answered {response.status}: {said}")
        if not isinstance(body, dict):
            kind = printable(response.headers.get("Content-Type") or "no Content-Type")
            raise PrometheusError(f"Prometheus at {self.shown} answered {path} with something not JSON ({kind})")
        if body.get("status") != "success" or "data" not in body:
            said = printable(str(body.get("error") or body))[:_ERROR_BODY]
            raise PrometheusError(f"Prometheus at {self.shown} refused {path}: {said}")
        return body["data"]

    def _parsed(self, what: str, data: Any, parse: Any) -> tuple[Series, ...]:
        """``parse(data)``, a malformed answer refused on one line."""
        try:
            result: tuple[Series, ...] = parse(data)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            raise PrometheusError(f"Prometheus at {self.shown} answered {what} with a malformed result") from None
        return result

    def query(self, expr: str, at: float | None = None) -> tuple[Series, ...]:
        """An instant query (at unix time ``at``, default now): one sample per series."""
        params = {"query": expr}
        if at is not None:
            params["time"] = f"{at:.3f}"
        return self._parsed("a query", self._get("/api/v1/query", params), _instant)

    def query_range(self, expr: str, start: float, end: float, step: float) -> tuple[Series, ...]:
        """A range query: each series' values at ``start``, ``start + step``, … up to ``end`` where it had one."""
        data = self._get(
            "/api/v1/query_range",
            {"query": expr, "start": f"{start:.3f}", "end": f"{end:.3f}", "step": f"{step:g}"},
        )
        return self._parsed("a range query", data, _range)

    def value(self, expr: str, at: float | None = None) -> float | None:
        """The single value of an instant query that aggregates to one series; None when it returns nothing."""
        result = self.query(expr, at)
        if not result:
            return None
        if len(result) > 1:
            raise PrometheusError(f"expected one series from {expr!r}, got {len(result)}")
        value = result[0].samples[0][1]
        return None if math.isnan(value) else value


def _labels(metric: Any) -> dict[str, str]:
    if not isinstance(metric, dict) or not all(isinstance(v, str) for v in metric.values()):
        raise TypeError("labels")
    return metric


def _instant(data: Any) -> tuple[Series, ...]:
    kind = data["resultType"]
    if kind == "scalar":
        time, value = data["result"]
        return (Series({}, ((float(time), float(value)),)),)
    if kind != "vector":
        raise ValueError(kind)
    return tuple(
        Series(_labels(item["metric"]), ((float(item["value"][0]), float(item["value"][1])),))
        for item in data["result"]
    )


def _range(data: Any) -> tuple[Series, ...]:
    if data["resultType"] != "matrix":
        raise ValueError(data["resultType"])
    return tuple(
        Series(_labels(item["metric"]), tuple((float(t), float(v)) for t, v in item["values"]))
        for item in data["result"]
    )


def _reason(error: BaseException) -> str:
    """A transport error in a few words."""
    current: BaseException | None = error
    while current is not None:
        reason = getattr(current, "reason", None)
        if isinstance(current, OSError) and current.strerror:
            return str(current.strerror).lower()
        current = reason if isinstance(reason, BaseException) else (current.__cause__ or current.__context__)
    return type(error).__name__
