"""``podmonitor-scrapes-both-ports``: the app's PodMonitor scrapes both metrics ports.

The live PodMonitor has an endpoint for each metrics port the node-cache container declares:
CoreDNS's (``metrics``) and node-cache's own (``metrics-binary``), the only one with
``coredns_nodecache_setup_errors_total``. Without the prometheus-operator CRDs, or without a
PodMonitor in the app, it warns.

Cause: the PodMonitor is missing or scrapes one port only: the setup errors go unseen.

Fix: ``python deploy.py`` (the app's PodMonitor has both endpoints).
"""

from __future__ import annotations

from constructs_nld import defaults
from constructs_nld.deploy.checks.cluster import CheckResult, Cluster
from constructs_nld.deploy.kube import ObjectRef
from constructs_nld.deploy.manifest import MONITORING_GROUP
from constructs_nld.deploy.program import command_line

NAME = "podmonitor-scrapes-both-ports"


def check(cluster: Cluster) -> CheckResult:
    """The live PodMonitor has an endpoint for each metrics port the node-cache container declares."""
    if "podmonitors" not in cluster.monitoring_served:
        return CheckResult(NAME, "warn", f"{MONITORING_GROUP} PodMonitor not served; not checked")
    monitor = cluster.component.pod_monitor
    if monitor is None:
        return CheckResult(NAME, "warn", "the app defines no PodMonitor for the node-cache pods")
    container = cluster.component.container
    container_ports = {p.get("name"): p.get("containerPort") for p in container.get("ports") or []}
    expected = {defaults.METRICS_PORT_NAME, defaults.BINARY_METRICS_PORT_NAME} & set(container_ports)
    ref = ObjectRef.of(monitor)
    live = cluster.live(monitor)
    ports = {e.get("port") for e in (live or {}).get("spec", {}).get("podMetricsEndpoints") or []}
    if not expected <= ports:
        binary = container_ports.get(defaults.BINARY_METRICS_PORT_NAME)
        return CheckResult(
            NAME,
            "fail",
            f"{ref} scrapes {sorted(p for p in ports if p) or 'nothing'}",
            f"coredns_nodecache_setup_errors_total lives only on :{binary} ({defaults.BINARY_METRICS_PORT_NAME})",
            f"{command_line()} (the app's PodMonitor has both endpoints)",
        )
    described = " and ".join(f"{port} ({container_ports[port]})" for port in sorted(expected))
    return CheckResult(NAME, "pass", described)
