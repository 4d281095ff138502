"""``nothing-left`` (verify --uninstalled): no object of the app's NodeLocal DNS is live, nor its empty ApplySet.

Those left are listed, ``(being deleted)`` when they are; an object whose kind is no longer
served went with its CRD. The ApplySet parent is left over only once no member is.

Cause: the uninstall was interrupted or refused, or something applied the objects again.

Fix: ``python deploy.py uninstall``.
"""

from __future__ import annotations

from constructs_nld.deploy.applyset import ApplySet
from constructs_nld.deploy.checks.cluster import CheckResult, Cluster
from constructs_nld.deploy.kube import KindNotServedError, ObjectRef
from constructs_nld.deploy.program import command_line

NAME = "nothing-left"


def check(cluster: Cluster) -> CheckResult:
    """None of the app's NodeLocal DNS objects is live; the ApplySet parent is gone unless other objects use it."""
    left: list[str] = []
    objects = cluster.component.objects()
    for desired in objects:
        try:
            live = cluster.client.get(cluster.client.ref_of(desired))
        except KindNotServedError:
            continue  # its CRD is gone, and every object of the kind with it
        if live is not None:
            deleting = " (being deleted)" if live["metadata"].get("deletionTimestamp") else ""
            left.append(f"{ObjectRef.of(desired)}{deleting}")
    applyset = ApplySet(cluster.namespace)
    parent = cluster.client.get(applyset.ref)
    if parent is not None and not applyset.live_members(cluster.client, *ApplySet.recorded(parent)):
        left.append(f"{applyset.ref} (the ApplySet parent, with no member left)")
    if left:
        return CheckResult(
            NAME,
            "fail",
            f"still live: {', '.join(left)}",
            "the uninstall was interrupted or refused, or something applied the objects again",
            command_line("uninstall"),
        )
    return CheckResult(NAME, "pass", f"none of the app's {len(objects)} NodeLocal DNS object(s) is live")
