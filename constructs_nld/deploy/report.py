"""Where a run's lines go: one reporter for one cluster, another for a fleet; the commands write to either alike.

With one cluster the lines go out as they are, and the one line that ends a failed run
(``error: …``) goes to standard error, so that a script reads the result on stdout and
the reason on stderr. In a fleet every line carries its cluster's name (``[ci-east] …``),
whole even when clusters run at once, errors among them, and a summary table follows.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from constructs_nld.deploy.fleet import Row, format_summary
from constructs_nld.deploy.targets import Target

__all__ = ["ClusterReporter", "FleetReporter", "stderr"]


def stderr(line: str) -> None:
    """Write one line to standard error."""
    print(line, file=sys.stderr, flush=True)


@dataclass
class ClusterReporter:
    """One cluster: its lines as they are; the error that ends it on standard error."""

    write: Callable[[str], None] = print
    write_error: Callable[[str], None] = stderr

    def lines_of(self, target: Target) -> Callable[[str], None]:
        """The cluster's lines, unprefixed."""
        return self.write

    def error(self, target: Target, message: str) -> None:
        """The error on its own line, on standard error."""
        self.write_error(message)

    def start(self, command: str, targets: Sequence[Target], how: str) -> None:
        """Nothing to announce for one cluster."""

    def finish(self, rows: Sequence[Row]) -> None:
        """No summary for one cluster: its lines said it all."""


@dataclass
class FleetReporter:
    """Several clusters: each line whole and prefixed with its cluster's name, then the summary."""

    write: Callable[[str], None] = print
    lock: threading.Lock = field(default_factory=threading.Lock)

    def lines_of(self, target: Target) -> Callable[[str], None]:
        """The cluster's lines, each prefixed ``[name] ``; a text of several lines is split."""

        def out(text: str) -> None:
            with self.lock:
                for line in str(text).splitlines() or [""]:
                    self.write(f"[{target.name}] {line}")

        return out

    def error(self, target: Target, message: str) -> None:
        """The error among the cluster's lines."""
        self.lines_of(target)(message)

    def start(self, command: str, targets: Sequence[Target], how: str) -> None:
        """Which clusters, and how many at once."""
        names = ", ".join(target.name for target in targets)
        self.write(f"[fleet] {command} on {len(targets)} clusters ({names}), {how}")

    def finish(self, rows: Sequence[Row]) -> None:
        """The summary table."""
        self.write(format_summary(rows))
