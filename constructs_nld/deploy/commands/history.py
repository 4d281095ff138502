"""``history``: the revisions the cluster keeps, oldest first (:mod:`constructs_nld.deploy.history`).

One line per revision: its number, when it ended, the command, its outcome, the user the
API server saw, the app (its digest and git commit) and the tool's version. A failure's error
and a rollback's restored revision follow on the line. It reads the history's ConfigMap
alone: the app is not run.
"""

from __future__ import annotations

from typing import Final

from constructs_nld import defaults
from constructs_nld.deploy.command import Command, Outcome, reads
from constructs_nld.deploy.history import History, Revision, read_history
from constructs_nld.deploy.options import HistoryOptions
from constructs_nld.deploy.program import hint
from constructs_nld.deploy.session import Session
from constructs_nld.deploy.tables import format_table

__all__ = ["COMMAND", "history", "run", "table"]

_HEADER: Final = ("REVISION", "TIME", "COMMAND", "OUTCOME", "USER", "APP", "COMMIT", "TOOL")
_DIGEST_SHOWN: Final = len("sha256:") + 12


def _outcome(revision: Revision) -> str:
    if revision.outcome == "failed":
        return f"failed: {revision.error}"
    if revision.restored is not None:
        return f"succeeded, restored {revision.restored}"
    return "succeeded"


def table(found: History) -> list[str]:
    """The revisions as a table, oldest first (the newest last, nearest the prompt)."""
    rows = [
        (
            str(r.number),
            r.time,
            r.command,
            _outcome(r),
            r.user,
            r.app.digest[:_DIGEST_SHOWN],
            (r.app.commit or "-")[:12] + ("-dirty" if (r.app.commit or "").endswith("-dirty") else ""),
            r.tool,
        )
        for r in found.revisions
    ]
    return format_table(_HEADER, rows)


def history(session: Session) -> tuple[History, list[str]]:
    """The history of the session's cluster and its lines."""
    found = read_history(session.kube, defaults.NAMESPACE)
    if not found.revisions:
        return found, [f"no revision recorded in {found.ref}: {hint()} records one at its next deploy"]
    return found, table(found)


def run(session: Session, options: HistoryOptions) -> Outcome:
    """``history`` on one cluster: how many revisions, the latest, and the table."""
    found, lines = history(session)
    latest = found.latest
    result = f"{len(found.revisions)} revision(s)" + (f", latest {latest.number}" if latest else "")
    return Outcome(result, lines=tuple(lines))


COMMAND: Final = Command(HistoryOptions, run, reads("recorded"))
