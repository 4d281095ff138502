"""Where a run's lines go: one reporter for one cluster, another for a fleet; the commands write to either alike.

With one cluster the lines go out as they are, and the one line that ends a failed run
(``error: …``) goes to standard error, so that a script reads the result on stdout and
the reason on stderr. In a fleet every line carries its cluster's name (``[ci-east] …``),
whole even when clusters run at once, errors among them, and a summary table follows. While
a fleet runs, its display (:mod:`constructs_nld.deploy.fleetview`) shows where each cluster
stands: on a terminal a block of one line per cluster replaces the step lines, which scroll
by otherwise; in a CI log a summary line comes every minute.

With ``-o json`` standard output carries one JSON document and nothing else, printed once
the run is done: the command's own (:attr:`~constructs_nld.deploy.command.Outcome.document`)
for one cluster, else the run's summary (:data:`FLEET_DOCUMENT`), whose every cluster carries
its command's document. The lines a person reads go to standard error then.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any, Final

from constructs_nld.deploy.command import Outcome
from constructs_nld.deploy.documents import DocumentSchema, array, integer, nullable, number, record, string
from constructs_nld.deploy.fleet import Row, format_summary, summary_code
from constructs_nld.deploy.fleetview import FleetBoard, PlainFleetDisplay, TtyFleetDisplay
from constructs_nld.deploy.targets import Target

__all__ = ["FLEET_DOCUMENT", "ClusterReporter", "FleetReporter", "fleet_document", "render", "stderr"]

FLEET_DOCUMENT: Final = DocumentSchema(
    "fleet",
    "-o json: the run's summary",
    "One run of a command on its clusters, as the summary table shows it: a fleet's, or one cluster's when the "
    "command has no document of its own.",
    {
        "command": string("The command: deploy, verify, uninstall, soak, or cutover and its step."),
        "exit_code": integer("The run's exit code: the worst cluster's, 0 when none failed."),
        "clusters": array(
            "One entry per cluster, in the order they were given.",
            record(
                "One cluster's row.",
                {
                    "name": string("The cluster's name: its clusters-file name, else its context."),
                    "context": nullable(string("Its kubeconfig context; null for the current one.")),
                    "result": string("In a few words, as the table says it: deployed, 12 passed, PASS, skipped."),
                    "exit_code": nullable(integer("Its exit code; null when it did not run.")),
                    "changed": nullable(integer("Objects created, configured or pruned; null when none can be.")),
                    "pods": string("ready/desired node-cache pods after the command; - when unknown."),
                    "seconds": number("How long it ran."),
                    "skipped": string("Why it did not run (--fail-fast, a failed wave); empty when it ran."),
                    "document": {
                        "type": ["object", "null"],
                        "description": "The command's own document (verify, soak, cutover status; with deploy "
                        "--waves, the verify after the deploy; its schema field names which), else null.",
                    },
                },
            ),
        ),
    },
)
"""The run's summary in ``-o json`` (``docs/schemas/fleet.schema.json``)."""


def fleet_document(command: str, rows: Sequence[Row]) -> dict[str, Any]:
    """The summary of a run as :data:`FLEET_DOCUMENT` says it."""
    clusters = []
    for row in rows:
        outcome = row.outcome
        clusters.append(
            {
                "name": row.target.name,
                "context": row.target.context,
                "result": "skipped" if outcome is None else outcome.result,
                "exit_code": row.exit_code,
                "changed": None if outcome is None else outcome.changed,
                "pods": "-" if outcome is None else outcome.pods,
                "seconds": round(row.seconds, 3),
                "skipped": row.skipped,
                "document": None if outcome is None or outcome.document is None else dict(outcome.document),
            }
        )
    return FLEET_DOCUMENT.document(command=command, exit_code=summary_code(rows), clusters=clusters)


def render(document: Mapping[str, Any]) -> str:
    """A document as ``-o json`` prints it: indented, keys in their declared order."""
    return json.dumps(document, indent=2, ensure_ascii=False)


def stderr(line: str) -> None:
    """Write one line to standard error."""
    print(line, file=sys.stderr, flush=True)


