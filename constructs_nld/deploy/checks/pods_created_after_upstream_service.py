"""``pods-created-after-upstream-service``: every pod was given ``KUBE_DNS_UPSTREAM_SERVICE_HOST``.

kubelet injects a Service's variables only into pods created after the Service, so no
node-cache pod may predate the live ``kube-dns-upstream``. Timestamps have whole seconds, so a
pod created in the Service's own second counts as after it: a fresh deploy creates both
within one. Without the Service it warns (``upstream-service-selects-kube-dns`` fails).

Cause: pods older than the Service (one created or recreated under running pods) lack the
variable: no interception.

Fix: a rollout restart of the DaemonSet (``kubectl rollout restart``).
"""

from __future__ import annotations

from constructs_nld.deploy.checks.cluster import CheckResult, Cluster
from constructs_nld.deploy.manifest import created_at

NAME = "pods-created-after-upstream-service"


def check(cluster: Cluster) -> CheckResult:
    """No node-cache pod predates the live kube-dns-upstream."""
    name = cluster.component.upstream_service["metadata"]["name"]
    if cluster.upstream is None:
        return CheckResult(NAME, "warn", f"{name} not found; see upstream-service-selects-kube-dns")
    created = created_at(cluster.upstream)
    early = [p["metadata"]["name"] for p in cluster.pods if created_at(p) < created]
    if early:
        return CheckResult(
            NAME,
            "fail",
            f"{len(early)} pod(s) predate {name}: {', '.join(sorted(early))}",
            "kubelet injects KUBE_DNS_UPSTREAM_SERVICE_HOST only into pods created after the Service: no interception",
            cluster.rollout_restart,
        )
    return CheckResult(NAME, "pass", f"all {len(cluster.pods)} pod(s) created after the Service")
