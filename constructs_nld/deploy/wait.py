"""Every wait of a command, written once: poll, back off while nothing changes, end on success, a stall or a deadline.

A command waits for a Service's ClusterIP (``deploy``), a rollout (``deploy --wait``,
``cutover promote`` and ``rollback``), pods going away (``uninstall``), canary pods
becoming ready (``cutover start``), and a restart it may decide again (``deploy``). Each
is a *poll*: a function that reads the cluster once and says whether the wait is over,
whether what it read changed, and whether that change is progress. :func:`wait_for`
calls it until it is over and decides everything else the same way for all of them:

- **Back-off.** While reads show no change, the interval grows from ``interval`` by
  :data:`~constructs_nld.defaults.POLL_BACKOFF_FACTOR` up to
  :data:`~constructs_nld.defaults.POLL_BACKOFF_CAP`, and drops back on the first change
  (:class:`PollBackoff`): a still rollout of hundreds of nodes costs a small request
  every few seconds.
- **Stall.** With ``stall_after``, the wait ends in the poll's ``stalled`` error once no
  read has shown progress for that long. A slow wait that keeps progressing never ends
  so, whatever its length: a 700-node rollout is about a hundred batches.
- **Deadline.** With ``timeout``, the wait ends in its ``timed_out`` error once that long
  has passed since it began. No sleep ends past the stall or the deadline, so the verdict
  comes when it is due, not an interval later: a deadline is a promise.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from constructs_nld import defaults
from constructs_nld.deploy import stop

__all__ = ["Poll", "PollBackoff", "wait_for"]

_PAST_THE_END: Final = 0.01
"""How far past a stall or deadline a capped sleep ends, so that the read after it decides."""


@dataclass
class PollBackoff:
    """The interval of a wait that polls: ``base`` while what it reads changes, growing to ``cap`` while it does not.

    A wait for a rollout or a removal reads the same object again and again; while nothing
    changes, each read is worth less than the last, so the interval grows by ``factor`` up
    to ``cap``, and drops back to ``base`` on the first change.
    """

    base: float
    cap: float = defaults.POLL_BACKOFF_CAP
    factor: float = defaults.POLL_BACKOFF_FACTOR
    current: float = field(init=False)

    def __post_init__(self) -> None:
        """Start at ``base``; a cap below it is ``base``."""
        self.cap = max(self.cap, self.base)
        self.current = self.base

    def next(self, *, changed: bool, stalls_in: float) -> float:
        """The seconds to wait before the next read, given whether the last read showed a change.

        ``stalls_in`` is how long until the wait would end undone (a stall, a deadline): the
        sleep ends just after that moment, never later, so a grown interval does not delay the
        verdict.
        """
        self.current = self.base if changed else min(self.current * self.factor, self.cap)
        return min(self.current, max(stalls_in, 0.0) + _PAST_THE_END)


@dataclass(frozen=True)
class Poll:
    """What one read of a wait found."""

    done: bool = False
    """The wait is over: what it waited for happened."""

    changed: bool = False
    """What was read differs from the read before: read again soon."""

    progressed: bool = False
    """The read shows progress: the stall window starts again (progress is a change too)."""


def wait_for(
    poll: Callable[[float], Poll],
    *,
    interval: float,
    stall_after: float | None = None,
    timeout: float | None = None,
    stalled: Callable[[float], Exception] | None = None,
    timed_out: Callable[[float], Exception] | None = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = stop.sleep,
) -> float:
    """Call ``poll`` with the time of each read until it says done; the seconds the wait took.

    ``poll`` gets the monotonic time its read starts at (what it reports, such as a
    rollout's stall window, is measured on the same clock). With ``stall_after``, raises
    ``stalled(idle seconds)`` once no read has progressed for that long; with ``timeout``,
    raises ``timed_out(elapsed seconds)`` once that long has passed. The first read is at
    once.
    """
    if stall_after is not None and stalled is None:
        raise ValueError("stalled: a wait with stall_after needs the error it ends in")
    if timeout is not None and timed_out is None:
        raise ValueError("timed_out: a wait with a timeout needs the error it ends in")
    started = last_progress = clock()
    backoff = PollBackoff(interval)
    while True:
        now = clock()
        reading = poll(now)
        if reading.done:
            return clock() - started
        if reading.progressed:
            last_progress = now
        ends_in = float("inf")
        if stall_after is not None:
            idle = now - last_progress
            if idle >= stall_after:
                assert stalled is not None
                raise stalled(idle)
            ends_in = stall_after - idle
        if timeout is not None:
            elapsed = clock() - started
            if elapsed >= timeout:
                assert timed_out is not None
                raise timed_out(elapsed)
            ends_in = min(ends_in, timeout - elapsed)
        sleep(backoff.next(changed=reading.changed or reading.progressed, stalls_in=ends_in))
