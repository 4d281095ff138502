"""``cutover-in-progress``: a staged cutover going on is a warning, with its canary, not a failure.

During a cutover (``deploy.py cutover``) the canary nodes run a new template and the rest
the old one, by design; the other checks read the DaemonSet as the cutover left it
(``OnDelete``, pods of two templates). This check says that it is going on, since when and on
how many canary nodes, and how to end it.

Cause: a cutover was started and is not yet promoted or rolled back.

Fix: ``python deploy.py cutover status``; then ``python deploy.py cutover promote``, or
``python deploy.py cutover rollback``.
"""

from __future__ import annotations

from constructs_nld.deploy.checks.cluster import CheckResult, Cluster
from constructs_nld.deploy.cutover import REVISION_LABEL
from constructs_nld.deploy.program import command_line

NAME = "cutover-in-progress"


def check(cluster: Cluster) -> CheckResult:
    """Warn while a cutover is in progress; pass otherwise."""
    state = cluster.cutover
    if state is None:
        return CheckResult(NAME, "pass", "no cutover in progress")
    new = [
        pod
        for pod in cluster.pods
        if (pod["metadata"].get("labels") or {}).get(REVISION_LABEL) not in (None, state.old_revision)
    ]
    promoting = f"; promoting since {state.promoted}" if state.promoted else ""
    return CheckResult(
        NAME,
        "warn",
        f"a cutover started {state.started}: {len(state.canary)} canary node(s) "
        f"({', '.join(state.canary_names)}); {len(new)} pod(s) run the new template{promoting}",
        "the canary runs a new template, the other nodes the old one, until the cutover is promoted or rolled back",
        f"{command_line('cutover status')}; then {command_line('cutover promote')}, or "
        f"{command_line('cutover rollback')}",
    )
