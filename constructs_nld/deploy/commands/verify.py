"""``verify``: the spec's smoke tests and its "Common Failure Modes" table, as checks on a live cluster.

It checks what the user's app configures — namespace, names, tolerations, ports,
PodMonitor — read from the same synthesized app ``deploy`` applies
(:mod:`constructs_nld.deploy.source`), never from defaults. Each check
(:mod:`constructs_nld.deploy.checks`) reports pass, fail or warn with what it saw; a
failure also says the likely cause and the fix, as the spec's table does.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from constructs_nld.deploy.access import check_access, served_refs
from constructs_nld.deploy.checks import CHECKS, UNINSTALLED_CHECKS, Check, CheckResult, Cluster
from constructs_nld.deploy.component import locate
from constructs_nld.deploy.kube import KubeClient
from constructs_nld.deploy.manifest import KUBE_DNS, usable_cluster_ip
from constructs_nld.deploy.source import AppSource

__all__ = ["verify", "verify_uninstalled"]


def _run(client: KubeClient, source: AppSource, checks: Sequence[Check], now: datetime | None) -> list[CheckResult]:
    kube_dns = client.get(KUBE_DNS)
    component = locate(tuple(source(usable_cluster_ip(kube_dns))))
    cluster = Cluster(client, component, kube_dns, now or datetime.now(UTC))
    check_access(
        client,
        "verify",
        served_refs(client, component),
        namespace=component.namespace,
        monitoring_served="prometheusrules" in cluster.monitoring_served,
    )
    return [check(cluster) for check in checks]


def verify(client: KubeClient, source: AppSource, *, now: datetime | None = None) -> list[CheckResult]:
    """Run every check against the cluster behind ``client``, for the app of ``source``."""
    return _run(client, source, CHECKS, now)


def verify_uninstalled(client: KubeClient, source: AppSource) -> list[CheckResult]:
    """After ``uninstall``: no object of the app's NodeLocal DNS, no node-cache pod left, kube-dns intact."""
    return _run(client, source, UNINSTALLED_CHECKS, None)
