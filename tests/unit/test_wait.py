"""The one wait helper: done, stalled, timed out, and the back-off between reads, on a clock the test drives."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from constructs_nld.defaults import POLL_BACKOFF_CAP
from constructs_nld.deploy.wait import Poll, wait_for


class Clock:
    """Monotonic time that moves only when the wait sleeps (and by what a read costs)."""

    def __init__(self, read_cost: float = 0.0) -> None:
        self.now = 100.0
        self.read_cost = read_cost
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        assert seconds >= 0
        self.sleeps.append(seconds)
        self.now += seconds


class StopError(Exception):
    """What the test's wait ends in."""


def reads(clock: Clock, polls: Iterator[Poll]) -> Callable[[float], Poll]:
    def poll(now: float) -> Poll:
        assert now == clock.now
        clock.now += clock.read_cost
        return next(polls)

    return poll


def test_a_wait_ends_at_the_read_that_says_done_and_reports_its_length() -> None:
    clock = Clock()
    polls = iter([Poll(), Poll(changed=True), Poll(done=True)])

    took = wait_for(reads(clock, polls), interval=1.0, clock=clock, sleep=clock.sleep)

    assert clock.sleeps == [1.5, 1.0]  # nothing changed: the interval grew; a change: back to its base
    assert took == 2.5


def test_the_interval_grows_while_nothing_changes_and_drops_back_on_progress() -> None:
    clock = Clock()
    polls = iter([Poll(), Poll(), Poll(), Poll(progressed=True), Poll(), Poll(done=True)])

    wait_for(reads(clock, polls), interval=1.0, stall_after=600, stalled=StopError, clock=clock, sleep=clock.sleep)

    assert clock.sleeps == [1.5, 2.25, 3.375, 1.0, 1.5]


def test_a_wait_without_progress_for_the_window_stalls_when_due() -> None:
    clock = Clock()
    polls = iter([Poll(progressed=True)] + [Poll()] * 100)
    idle: list[float] = []

    def stalled(seconds: float) -> StopError:
        idle.append(seconds)
        return StopError("stalled")

    with pytest.raises(StopError):
        wait_for(reads(clock, polls), interval=1.0, stall_after=10.0, stalled=stalled, clock=clock, sleep=clock.sleep)

    assert 10.0 <= idle[0] <= 10.02  # the read just past the window decides, not one a grown interval later
    assert clock.now - 100.0 <= 10.02


def test_a_slow_wait_that_keeps_progressing_never_stalls() -> None:
    clock = Clock()
    polls = iter([Poll(progressed=True)] * 50 + [Poll(done=True)])

    took = wait_for(
        reads(clock, polls), interval=5.0, stall_after=6.0, stalled=StopError, clock=clock, sleep=clock.sleep
    )

    assert took == 250.0


@given(
    timeout=st.floats(min_value=0.1, max_value=100.0),
    interval=st.floats(min_value=0.01, max_value=10.0),
    read_cost=st.floats(min_value=0.0, max_value=2.0),
)
def test_a_deadline_is_kept_whatever_the_interval_and_the_reads_cost(
    timeout: float, interval: float, read_cost: float
) -> None:
    clock = Clock(read_cost)
    elapsed: list[float] = []

    def timed_out(seconds: float) -> StopError:
        elapsed.append(seconds)
        return StopError("timed out")

    with pytest.raises(StopError):
        wait_for(
            reads(clock, iter(lambda: Poll(), None)),
            interval=interval,
            timeout=timeout,
            timed_out=timed_out,
            clock=clock,
            sleep=clock.sleep,
        )

    # It ends at the first read after the deadline: never a sleep past it, at most one read late.
    assert timeout <= elapsed[0] <= timeout + 0.01 + read_cost + 1e-9
    assert all(sleep <= max(interval, POLL_BACKOFF_CAP) for sleep in clock.sleeps)


def test_a_wait_that_can_end_undone_must_say_how() -> None:
    with pytest.raises(ValueError, match=r"^stalled: a wait with stall_after needs the error it ends in$"):
        wait_for(lambda _: Poll(done=True), interval=1.0, stall_after=5.0)
    with pytest.raises(ValueError, match=r"^timed_out: a wait with a timeout needs the error it ends in$"):
        wait_for(lambda _: Poll(done=True), interval=1.0, timeout=5.0)
