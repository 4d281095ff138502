"""The rollout logic of ``deploy --wait`` apart from any cluster: progress, waves, stalls, and how they are shown."""

from __future__ import annotations

import io
import os
from typing import Any

import pytest

from constructs_nld.deploy import DeployOptions
from constructs_nld.deploy.kube import ObjectRef
from constructs_nld.deploy.options import UninstallOptions
from constructs_nld.deploy.progress import PlainProgress, TtyProgress, make_progress
from constructs_nld.deploy.rollout import RolloutStatus, RolloutTracker, not_ready_pods

REF = ObjectRef("apps/v1", "DaemonSet", "kube-system", "node-local-dns")


def status(updated: int, available: int, *, desired: int = 10, generation: int = 2, observed: int = 2) -> RolloutStatus:
    return RolloutStatus(
        generation=generation,
        observed_generation=observed,
        desired=desired,
        updated=updated,
        ready=available,
        available=available,
        unavailable=desired - available,
    )


def test_status_is_read_from_the_daemon_set_and_complete_only_when_every_pod_is_updated_and_available() -> None:
    daemon_set = {
        "metadata": {"generation": 3},
        "status": {
            "observedGeneration": 3,
            "desiredNumberScheduled": 4,
            "updatedNumberScheduled": 4,
            "numberReady": 3,
            "numberAvailable": 3,
            "numberUnavailable": 1,
        },
    }

    read = RolloutStatus.of(daemon_set)

    assert read == RolloutStatus(3, 3, 4, 4, 3, 3, 1)
    assert not read.complete
    assert RolloutStatus(3, 3, 4, 4, 4, 4, 0).complete
    assert not RolloutStatus(3, 2, 4, 4, 4, 4, 0).complete
    assert str(RolloutStatus(3, 2, 4, 4, 4, 4, 0)) == (
        "generation 3 not yet observed; updated 4/4, ready 4/4, unavailable 0"
    )
    assert RolloutStatus.of({"metadata": {}}) == RolloutStatus(0, 0, 0, 0, 0, 0, 0)


def test_progress_is_a_pod_becoming_updated_and_available_not_a_batch_going_down() -> None:
    tracker = RolloutTracker(stall_after=5.0, started=0.0)
    tracker.observe(status(0, 10), 0.0)
    tracker.observe(status(1, 9), 1.0)  # a batch taken down and its replacement created: no progress
    assert tracker.idle(1.0) == 1.0
    tracker.observe(status(1, 10), 2.0)  # the replacement is available: progress
    assert tracker.idle(2.0) == 0.0
    tracker.observe(status(2, 9), 3.0)
    tracker.observe(status(2, 9), 6.9)

    assert not tracker.stalled(6.9)
    assert tracker.stalled(7.0)
    assert tracker.waves == 2
    assert tracker.max_unavailable == 1


def test_a_pod_flapping_between_ready_and_not_is_no_progress() -> None:
    tracker = RolloutTracker(stall_after=5.0, started=0.0)
    tracker.observe(status(1, 9), 0.0)
    for second in range(1, 8):
        tracker.observe(status(1, 10 if second % 2 else 9), float(second))

    assert tracker.idle(8.0) == 7.0 and tracker.stalled(8.0)


def test_a_new_generation_or_a_node_joining_counts_as_progress_and_restarts_the_count() -> None:
    tracker = RolloutTracker(stall_after=5.0, started=0.0)
    tracker.observe(status(10, 10), 0.0)
    tracker.observe(status(10, 10, generation=3), 4.0)  # a new template: not yet observed
    tracker.observe(status(0, 10, generation=3, observed=3), 8.0)  # observed: progress
    assert tracker.idle(8.0) == 0.0
    tracker.observe(status(0, 10, generation=3, observed=3, desired=11), 9.0)  # a node joined
    assert tracker.idle(9.0) == 0.0
    assert tracker.waves == 0


def test_the_first_read_counts_no_wave_even_when_pods_are_updated() -> None:
    tracker = RolloutTracker(stall_after=5.0, started=0.0)
    tracker.observe(status(10, 10), 0.0)

    assert tracker.waves == 0 and tracker.max_unavailable == 0


def pod(
    name: str, created: str, *, node: str = "", ready: bool = False, status: dict[str, Any] | None = None
) -> dict[str, Any]:
    status = dict(status or {})
    spec: dict[str, Any] = (
        {"nodeName": node}
        if node
        else {
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "values": ["full-1"]}]}]
                    }
                }
            }
        }
    )
    conditions = [{"type": "Ready", "status": "True" if ready else "False"}, *status.pop("conditions", [])]
    return {
        "metadata": {"name": name, "creationTimestamp": created},
        "spec": spec,
        "status": {"conditions": conditions, **status},
    }


