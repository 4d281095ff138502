"""How long a rolling update has left, from the batches it has been seen to take (pure: the caller gives the time).

A DaemonSet rolls ``maxUnavailable`` pods at a time and starts a batch only once the one
before is available. So once a second batch has started, one batch has completed, and the
rollout's pace is known: the pods started per second between the first batch seen and the
latest one. The time left is the pods not yet started at that pace, plus what the latest
batch still needs to become available (one batch's time, less what it has had). Before a
batch has completed there is no estimate: a guess from the first batch alone would be
the pull of one cold node. A rollout whose updated count falls (the template changed
again) starts over.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["RolloutEstimate", "format_left"]


@dataclass
class RolloutEstimate:
    """The seconds a rollout has left, from the times its updated count rose."""

    desired: int = 0
    """Pods the rollout ends with (the latest status's)."""
    _updated: int | None = field(default=None, init=False)
    _starts: list[tuple[float, int]] = field(default_factory=list, init=False)
    """``(time, updated)`` at each rise of the updated count: a batch started."""

    def observe(self, now: float, updated: int, desired: int) -> None:
        """Take one status read at ``now``: ``updated`` of ``desired`` pods run the new template."""
        self.desired = desired
        if self._updated is not None and updated < self._updated:
            self._starts.clear()
        elif self._updated is not None and updated > self._updated:
            self._starts.append((now, updated))
        self._updated = updated

    @property
    def batches_completed(self) -> int:
        """Batches seen to complete: every one seen to start but the latest."""
        return max(len(self._starts) - 1, 0)

    def left(self, now: float) -> float | None:
        """Seconds left at ``now``; None before a batch has been seen to complete."""
        if self.batches_completed < 1:
            return None
        (first, first_updated), (latest, latest_updated) = self._starts[0], self._starts[-1]
        per_pod = (latest - first) / (latest_updated - first_updated)
        per_batch = (latest - first) / self.batches_completed
        to_start = max(self.desired - latest_updated, 0)
        return to_start * per_pod + max(per_batch - (now - latest), 0.0)


def format_left(seconds: float) -> str:
    """``about 4m left``, ``about 1h20m left``, ``less than a minute left``: the estimate as a person plans by it."""
    minutes = round(seconds / 60)
    if minutes < 1:
        return "less than a minute left"
    hours, minutes = divmod(minutes, 60)
    if not hours:
        return f"about {minutes}m left"
    return f"about {hours}h{minutes:02d}m left" if minutes else f"about {hours}h left"
