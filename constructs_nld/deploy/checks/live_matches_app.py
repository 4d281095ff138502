"""``live-matches-app``: every NodeLocal DNS object of the app is live with the app's values.

Every field the app sets is compared; fields others add are not. An object whose kind the
cluster does not serve (a PodMonitor without its CRD) is not counted as matching: it is named
as not checked. During a cutover the DaemonSet is compared with the ``OnDelete`` strategy the
cutover gives it.

Cause: the cluster runs something other than what the app configures: an older deploy, or
hand edits.

Fix: ``python deploy.py --diff`` shows the difference; ``python deploy.py`` applies the app.
"""

from __future__ import annotations

from constructs_nld.deploy.checks.cluster import CheckResult, Cluster
from constructs_nld.deploy.compare import is_subset
from constructs_nld.deploy.cutover import with_on_delete
from constructs_nld.deploy.kube import KindNotServedError, Manifest, ObjectRef
from constructs_nld.deploy.program import command_line

NAME = "live-matches-app"


def _cut_over(cluster: Cluster, desired: Manifest) -> bool:
    """Whether ``desired`` is the DaemonSet during a cutover, which makes its update strategy ``OnDelete``."""
    return desired is cluster.component.daemon_set and cluster.cutover is not None


def check(cluster: Cluster) -> CheckResult:
    """Each of the app's objects is live, with every field the app sets at the app's value."""
    drifted: list[str] = []
    unchecked: list[str] = []
    matching = 0
    for desired in cluster.component.objects():
        try:
            live = cluster.client.get(cluster.client.ref_of(desired))
        except KindNotServedError:
            unchecked.append(str(ObjectRef.of(desired)))
            continue
        if live is None:
            drifted.append(f"{ObjectRef.of(desired)} missing")
        elif not is_subset(with_on_delete(desired) if _cut_over(cluster, desired) else desired, live):
            drifted.append(f"{ObjectRef.of(desired)} differs")
        else:
            matching += 1
    tail = f"; not checked, kind not served: {', '.join(unchecked)}" if unchecked else ""
    if drifted:
        return CheckResult(
            NAME,
            "fail",
            "; ".join(drifted) + tail,
            "the cluster runs something other than what the app configures (an older deploy, or hand edits)",
            f"{command_line('--diff')} to see it; {command_line()} to apply the app",
        )
    return CheckResult(NAME, "pass", f"{matching} object(s) as the app configures them{tail}")
