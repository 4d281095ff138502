"""What a fleet run shows while it runs: one refreshing line per cluster on a terminal, a summary a minute in CI.

The :class:`FleetBoard` keeps each cluster's phase (waiting, running, rolling, done, failed)
and its current step, the last line it wrote, with the counts and time left of a rollout it
follows. Two displays read it:

- on a terminal (``--progress tty``, or ``auto`` on one), :class:`TtyFleetDisplay` redraws a
  block of one line per cluster below what the run prints for good (check results, errors,
  the summary table): the clusters' step lines do not scroll past, only their latest shows;
- in a CI log (``plain``, or ``auto`` off a terminal), every line is printed, prefixed with
  its cluster, and :class:`PlainFleetDisplay` adds a summary line once a minute
  (``[fleet] 3 deployed, 1 rolling (north 40/700, about 12m left), 2 waiting``), so a long
  run says where it stands without scrolling back. Its clock is given, so a test moves it.

The rendering (:func:`summary_line`, :func:`board_lines`) is pure; the displays only write.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Final, Literal, TextIO

from constructs_nld.deploy.eta import format_left
from constructs_nld.deploy.kube import ObjectRef
from constructs_nld.deploy.redact import redact
from constructs_nld.deploy.rollout import Progress, RolloutStatus, RolloutTracker

__all__ = [
    "SUMMARY_EVERY",
    "ClusterView",
    "FleetBoard",
    "FleetRollout",
    "PlainFleetDisplay",
    "TtyFleetDisplay",
    "board_lines",
    "summary_line",
]

SUMMARY_EVERY: Final = 60.0
"""Seconds between two summary lines of a fleet run in a CI log."""

Phase = Literal["waiting", "running", "rolling", "done", "failed", "skipped"]

_DONE: Final = {"deploy": "deployed", "uninstall": "uninstalled", "verify": "verified", "soak": "judged"}
"""How the summary says a cluster whose command exited 0 (else ``done``)."""

_ORDER: Final[tuple[Phase, ...]] = ("done", "failed", "rolling", "running", "waiting", "skipped")


@dataclass(frozen=True)
class ClusterView:
    """One cluster as the display shows it."""

    name: str
    phase: Phase = "waiting"
    step: str = ""
    """Its latest line (its result once done)."""
    updated: int = 0
    desired: int = 0
    left: float | None = None
    """Seconds its rollout has left, once a wave has completed."""


class FleetBoard:
    """Every cluster's phase and current step, updated from the clusters' threads."""

    def __init__(self, names: Sequence[str], command: str) -> None:
        """The clusters of the run, all waiting, for ``command`` (which names the done ones: ``3 deployed``)."""
        self.done_word = _DONE.get(command, "done")
        self._views = {name: ClusterView(name) for name in names}
        self._lock = threading.Lock()

    def line(self, name: str, text: str) -> None:
        """The cluster wrote ``text``: it runs, and that is its current step (a rollout keeps its counts)."""
        with self._lock:
            view = self._views[name]
            phase: Phase = "running" if view.phase == "waiting" else view.phase
            self._views[name] = replace(view, phase=phase, step=text)

    def rollout(self, name: str, status: RolloutStatus, left: float | None) -> None:
        """The cluster's rollout read ``status``."""
        with self._lock:
            view = self._views[name]
            self._views[name] = replace(
                view, phase="rolling", updated=status.updated, desired=status.desired, left=left
            )

    def rolled(self, name: str, line: str) -> None:
        """The cluster's rollout ended with ``line``."""
        with self._lock:
            self._views[name] = replace(self._views[name], phase="running", step=line, left=None)

    def finished(self, name: str, *, ok: bool, result: str) -> None:
        """The cluster's command ended: ``result`` in a few words."""
        with self._lock:
            self._views[name] = replace(self._views[name], phase="done" if ok else "failed", step=result, left=None)

    def skipped(self, name: str, why: str) -> None:
        """The cluster never started."""
        with self._lock:
            self._views[name] = replace(self._views[name], phase="skipped", step=f"skipped ({why})")

    def views(self) -> tuple[ClusterView, ...]:
        """Every cluster, in the run's order."""
        with self._lock:
            return tuple(self._views.values())


def _rolling(view: ClusterView) -> str:
    left = "" if view.left is None else f", {format_left(view.left)}"
    return f"{view.name} {view.updated}/{view.desired}{left}"


