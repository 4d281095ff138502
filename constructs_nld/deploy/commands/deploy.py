"""``deploy``: the app applied with the spec's rules, in its steps (:mod:`constructs_nld.deploy.steps`)."""

from __future__ import annotations

from typing import Final

from constructs_nld.deploy.command import Command, Outcome, reads
from constructs_nld.deploy.options import DeployOptions
from constructs_nld.deploy.progress import make_progress
from constructs_nld.deploy.rollout import Progress
from constructs_nld.deploy.session import Session
from constructs_nld.deploy.steps import DeployReport, DeployState, run_steps

__all__ = ["COMMAND", "deploy", "run"]

_CHANGED: Final = ("created", "configured", "pruned")


def deploy(session: Session, options: DeployOptions | None = None, progress: Progress | None = None) -> DeployReport:
    """Deploy the session's app to its cluster; one line per step to the session's output.

    With ``options.wait``, ``progress`` shows the rollout (default: the session's, else as
    ``options.progress`` says, through the session's output). Raises a
    :class:`~constructs_nld.deploy.errors.DeployError` (whose ``exit_code`` the CLI returns)
    or ``ApiException`` for a request the API server refused.
    """
    options = options or DeployOptions()
    shown = progress or session.progress or make_progress(options.progress, session.out)
    return run_steps(DeployState(session, options, shown))


def run(session: Session, options: DeployOptions) -> Outcome:
    """``deploy`` on one cluster: its report in a few words, the objects it changed, its diffs."""
    report = deploy(session, options)
    changed = sum(1 for result in report.objects if result.action in _CHANGED)
    if options.diff:
        result = f"{len(report.diffs)} would change"
    else:
        result = ("deployed" if changed else "unchanged") + (" (dry run)" if options.dry_run else "")
    return Outcome(result, changed=changed, lines=tuple(report.diffs.values()))


COMMAND: Final = Command(DeployOptions, run, reads("deployable"))
