"""``metrics-service-headless``: the metrics Service lists every pod (``clusterIP: None``) for the scrape.

The PodMonitor discovers the node-cache pods through this Service: one with a ClusterIP
load-balances one address instead of listing every pod. An app without such a Service is
warned about.

Cause: the Service is not deployed, or was created with a ClusterIP, which cannot be changed
in place.

Fix: ``python deploy.py``; a Service with a ClusterIP is deleted first (``kubectl delete svc``).
"""

from __future__ import annotations

from constructs_nld.deploy.checks.cluster import CheckResult, Cluster
from constructs_nld.deploy.kube import ObjectRef
from constructs_nld.deploy.program import command_line

NAME = "metrics-service-headless"


def check(cluster: Cluster) -> CheckResult:
    """The app's metrics Service is live and headless."""
    service = cluster.component.metrics_service
    if service is None:
        return CheckResult(NAME, "warn", "the app defines no headless Service selecting the node-cache pods")
    ref = ObjectRef.of(service)
    live = cluster.live(service)
    if live is None:
        return cluster.not_deployed(NAME, f"service {ref.name}", "the PodMonitor has no pod-level discovery")
    cluster_ip = live.get("spec", {}).get("clusterIP")
    if cluster_ip != "None":
        return CheckResult(
            NAME,
            "fail",
            f"{ref} clusterIP is {cluster_ip!r}, not 'None'",
            "a non-headless Service load-balances one address instead of listing every pod",
            f"kubectl delete svc -n {ref.namespace} {ref.name}; {command_line()}",
        )
    return CheckResult(NAME, "pass", "clusterIP None")
