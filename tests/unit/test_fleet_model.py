"""The fleet's logic: the clusters a file names, waves, the bound on parallel runs, fail-fast, the summary.

The tasks here are stand-ins that sleep and answer: what is tested is the scheduling and the
reporting, not a cluster (tests/integration/test_clusters.py runs the real commands).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from constructs_nld.deploy.command import Outcome
from constructs_nld.deploy.commands.soak import prometheus_url
from constructs_nld.deploy.errors import ApiUnreachableError, InvalidConfigError
from constructs_nld.deploy.exitcodes import ExitCode
from constructs_nld.deploy.fleet import format_summary, parse_waves, run_fleet, summary_code
from constructs_nld.deploy.options import SoakOptions
from constructs_nld.deploy.report import FleetReporter
from constructs_nld.deploy.targets import Target, targets_from_file

FLEET = tuple(Target(name, name) for name in ("a", "b", "c", "d", "e"))
QUIET = FleetReporter(lambda _: None)


def test_a_file_lists_contexts_or_clusters_entries_in_its_order(tmp_path: Path) -> None:
    plain = tmp_path / "plain.yaml"
    plain.write_text("- ci-east\n- ci-west\n")
    shaped = tmp_path / "clusters.yaml"
    shaped.write_text(
        "clusters:\n  - context: ci-west\n    name: west\n    prometheus: http://p.west:9090\n  - context: ci-east\n"
    )

    assert targets_from_file(str(plain)) == (Target("ci-east", "ci-east"), Target("ci-west", "ci-west"))
    assert targets_from_file(str(shaped)) == (
        Target("west", "ci-west", "http://p.west:9090"),
        Target("ci-east", "ci-east"),
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- a\n- b\n- a\n", "context 'a' is named twice: each cluster once"),
        ("clusters:\n  - {context: a, name: x}\n  - {context: b, name: x}\n", "context 'x' is named twice"),
        ("clusters: {a: 1}\n", "must be a list of contexts, or a mapping with a list under 'clusters:'"),
        ("[]\n", "must be a list of contexts"),
        ("- a\n- {name: b}\n", "entry 2 is neither a context name nor a mapping with 'context:'"),
        ("clusters:\n  - {context: a, promethues: x}\n", "entry 1: unknown key(s) promethues"),
        ("- [\n", "not YAML"),
        (
            "clusters:\n  - {context: a, prometheus: 9090}\n",
            "entry 1: 'prometheus' must be a non-empty string, got 9090",
        ),
        ('clusters:\n  - {context: a, name: "west\\nexit 0: all"}\n', "entry 1: 'name' holds a control character"),
        ('- "ci\\x1b[2Jeast"\n', "holds a control character"),
    ],
    ids=["twice", "name-twice", "mapping", "empty", "no-context", "typo", "yaml", "type", "newline", "escape"],
)
def test_a_malformed_file_is_refused_naming_what_is_wrong(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "clusters.yaml"
    path.write_text(text)

    with pytest.raises(InvalidConfigError) as refused:
        targets_from_file(str(path))

    assert str(refused.value).startswith(f"--contexts-from {path}: ")
    assert message in str(refused.value)


def test_the_cluster_name_is_quoted_where_it_goes_into_the_prometheus_url() -> None:
    options = SoakOptions(prometheus="https://prometheus.{cluster}.example:9090")

    assert prometheus_url(Target("ci-west", "ci-west"), options) == "https://prometheus.ci-west.example:9090"
    assert prometheus_url(Target("a/b?c#d", "ci"), options) == "https://prometheus.a%2Fb%3Fc%23d.example:9090"


def test_waves_are_sizes_whose_last_may_be_the_rest() -> None:
    assert parse_waves("1,rest", 5) == (1, 4)
    assert parse_waves("2,2,rest", 5) == (2, 2, 1)
    assert parse_waves("1,2", 5) == (1, 2, 2)
    assert parse_waves("5,rest", 5) == (5,)
    for text, message in (
        ("0,rest", "'0' is not a number"),
        ("rest,1", "'rest' is not a number"),
        ("4,2", "6 clusters"),
    ):
        with pytest.raises(InvalidConfigError, match=message):
            parse_waves(text, 5)


def answering(codes: dict[str, ExitCode], seconds: float = 0.05) -> tuple[Callable[..., Outcome], list[int]]:
    """A task that sleeps and answers each cluster's code; and the most that ran at once."""
    lock = threading.Lock()
    running = [0]
    most = [0]

    def task(target: Target, out: Callable[[str], None]) -> Outcome:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        out(f"working\non {target.context}")
        time.sleep(seconds)
        with lock:
            running[0] -= 1
        code = codes.get(target.name, ExitCode.OK)
        if code == ExitCode.ERROR:
            raise ApiUnreachableError(f"cannot reach the API server of {target.name}")
        return Outcome("done" if code == ExitCode.OK else "failed", code, 1, "2/2")

    return task, most


