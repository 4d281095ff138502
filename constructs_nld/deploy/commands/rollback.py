"""``rollback [REVISION]``: a revision of the release history applied again, with every rule of a deploy.

The charts come from the revision (:mod:`constructs_nld.deploy.history`), not from the app,
which is not run: a rollback works while the app is broken. They go through the deploy's
steps (:mod:`constructs_nld.deploy.steps`): Services first and the wait for kube-dns-upstream's
ClusterIP, the restart decision, the prune to the revision's set, ``--wait``, the Lease. The
default revision is the newest successful one before the latest. Refused on one line, with
nothing written: a revision the history does not hold (or one that failed, or kept no
objects), a cutover in progress (a rollback would roll every node, as a deploy would), and
every refusal of a deploy. The rollback is itself recorded as a revision, naming the one it
restored; ``verify`` then warns that the cluster runs that revision rather than the app, until
the app is deployed again.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from constructs_nld import defaults
from constructs_nld.deploy.command import Command, Outcome, reads
from constructs_nld.deploy.cutover import state_of, summary
from constructs_nld.deploy.errors import CutoverError
from constructs_nld.deploy.history import Recorder, Revision, read_history
from constructs_nld.deploy.kube import ObjectRef
from constructs_nld.deploy.options import RollbackOptions
from constructs_nld.deploy.program import hint
from constructs_nld.deploy.progress import make_progress
from constructs_nld.deploy.rollout import Progress
from constructs_nld.deploy.session import Session, deployable_ip
from constructs_nld.deploy.steps import DeployReport, DeployState, run_recorded

__all__ = ["COMMAND", "rollback", "run"]

_CHANGED: Final = ("created", "configured", "pruned")


def rollback(
    session: Session, options: RollbackOptions, progress: Progress | None = None
) -> tuple[Revision, DeployReport]:
    """Apply the revision ``options.revision`` (default: the previous successful one) again; it and the report."""
    client = session.kube
    revision = read_history(client, defaults.NAMESPACE).restorable(options.revision)
    deployable_ip(session.kube_dns)  # a missing or unusable kube-dns refuses it, as it refuses a deploy
    assert revision.charts  # restorable() refuses a revision without them
    restoring = replace(session, charts=revision.charts)
    daemon_set = ObjectRef.of(restoring.component.daemon_set)
    cutover = state_of(client.get(daemon_set))
    if cutover is not None:
        raise CutoverError(
            f"rollback: a cutover of {daemon_set} is in progress ({summary(cutover)}): a rollback would roll every "
            f"node; end it first with {hint('cutover promote')} or {hint('cutover rollback')}; nothing written"
        )
    commit = f", commit {revision.app.commit}" if revision.app.commit else ""
    session.out(
        f"[rollback] revision {revision.number} ({revision.command} of {revision.time}, app "
        f"{revision.app.digest[:19]}{commit}): its objects applied again"
    )
    recorder = Recorder.of(restoring, "rollback", options.history_max, restored=revision)
    shown = progress or make_progress(options.progress, session.out)
    return revision, run_recorded(DeployState(restoring, options, shown, recorder=recorder))


def run(session: Session, options: RollbackOptions) -> Outcome:
    """``rollback`` on one cluster: the revision restored, the objects changed, the diffs."""
    revision, report = rollback(session, options)
    changed = sum(1 for result in report.objects if result.action in _CHANGED)
    if options.diff:
        result = f"{len(report.diffs)} would change"
    else:
        result = f"revision {revision.number} restored" + (" (dry run)" if options.dry_run else "")
    return Outcome(result, changed=changed, lines=tuple(report.diffs.values()))


COMMAND: Final = Command(RollbackOptions, run, reads("recorded"))
