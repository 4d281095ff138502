"""The documents of ``-o json``: declared once, their checked-in schemas current, built and rendered as declared."""

from __future__ import annotations

import importlib.util
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType

import pytest

from constructs_nld.deploy.checks import CheckResult
from constructs_nld.deploy.command import Outcome
from constructs_nld.deploy.commands import DOCUMENTS
from constructs_nld.deploy.commands.verify import document as verify_document
from constructs_nld.deploy.documents import DocumentSchema, string
from constructs_nld.deploy.exitcodes import ExitCode
from constructs_nld.deploy.fleet import Row
from constructs_nld.deploy.junit import junit_xml
from constructs_nld.deploy.report import ClusterReporter, FleetReporter, fleet_document
from constructs_nld.deploy.targets import Target
from tests.documents import validated

REPO = Path(__file__).resolve().parents[2]

RESULTS = (
    CheckResult("daemonset-healthy", "pass", "3/3 ready", "never shown", "never shown"),
    CheckResult("metrics-service-headless", "fail", "clusterIP is '10.0.0.1', not 'None'", "recreated", "delete it"),
    CheckResult("podmonitor-scrapes-both-ports", "warn", "PodMonitor CRD not served", "no operator", ""),
)


def schemas_tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("schemas_tool", REPO / "tools" / "schemas.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_checked_in_schemas_are_the_ones_the_code_declares() -> None:
    assert schemas_tool().stale() == []
    assert sorted(path.name for path in (REPO / "docs" / "schemas").glob("*.json")) == sorted(
        document.file_name for document in DOCUMENTS
    )


def test_every_document_names_its_schema_and_version_and_is_strict() -> None:
    for declared in DOCUMENTS:
        schema = declared.json_schema()
        assert schema["properties"]["schema"] == {
            "const": f"nld-deploy/{declared.name}",
            "description": "Which document this is.",
        }
        assert schema["properties"]["version"]["const"] == 1
        assert schema["additionalProperties"] is False
        assert schema["required"] == ["schema", "version", *declared.properties]


def test_fails_when_a_document_is_built_without_a_field_or_with_one_it_does_not_declare() -> None:
    declared = DocumentSchema("thing", "t", "d", {"a": string("A."), "b": string("B.")})

    with pytest.raises(TypeError, match=r"^nld-deploy/thing: fields missing \['b'\], unknown \['c'\]$"):
        declared.document(a="x", c="y")


def test_verify_document_counts_the_checks_and_gives_cause_and_fix_only_where_the_check_did_not_pass() -> None:
    document = validated(verify_document("ci-east", RESULTS, uninstalled=False), "verify")

    assert document == {
        "schema": "nld-deploy/verify",
        "version": 1,
        "cluster": "ci-east",
        "uninstalled": False,
        "passed": 1,
        "failed": 1,
        "warned": 1,
        "checks": [
            {"name": "daemonset-healthy", "status": "pass", "detail": "3/3 ready", "cause": "", "fix": ""},
            {
                "name": "metrics-service-headless",
                "status": "fail",
                "detail": "clusterIP is '10.0.0.1', not 'None'",
                "cause": "recreated",
                "fix": "delete it",
            },
            {
                "name": "podmonitor-scrapes-both-ports",
                "status": "warn",
                "detail": "PodMonitor CRD not served",
                "cause": "no operator",
                "fix": "",
            },
        ],
    }


def rows() -> list[Row]:
    checked = verify_document("east", RESULTS, uninstalled=False)
    return [
        Row(
            Target("east", "ctx-east"),
            Outcome("1 of 3 failed", ExitCode.CHECKS_FAILED, pods="3/3", document=checked),
            2.5,
        ),
        Row(Target("west", "ctx-west"), Outcome("unreachable", ExitCode.ERROR), 10.0),
        Row(Target("north", None), None, skipped="--fail-fast after west"),
    ]


def test_the_fleet_document_has_every_clusters_row_and_its_commands_document() -> None:
    document = validated(fleet_document("verify", rows()), "fleet")

    assert [document["command"], document["exit_code"]] == ["verify", ExitCode.CHECKS_FAILED]
    assert document["clusters"] == [
        {
            "name": "east",
            "context": "ctx-east",
            "result": "1 of 3 failed",
            "exit_code": 7,
            "changed": None,
            "pods": "3/3",
            "seconds": 2.5,
            "skipped": "",
            "document": verify_document("east", RESULTS, uninstalled=False),
        },
        {
            "name": "west",
            "context": "ctx-west",
            "result": "unreachable",
            "exit_code": 1,
            "changed": None,
            "pods": "-",
            "seconds": 10.0,
            "skipped": "",
            "document": None,
        },
        {
            "name": "north",
            "context": None,
            "result": "skipped",
            "exit_code": None,
            "changed": None,
            "pods": "-",
            "seconds": 0.0,
            "skipped": "--fail-fast after west",
            "document": None,
        },
    ]


def test_with_json_one_cluster_prints_its_commands_document_and_a_fleet_its_summary_after_the_table() -> None:
    lines: list[str] = []
    printed: list[str] = []
    first = rows()[0]

    ClusterReporter(lines.append, lines.append, document=printed.append, command="verify").finish([first])
    FleetReporter(lines.append, document=printed.append, command="verify").finish(rows())

    assert [json.loads(text)["schema"] for text in printed] == ["nld-deploy/verify", "nld-deploy/fleet"]
    assert lines[0].startswith("cluster ")  # the table, for people, on the lines' stream


def test_with_text_nothing_is_printed_as_a_document() -> None:
    lines: list[str] = []

    ClusterReporter(lines.append, lines.append).finish(rows()[:1])

    assert lines == []


def test_junit_has_a_suite_per_cluster_a_case_per_check_and_failure_error_skipped_as_ci_reads_them() -> None:
    root = junit_xml(rows())

    east, west, north = root.findall("testsuite")
    cases = {case.get("name"): case for case in east.findall("testcase")}
    failure = cases["metrics-service-headless"].find("failure")
    warned = cases["podmonitor-scrapes-both-ports"]
    assert [suite.get("name") for suite in (east, west, north)] == ["east", "west", "north"]
    assert list(cases) == ["daemonset-healthy", "metrics-service-headless", "podmonitor-scrapes-both-ports"]
    assert {case.get("classname") for case in cases.values()} == {"east"}
    assert failure is not None
    assert failure.get("message") == "clusterIP is '10.0.0.1', not 'None'"
    assert failure.text == "cause: recreated\nfix: delete it"
    assert warned.find("failure") is None
    assert warned.findtext("system-out") == "WARN PodMonitor CRD not served\ncause: no operator"
    assert cases["daemonset-healthy"].findtext("system-out") == "PASS 3/3 ready"
    error = west.find("testcase/error")
    assert error is not None and error.get("message") == "unreachable"
    skipped = north.find("testcase/skipped")
    assert skipped is not None and skipped.get("message") == "--fail-fast after west"
    assert [east.get(key) for key in ("tests", "failures", "errors", "skipped")] == ["3", "1", "0", "0"]
    assert [root.get(key) for key in ("tests", "failures", "errors", "skipped")] == ["5", "1", "1", "1"]
    assert ET.tostring(root).startswith(b"<testsuites ")
