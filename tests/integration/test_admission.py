"""Every object of the app passes the API server's admission before the deploy's first write.

On the test API server: an admission policy that refuses the last object of the app (its
PrometheusRule, after the Services, the ConfigMaps and the DaemonSet) refuses the whole
deploy on one line, before anything is written, as a client-side refusal does.
"""

from __future__ import annotations

import time

import pytest

from constructs_nld.deploy.cli import main
from constructs_nld.deploy.exitcodes import ExitCode
from tests.controlplane import ControlPlane

ADMISSION = "/apis/admissionregistration.k8s.io/v1"


def _refuse_prometheus_rules(cluster: ControlPlane) -> list[str]:
    policy = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "no-prometheus-rules"},
        "spec": {
            "failurePolicy": "Fail",
            "matchConstraints": {
                "resourceRules": [
                    {
                        "apiGroups": ["monitoring.coreos.com"],
                        "apiVersions": ["*"],
                        "operations": ["CREATE", "UPDATE"],
                        "resources": ["prometheusrules"],
                    }
                ]
            },
            "validations": [{"expression": "false", "message": "no PrometheusRule here", "reason": "Forbidden"}],
        },
    }
    binding = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": "no-prometheus-rules"},
        "spec": {"policyName": "no-prometheus-rules", "validationActions": ["Deny"]},
    }
    admin = cluster.fixture_api()
    admin.request("POST", f"{ADMISSION}/validatingadmissionpolicies", body=policy, ok=(201,))
    admin.request("POST", f"{ADMISSION}/validatingadmissionpolicybindings", body=binding, ok=(201,))
    return [
        f"{ADMISSION}/validatingadmissionpolicybindings/no-prometheus-rules",
        f"{ADMISSION}/validatingadmissionpolicies/no-prometheus-rules",
    ]


def test_an_admission_refusal_of_the_apps_last_object_refuses_the_deploy_before_any_write(
    cluster: ControlPlane, capsys: pytest.CaptureFixture[str]
) -> None:
    policy = _refuse_prometheus_rules(cluster)
    admin = cluster.fixture_api()
    kubeconfig = str(cluster.kubeconfig_path)
    try:
        # The policy holds once the API server has loaded it: a dry run of the deploy says so first.
        deadline = time.monotonic() + 30
        while main(["--kubeconfig", kubeconfig, "--dry-run"]) == ExitCode.OK:
            assert time.monotonic() < deadline, "the admission policy did not take hold within 30 s"
            capsys.readouterr()
        capsys.readouterr()
        mark = cluster.audit_mark()

        code = main(["--kubeconfig", kubeconfig])
        err = capsys.readouterr().err.strip()
    finally:
        for path in policy:
            admin.request("DELETE", path, ok=(200, 404))

    assert code == ExitCode.PRECONDITION, err
    assert len(err.splitlines()) == 1, err
    assert "prometheusrule/monitoring/nodelocaldns-alerts: refused in a dry run, the API server answered 403" in err
    assert "no PrometheusRule here" in err and err.endswith("; nothing applied")
    assert cluster.mutating_requests_since(mark) == []
