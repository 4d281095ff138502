"""``cluster-dns-intact`` (verify --uninstalled): kube-dns still has its ClusterIP, so pods resolve as before.

Pods resolve through cluster CoreDNS, as before NodeLocal DNS, which never owns kube-dns.

Cause: something else removed kube-dns or its ClusterIP: pods have no cluster DNS to fall back
to.

Fix: restore the cluster's DNS add-on (CoreDNS and its kube-dns Service).
"""

from __future__ import annotations

from constructs_nld.deploy.checks.cluster import CheckResult, Cluster
from constructs_nld.deploy.manifest import KUBE_DNS

NAME = "cluster-dns-intact"


def check(cluster: Cluster) -> CheckResult:
    """kube-dns exists with a ClusterIP (NodeLocal DNS never owns it)."""
    cluster_ip = (cluster.kube_dns or {}).get("spec", {}).get("clusterIP")
    if not cluster_ip or cluster_ip == "None":
        return CheckResult(
            NAME,
            "fail",
            f"service {KUBE_DNS.namespace}/{KUBE_DNS.name} "
            + ("not found" if cluster.kube_dns is None else "has no ClusterIP"),
            "pods have no cluster DNS to fall back to (NodeLocal DNS never owns kube-dns: something else removed it)",
            "restore the cluster's DNS add-on (CoreDNS and its kube-dns Service)",
        )
    return CheckResult(
        NAME, "pass", f"kube-dns at {cluster_ip}: pods resolve through cluster CoreDNS, as before NodeLocal DNS"
    )
