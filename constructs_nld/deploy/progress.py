"""How ``deploy --wait`` shows a rollout: one rewritten line on a terminal, one line per change in a CI log.

``--progress tty`` keeps a single status line, redrawn in place and cut to the
terminal's width; ``--progress plain`` prints a timestamped line whenever the counts
change, and never a control character, for logs; ``auto`` (the default) picks ``tty``
when standard output is a terminal (and ``TERM`` is not ``dumb``), else ``plain``.
Both end with the same closing line. Once a wave of the rollout has completed, both say the
time left (``about 4m left``, :mod:`constructs_nld.deploy.eta`).
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from typing import Final, TextIO

from constructs_nld.deploy.eta import format_left
from constructs_nld.deploy.kube import ObjectRef
from constructs_nld.deploy.options import ProgressMode
from constructs_nld.deploy.rollout import Progress, RolloutStatus, RolloutTracker

__all__ = ["PlainProgress", "TtyProgress", "make_progress"]

_IDLE_SHOWN_AFTER: Final = 10.0
"""Seconds without progress after which the display says so."""

_PREFIX: Final = "[wait]"
_BAR: Final = 20
"""Width of the progress bar, in characters."""


def _left(tracker: RolloutTracker, elapsed: float) -> str:
    """``, about 4m left`` once a wave has completed; else nothing."""
    left = tracker.left(tracker.started + elapsed)
    return "" if left is None else f", {format_left(left)}"


class PlainProgress:
    """A line per change of the counts: ``[wait] 12.0s wave 3: updated 3/20, ready 19/20, unavailable 1``."""

    def __init__(self, out: Callable[[str], None]) -> None:
        """Write lines through ``out`` (``print`` by default in the CLI)."""
        self.out = out
        self._last: RolloutStatus | None = None
        self._idle_reported = 0.0

    def update(
        self, ref: ObjectRef, status: RolloutStatus, tracker: RolloutTracker, *, elapsed: float, idle: float
    ) -> None:
        """Print the status when it changed, and every further 10 s without progress."""
        if self._last is None:
            self.out(
                f"{_PREFIX} following the rollout of {ref}; stalled after {tracker.stall_after:g}s without progress"
            )
        if status != self._last:
            self.out(f"{_PREFIX} {elapsed:.1f}s wave {tracker.waves}: {status}{_left(tracker, elapsed)}")
            self._last, self._idle_reported = status, 0.0
        elif idle - self._idle_reported >= _IDLE_SHOWN_AFTER:
            self._idle_reported = idle
            self.out(f"{_PREFIX} {elapsed:.1f}s no progress for {idle:.0f}s: {status}")

    def finish(self, line: str) -> None:
        """Print the closing line."""
        self.out(f"{_PREFIX} {line}")


class TtyProgress:
    """One status line redrawn in place (a carriage return), with a bar, never wider than the terminal."""

    def __init__(self, stream: TextIO, width: Callable[[], int] | None = None) -> None:
        """Draw on ``stream``; ``width`` gives the terminal's columns (default: as the terminal says)."""
        self.stream = stream
        self.width = width or (lambda: shutil.get_terminal_size((80, 24)).columns)

    def update(
        self, ref: ObjectRef, status: RolloutStatus, tracker: RolloutTracker, *, elapsed: float, idle: float
    ) -> None:
        """Redraw the line: the counts and the time left always; then, as the width allows, the bar, wave and time."""
        counts = f"{status.updated}/{status.desired} updated, {status.ready} ready, {status.unavailable} unavailable"
        stalling = f", no progress for {idle:.0f}s" if idle >= _IDLE_SHOWN_AFTER else ""
        timing = f", wave {tracker.waves}, {elapsed:.0f}s"
        left = _left(tracker, elapsed)
        columns = max(self.width() - 1, 20)  # writing the last column wraps on some terminals
        done = round(_BAR * status.updated / status.desired) if status.desired else _BAR
        bar = "[" + "#" * done + "-" * (_BAR - done) + "] "
        candidates = (
            f"{ref.name} {bar}{counts}{timing}{left}{stalling}",
            f"{ref.name} {counts}{timing}{left}{stalling}",
            f"{ref.name} {counts}{left}{stalling}",
            f"{counts}{left}{stalling}",
        )
        line = next((text for text in candidates if len(text) <= columns), candidates[-1][:columns])
        self.stream.write("\r\x1b[K" + line)
        self.stream.flush()

    def finish(self, line: str) -> None:
        """Replace the status line with the closing line and end it."""
        self.stream.write(f"\r\x1b[K{_PREFIX} {line}\n")
        self.stream.flush()


def make_progress(mode: ProgressMode, out: Callable[[str], None], stream: TextIO | None = None) -> Progress:
    """The display for ``mode``; ``auto`` is ``tty`` on a terminal whose ``TERM`` is not ``dumb``, else ``plain``."""
    stream = stream or sys.stdout
    if mode == "auto":
        on_terminal = stream.isatty() and os.environ.get("TERM", "") != "dumb"
        mode = "tty" if on_terminal else "plain"
    return TtyProgress(stream) if mode == "tty" else PlainProgress(out)
