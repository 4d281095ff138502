"""The checks of ``verify``, one module each, and their registry: the order in which they run and print.

Adding a check is one new module here (``NAME`` and ``check(cluster) -> CheckResult``), one
line in :data:`CHECKS` (or :data:`UNINSTALLED_CHECKS`), and its test. A check reads what
it needs from the shared :class:`~constructs_nld.deploy.checks.cluster.Cluster`. The module is
named as its check (``NAME`` with ``-`` as ``_``), and its docstring is the check's entry in
the user's documentation (``tools/readme.py`` lists the checks in the registry's order): a
first line with the check's name as a literal, a colon and what passes; paragraphs on what it
reads and skips; then, where a failure has a likely cause and a fix, a paragraph starting
``Cause:`` and one starting ``Fix:``.
"""

from __future__ import annotations

from typing import Final

from constructs_nld.deploy.checks import (
    alert_metric_prefix,
    cache_memory_budget,
    cluster_dns_intact,
    cutover_in_progress,
    daemonset_healthy,
    interception_mode,
    kube_dns_configmap,
    live_matches_app,
    metrics_service_headless,
    no_node_cache_pods,
    no_unsubstituted_placeholder,
    node_cache_intercepts_kube_dns,
    node_taints_tolerated,
    nothing_left,
    podmonitor_scrapes_both_ports,
    pods_created_after_upstream_service,
    rolled_back,
    upstream_service_selects_kube_dns,
    upstream_traffic_distribution,
)
from constructs_nld.deploy.checks.cluster import Check, CheckResult, Cluster, format_result

__all__ = ["CHECKS", "UNINSTALLED_CHECKS", "Check", "CheckResult", "Cluster", "format_result"]

CHECKS: Final[tuple[Check, ...]] = (
    daemonset_healthy.check,
    metrics_service_headless.check,
    upstream_service_selects_kube_dns.check,
    upstream_traffic_distribution.check,
    no_unsubstituted_placeholder.check,
    pods_created_after_upstream_service.check,
    node_cache_intercepts_kube_dns.check,
    node_taints_tolerated.check,
    cache_memory_budget.check,
    alert_metric_prefix.check,
    podmonitor_scrapes_both_ports.check,
    interception_mode.check,
    live_matches_app.check,
    kube_dns_configmap.check,
    cutover_in_progress.check,
    rolled_back.check,
)
"""``verify``: the spec's smoke tests and its "Common Failure Modes" table, in the order they print."""

UNINSTALLED_CHECKS: Final[tuple[Check, ...]] = (
    nothing_left.check,
    no_node_cache_pods.check,
    cluster_dns_intact.check,
)
"""``verify --uninstalled``: nothing of the app's NodeLocal DNS is left, and cluster DNS is intact."""
