"""``rolled-back``: the cluster runs the app, not a revision that ``rollback`` restored; a warning otherwise.

It reads the release history (``deploy.py history``). When the latest revision is a
rollback whose app differs from the app's synthesis (their digests differ), the cluster runs
the restored revision's objects, not what the app defines: by design after a rollback, but
the next ``deploy.py`` puts the app back. The warning stops once the app is deployed again,
or once the app is the one the revision was deployed from. A history that cannot be read is
a warning too, with the reason.

Cause: ``deploy.py rollback`` restored an earlier revision, and the app was not deployed since.

Fix: fix the app (or revert it to the revision's commit), then ``python deploy.py --wait``.
"""

from __future__ import annotations

from constructs_nld.deploy.checks.cluster import CheckResult, Cluster
from constructs_nld.deploy.errors import DeployError
from constructs_nld.deploy.history import digest, read_history
from constructs_nld.deploy.program import command_line

NAME = "rolled-back"


def check(cluster: Cluster) -> CheckResult:
    """Warn while the latest revision is a rollback to another app than this one; pass otherwise."""
    try:
        history = read_history(cluster.client, cluster.namespace)
    except DeployError as error:
        return CheckResult(NAME, "warn", f"the release history cannot be read: {error}")
    latest = history.latest
    if latest is None:
        return CheckResult(NAME, "pass", "no revision recorded yet")
    if latest.command != "rollback" or latest.outcome != "succeeded" or latest.app.digest == digest(cluster.charts):
        return CheckResult(NAME, "pass", f"latest revision {latest.number} ({latest.command}, {latest.outcome})")
    commit = f", commit {latest.app.commit}" if latest.app.commit else ""
    return CheckResult(
        NAME,
        "warn",
        f"the cluster runs revision {latest.number}, revision {latest.restored} restored by rollback "
        f"({latest.time}{commit}), not the app",
        "a rollback restored an earlier revision and the app was not deployed since",
        f"fix the app, then {command_line('--wait')}; {command_line('history')} lists the revisions",
    )
