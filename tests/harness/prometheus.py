"""Real Prometheus servers for tests and benchmarks.

Two builds, for two jobs:

- Debian's ``prometheus`` 2.42 (the package of ``promtool``), through :meth:`Prometheus.local`:
  on 127.0.0.1 of the root network namespace, over a data directory that :func:`backfill`
  filled with ``promtool tsdb create-blocks-from openmetrics`` — days of history in seconds,
  for the soak command's tests. Debian builds it without the Kubernetes service discovery.
- Prometheus 3.13.1 built from source (:data:`SERVER_BINARY`, ``tools/build-binaries.sh
  prometheus``), which has it: :mod:`tests.e2e.monitoring` runs it as the operator's
  StatefulSet runs it, in a node's network namespace.

:class:`Prometheus` is one :class:`~tests.harness.process.Process` (start/stop, a readiness
wait, its log) with its HTTP API (:class:`constructs_nld.deploy.promapi.PrometheusAPI`). A missing binary fails, naming
how to get it; nothing is skipped.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Self

import yaml

from constructs_nld.deploy.options import PrometheusAuth
from constructs_nld.deploy.promapi import PrometheusAPI, PrometheusError
from tests.harness.process import MissingBinaryError, Process, free_port, require_binary, wait_until

__all__ = ["SERVER_BINARY", "Prometheus", "backfill", "prometheus_version", "require", "server_binary"]

_PACKAGE = "apt-get install prometheus (make system installs it)"

SERVER_BINARY = Path(__file__).resolve().parents[2] / ".cache" / "bin" / "prometheus"
"""Prometheus 3.13.1 with every service discovery, built by ``tools/build-binaries.sh prometheus``."""


def server_binary() -> Path:
    """:data:`SERVER_BINARY`, or fail naming the build command."""
    return require_binary(SERVER_BINARY, "run `bash tools/build-binaries.sh prometheus`")


def require(tool: str) -> str:
    """``prometheus`` or ``promtool`` from PATH, or fail naming the package."""
    found = shutil.which(tool)
    if found is None:
        raise MissingBinaryError(f"{tool} not found: {_PACKAGE}")
    return found


def prometheus_version(binary: Path | str) -> str:
    """A server's version, e.g. ``3.13.1`` (Debian's ``2.42.0+ds`` without the suffix)."""
    out = subprocess.run([str(binary), "--version"], capture_output=True, text=True, check=True)
    first = (out.stdout or out.stderr).split()
    return first[2].split("+")[0]


def backfill(openmetrics: str, data_dir: Path, workdir: Path) -> None:
    """Write ``openmetrics`` (text ending in ``# EOF``) into TSDB blocks under ``data_dir``.

    ``promtool tsdb create-blocks-from openmetrics``, as one backfills a real Prometheus;
    the server picks the blocks up when it starts on ``data_dir``.
    """
    workdir.mkdir(parents=True, exist_ok=True)
    source = workdir / "history.om"
    source.write_text(openmetrics)
    data_dir.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [require("promtool"), "tsdb", "create-blocks-from", "openmetrics", str(source), str(data_dir)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"promtool create-blocks-from openmetrics failed: {done.stdout}{done.stderr}")


class Prometheus(Process):
    """One Prometheus process and its API; a context manager."""

    health_interval = 0.2

    def __init__(
        self,
        argv: Sequence[str],
        *,
        api_url: str,
        log_path: Path,
        env: Mapping[str, str] | None = None,
        auth: PrometheusAuth | None = None,
    ) -> None:
        """Plan the process ``argv``, whose API answers at ``api_url``; :meth:`start` runs it.

        ``auth``: the credentials and CA its API is asked with (a server with a web config).
        """
        super().__init__("prometheus", log_path, grace_period=10)
        self.command = list(argv)
        self.api = PrometheusAPI(api_url, timeout=30, auth=auth)
        self.url = api_url
        self.env = dict(env or {})

    @classmethod
    def local(
        cls,
        workdir: Path,
        *,
        config: Mapping[str, Any] | None = None,
        data_dir: Path | None = None,
        retention: str = "30d",
        web_config: Path | None = None,
        auth: PrometheusAuth | None = None,
    ) -> Prometheus:
        """A server on 127.0.0.1:<free port> in the root namespace, over ``data_dir`` (default: a new one).

        ``web_config``: Prometheus' ``--web.config.file`` (TLS, basic auth); with its
        ``tls_server_config`` the server answers over https. ``auth`` is what the readiness
        check (and :attr:`api`) asks with: the CA that signed the server's certificate, the
        credentials. :meth:`alerts` and the other plain-urllib helpers want a server without one.
        """
        workdir.mkdir(parents=True, exist_ok=True)
        config_path = workdir / "prometheus.yml"
        config_path.write_text(yaml.safe_dump(dict(config or {"global": {"scrape_interval": "60s"}})))
        port = free_port()
        argv = [
            require("prometheus"),
            f"--config.file={config_path}",
            f"--storage.tsdb.path={data_dir or workdir / 'data'}",
            f"--storage.tsdb.retention.time={retention}",
            f"--web.listen-address=127.0.0.1:{port}",
            "--web.enable-lifecycle",
        ]
        scheme = "http"
        if web_config is not None:
            argv.append(f"--web.config.file={web_config}")
            if (yaml.safe_load(web_config.read_text()) or {}).get("tls_server_config"):
                scheme = "https"
        return cls(argv, api_url=f"{scheme}://127.0.0.1:{port}", log_path=workdir / "prometheus.log", auth=auth)

    def argv(self) -> list[str]:
        """The command line given at construction."""
        return list(self.command)

    def environment(self) -> Mapping[str, str] | None:
        """The environment given at construction; the test's when none was."""
        return self.env or None

    def healthy(self) -> bool:
        """The query API answers (the TSDB is open, backfilled blocks loaded)."""
        try:
            return bool(self.api.query("1"))
        except PrometheusError:
            return False

    def start(self, timeout: float = 60, *, wait: bool = True, attempts: int | None = None) -> Self:
        """Start the process; return once it answers queries (``timeout`` seconds at most)."""
        self.startup_timeout = timeout
        return super().start(wait=wait, attempts=attempts)

    def wait_ready(self, timeout: float = 60) -> None:
        """Wait until it answers queries; fail with the log if the process exits first."""
        self.wait_healthy(timeout)

    def wait_for(self, what: str, check: Callable[[], bool], timeout: float = 60, interval: float = 1) -> float:
        """Poll ``check`` until true while the server runs; return the seconds it took, or fail naming ``what``."""
        return wait_until(what, check, timeout, interval, watch=(self,))

    def _data(self, path: str) -> Any:
        """The ``data`` of one answer of the HTTP API."""
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: never a proxy
        with opener.open(f"{self.api.url}{path}", timeout=30) as response:
            return json.loads(response.read())["data"]

    def alerts(self) -> list[dict[str, Any]]:
        """Active alerts (pending and firing), as ``/api/v1/alerts`` lists them."""
        return list(self._data("/api/v1/alerts")["alerts"])

    def last_scrapes(self, job: str) -> dict[str, str]:
        """When each active target of ``job`` was last scraped (its ``lastScrape``), by scrape URL."""
        targets = self._data("/api/v1/targets?state=active")["activeTargets"]
        return {t["scrapeUrl"]: t["lastScrape"] for t in targets if t["labels"].get("job") == job}

    def wait_scrapes(self, job: str, count: int, timeout: float = 120) -> None:
        """Wait until every target of ``job`` has been scraped ``count`` more times from now.

        The event a test needs before it reads what the scrapes bring (a baseline, a rollout's
        series): counted from Prometheus' own record of its scrapes, whatever the machine's load
        does to their timing.
        """
        seen: dict[str, set[str]] = {}

        def scraped() -> bool:
            for url, last in self.last_scrapes(job).items():
                seen.setdefault(url, {last}).add(last)
            return bool(seen) and all(len(times) > count for times in seen.values())

        self.wait_for(f"{count} more scrapes of {job}", scraped, timeout, interval=0.5)

    def wait_evaluated(self, after: float, timeout: float = 120) -> None:
        """Wait until every rule group has been evaluated after the Unix time ``after``."""

        def evaluated() -> bool:
            groups = self._data("/api/v1/rules")["groups"]
            return bool(groups) and all(_unix(group["lastEvaluation"]) > after for group in groups)

        self.wait_for("every rule group evaluated", evaluated, timeout, interval=0.5)

    def firing(self) -> dict[str, list[dict[str, str]]]:
        """Firing alerts by name: each one's labels."""
        alerts: dict[str, list[dict[str, str]]] = {}
        for alert in self.alerts():
            if alert["state"] == "firing":
                alerts.setdefault(alert["labels"]["alertname"], []).append(dict(alert["labels"]))
        return alerts


def _unix(rfc3339: str) -> float:
    """Unix time of the API's RFC 3339 timestamps (nanoseconds cut to what ``datetime`` holds)."""
    text = re.sub(r"(\.\d{6})\d+", r"\1", rfc3339).replace("Z", "+00:00")
    return datetime.fromisoformat(text).timestamp()
