"""``no-node-cache-pods`` (verify --uninstalled): no node-cache pod is left, orphaned or still stopping.

No pod matches the DaemonSet's selector in its namespace; the first few left are named.

Cause: node-cache pods still stopping, or orphaned: until they stop, their nodes keep
NodeLocal DNS's rules.

Fix: ``python deploy.py uninstall`` (it waits until they are gone).
"""

from __future__ import annotations

from constructs_nld.deploy.checks.cluster import CheckResult, Cluster
from constructs_nld.deploy.manifest import target_node
from constructs_nld.deploy.program import command_line

NAME = "no-node-cache-pods"

_LISTED = 5


def check(cluster: Cluster) -> CheckResult:
    """No pod matches the app's DaemonSet selector."""
    pods = cluster.pods
    where = f"{cluster.component.pod_selector} in {cluster.namespace}"
    if not pods:
        return CheckResult(NAME, "pass", f"no pod matches {where}")
    names = ", ".join(
        f"{p['metadata']['name']} on {target_node(p) or 'no node'}"
        for p in sorted(pods, key=lambda p: str(p["metadata"]["name"]))[:_LISTED]
    )
    more = f" and {len(pods) - _LISTED} more" if len(pods) > _LISTED else ""
    return CheckResult(
        NAME,
        "fail",
        f"{len(pods)} pod(s) match {where}: {names}{more}",
        "node-cache pods still stopping (or orphaned): until they stop, their nodes keep NodeLocal DNS's rules",
        f"{command_line('uninstall')} (it waits until they are gone)",
    )
