"""``-o json`` and ``verify --junit`` on a real API server: what CI reads, checked against the checked-in schemas."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from kubernetes import client as k8s

from constructs_nld.deploy.cli import main
from constructs_nld.deploy.exitcodes import ExitCode
from tests.controlplane import REPO_ROOT, ControlPlane
from tests.documents import validated
from tests.integration import rest

NOT_HEADLESS = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {
        "name": "node-local-dns-metrics",
        "namespace": "kube-system",
        "labels": {"app.kubernetes.io/managed-by": "osdc-base"},  # the harness' reset deletes it by this label
    },
    "spec": {"selector": {"k8s-app": "node-local-dns"}, "ports": [{"name": "metrics", "port": 9253}]},
}
"""The metrics Service with a ClusterIP: the spec wants it headless, so verify fails metrics-service-headless."""


def break_metrics_service(cluster: ControlPlane, api_client: k8s.ApiClient) -> None:
    assert main(["--kubeconfig", str(cluster.kubeconfig_path)]) == 0
    rest.delete(api_client, rest.PATHS["metrics"])
    rest.create(api_client, "/api/v1/namespaces/kube-system/services", NOT_HEADLESS)


def test_verify_json_is_the_whole_standard_output_and_matches_its_schema(
    cluster: ControlPlane, api_client: k8s.ApiClient
) -> None:
    break_metrics_service(cluster, api_client)

    done = subprocess.run(
        [sys.executable, "deploy.py", "--kubeconfig", str(cluster.kubeconfig_path), "verify", "-o", "json"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )

    document = validated(done.stdout, "verify")  # the whole of stdout, as `| jq` reads it
    checks = {check["name"]: check for check in document["checks"]}
    assert done.returncode == ExitCode.CHECKS_FAILED, done.stderr
    assert document["schema"] == "nld-deploy/verify" and document["version"] == 1
    assert document["uninstalled"] is False
    assert checks["metrics-service-headless"]["status"] == "fail"
    assert "not 'None'" in checks["metrics-service-headless"]["detail"]
    assert checks["metrics-service-headless"]["fix"], checks["metrics-service-headless"]
    assert checks["upstream-service-selects-kube-dns"] == {
        "name": "upstream-service-selects-kube-dns",
        "status": "pass",
        "detail": checks["upstream-service-selects-kube-dns"]["detail"],
        "cause": "",
        "fix": "",
    }
    statuses = [check["status"] for check in document["checks"]]
    assert [document["passed"], document["failed"], document["warned"]] == [
        statuses.count("pass"),
        statuses.count("fail"),
        statuses.count("warn"),
    ]
    # The lines a person reads went to stderr, one per check.
    assert "FAIL metrics-service-headless: " in done.stderr
    assert done.stderr.count("\n") >= len(checks)


def test_verify_junit_has_a_testcase_per_check_and_a_failure_for_each_failed_one(
    cluster: ControlPlane, api_client: k8s.ApiClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    break_metrics_service(cluster, api_client)
    report = tmp_path / "verify.xml"
    capsys.readouterr()

    code = main(["--kubeconfig", str(cluster.kubeconfig_path), "verify", "--junit", str(report), "-o", "json"])

    document = validated(capsys.readouterr().out, "verify")
    root = ET.parse(report).getroot()
    (suite,) = root.findall("testsuite")
    cases = suite.findall("testcase")
    failed = {case.get("name"): case.find("failure") for case in cases if case.find("failure") is not None}
    assert code == ExitCode.CHECKS_FAILED
    assert [case.get("name") for case in cases] == [check["name"] for check in document["checks"]]
    assert {case.get("classname") for case in cases} == {suite.get("name")} == {document["cluster"]}
    assert set(failed) == {check["name"] for check in document["checks"] if check["status"] == "fail"}
    failure = failed["metrics-service-headless"]
    assert failure is not None
    assert "not 'None'" in (failure.get("message") or "")
    assert "cause: " in (failure.text or "") and "fix: " in (failure.text or "")
    assert [suite.get("tests"), suite.get("failures")] == [str(len(cases)), str(len(failed))]
    assert [root.get("tests"), root.get("failures"), root.get("errors")] == [str(len(cases)), str(len(failed)), "0"]


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("missing-dir/verify.xml", "missing-dir' does not exist"),
        (".", "' is a directory: name the file to write"),
    ],
    ids=["no-directory", "a-directory"],
)
def test_a_junit_file_that_cannot_be_written_is_refused_on_one_line_before_anything_runs(
    cluster: ControlPlane, path: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marks = cluster.audit_mark()

    code = main(["--kubeconfig", str(cluster.kubeconfig_path), "verify", "--junit", str(tmp_path / path)])

    err = capsys.readouterr().err
    assert code == ExitCode.INVALID
    assert err.startswith("error: argument --junit: ") and message in err and err.count("\n") == 1, err
    assert cluster.mutating_requests_since(marks) == []


def test_a_command_without_a_document_prints_the_runs_summary_as_json(
    cluster: ControlPlane, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["--kubeconfig", str(cluster.kubeconfig_path), "-o", "json"])

    out, err = capsys.readouterr()
    document = validated(out, "fleet")
    (row,) = document["clusters"]
    assert code == 0
    assert [document["command"], document["exit_code"]] == ["deploy", 0]
    assert [row["result"], row["exit_code"], row["changed"], row["document"]] == ["deployed", 0, 7, None]
    assert "[7/7] " in err
    assert json.loads(out) == document
