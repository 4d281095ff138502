"""``upstream-service-selects-kube-dns``: cache misses go to cluster CoreDNS, the pods the app's Service selects."""

from __future__ import annotations

from constructs_nld.deploy.checks.cluster import CheckResult, Cluster
from constructs_nld.deploy.manifest import selector

NAME = "upstream-service-selects-kube-dns"


def check(cluster: Cluster) -> CheckResult:
    """The live kube-dns-upstream selects what the app's does."""
    expected = cluster.component.upstream_selector
    name = cluster.component.upstream_service["metadata"]["name"]
    if cluster.upstream is None:
        return cluster.not_deployed(
            NAME, f"service {name}", "node-cache pods get no KUBE_DNS_UPSTREAM_SERVICE_HOST and crashloop"
        )
    live = cluster.upstream.get("spec", {}).get("selector") or {}
    if live != expected:
        return CheckResult(
            NAME,
            "fail",
            f"selector is {live!r}",
            "selector drift: cache misses go to the wrong pods",
            f"restore selector {selector(expected)} (python deploy.py refuses to overwrite a foreign one)",
        )
    return CheckResult(NAME, "pass", f"selector {selector(expected)}")
