"""The checks of ``verify``, one module each, and their registry: the order in which they run and print.

Adding a check is one new module here (``NAME`` and ``check(cluster) -> CheckResult``), one
line in :data:`CHECKS` (or :data:`UNINSTALLED_CHECKS`), and its test. A check reads what
it needs from the shared :class:`~constructs_nld.deploy.checks.cluster.Cluster`.
"""

from __future__ import annotations

from typing import Final

from constructs_nld.deploy.checks import (
    alert_metric_prefix,
    cluster_dns_intact,
    cutover_in_progress,
    daemonset_healthy,
    interception_mode,
    intercepts_kube_dns,
    kube_dns_config_map,
    live_matches_app,
    metrics_service_headless,
    no_node_cache_pods,
    no_placeholder,
    nothing_left,
    pod_monitor_ports,
    pods_after_upstream,
    taints_tolerated,
    upstream_selects_kube_dns,
)
from constructs_nld.deploy.checks.cluster import Check, CheckResult, Cluster, format_result

__all__ = ["CHECKS", "UNINSTALLED_CHECKS", "Check", "CheckResult", "Cluster", "format_result"]

CHECKS: Final[tuple[Check, ...]] = (
    daemonset_healthy.check,
    metrics_service_headless.check,
    upstream_selects_kube_dns.check,
    no_placeholder.check,
    pods_after_upstream.check,
    intercepts_kube_dns.check,
    taints_tolerated.check,
    alert_metric_prefix.check,
    pod_monitor_ports.check,
    interception_mode.check,
    live_matches_app.check,
    kube_dns_config_map.check,
    cutover_in_progress.check,
)
"""``verify``: the spec's smoke tests and its "Common Failure Modes" table, in the order they print."""

UNINSTALLED_CHECKS: Final[tuple[Check, ...]] = (
    nothing_left.check,
    no_node_cache_pods.check,
    cluster_dns_intact.check,
)
"""``verify --uninstalled``: nothing of the app's NodeLocal DNS is left, and cluster DNS is intact."""
