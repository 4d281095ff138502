"""The argument layer: each command line parsed once into typed options; the waits named; the program as invoked."""

from __future__ import annotations

import pytest

from constructs_nld.defaults import DEPLOY_TIMEOUT, SOAK_WINDOW, STALL_AFTER
from constructs_nld.deploy import program
from constructs_nld.deploy.cli import parse
from constructs_nld.deploy.options import (
    Connection,
    ConvertOptions,
    CutoverOptions,
    DeployOptions,
    FleetOptions,
    HistoryOptions,
    Invocation,
    RollbackOptions,
    Selection,
    SoakOptions,
    UninstallOptions,
    VerifyOptions,
)
from constructs_nld.deploy.program import Program, hint
from constructs_nld.durations import duration_seconds


def test_no_flag_is_a_deploy_of_the_current_context_with_every_default() -> None:
    assert parse([]) == Invocation(command="deploy", options=DeployOptions())


def test_timeout_sets_every_wait_and_each_named_one_wins_over_it() -> None:
    plain = parse(["--timeout", "10"])
    named = parse(["--api-timeout", "5", "--timeout", "10", "deploy", "--clusterip-timeout", "3"])

    assert plain.connection == Connection(api_timeout=10.0, api_timeout_flag="--timeout")
    assert plain.options == DeployOptions(cluster_ip_timeout=10.0, restart_timeout=10.0, lease_timeout=10.0)
    assert named.connection == Connection(api_timeout=5.0, api_timeout_flag="--api-timeout")
    assert named.options == DeployOptions(cluster_ip_timeout=3.0, restart_timeout=10.0, lease_timeout=10.0)


def test_each_command_gets_its_own_options_and_nothing_else() -> None:
    week = duration_seconds("window", "7d")

    assert parse(["verify", "--uninstalled"]).options == VerifyOptions(uninstalled=True)
    assert parse(["uninstall", "--stall-after", "60"]).options == UninstallOptions(stall_after=60.0)
    assert parse(["soak", "--prometheus", "http://p:9090", "--timeout", "7", "--window", "7d"]).options == (
        SoakOptions(window=week, prometheus="http://p:9090", prometheus_timeout=7.0)
    )
    assert parse(["cutover", "promote", "--force", "--prometheus", "http://p:9090", "--progress", "plain"]).options == (
        CutoverOptions(step="promote", force=True, prometheus="http://p:9090", progress="plain")
    )
    assert parse(["cutover", "start", "--canary-nodes", "2", "--stall-after", "30"]).options == CutoverOptions(
        step="start", canary_nodes=2, stall_after=30.0, window=duration_seconds("window", SOAK_WINDOW)
    )
    assert parse(["--wait", "--progress", "tty"]).options == DeployOptions(wait=True, progress="tty")
    assert DeployOptions().stall_after == STALL_AFTER and Connection().api_timeout == DEPLOY_TIMEOUT


def test_the_clusters_and_how_they_are_run_come_apart_from_the_command() -> None:
    invocation = parse(
        [
            "--contexts-from",
            "clusters.yaml",
            "--context",
            "east",
            "--parallel",
            "2",
            "--fail-fast",
            "deploy",
            "--waves",
            "1,rest",
        ]
    )

    assert invocation.selection == Selection(contexts=("east",), contexts_from="clusters.yaml")
    assert invocation.fleet == FleetOptions(parallel=2, fail_fast=True, waves="1,rest")