def summary_line(views: Sequence[ClusterView], done_word: str = "done") -> str:
    """``[fleet] 3 deployed, 1 failed, 1 rolling (north 40/700, about 12m left), 2 waiting``."""
    parts = []
    for phase in _ORDER:
        those = [view for view in views if view.phase == phase]
        if not those:
            continue
        word = done_word if phase == "done" else phase
        detail = f" ({', '.join(_rolling(view) for view in those)})" if phase == "rolling" else ""
        parts.append(f"{len(those)} {word}{detail}")
    return "[fleet] " + ", ".join(parts)


def board_lines(views: Sequence[ClusterView], width: int) -> list[str]:
    """One line per cluster, ``name  phase  step``, each cut to ``width`` columns."""
    names = max((len(view.name) for view in views), default=0)
    lines = []
    for view in views:
        if view.phase == "rolling":
            left = "" if view.left is None else f", {format_left(view.left)}"
            step = f"{view.updated}/{view.desired} updated{left}"
        else:
            step = view.step
        lines.append(f"{view.name:<{names}}  {view.phase:<7}  {step}".rstrip()[: max(width - 1, 20)])
    return lines


class PlainFleetDisplay:
    """In a CI log: the summary line every :data:`SUMMARY_EVERY` seconds, by the clock it is given."""

    def __init__(
        self,
        board: FleetBoard,
        write: Callable[[str], None],
        *,
        clock: Callable[[], float] = time.monotonic,
        every: float = SUMMARY_EVERY,
    ) -> None:
        """Write the summary through ``write``: the first ``every`` seconds after now, each next as long after it."""
        self.board, self.write, self.clock, self.every = board, write, clock, every
        self._due = clock() + every
        self._lock = threading.Lock()

    def tick(self) -> None:
        """Write the summary if it is due (the runner calls this every second, and on every line)."""
        with self._lock:
            now = self.clock()
            if now < self._due:
                return
            self._due = now + self.every
        self.write(summary_line(self.board.views(), self.board.done_word))

    @contextmanager
    def running(self, interval: float = 1.0) -> Iterator[None]:
        """While the run goes on, a thread calls :meth:`tick` every ``interval`` seconds (a quiet minute too)."""
        done = threading.Event()

        def ticking() -> None:
            while not done.wait(interval):
                self.tick()

        thread = threading.Thread(target=ticking, name="fleet-summary", daemon=True)
        thread.start()
        try:
            yield
        finally:
            done.set()
            thread.join()


class TtyFleetDisplay:
    """On a terminal: a block of one line per cluster, redrawn in place below the lines printed for good."""

    def __init__(self, board: FleetBoard, stream: TextIO, width: Callable[[], int]) -> None:
        """Draw on ``stream``; ``width`` gives the terminal's columns."""
        self.board, self.stream, self.width = board, stream, width
        self._drawn = 0
        self._lock = threading.Lock()

    def _clear(self) -> str:
        return f"\x1b[{self._drawn}F\x1b[J" if self._drawn else ""

    def redraw(self, above: Sequence[str] = ()) -> None:
        """Print ``above`` for good, then the block again, one line per cluster."""
        with self._lock:
            lines = board_lines(self.board.views(), self.width())
            text = self._clear() + "".join(f"{redact(line)}\n" for line in (*above, *lines))
            self._drawn = len(lines)
            self.stream.write(text)
            self.stream.flush()

    def close(self) -> None:
        """Leave the block as it was last drawn, for good."""
        with self._lock:
            self._drawn = 0


class FleetRollout:
    """A cluster's ``--wait`` in a fleet: its counts and time left on the board, its lines as the mode says."""

    def __init__(self, board: FleetBoard, name: str, shown: Progress | None, redraw: Callable[[], None]) -> None:
        """``shown`` also prints the rollout (plain mode), or None (the terminal's block shows it)."""
        self.board, self.name, self.shown, self.redraw = board, name, shown, redraw

    def update(
        self, ref: ObjectRef, status: RolloutStatus, tracker: RolloutTracker, *, elapsed: float, idle: float
    ) -> None:
        """Put the counts and the time left on the board."""
        self.board.rollout(self.name, status, tracker.left(tracker.started + elapsed))
        if self.shown is not None:
            self.shown.update(ref, status, tracker, elapsed=elapsed, idle=idle)
        self.redraw()

    def finish(self, line: str) -> None:
        """The rollout's closing line."""
        self.board.rolled(self.name, f"[wait] {line}")
        if self.shown is not None:
            self.shown.finish(line)
        self.redraw()