def test_pods_not_ready_are_named_newest_first_with_their_node_and_reason() -> None:
    crashing = {
        "containerStatuses": [
            {
                "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off"}},
                "lastState": {"terminated": {"message": "Unknown directive 'forwrd'"}},
            }
        ]
    }
    pulling = {"containerStatuses": [{"state": {"waiting": {"reason": "ImagePullBackOff", "message": "Back-off"}}}]}
    unscheduled = {"conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}]}
    pods = [
        pod("a", "2026-01-01T00:00:01Z", node="cpu-1", status=crashing),
        pod("b", "2026-01-01T00:00:03Z", node="gpu-1", status=pulling),
        pod("c", "2026-01-01T00:00:02Z", status=unscheduled),
        pod("d", "2026-01-01T00:00:04Z", node="base-1", ready=True),
    ]

    assert not_ready_pods(pods) == (
        "b on gpu-1 (ImagePullBackOff: Back-off), c on full-1 (Unschedulable), "
        "a on cpu-1 (CrashLoopBackOff: Unknown directive 'forwrd')"
    )
    many = [pod(f"p{i}", f"2026-01-01T00:00:0{i}Z", node=f"n{i}", status=pulling) for i in range(7)]
    assert not_ready_pods(many).endswith(", p2 on n2 (ImagePullBackOff: Back-off), 2 more")
    assert not_ready_pods([]) == "none listed"


def test_plain_progress_prints_changes_and_every_ten_idle_seconds_and_nothing_else() -> None:
    lines: list[str] = []
    display = PlainProgress(lines.append)
    tracker = RolloutTracker(stall_after=300.0, started=0.0)

    display.update(REF, status(0, 10), tracker, elapsed=0.0, idle=0.0)
    display.update(REF, status(0, 10), tracker, elapsed=1.0, idle=1.0)
    display.update(REF, status(1, 9), tracker, elapsed=2.0, idle=2.0)
    display.update(REF, status(1, 9), tracker, elapsed=12.5, idle=12.5)
    display.update(REF, status(1, 9), tracker, elapsed=13.0, idle=13.0)
    display.finish("rollout stalled")

    assert lines == [
        "[wait] following the rollout of daemonset/kube-system/node-local-dns; stalled after 300s without progress",
        "[wait] 0.0s wave 0: updated 0/10, ready 10/10, unavailable 0",
        "[wait] 2.0s wave 0: updated 1/10, ready 9/10, unavailable 1",
        "[wait] 12.5s no progress for 12s: updated 1/10, ready 9/10, unavailable 1",
        "[wait] rollout stalled",
    ]


@pytest.mark.parametrize(
    ("columns", "expected"),
    [
        (
            120,
            "node-local-dns [##########----------] 350/700 updated, 693 ready, 7 unavailable, wave 50, 31s, "
            "no progress for 12s",
        ),
        (100, "node-local-dns 350/700 updated, 693 ready, 7 unavailable, wave 50, 31s, no progress for 12s"),
        (80, "node-local-dns 350/700 updated, 693 ready, 7 unavailable, no progress for 12s"),
        (70, "350/700 updated, 693 ready, 7 unavailable, no progress for 12s"),
        (30, "350/700 updated, 693 ready, 7"),
    ],
)
def test_tty_progress_keeps_the_counts_and_drops_the_rest_to_fit_the_terminal(columns: int, expected: str) -> None:
    stream = io.StringIO()
    display = TtyProgress(stream, width=lambda: columns)
    tracker = RolloutTracker(stall_after=300.0, started=0.0, waves=50)
    rolling = RolloutStatus(2, 2, 700, 350, 693, 693, 7)

    display.update(REF, rolling, tracker, elapsed=31.0, idle=12.0)
    display.finish("rollout complete")

    drawn, closing = stream.getvalue().split("\r\x1b[K")[1:]
    assert drawn == expected and len(drawn) < columns
    assert closing == "[wait] rollout complete\n"


def test_auto_progress_is_tty_only_on_a_terminal_that_is_not_dumb(monkeypatch: pytest.MonkeyPatch) -> None:
    leader, follower = os.openpty()
    try:
        with os.fdopen(follower, "w", closefd=False) as terminal:
            monkeypatch.setenv("TERM", "xterm-256color")
            assert isinstance(make_progress("auto", print, terminal), TtyProgress)
            monkeypatch.setenv("TERM", "dumb")
            assert isinstance(make_progress("auto", print, terminal), PlainProgress)
            assert isinstance(make_progress("tty", print, terminal), TtyProgress)
    finally:
        os.close(leader)
        os.close(follower)
    monkeypatch.setenv("TERM", "xterm-256color")
    assert isinstance(make_progress("auto", print, io.StringIO()), PlainProgress)


def test_fails_when_wait_is_combined_with_a_dry_run_or_a_diff() -> None:
    with pytest.raises(ValueError, match=r"^wait: a dry run or a diff starts no rollout to wait for"):
        DeployOptions(wait=True, dry_run=True)
    with pytest.raises(ValueError, match=r"^wait: "):
        DeployOptions(wait=True, diff=True)
    with pytest.raises(ValueError, match=r"^dry_run: cannot be combined with diff"):
        DeployOptions(dry_run=True, diff=True)


@pytest.mark.parametrize("value", [0.0, -1.0, float("nan")])
def test_fails_when_stall_after_is_not_positive(value: float) -> None:
    with pytest.raises(ValueError, match=r"^stall_after: must be a positive number of seconds, got "):
        DeployOptions(wait=True, stall_after=value)
    with pytest.raises(ValueError, match=r"^stall_after: must be a positive number of seconds, got "):
        UninstallOptions(stall_after=value)


def test_with_on_delete_the_rollout_is_complete_once_observed_and_available_whatever_is_updated() -> None:
    daemon_set = {
        "metadata": {"generation": 4},
        "spec": {"updateStrategy": {"type": "OnDelete"}},
        "status": {
            "observedGeneration": 4,
            "desiredNumberScheduled": 4,
            "updatedNumberScheduled": 1,
            "numberReady": 4,
            "numberAvailable": 4,
        },
    }

    read = RolloutStatus.of(daemon_set)

    assert read.on_delete and read.complete
    assert not RolloutStatus(4, 3, 4, 1, 4, 4, 0, on_delete=True).complete
    assert not RolloutStatus(4, 4, 4, 1, 3, 3, 1, on_delete=True).complete
    assert not RolloutStatus(4, 4, 4, 1, 4, 4, 0).complete
