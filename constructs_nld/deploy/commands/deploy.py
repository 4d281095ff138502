"""``deploy``: the app applied with the spec's rules, in its steps (:mod:`constructs_nld.deploy.steps`).

A deploy that writes (not ``--dry-run`` nor ``--diff``) records a revision in the release
history (:mod:`constructs_nld.deploy.history`); ``rollback`` goes through :func:`deploy` too,
with the charts of the revision it restores.
"""

from __future__ import annotations

from typing import Final

from constructs_nld.deploy.command import Command, Outcome, reads
from constructs_nld.deploy.history import Recorder
from constructs_nld.deploy.options import DeployOptions
from constructs_nld.deploy.progress import make_progress
from constructs_nld.deploy.rollout import Progress
from constructs_nld.deploy.session import Session
from constructs_nld.deploy.steps import DeployReport, DeployState, run_recorded

__all__ = ["COMMAND", "deploy", "run"]

_CHANGED: Final = ("created", "configured", "pruned")


def deploy(
    session: Session,
    options: DeployOptions | None = None,
    progress: Progress | None = None,
    *,
    recorder: Recorder | None = None,
) -> DeployReport:
    """Deploy the session's charts to its cluster; one line per step to the session's output.

    With ``options.wait``, ``progress`` shows the rollout (default: the session's, else as
    ``options.progress`` says, through the session's output). With ``recorder`` (and neither a
    dry run nor a diff), the run's revision is recorded: a success, or a failure once it wrote. Raises a
    :class:`~constructs_nld.deploy.errors.DeployError` (whose ``exit_code`` the CLI returns)
    or ``ApiException`` for a request the API server refused.
    """
    options = options or DeployOptions()
    shown = progress or session.progress or make_progress(options.progress, session.out)
    return run_recorded(DeployState(session, options, shown, recorder=recorder))


def run(session: Session, options: DeployOptions) -> Outcome:
    """``deploy`` on one cluster: its report in a few words, the objects it changed, its diffs."""
    recording = not (options.dry_run or options.diff)
    recorder = Recorder.of(session, "deploy", options.history_max) if recording else None
    report = deploy(session, options, recorder=recorder)
    changed = sum(1 for result in report.objects if result.action in _CHANGED)
    if options.diff:
        result = f"{len(report.diffs)} would change"
    else:
        result = ("deployed" if changed else "unchanged") + (" (dry run)" if options.dry_run else "")
    return Outcome(result, changed=changed, lines=tuple(report.diffs.values()))


COMMAND: Final = Command(DeployOptions, run, reads("deployable"))
