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
from constructs_nld.deploy.documents import DocumentSchema, array, enum, integer, nullable, record, string
from constructs_nld.deploy.history import History, Revision, read_history
from constructs_nld.deploy.options import HistoryOptions
from constructs_nld.deploy.program import hint
from constructs_nld.deploy.session import Session
from constructs_nld.deploy.tables import format_table

__all__ = ["COMMAND", "DOCUMENT", "document", "history", "run", "table"]

_HEADER: Final = ("REVISION", "TIME", "COMMAND", "OUTCOME", "USER", "APP", "COMMIT", "TOOL")
_DIGEST_SHOWN: Final = len("sha256:") + 12


DOCUMENT: Final = DocumentSchema(
    "history",
    "history -o json",
    "The revisions one cluster's release history keeps, oldest first.",
    {
        "cluster": string("The cluster's name: its clusters-file name, else its context; empty for the current one."),
        "revisions": array(
            "One entry per revision kept, oldest first.",
            record(
                "One revision.",
                {
                    "number": integer("The revision's number, as rollback takes it."),
                    "time": string("When it ended, by the API server's clock (RFC 3339)."),
                    "command": string("What recorded it: deploy, cutover promote, uninstall or rollback."),
                    "outcome": enum("How it ended.", "succeeded", "failed"),
                    "error": string("A failure's one-line error; else empty."),
                    "restored": nullable(integer("For a rollback, the revision it applied again; else null.")),
                    "user": string("The user as the API server authenticated it (a SelfSubjectReview)."),
                    "app_digest": string("The digest of the charts the app synthesized (sha256:…)."),
                    "app_commit": nullable(string("The git commit of the app's project directory, -dirty if changed.")),
                    "tool": string("The version of the tool that recorded it."),
                    "rollback_possible": {
                        "type": "boolean",
                        "description": "Whether rollback can apply it: it succeeded and kept its objects.",
                    },
                },
            ),
        ),
    },
)
"""``history -o json``: the document's schema (``docs/schemas/history.schema.json``)."""


def document(cluster: str, found: History) -> dict[str, object]:
    """The history of one cluster as its ``-o json`` document."""
    return DOCUMENT.document(
        cluster=cluster,
        revisions=[
            {
                "number": r.number,
                "time": r.time,
                "command": r.command,
                "outcome": r.outcome,
                "error": r.error,
                "restored": r.restored,
                "user": r.user,
                "app_digest": r.app.digest,
                "app_commit": r.app.commit,
                "tool": r.tool,
                "rollback_possible": r.outcome == "succeeded" and r.command != "uninstall" and r.charts is not None,
            }
            for r in found.revisions
        ],
    )


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
    return Outcome(result, lines=tuple(lines), document=document(session.target.name, found))


COMMAND: Final = Command(HistoryOptions, run, reads("recorded"))