@dataclass
class ClusterReporter:
    """One cluster: its lines as they are; the error that ends it on standard error."""

    write: Callable[[str], None] = print
    write_error: Callable[[str], None] = stderr
    document: Callable[[str], None] | None = None
    """Where ``-o json`` prints its document (standard output); None: text output."""
    command: str = ""
    """The command, as the run's summary names it."""

    def lines_of(self, target: Target) -> Callable[[str], None]:
        """The cluster's lines, unprefixed."""
        return self.write

    def results_of(self, target: Target) -> Callable[[str], None]:
        """What the command prints once done (check results, diffs): as its other lines."""
        return self.write

    def error(self, target: Target, message: str) -> None:
        """The error on its own line, on standard error."""
        self.write_error(message)

    def finished(self, target: Target, outcome: Outcome) -> None:
        """Nothing to show: its lines said it."""

    def running(self) -> AbstractContextManager[None]:
        """Nothing runs beside one cluster."""
        return nullcontext()

    def start(self, command: str, targets: Sequence[Target], how: str) -> None:
        """Nothing to announce for one cluster."""

    def finish(self, rows: Sequence[Row]) -> None:
        """No summary for one cluster, its lines said it all; with ``-o json``, the command's document."""
        if self.document is None:
            return
        outcome = rows[0].outcome if rows else None
        shown = outcome.document if outcome is not None and outcome.document is not None else None
        self.document(render(shown if shown is not None else fleet_document(self.command, rows)))


@dataclass
class FleetReporter:
    """Several clusters: each line whole and prefixed with its cluster's name, then the summary."""

    write: Callable[[str], None] = print
    document: Callable[[str], None] | None = None
    """Where ``-o json`` prints the run's summary (standard output); None: text output."""
    command: str = ""
    """The command, as the run's summary names it."""
    board: FleetBoard | None = None
    """Where each cluster stands, for the display; None: no display (lines only)."""
    tty: TtyFleetDisplay | None = None
    """On a terminal: the block of one line per cluster, in place of the step lines."""
    plain: PlainFleetDisplay | None = None
    """In a CI log: the summary line every minute."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def say(self, line: str) -> None:
        """Write one line of the fleet's own, whole among the clusters' lines."""
        with self.lock:
            self.write(line)

    def _print(self, target: Target, text: str) -> None:
        prefixed = [f"[{target.name}] {line}" for line in str(text).splitlines() or [""]]
        if self.tty is not None:
            self.tty.redraw(above=prefixed)
            return
        with self.lock:
            for line in prefixed:
                self.write(line)

    def lines_of(self, target: Target) -> Callable[[str], None]:
        """The cluster's step lines, each prefixed ``[name] ``; on a terminal, its line of the block instead."""

        def out(text: str) -> None:
            if self.board is not None:
                self.board.line(target.name, (str(text).splitlines() or [""])[-1])
            if self.tty is not None:
                self.tty.redraw()
                return
            self._print(target, text)
            if self.plain is not None:
                self.plain.tick()

        return out

    def results_of(self, target: Target) -> Callable[[str], None]:
        """What the cluster's command prints once done (check results, diffs): prefixed, and kept on a terminal."""
        return lambda text: self._print(target, text)

    def error(self, target: Target, message: str) -> None:
        """The error among the cluster's lines, kept on a terminal; the cluster failed."""
        if self.board is not None:
            self.board.finished(target.name, ok=False, result=message.splitlines()[0] if message else "failed")
        self._print(target, message)

    def finished(self, target: Target, outcome: Outcome) -> None:
        """The cluster's command returned ``outcome``: its line of the display says so."""
        if self.board is None:
            return
        self.board.finished(target.name, ok=outcome.exit_code == 0, result=outcome.result)
        self.refresh()

    def running(self) -> AbstractContextManager[None]:
        """While the clusters run: in a CI log, the summary line every minute."""
        return self.plain.running() if self.plain is not None else nullcontext()

    def refresh(self) -> None:
        """Show the board's change: redraw the block on a terminal; in a CI log, the summary if it is due."""
        if self.tty is not None:
            self.tty.redraw()
        elif self.plain is not None:
            self.plain.tick()

    def start(self, command: str, targets: Sequence[Target], how: str) -> None:
        """Which clusters, and how many at once."""
        names = ", ".join(target.name for target in targets)
        line = f"[fleet] {command} on {len(targets)} clusters ({names}), {how}"
        if self.tty is not None:
            self.tty.redraw(above=[line])
        else:
            self.write(line)

    def finish(self, rows: Sequence[Row]) -> None:
        """The block's last state, then the summary table; with ``-o json``, then the summary's document."""
        if self.board is not None:
            for row in rows:
                if row.outcome is None:
                    self.board.skipped(row.target.name, row.skipped)
        if self.tty is not None:
            self.tty.redraw()
            self.tty.close()
        self.write(format_summary(rows))
        if self.document is not None:
            self.document(render(fleet_document(self.command, rows)))
