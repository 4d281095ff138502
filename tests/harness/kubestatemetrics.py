"""The real kube-state-metrics v2.20.0 as a pod on the test bed's node: the DaemonSet and pod series.

Built from ``k8s.io/kube-state-metrics/v2`` by ``tools/build-binaries.sh`` like the other
components, it runs as a pod would (:func:`tests.harness.pods.pod_argv`): in-cluster
credentials of its own ServiceAccount mounted at ``/var/run/secrets/kubernetes.io/
serviceaccount``, the ``KUBERNETES_SERVICE_*`` variables pointing at the test API
server. It watches only what our alerts and the soak read (``--resources=daemonsets,pods``,
which its ClusterRole allows) and serves them on ``[address]:port``, its own telemetry on
the next port. The operator-generated Prometheus configuration scrapes it through its
PodMonitor, as on a cluster.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from tests.e2e import probes
from tests.harness.pods import InCluster, pod_argv
from tests.harness.process import Process

if TYPE_CHECKING:
    from tests.e2e.netns import Namespace

__all__ = ["RESOURCES", "KubeStateMetrics"]

RESOURCES = ("daemonsets", "pods")
"""The stores it runs: the DaemonSet status gauges and the container restart counters."""


class KubeStateMetrics(Process):
    """kube-state-metrics as a pod on the test bed's node: start/stop, health wait, log path."""

    health_interval = 0.2

    def __init__(
        self,
        namespace: Namespace,
        in_cluster: InCluster,
        *,
        binary: Path,
        address: str,
        port: int,
        workdir: Path,
    ) -> None:
        """Plan ``binary`` listening on ``[address]:port`` in ``namespace``, reading the API as ``in_cluster`` says."""
        super().__init__("kube-state-metrics", workdir / "kube-state-metrics.log", grace_period=5, startup_timeout=60)
        self.namespace = namespace
        self.in_cluster = in_cluster
        self.binary = binary
        self.address = address
        self.port = port

    @property
    def url(self) -> str:
        """Its ``/metrics`` as a scraper in the node's namespace reaches it."""
        return f"http://[{self.address}]:{self.port}/metrics"

    def argv(self) -> list[str]:
        """The binary, run as a pod in the namespace."""
        command = [
            str(self.binary),
            f"--host={self.address}",
            f"--port={self.port}",
            f"--telemetry-host={self.address}",
            f"--telemetry-port={self.port + 1}",
            f"--resources={','.join(RESOURCES)}",
        ]
        return pod_argv(command, namespace=self.namespace, in_cluster=self.in_cluster)

    def environment(self) -> dict[str, str]:
        """``PATH`` (for the mount wrapper) and the in-cluster variables, as a container gets them."""
        return {"PATH": os.environ.get("PATH", ""), **self.in_cluster.environment}

    def healthy(self) -> bool:
        """Its metrics server's ``/healthz`` answers 200 from inside the namespace (``/readyz`` is on telemetry)."""
        try:
            return probes.http_get(self.namespace, f"http://[{self.address}]:{self.port}/healthz", timeout=2)[0] == 200
        except RuntimeError:
            return False
