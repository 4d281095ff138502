"""``upstream-service-selects-kube-dns``: cache misses go to cluster CoreDNS, the pods the app's Service selects.

node-cache forwards every miss to the ClusterIP of ``kube-dns-upstream``, whose live selector
must be the app's (``k8s-app: kube-dns``).

Cause: the Service is missing (the node-cache pods get no ``KUBE_DNS_UPSTREAM_SERVICE_HOST``
and crashloop), or its selector drifted and cache misses go to the wrong pods.

Fix: ``python deploy.py``; a foreign selector is restored by hand first (``deploy.py`` refuses
to overwrite it).
"""

from __future__ import annotations

from constructs_nld.deploy.checks.cluster import CheckResult, Cluster
from constructs_nld.deploy.manifest import selector
from constructs_nld.deploy.program import command_line

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
            f"restore selector {selector(expected)} ({command_line()} refuses to overwrite a foreign one)",
        )
    return CheckResult(NAME, "pass", f"selector {selector(expected)}")