def test_at_most_parallel_clusters_run_at_once_and_each_line_carries_its_cluster() -> None:
    task, most = answering({})
    lines: list[str] = []

    rows = run_fleet(FLEET, task, FleetReporter(lines.append), parallel=2)

    assert most[0] == 2
    assert [row.target.name for row in rows] == ["a", "b", "c", "d", "e"]
    assert sorted(lines) == sorted(f"[{m.name}] {text}" for m in FLEET for text in ("working", f"on {m.name}"))
    assert summary_code(rows) == 0
    assert format_summary(rows).splitlines()[-1] == "every cluster exited 0 (5 of 5 ran)"


def test_an_unexpected_error_fails_its_row_in_one_line_and_the_others_run() -> None:
    def task(target: Target, out: Callable[[str], None]) -> Outcome:
        if target.name == "b":
            raise KeyError("resultType")
        return Outcome("done", ExitCode.OK, 1, "2/2")

    lines: list[str] = []
    rows = run_fleet(FLEET, task, FleetReporter(lines.append), parallel=2)

    assert [row.exit_code for row in rows] == [0, 1, 0, 0, 0]
    assert summary_code(rows) == ExitCode.ERROR
    (said,) = [line for line in lines if line.startswith("[b] ")]
    assert said.startswith("[b] error: unexpected KeyError at test_fleet_model.py:")
    assert said.endswith(": 'resultType' (a malformed answer or a bug; NLD_TRACEBACK=1 shows the traceback)")
    assert format_summary(rows).splitlines()[-1] == "exit 1: b (failed); 1 of 5 failed"


def test_one_failing_cluster_does_not_stop_the_others_and_the_worst_code_is_the_runs() -> None:
    task, _ = answering({"b": ExitCode.ERROR, "d": ExitCode.CHECKS_FAILED})

    rows = run_fleet(FLEET, task, parallel=3, reporter=QUIET)

    assert [row.exit_code for row in rows] == [0, 1, 0, 7, 0]
    assert rows[1].outcome is not None and rows[1].outcome.result == "unreachable"
    assert summary_code(rows) == 7
    summary = format_summary(rows).splitlines()
    assert summary[0].split() == [
        "cluster",
        "result",
        "exit",
        "code",
        "objects",
        "changed",
        "pods",
        "ready/desired",
        "duration",
    ]
    assert summary[-1] == "exit 7: d (failed); 2 of 5 failed"


def test_fail_fast_starts_no_cluster_after_the_first_failure() -> None:
    task, _ = answering({"b": ExitCode.CHECKS_FAILED})

    rows = run_fleet(FLEET, task, parallel=1, fail_fast=True, reporter=QUIET)

    assert [row.exit_code for row in rows] == [0, 7, None, None, None]
    assert {row.skipped for row in rows[2:]} == {"--fail-fast after b"}
    assert format_summary(rows).splitlines()[-1] == "exit 7: b (failed); 1 of 5 failed; 3 skipped"


def test_a_failing_wave_stops_the_waves_after_it() -> None:
    task, _ = answering({"a": ExitCode.CHECKS_FAILED})
    ran: list[str] = []

    def recording(target: Target, out: Callable[[str], None]) -> Outcome:
        ran.append(target.name)
        return task(target, out)

    rows = run_fleet(FLEET, recording, parallel=4, waves=(1, 4), reporter=QUIET)
    passing = run_fleet(FLEET, answering({})[0], parallel=4, waves=(1, 2, 2), reporter=QUIET)

    assert ran == ["a"]
    assert [row.skipped for row in rows] == ["", *["wave 1 failed"] * 4]
    assert [row.exit_code for row in passing] == [0] * 5
