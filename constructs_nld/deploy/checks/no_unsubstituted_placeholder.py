"""``no-unsubstituted-placeholder``: the live ConfigMaps and DaemonSet hold no placeholder nothing fills.

node-cache fills its ``__PILLAR__`` placeholders only in the Corefile it renders; any other
placeholder live is named. Bookkeeping (``managedFields``, client-side apply's
``last-applied-configuration``) is not configuration and is ignored.

Cause: a preview was applied (``__KUBE_DNS_CLUSTER_IP__`` not substituted: the Corefile does
not parse and the pods crashloop), or a placeholder sits where nothing fills it.

Fix: ``python deploy.py``, which synthesizes the app with the live ClusterIP.
"""

from __future__ import annotations

from typing import Final

from constructs_nld import placeholders as ph
from constructs_nld.deploy.checks.cluster import CheckResult, Cluster
from constructs_nld.deploy.manifest import without_bookkeeping
from constructs_nld.deploy.program import command_line
from constructs_nld.placeholders import find_unresolved_placeholders

NAME = "no-unsubstituted-placeholder"

_CAUSES: Final = {
    ph.KUBE_DNS_CLUSTER_IP: "__KUBE_DNS_CLUSTER_IP__ was not substituted (a preview was applied): "
    "the Corefile does not parse and pods crashloop",
}


def check(cluster: Cluster) -> CheckResult:
    """No placeholder of ours, nor one of node-cache's outside the Corefile, is live."""
    component = cluster.component
    ours = [obj for obj in (component.corefile, component.keeper_config, component.daemon_set) if obj is not None]
    live = [without_bookkeeping(obj) for manifest in ours if (obj := cluster.live(manifest)) is not None]
    found = find_unresolved_placeholders(live)
    if not found:
        return CheckResult(NAME, "pass", "ConfigMap and DaemonSet hold no placeholder of ours")
    cause = "; ".join(
        _CAUSES.get(
            token,
            f"{token} is left where nothing fills it (node-cache fills its __PILLAR__ placeholders "
            "only in the Corefile it renders)",
        )
        for token in sorted({f.token for f in found})
    )
    return CheckResult(
        NAME,
        "fail",
        "; ".join(str(f) for f in found),
        cause,
        f"{command_line()} (it synthesizes the app with the live ClusterIP)",
    )
