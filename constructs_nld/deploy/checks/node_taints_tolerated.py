"""``node-taints-tolerated``: every node taint is tolerated by the app's tolerations, or node-cache cannot run there.

``NoSchedule`` and ``NoExecute`` taints count, listed per node; the node controller's
condition taints (``node.kubernetes.io/…``) and Karpenter's disruption taints do not.

Cause: nodes with a taint the app does not tolerate: they have no local cache.

Fix: add the taint keys to the app's ``NodeLocalDNSProps.tolerations`` (never ``operator:
Exists`` without a key).
"""

from __future__ import annotations

from constructs_nld.deploy.checks.cluster import CheckResult, Cluster

NAME = "node-taints-tolerated"


def check(cluster: Cluster) -> CheckResult:
    """No node carries a taint that keeps node-cache off it (condition and Karpenter taints aside)."""
    bad = {node["metadata"]["name"]: cluster.untolerated(node) for node in cluster.nodes}
    bad = {node: taints for node, taints in bad.items() if taints}
    if bad:
        listing = "; ".join(f"{node}: {', '.join(taints)}" for node, taints in sorted(bad.items()))
        return CheckResult(
            NAME,
            "fail",
            f"taints not tolerated: {listing}",
            "node-cache cannot run there; those nodes have no local cache",
            "add the taint keys to the app's NodeLocalDNSProps.tolerations (never operator Exists without a key)",
        )
    return CheckResult(NAME, "pass", f"every taint on {len(cluster.nodes)} node(s) tolerated")
