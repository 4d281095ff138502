"""The soak's pure parts: durations, and how a DaemonSet's history splits into rollouts and the rest."""

from __future__ import annotations

import pytest

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
