"""kube-state-metrics' exposition of DaemonSets and pod restarts, served from the test kube-apiserver.

The Go module proxy refuses ``k8s.io/kube-state-metrics`` (403), so the real exporter cannot
be built here. This stands in for it, for the series our alerts and the soak read: it runs
as a pod (in-cluster credentials, its own ServiceAccount with list rights), lists the
DaemonSets and Pods from the API server on every scrape, as kube-state-metrics' stores hold
them, and writes them in kube-state-metrics v2.20.0's exact text format — the same metric
names, ``# HELP`` texts with the ``[STABLE]`` prefix, types, label names and label order
(``internal/store/daemonset.go``, ``internal/store/pod.go``,
``pkg/metric_generator/generator.go`` at that tag). Only the families we use are served.

Run as a module (``python -m tests.e2e.kubestatemetrics --listen ADDR --port N``) by
:class:`KubeStateMetrics`.
"""

from __future__ import annotations

import argparse
import http.server
import math
import os
import socket
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from tests.controlplane import REPO_ROOT
from tests.e2e import probes
from tests.e2e.netns import Namespace
from tests.e2e.pods import SERVICE_ACCOUNT_DIR, InCluster, pod_argv
from tests.harness.process import Process
from tests.harness.rest import Rest

__all__ = ["DAEMON_SET_FAMILIES", "KubeStateMetrics", "render"]

DAEMON_SET_FAMILIES: Final = (
    (
        "kube_daemonset_status_current_number_scheduled",
        "The number of nodes running at least one daemon pod and are supposed to.",
        "currentNumberScheduled",
    ),
    (
        "kube_daemonset_status_desired_number_scheduled",
        "The number of nodes that should be running the daemon pod.",
        "desiredNumberScheduled",
    ),
    (
        "kube_daemonset_status_number_available",
        "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running "
        "and available",
        "numberAvailable",
    ),
    (
        "kube_daemonset_status_number_misscheduled",
        "The number of nodes running a daemon pod but are not supposed to.",
        "numberMisscheduled",
    ),
    (
        "kube_daemonset_status_number_ready",
        "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running "
        "and ready.",
        "numberReady",
    ),
    (
        "kube_daemonset_status_number_unavailable",
        "The number of nodes that should be running the daemon pod and have none of the daemon pod running and "
        "available",
        "numberUnavailable",
    ),
    (
        "kube_daemonset_status_observed_generation",
        "The most recent generation observed by the daemon set controller.",
        "observedGeneration",
    ),
    (
        "kube_daemonset_status_updated_number_scheduled",
        "The total number of nodes that are running updated daemon pod",
        "updatedNumberScheduled",
    ),
)
"""(name, help, DaemonSet status field) of each gauge, in kube-state-metrics' order; all STABLE."""

_GENERATION: Final = (
    "kube_daemonset_metadata_generation",
    "Sequence number representing a specific generation of the desired state.",
)
_RESTARTS: Final = ("kube_pod_container_status_restarts_total", "The number of container restarts per container.")
CONTENT_TYPE: Final = "text/plain; version=0.0.4; charset=utf-8"


def _value(number: float) -> str:
    """kube-state-metrics' ``writeFloat``: 0, 1 and -1 spelled out, else Go's shortest ``%g``."""
    if number == 1:
        return "1"
    if number == 0:
        return "0"
    if number == -1:
        return "-1"
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "+Inf" if number > 0 else "-Inf"
    return repr(float(number)).removesuffix(".0") if float(number).is_integer() else repr(float(number))


