"""What a fleet run shows while it runs: the board, the minute's summary line and the terminal's block, clock given."""

from __future__ import annotations

import io

from constructs_nld.deploy.command import Outcome
from constructs_nld.deploy.fleetview import (
    FleetBoard,
    FleetRollout,
    PlainFleetDisplay,
    TtyFleetDisplay,
    board_lines,
    summary_line,
)
from constructs_nld.deploy.kube import ObjectRef
from constructs_nld.deploy.report import FleetReporter
from constructs_nld.deploy.rollout import RolloutStatus, RolloutTracker
from constructs_nld.deploy.targets import Target

REF = ObjectRef("apps/v1", "DaemonSet", "kube-system", "node-local-dns")
NAMES = ("east", "west", "south", "north", "ci-1", "ci-2")


def rolling(updated: int, desired: int = 700) -> RolloutStatus:
    return RolloutStatus(2, 2, desired, updated, desired - 7, desired - 7, 7)


def board() -> FleetBoard:
    """Three deployed, north rolling 40/700, two waiting."""
    shown = FleetBoard(NAMES, "deploy")
    for name in ("east", "west", "south"):
        shown.line(name, "[7/7] rollout restart: not needed")
        shown.finished(name, ok=True, result="deployed")
    shown.line("north", "[wait] following the rollout")
    shown.rollout("north", rolling(40), None)
    return shown


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_summary_line_counts_each_phase_and_names_the_rollouts() -> None:
    assert summary_line(board().views(), "deployed") == "[fleet] 3 deployed, 1 rolling (north 40/700), 2 waiting"


def test_the_summary_line_says_a_rollouts_time_left_and_the_failures() -> None:
    shown = board()
    shown.rollout("north", rolling(40), 725.0)
    shown.line("ci-1", "[2/7] kube-dns ClusterIP: fd00::a")
    shown.finished("ci-2", ok=False, result="error: cannot reach the API server")

    assert summary_line(shown.views(), shown.done_word) == (
        "[fleet] 3 deployed, 1 failed, 1 rolling (north 40/700, about 12m left), 1 running"
    )


def test_a_rollout_that_ends_leaves_its_closing_line_as_the_step() -> None:
    shown = board()
    shown.rolled("north", "[wait] rollout complete in 60.0s")
    shown.finished("north", ok=True, result="deployed")

    assert summary_line(shown.views(), shown.done_word) == "[fleet] 4 deployed, 2 waiting"


def test_the_block_has_one_line_per_cluster_its_phase_and_step_cut_to_the_terminal() -> None:
    shown = board()
    shown.rollout("north", rolling(40), 240.0)

    assert board_lines(shown.views(), 120) == [
        "east   done     deployed",
        "west   done     deployed",
        "south  done     deployed",
        "north  rolling  40/700 updated, about 4m left",
        "ci-1   waiting",
        "ci-2   waiting",
    ]
    assert board_lines(shown.views(), 25)[3] == "north  rolling  40/700 u"


def test_in_a_ci_log_the_summary_comes_once_a_minute_by_the_clock_and_never_before() -> None:
    clock, written = Clock(), list[str]()
    display = PlainFleetDisplay(board(), written.append, clock=clock)

    display.tick()
    clock.now += 59.5
    display.tick()
    assert written == []

    clock.now += 0.5
    display.tick()
    display.tick()
    assert written == ["[fleet] 3 deployed, 1 rolling (north 40/700), 2 waiting"]

    clock.now += 185.0  # a quiet three minutes: one line when it is next looked at, not three
    display.tick()
    assert len(written) == 2
    clock.now += 59.5  # the next a minute after that one
    display.tick()
    assert len(written) == 2
    clock.now += 0.5
    display.tick()
    assert len(written) == 3


def test_on_a_terminal_the_block_is_redrawn_in_place_below_the_lines_kept() -> None:
    stream = io.StringIO()
    shown = FleetBoard(("east", "west"), "verify")
    display = TtyFleetDisplay(shown, stream, lambda: 80)

    display.redraw(above=["[fleet] verify on 2 clusters (east, west), 4 at a time"])
    shown.line("east", "reading the cluster")
    display.redraw()
    shown.finished("west", ok=False, result="3 of 13 failed")
    display.redraw(above=["[west] FAIL metrics-service-headless: not headless"])

    first, second, third = stream.getvalue().split("\x1b[2F\x1b[J")
    assert first == "[fleet] verify on 2 clusters (east, west), 4 at a time\neast  waiting\nwest  waiting\n"
    assert second == "east  running  reading the cluster\nwest  waiting\n"
    assert third == (
        "[west] FAIL metrics-service-headless: not headless\n"
        "east  running  reading the cluster\n"
        "west  failed   3 of 13 failed\n"
    )


def test_a_fleets_rollout_puts_its_counts_and_time_left_on_the_board() -> None:
    shown, refreshed = FleetBoard(("north",), "deploy"), list[int]()
    rollout = FleetRollout(shown, "north", None, lambda: refreshed.append(1))
    tracker = RolloutTracker(stall_after=300.0, started=0.0)

    for now, updated in ((0.0, 0), (10.0, 7), (40.0, 14)):
        tracker.observe(rolling(updated), now)
        rollout.update(REF, rolling(updated), tracker, elapsed=now, idle=0.0)

    (view,) = shown.views()
    assert [view.phase, view.updated, view.desired, view.left] == ["rolling", 14, 700, 686 * 30 / 7 + 30]
    rollout.finish("rollout complete in 40.0s")
    assert [shown.views()[0].phase, shown.views()[0].step] == ["running", "[wait] rollout complete in 40.0s"]
    assert len(refreshed) == 4


def test_a_fleet_reporter_in_a_ci_log_prints_every_line_and_the_minutes_summary() -> None:
    clock, written = Clock(), list[str]()
    shown = FleetBoard(("east", "west"), "deploy")
    reporter = FleetReporter(written.append, board=shown, plain=PlainFleetDisplay(shown, written.append, clock=clock))
    east, west = Target("east", "east"), Target("west", "west")

    reporter.lines_of(east)("[1/7] precondition")
    clock.now += 60.0
    reporter.lines_of(west)("[1/7] precondition")
    reporter.finished(east, Outcome("deployed", changed=7))
    reporter.error(west, "error: cannot reach the API server")

    assert written == [
        "[east] [1/7] precondition",
        "[west] [1/7] precondition",
        "[fleet] 2 running",
        "[west] error: cannot reach the API server",
    ]
    assert [view.phase for view in shown.views()] == ["done", "failed"]