def test_fails_when_all_contexts_is_combined_with_another_way_of_naming_clusters(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as stop:
        parse(["--all-contexts", "--contexts-from", "clusters.yaml"])

    assert stop.value.code == 2
    assert capsys.readouterr().err == (
        "error: --context, --all-contexts and --contexts-from: give one of them (--context may pick clusters of "
        "--contexts-from)\n"
    )


@pytest.mark.parametrize(
    ("argv0", "usage", "again"),
    [
        ("/venv/bin/nld-deploy", "nld-deploy", "'nld-deploy cutover promote'"),
        ("deploy.py", "deploy.py", "'python deploy.py cutover promote'"),
        ("/src/constructs_nld/deploy/__main__.py", "python -m constructs_nld.deploy", None),
        ("/usr/bin/pytest", "deploy.py", "'python deploy.py cutover promote'"),
        ("/venv/lib/python3.11/site-packages/pytest/__main__.py", "deploy.py", "'python deploy.py cutover promote'"),
    ],
)
def test_the_program_is_named_as_it_was_invoked(argv0: str, usage: str, again: str | None) -> None:
    before = program.invoked_as()
    try:
        program.use(Program.of(argv0))
        assert program.invoked_as().usage == usage
        assert hint("cutover promote") == (again or f"'{usage} cutover promote'")
    finally:
        program.use(before)


def test_history_and_rollback_get_their_options_and_history_max_reaches_each_recording_command() -> None:
    assert parse(["history"]).options == HistoryOptions()
    assert parse(["rollback"]).options == RollbackOptions()
    assert parse(["rollback", "3", "--wait", "--history-max", "4"]).options == RollbackOptions(
        revision=3, wait=True, history_max=4
    )
    assert parse(["--history-max", "2"]).options == DeployOptions(history_max=2)
    assert parse(["uninstall", "--history-max", "2"]).options == UninstallOptions(history_max=2)
    promote = parse(["cutover", "promote", "--history-max", "2"]).options
    assert isinstance(promote, CutoverOptions) and promote.history_max == 2


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--history-max", "0"], "argument --history-max: must be at least 1, got '0'"),
        (["rollback", "0"], "argument REVISION: must be at least 1, got '0'"),
        (["rollback", "two"], "argument REVISION: must be a whole number of revisions, got 'two'"),
        (["rollback", "--progress", "plain"], "--progress: only with --wait"),
    ],
)
def test_fails_on_a_history_bound_or_revision_that_cannot_be(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        parse(argv)

    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {message}") and err.count("\n") == 1, err


def test_fails_when_options_built_in_code_keep_no_revision_or_name_none() -> None:
    with pytest.raises(ValueError, match=r"^history_max: must keep at least 1 revision, got 0$"):
        DeployOptions(history_max=0)
    with pytest.raises(ValueError, match=r"^history_max: must keep at least 1 revision, got 0$"):
        UninstallOptions(history_max=0)
    with pytest.raises(ValueError, match=r"^revision: must be a revision number \(1 or more\), got 0$"):
        RollbackOptions(revision=0)


@pytest.mark.parametrize(
    "argv",
    [
        ["-o", "json", "verify"],
        ["verify", "-o", "json"],
        ["verify", "--output=json"],
        ["soak", "--prometheus", "http://p:9090", "-o", "json"],
        ["cutover", "status", "-o", "json"],
        ["--context", "a", "--context", "b", "-o", "json"],
    ],
)
def test_output_json_is_taken_before_or_after_any_command(argv: list[str]) -> None:
    assert parse(argv).output == "json"


def test_output_is_text_by_default_and_junit_is_verifys() -> None:
    assert parse(["verify"]).output == "text"
    assert parse(["verify", "--junit", "verify.xml"]).options == VerifyOptions(junit="verify.xml")


def test_fails_when_the_output_is_neither_text_nor_json(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        parse(["verify", "-o", "yaml"])

    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: argument -o/--output: invalid choice: 'yaml'") and err.count("\n") == 1, err


def test_fails_when_junit_is_given_to_another_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        parse(["uninstall", "--junit", "out.xml"])

    assert stop.value.code == 2
    assert capsys.readouterr().err.startswith("error: unrecognized arguments: --junit out.xml")


def test_convert_takes_its_values_file_and_output_file_apart_from_values_files_and_the_output_format() -> None:
    invocation = parse(["convert", "deliveryhero", "chart.yaml", "--output", "ours.yaml"])

    assert invocation.options == ConvertOptions(values="chart.yaml", output="ours.yaml")
    assert (invocation.values, invocation.output) == ((), "text")
