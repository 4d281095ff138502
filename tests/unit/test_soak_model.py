"""The soak's pure parts: durations, and how a DaemonSet's history splits into rollouts and the rest."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from constructs_nld.deploy.commands.soak import Rollouts, rollouts
from constructs_nld.durations import duration_seconds, format_duration


@pytest.mark.parametrize(
    ("text", "seconds"), [("3d", 259200.0), ("1h30m", 5400.0), ("90s", 90.0), ("1w", 604800.0), ("500ms", 0.5)]
)
def test_duration_seconds(text: str, seconds: float) -> None:
    assert duration_seconds("window", text) == seconds


@pytest.mark.parametrize("text", ["", "3", "3x", "-1d", "1d 2h", "0s"])
def test_fails_when_duration_is_not_a_positive_prometheus_duration(text: str) -> None:
    with pytest.raises(ValueError, match=r"^window: must be"):
        duration_seconds("window", text)


@pytest.mark.parametrize(
    ("seconds", "text"), [(259200, "3d"), (5400, "1h30m"), (45, "45s"), (90061, "1d1h"), (0, "0s")]
)
def test_format_duration(seconds: float, text: str) -> None:
    assert format_duration(seconds) == text


def series(*values: float) -> dict[float, float]:
    return {60.0 * i: value for i, value in enumerate(values)}


def test_unavailability_inside_a_rollout_is_forgiven_until_every_pod_is_back() -> None:
    # behind: updated < desired for two steps; the last new pod is still starting a step later.
    found = rollouts(series(0, 0, 1, 1, 1, 0, 0), series(0, 1, 1, 0, 0, 0, 0), 60)

    assert found == Rollouts(count=1, longest=240.0, unavailable_outside=(), rolling_at_end=False)


def test_unavailability_outside_a_rollout_is_listed_by_step() -> None:
    found = rollouts(series(0, 1, 1, 0, 0, 0), series(0, 0, 0, 0, 1, 0), 60)

    assert found == Rollouts(count=1, longest=60.0, unavailable_outside=(60.0, 120.0), rolling_at_end=False)


def test_a_rollout_that_never_ends_is_still_rolling_at_the_end() -> None:
    found = rollouts(series(0, 0, 1, 1), series(0, 1, 0, 0), 60)

    assert found == Rollouts(count=1, longest=180.0, unavailable_outside=(), rolling_at_end=True)


def test_steps_without_data_are_skipped() -> None:
    found = rollouts({0.0: 0, 120.0: 1}, {0.0: 0, 60.0: 1, 120.0: 0}, 60)

    assert found == Rollouts(count=0, longest=0.0, unavailable_outside=(120.0,), rolling_at_end=False)


def test_a_template_change_starts_a_rollout_even_when_no_step_saw_a_pod_behind() -> None:
    # A real node replaced the pod between two scrapes: only its new pod, not yet available, was seen.
    found = rollouts(series(0, 1, 0, 0), series(0, 0, 0, 0), 60, series(1, 2, 2, 2))

    assert found == Rollouts(count=1, longest=60.0, unavailable_outside=(), rolling_at_end=False)


def test_without_a_template_change_the_same_unavailability_counts_against_the_soak() -> None:
    found = rollouts(series(0, 1, 0, 1), series(0, 0, 0, 0), 60, series(2, 2, 2, 2))

    assert found == Rollouts(count=0, longest=0.0, unavailable_outside=(60.0, 180.0), rolling_at_end=False)


def every_5s(*values: float) -> dict[float, float]:
    return {5.0 * i: value for i, value in enumerate(values)}


def test_a_crash_looping_new_pod_seen_available_between_crashes_stays_in_its_rollout() -> None:
    # Scrapes every 5 s. The roll replaces the pod; its container exits at each start, and one
    # scrape caught it running (step 20 s). It serves from 45 s on.
    unavailable = every_5s(0, 1, 1, 1, 0, 1, 1, 1, 1, 0, 0, 0, 0)
    behind = every_5s(0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

    found = rollouts(unavailable, behind, 5, settle=60)

    assert found == Rollouts(count=1, longest=40.0, unavailable_outside=(), rolling_at_end=False)


def test_without_the_settle_the_same_crash_loop_counts_against_the_soak() -> None:
    unavailable = every_5s(0, 1, 1, 1, 0, 1, 1, 1, 1, 0, 0, 0, 0)
    behind = every_5s(0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

    found = rollouts(unavailable, behind, 5, settle=0)

    assert found == Rollouts(count=1, longest=15.0, unavailable_outside=(25.0, 30.0, 35.0, 40.0), rolling_at_end=False)


def test_unavailability_after_the_daemon_set_settled_counts_against_the_soak() -> None:
    # Whole from 120 s, settled at 180 s; the pod lost at 240 s is an incident, not the rollout.
    found = rollouts(series(0, 1, 0, 0, 1, 0), series(0, 1, 0, 0, 0, 0), 60, settle=60)

    assert found == Rollouts(count=1, longest=60.0, unavailable_outside=(240.0,), rolling_at_end=False)


def test_a_template_change_while_settling_is_a_second_rollout() -> None:
    found = rollouts(series(0, 1, 0, 1, 0, 0, 0), series(0, 0, 0, 0, 0, 0, 0), 60, series(1, 2, 2, 3, 3, 3, 3), 120)

    assert found == Rollouts(count=2, longest=60.0, unavailable_outside=(), rolling_at_end=False)


def test_a_daemon_set_whole_at_the_window_end_has_ended_its_rollout_before_it_settled() -> None:
    found = rollouts(series(0, 1, 1, 0), series(0, 1, 0, 0), 60, settle=600)

    assert found == Rollouts(count=1, longest=120.0, unavailable_outside=(), rolling_at_end=False)


@given(
    st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2), st.integers(0, 1)), min_size=1, max_size=30),
    st.integers(0, 6),
    st.integers(0, 6),
)
def test_a_longer_settle_never_counts_more_unavailability_against_the_soak(
    history: list[tuple[int, int, int]], shorter: int, longer: int
) -> None:
    shorter, longer = sorted((shorter, longer))
    unavailable = series(*(down for down, _, _ in history))
    behind = series(*(lag for _, lag, _ in history))
    generation = series(*itertools.accumulate(bump for _, _, bump in history))

    strict = rollouts(unavailable, behind, 60, generation, settle=60.0 * shorter)
    lenient = rollouts(unavailable, behind, 60, generation, settle=60.0 * longer)

    assert set(lenient.unavailable_outside) <= set(strict.unavailable_outside)
    assert all(unavailable[at] > 0 for at in strict.unavailable_outside)
