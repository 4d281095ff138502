"""A small client of the Prometheus HTTP API (``/api/v1``): instant and range queries.

The standard library's ``urllib`` only: ``soak`` needs a handful of GETs, and the API is
plain JSON. Errors become :class:`PrometheusError` (could not ask, or Prometheus refused the
query), whose message names the URL and what Prometheus said.
"""

from __future__ import annotations

import json
import math
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from constructs_nld.deploy.errors import DeployError, InvalidConfigError

__all__ = ["PrometheusAPI", "PrometheusError", "Series"]

_ERROR_BODY: Final = 300


class PrometheusError(DeployError):
    """Prometheus could not be reached, or refused a query."""


@dataclass(frozen=True)
class Series:
    """One series of a query result: its labels and its ``(unix time, value)`` samples."""

    labels: Mapping[str, str]
    samples: tuple[tuple[float, float], ...]


class PrometheusAPI:
    """The HTTP API of the Prometheus at ``url`` (``http://host:9090``, or with a path prefix)."""

    def __init__(self, url: str, *, timeout: float = 30.0) -> None:
        """Check that ``url`` is an http(s) URL; nothing is sent yet."""
        parsed = urllib.parse.urlsplit(url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise InvalidConfigError(
                f"--prometheus: must be an http(s) URL such as http://prometheus:9090, got {url!r}"
            )
        self.url = url.rstrip("/")
        self.timeout = timeout
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def _get(self, path: str, params: Mapping[str, str] | None = None) -> Any:
        url = f"{self.url}{path}"
        if params:
            url += "?" + urllib.parse.urlencode(params)
        try:
            with self._opener.open(url, timeout=self.timeout) as response:
                body = json.loads(response.read())
        except urllib.error.HTTPError as error:
            text = error.read().decode(errors="replace")
            try:
                text = json.loads(text).get("error", text)
            except ValueError:
                pass
            raise PrometheusError(f"Prometheus at {self.url} answered {error.code}: {text[:_ERROR_BODY]}") from None
        except (OSError, ValueError) as error:
            reason = getattr(error, "reason", error)
            raise PrometheusError(f"cannot query Prometheus at {self.url}: {reason}") from None
        if not isinstance(body, dict) or body.get("status") != "success":
            raise PrometheusError(f"Prometheus at {self.url} refused {path}: {str(body)[:_ERROR_BODY]}")
        return body["data"]

    def query(self, expr: str, at: float | None = None) -> tuple[Series, ...]:
        """An instant query (at unix time ``at``, default now): one sample per series."""
        params = {"query": expr}
        if at is not None:
            params["time"] = f"{at:.3f}"
        data = self._get("/api/v1/query", params)
        if data["resultType"] == "scalar":
            time, value = data["result"]
            return (Series({}, ((float(time), float(value)),)),)
        return tuple(
            Series(item["metric"], ((float(item["value"][0]), float(item["value"][1])),)) for item in data["result"]
        )

    def query_range(self, expr: str, start: float, end: float, step: float) -> tuple[Series, ...]:
        """A range query: each series' values at ``start``, ``start + step``, … up to ``end`` where it had one."""
        data = self._get(
            "/api/v1/query_range",
            {"query": expr, "start": f"{start:.3f}", "end": f"{end:.3f}", "step": f"{step:g}"},
        )
        return tuple(
            Series(item["metric"], tuple((float(t), float(v)) for t, v in item["values"])) for item in data["result"]
        )

    def value(self, expr: str, at: float | None = None) -> float | None:
        """The single value of an instant query that aggregates to one series; None when it returns nothing."""
        result = self.query(expr, at)
        if not result:
            return None
        if len(result) > 1:
            raise PrometheusError(f"expected one series from {expr!r}, got {len(result)}")
        value = result[0].samples[0][1]
        return None if math.isnan(value) else value
