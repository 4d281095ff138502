"""The time a rollout has left, from the batches seen: a pure unit, fed times by the test (no clock)."""

from __future__ import annotations

import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from constructs_nld.deploy.eta import RolloutEstimate, format_left
from constructs_nld.deploy.kube import ObjectRef
from constructs_nld.deploy.progress import PlainProgress, TtyProgress
from constructs_nld.deploy.rollout import RolloutStatus, RolloutTracker

REF = ObjectRef("apps/v1", "DaemonSet", "kube-system", "node-local-dns")


def rolled(*reads: tuple[float, int], desired: int = 700) -> RolloutEstimate:
    estimate = RolloutEstimate()
    for now, updated in reads:
        estimate.observe(now, updated, desired)
    return estimate


def test_no_estimate_before_a_batch_has_completed() -> None:
    assert rolled().left(0.0) is None
    assert rolled((0.0, 0)).left(5.0) is None
    assert rolled((0.0, 0), (2.0, 7)).left(30.0) is None  # the first batch started, none done


def test_after_one_batch_the_pace_of_the_batches_gives_the_time_left() -> None:
    # 7 pods a batch, a batch every 30 s: 700 pods take 100 batches.
    estimate = rolled((0.0, 0), (10.0, 7), (40.0, 14))

    # 686 pods to start at 30 s per 7 pods, and the batch started at 40 s has 30 s to go.
    assert estimate.left(40.0) == pytest.approx(686 * 30 / 7 + 30)
    assert estimate.left(55.0) == pytest.approx(686 * 30 / 7 + 15)
    assert estimate.left(100.0) == pytest.approx(686 * 30 / 7)  # a slow batch: never below the pods to start
    assert estimate.batches_completed == 1


def test_the_last_batch_started_leaves_only_its_own_time() -> None:
    estimate = rolled((0.0, 0), (10.0, 5), (40.0, 10), desired=10)

    assert estimate.left(50.0) == pytest.approx(20.0)
    assert estimate.left(80.0) == 0.0


def test_a_rollout_whose_updated_count_falls_starts_over() -> None:
    estimate = rolled((0.0, 0), (10.0, 7), (40.0, 14), (50.0, 0))

    assert estimate.left(50.0) is None
    estimate.observe(60.0, 7, 700)
    assert estimate.left(60.0) is None
    estimate.observe(70.0, 14, 700)
    assert estimate.left(70.0) == pytest.approx(686 * 10 / 7 + 10)


@given(
    batches=st.lists(st.tuples(st.floats(0.1, 600.0), st.integers(1, 50)), min_size=2, max_size=30),
    desired=st.integers(1, 5000),
    later=st.floats(0.0, 10_000.0),
)
def test_the_estimate_is_never_negative_and_never_grows_while_nothing_changes(
    batches: list[tuple[float, int]], desired: int, later: float
) -> None:
    estimate = RolloutEstimate()
    now, updated = 0.0, 0
    estimate.observe(now, updated, desired)
    for gap, size in batches:
        now, updated = now + gap, updated + size
        estimate.observe(now, updated, desired)

    left_now, left_later = estimate.left(now), estimate.left(now + later)

    assert left_now is not None and left_later is not None
    assert 0.0 <= left_later <= left_now


@given(
    pace=st.floats(1.0, 600.0),
    size=st.integers(1, 50),
    batches=st.integers(100, 200),
    seen=st.integers(2, 99),
)
def test_at_a_steady_pace_the_estimate_is_the_time_the_remaining_batches_take(
    pace: float, size: int, batches: int, seen: int
) -> None:
    desired = size * batches
    estimate = RolloutEstimate()
    estimate.observe(0.0, 0, desired)
    for batch in range(1, seen + 1):
        estimate.observe(batch * pace, batch * size, desired)

    # The remaining batches, and the one started at `seen * pace` that has not yet had its time.
    assert estimate.left(seen * pace) == pytest.approx((batches - seen + 1) * pace)


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0.0, "less than a minute left"),
        (29.0, "less than a minute left"),
        (31.0, "about 1m left"),
        (240.0, "about 4m left"),
        (3599.0, "about 1h left"),
        (4800.0, "about 1h20m left"),
        (7500.0, "about 2h05m left"),
    ],
)
def test_the_time_left_is_said_in_minutes_and_hours(seconds: float, text: str) -> None:
    assert format_left(seconds) == text


def status(updated: int, *, desired: int = 700, unavailable: int = 7) -> RolloutStatus:
    return RolloutStatus(2, 2, desired, updated, desired - unavailable, desired - unavailable, unavailable)


def test_plain_progress_says_the_time_left_once_a_wave_has_completed() -> None:
    lines: list[str] = []
    display = PlainProgress(lines.append)
    tracker = RolloutTracker(stall_after=300.0, started=0.0)

    for now, updated in ((0.0, 0), (10.0, 7), (40.0, 14)):
        tracker.observe(status(updated), now)
        display.update(REF, status(updated), tracker, elapsed=now, idle=0.0)

    assert lines[1:] == [
        "[wait] 0.0s wave 0: updated 0/700, ready 693/700, unavailable 7",
        "[wait] 10.0s wave 1: updated 7/700, ready 693/700, unavailable 7",
        "[wait] 40.0s wave 2: updated 14/700, ready 693/700, unavailable 7, about 50m left",
    ]


def test_tty_progress_keeps_the_time_left_when_the_terminal_is_narrow() -> None:
    stream = io.StringIO()
    display = TtyProgress(stream, width=lambda: 72)
    tracker = RolloutTracker(stall_after=300.0, started=0.0)
    for now, updated in ((0.0, 0), (10.0, 7), (40.0, 14)):
        tracker.observe(status(updated), now)

    display.update(REF, status(14), tracker, elapsed=40.0, idle=0.0)

    assert stream.getvalue() == "\r\x1b[Knode-local-dns 14/700 updated, 693 ready, 7 unavailable, about 50m left"
