"""Real Prometheus servers for tests and benchmarks.

Two builds, for two jobs:

- Debian's ``prometheus`` 2.42 (the package of ``promtool``), through :meth:`Prometheus.local`:
  on 127.0.0.1 of the root network namespace, over a data directory that :func:`backfill`
  filled with ``promtool tsdb create-blocks-from openmetrics`` — days of history in seconds,
  for the soak command's tests. Debian builds it without the Kubernetes service discovery.
- Prometheus 3.13.1 built from source (:data:`SERVER_BINARY`, ``tools/build-binaries.sh
  prometheus``), which has it: :mod:`tests.e2e.monitoring` runs it as the operator's
  StatefulSet runs it, in a node's network namespace.

:class:`Prometheus` is one process with start/stop, a readiness wait, its log and its HTTP
API (:class:`constructs_nld.deploy.promapi.PrometheusAPI`). A missing binary fails, naming
how to get it; nothing is skipped.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import yaml

from constructs_nld.deploy.promapi import PrometheusAPI, PrometheusError
from tests.processes import stop_process

__all__ = ["SERVER_BINARY", "Prometheus", "backfill", "free_port", "prometheus_version", "require", "server_binary"]

_PACKAGE = "apt-get install prometheus (make system installs it)"

SERVER_BINARY = Path(__file__).resolve().parent.parent / ".cache" / "bin" / "prometheus"
"""Prometheus 3.13.1 with every service discovery, built by ``tools/build-binaries.sh prometheus``."""


def server_binary() -> Path:
    """:data:`SERVER_BINARY`, or fail naming the build command."""
    if not SERVER_BINARY.is_file():
        raise FileNotFoundError(f"{SERVER_BINARY} missing: run `bash tools/build-binaries.sh prometheus`")
    return SERVER_BINARY


def require(tool: str) -> str:
    """``prometheus`` or ``promtool`` from PATH, or fail naming the package."""
    found = shutil.which(tool)
    if found is None:
        raise FileNotFoundError(f"{tool} not found: {_PACKAGE}")
    return found


def prometheus_version(binary: Path | str) -> str:
    """A server's version, e.g. ``3.13.1`` (Debian's ``2.42.0+ds`` without the suffix)."""
    out = subprocess.run([str(binary), "--version"], capture_output=True, text=True, check=True)
    first = (out.stdout or out.stderr).split()
    return first[2].split("+")[0]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


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


class Prometheus:
    """One Prometheus process and its API; a context manager."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        api_url: str,
        log_path: Path,
        env: Mapping[str, str] | None = None,
    ) -> None:
        """Plan the process ``argv``, whose API answers at ``api_url``; :meth:`start` runs it."""
        self.argv = list(argv)
        self.api = PrometheusAPI(api_url, timeout=30)
        self.url = api_url
        self.log_path = log_path
        self.env = dict(env or {})
        self._process: subprocess.Popen[bytes] | None = None

    @classmethod
    def local(
        cls,
        workdir: Path,
        *,
        config: Mapping[str, Any] | None = None,
        data_dir: Path | None = None,
        retention: str = "30d",
    ) -> Prometheus:
        """A server on 127.0.0.1:<free port> in the root namespace, over ``data_dir`` (default: a new one)."""
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
        return cls(argv, api_url=f"http://127.0.0.1:{port}", log_path=workdir / "prometheus.log")

    def __enter__(self) -> Self:
        """Start and wait until ready."""
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        """Stop."""
        self.stop()

    def start(self, timeout: float = 60) -> Self:
        """Start the process; return once ``/-/ready`` answers (TSDB opened, blocks loaded)."""
        with self.log_path.open("ab") as log:
            self._process = subprocess.Popen(
                self.argv, env=self.env or None, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
            )
        self.wait_ready(timeout)
        return self

    def wait_ready(self, timeout: float = 60) -> None:
        """Wait for ``/-/ready``; fail with the log if the process exits first."""
        deadline = time.monotonic() + timeout
        while True:
            if not self.alive():
                raise RuntimeError(f"prometheus exited:\n{self.log}")
            try:
                if self.api.query("1"):
                    return
            except PrometheusError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"prometheus not ready after {timeout}s:\n{self.log}")
            time.sleep(0.2)

    def alive(self) -> bool:
        """True while the process runs."""
        return self._process is not None and self._process.poll() is None

    @property
    def log(self) -> str:
        """What Prometheus printed so far."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def wait_for(self, what: str, check: Callable[[], bool], timeout: float = 60, interval: float = 1) -> float:
        """Poll ``check`` until true; return the seconds it took, or fail naming ``what``."""
        began = time.monotonic()
        while not check():
            if time.monotonic() - began > timeout:
                raise TimeoutError(f"timed out after {timeout:.0f}s waiting for {what}")
            time.sleep(interval)
        return time.monotonic() - began

    def alerts(self) -> list[dict[str, Any]]:
        """Active alerts (pending and firing), as ``/api/v1/alerts`` lists them."""
        with urllib.request.urlopen(f"{self.api.url}/api/v1/alerts", timeout=30) as response:  # noqa: S310 (loopback)
            body = json.loads(response.read())
        return list(body["data"]["alerts"])

    def firing(self) -> dict[str, list[dict[str, str]]]:
        """Firing alerts by name: each one's labels."""
        alerts: dict[str, list[dict[str, str]]] = {}
        for alert in self.alerts():
            if alert["state"] == "firing":
                alerts.setdefault(alert["labels"]["alertname"], []).append(dict(alert["labels"]))
        return alerts

    def stop(self) -> None:
        """SIGTERM, SIGKILL after 10 s; idempotent."""
        if self._process is not None:
            stop_process(self._process, 10)
        self._process = None