def _labels(pairs: Sequence[tuple[str, str]]) -> str:
    escaped = (value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") for _, value in pairs)
    return "{" + ",".join(f'{key}="{value}"' for (key, _), value in zip(pairs, escaped, strict=True)) + "}"


def _family(name: str, help_text: str, kind: str, rows: Sequence[tuple[Sequence[tuple[str, str]], float]]) -> str:
    if not rows:
        return ""
    header = f"# HELP {name} [STABLE] {help_text}\n# TYPE {name} {kind}\n"
    return header + "".join(f"{name}{_labels(labels)} {_value(value)}\n" for labels, value in rows)


def render(daemon_sets: Sequence[Mapping[str, Any]], pods: Sequence[Mapping[str, Any]]) -> str:
    """The exposition of ``daemon_sets`` and ``pods`` (API objects as JSON), in kube-state-metrics' format."""
    out = []
    for name, help_text, field in DAEMON_SET_FAMILIES:
        rows = [
            (
                (("namespace", d["metadata"]["namespace"]), ("daemonset", d["metadata"]["name"])),
                float((d.get("status") or {}).get(field, 0)),
            )
            for d in daemon_sets
        ]
        out.append(_family(name, help_text, "gauge", rows))
    out.append(
        _family(
            *_GENERATION,
            "gauge",
            [
                (
                    (("namespace", d["metadata"]["namespace"]), ("daemonset", d["metadata"]["name"])),
                    float(d["metadata"].get("generation", 0)),
                )
                for d in daemon_sets
            ],
        )
    )
    restarts = [
        (
            (
                ("namespace", p["metadata"]["namespace"]),
                ("pod", p["metadata"]["name"]),
                ("uid", p["metadata"]["uid"]),
                ("container", status["name"]),
            ),
            float(status.get("restartCount", 0)),
        )
        for p in pods
        for status in (p.get("status") or {}).get("containerStatuses") or []
    ]
    out.append(_family(*_RESTARTS, "counter", restarts))
    return "".join(out)


class KubeStateMetrics(Process):
    """The exporter as a pod on the test bed's node: start/stop, health wait, log path."""

    health_interval = 0.2
    cwd = REPO_ROOT

    def __init__(self, namespace: Namespace, in_cluster: InCluster, *, address: str, port: int, workdir: Path) -> None:
        """Plan it: listening on ``[address]:port`` in ``namespace``, reading the API server as ``in_cluster`` says."""
        super().__init__("kube-state-metrics", workdir / "kube-state-metrics.log", grace_period=5, startup_timeout=30)
        self.namespace = namespace
        self.in_cluster = in_cluster
        self.address = address
        self.port = port

    @property
    def url(self) -> str:
        """Its ``/metrics`` as a scraper in the node's namespace reaches it."""
        return f"http://[{self.address}]:{self.port}/metrics"

    def argv(self) -> list[str]:
        """This module, run as a pod in the namespace."""
        return pod_argv(
            [sys.executable, "-m", "tests.e2e.kubestatemetrics", "--listen", self.address, "--port", str(self.port)],
            namespace=self.namespace,
            in_cluster=self.in_cluster,
        )

    def environment(self) -> Mapping[str, str]:
        """``PATH``, this repository on ``PYTHONPATH``, the in-cluster variables."""
        return {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(REPO_ROOT), **self.in_cluster.environment}

    def healthy(self) -> bool:
        """``/healthz`` answers 200, from inside the namespace."""
        try:
            return probes.http_get(self.namespace, f"http://[{self.address}]:{self.port}/healthz", timeout=2)[0] == 200
        except RuntimeError:
            return False


def _serve(address: str, port: int) -> None:
    """Serve ``/metrics`` (fresh lists from the API server) and ``/healthz``, with the pod's in-cluster credentials."""
    api = Rest.in_cluster(Path("/var/run") / SERVICE_ACCOUNT_DIR)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            if self.path == "/healthz":
                body, kind = b"OK", "text/plain"
            elif self.path == "/metrics":
                daemon_sets, pods = api.items("/apis/apps/v1/daemonsets"), api.items("/api/v1/pods")
                body, kind = render(daemon_sets, pods).encode(), CONTENT_TYPE
            else:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
            return

    class Server(http.server.ThreadingHTTPServer):
        address_family = socket.AF_INET6

    Server((address, port), Handler).serve_forever()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="kube-state-metrics' DaemonSet and restart series, in-cluster")
    parser.add_argument("--listen", required=True, help="IPv6 address to listen on")
    parser.add_argument("--port", type=int, required=True)
    arguments = parser.parse_args()
    _serve(arguments.listen, arguments.port)
