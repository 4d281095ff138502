"""The synthesized alert rules, run by promtool: they load, and each fires (and only) when it should.

The rule group is read back from the synthesized PrometheusRule's ``spec.groups``, so the
test sees what a cluster would get. promtool is a required tool here (CI installs the
Debian ``prometheus`` package): if it is missing these tests fail, they do not skip.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

JOB = "monitoring/nodelocaldns"
ROUTING = {"team": "pytorch-dev-infra", "priority": "P3"}
"""Production's routing labels, on every alert by default."""
SETUP_ERRORS_DESCRIPTION = (
    "node-cache on node node-a (pod node-local-dns-abc) reports iptables setup errors. "
    "Check its logs: kubectl logs -n kube-system node-local-dns-abc."
)
DEGRADED_SERIES = 'kube_daemonset_status_number_unavailable{namespace="kube-system",daemonset="node-local-dns"}'
METRICS_DOWN_DESCRIPTION = (
    "A monitoring/nodelocaldns target is down (node {node}) or none is left; "
    "NodeLocalDNSSetupErrors cannot fire without these metrics."
)

# One promtool unit-test file per alert: (input series, [(eval_time, expected alerts)]).
CASES: dict[str, list[dict[str, Any]]] = {
    "NodeLocalDNSSetupErrors": [
        {
            # One setup error per minute from t=1m: pending from 1m, firing once 5m have passed.
            "interval": "1m",
            "input_series": [
                {
                    "series": (
                        'coredns_nodecache_setup_errors_total{errortype="iptables",node="node-a",'
                        f'pod="node-local-dns-abc",namespace="kube-system",job="{JOB}"}}'
                    ),
                    "values": "0+1x20",
                },
            ],
            "alert_rule_test": [
                {"eval_time": "4m", "alertname": "NodeLocalDNSSetupErrors", "exp_alerts": []},
                {
                    "eval_time": "10m",
                    "alertname": "NodeLocalDNSSetupErrors",
                    "exp_alerts": [
                        {
                            "exp_labels": {
                                "severity": "critical",
                                **ROUTING,
                                "errortype": "iptables",
                                "node": "node-a",
                                "pod": "node-local-dns-abc",
                                "namespace": "kube-system",
                                "job": JOB,
                            },
                            "exp_annotations": {
                                "summary": "node-cache failed to set up iptables rules or its interface",
                                "description": SETUP_ERRORS_DESCRIPTION,
                            },
                        }
                    ],
                },
            ],
        },
        {
            # A counter that never moves: no setup errors, no alert.
            "interval": "1m",
            "input_series": [
                {
                    "series": (
                        'coredns_nodecache_setup_errors_total{errortype="iptables",node="node-a",'
                        f'pod="node-local-dns-abc",namespace="kube-system",job="{JOB}"}}'
                    ),
                    "values": "3x20",
                },
            ],
            "alert_rule_test": [{"eval_time": "15m", "alertname": "NodeLocalDNSSetupErrors", "exp_alerts": []}],
        },
    ],
    "NodeLocalDNSPodRestarting": [
        {
            "interval": "1m",
            "input_series": [
                {
                    "series": (
                        'kube_pod_container_status_restarts_total{namespace="kube-system",container="node-cache",'
                        'pod="node-local-dns-abc"}'
                    ),
                    "values": "0+1x30",
                },
                # Another container of kube-system restarting is not node-cache's problem.
                {
                    "series": (
                        'kube_pod_container_status_restarts_total{namespace="kube-system",container="coredns",'
                        'pod="coredns-xyz"}'
                    ),
                    "values": "0+1x30",
                },
            ],
            "alert_rule_test": [
                {"eval_time": "8m", "alertname": "NodeLocalDNSPodRestarting", "exp_alerts": []},
                {
                    "eval_time": "15m",
                    "alertname": "NodeLocalDNSPodRestarting",
                    "exp_alerts": [
                        {
                            "exp_labels": {
                                "severity": "warning",
                                **ROUTING,
                                "namespace": "kube-system",
                                "container": "node-cache",
                                "pod": "node-local-dns-abc",
                            },
                            "exp_annotations": {
                                "summary": "node-cache containers are restarting",
                                "description": (
                                    "node-local-dns-abc restarted in the last 15 minutes: iptables or binary "
                                    "trouble, or a Corefile that does not load."
                                ),
                            },
                        }
                    ],
                },
            ],
        },
        {
            "interval": "1m",
            "input_series": [
                {
                    "series": (
                        'kube_pod_container_status_restarts_total{namespace="kube-system",container="node-cache",'
                        'pod="node-local-dns-abc"}'
                    ),
                    "values": "2x30",
                },
            ],
            "alert_rule_test": [{"eval_time": "25m", "alertname": "NodeLocalDNSPodRestarting", "exp_alerts": []}],
        },
    ],
    "NodeLocalDNSDaemonSetDegraded": [
        {
            "interval": "1m",
            "input_series": [
                {
                    "series": DEGRADED_SERIES,
                    "values": "2x30",
                },
                {
                    "series": 'kube_daemonset_status_number_unavailable{namespace="kube-system",daemonset="aws-node"}',
                    "values": "1x30",
                },
            ],
            "alert_rule_test": [
                {"eval_time": "10m", "alertname": "NodeLocalDNSDaemonSetDegraded", "exp_alerts": []},
                {
                    "eval_time": "20m",
                    "alertname": "NodeLocalDNSDaemonSetDegraded",
                    "exp_alerts": [
                        {
                            "exp_labels": {
                                "severity": "warning",
                                **ROUTING,
                                "namespace": "kube-system",
                                "daemonset": "node-local-dns",
                            },
                            "exp_annotations": {
                                "summary": "node-local-dns pods are unavailable",
                                "description": (
                                    "2 node-local-dns pods have been unavailable for 15m: look for image pulls, "
                                    "scheduling or crashloops. Those nodes fall through to cluster CoreDNS."
                                ),
                            },
                        }
                    ],
                },
            ],
        },
        {
            "interval": "1m",
            "input_series": [
                {
                    "series": DEGRADED_SERIES,
                    "values": "0x30",
                },
            ],
            "alert_rule_test": [{"eval_time": "25m", "alertname": "NodeLocalDNSDaemonSetDegraded", "exp_alerts": []}],
        },
    ],
    "NodeLocalDNSMetricsDown": [
        {
            # One target down, one up: the down one alerts, naming its node.
            "interval": "1m",
            "input_series": [
                {"series": f'up{{job="{JOB}",node="node-a",pod="node-local-dns-abc"}}', "values": "0x20"},
                {"series": f'up{{job="{JOB}",node="node-b",pod="node-local-dns-def"}}', "values": "1x20"},
            ],
            "alert_rule_test": [
                {"eval_time": "5m", "alertname": "NodeLocalDNSMetricsDown", "exp_alerts": []},
                {
                    "eval_time": "15m",
                    "alertname": "NodeLocalDNSMetricsDown",
                    "exp_alerts": [
                        {
                            "exp_labels": {
                                "severity": "warning",
                                **ROUTING,
                                "job": JOB,
                                "node": "node-a",
                                "pod": "node-local-dns-abc",
                            },
                            "exp_annotations": {
                                "summary": "node-cache metrics are not being scraped",
                                "description": METRICS_DOWN_DESCRIPTION.format(node="node-a"),
                            },
                        }
                    ],
                },
            ],
        },
        {
            # No target at all (only another job's): absent() fires with the job label alone.
            "interval": "1m",
            "input_series": [{"series": 'up{job="kube-system/other"}', "values": "1x20"}],
            "alert_rule_test": [
                {
                    "eval_time": "15m",
                    "alertname": "NodeLocalDNSMetricsDown",
                    "exp_alerts": [
                        {
                            "exp_labels": {"severity": "warning", **ROUTING, "job": JOB},
                            "exp_annotations": {
                                "summary": "node-cache metrics are not being scraped",
                                "description": METRICS_DOWN_DESCRIPTION.format(node=""),
                            },
                        }
                    ],
                },
            ],
        },
        {
            "interval": "1m",
            "input_series": [
                {"series": f'up{{job="{JOB}",node="node-a",pod="node-local-dns-abc"}}', "values": "1x20"},
            ],
            "alert_rule_test": [{"eval_time": "15m", "alertname": "NodeLocalDNSMetricsDown", "exp_alerts": []}],
        },
    ],
}


@pytest.fixture(scope="module")
def promtool() -> str:
    found = shutil.which("promtool")
    if found is None:
        pytest.fail("promtool is not installed: apt-get install -y prometheus (it provides /usr/bin/promtool)")
    return found


@pytest.fixture
def rules_file(preview_objects: list[dict[str, Any]], tmp_path: Path) -> Path:
    (rule,) = [obj for obj in preview_objects if obj["kind"] == "PrometheusRule"]
    path = tmp_path / "nodelocaldns-rules.yaml"
    path.write_text(yaml.safe_dump({"groups": rule["spec"]["groups"]}, sort_keys=False))
    return path


def _promtool(promtool: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([promtool, *args], cwd=cwd, capture_output=True, text=True, timeout=60, check=False)


def test_every_alert_has_cases(rules_file: Path) -> None:
    alerts = [rule["alert"] for group in yaml.safe_load(rules_file.read_text())["groups"] for rule in group["rules"]]

    assert sorted(alerts) == sorted(CASES)


def test_promtool_check_rules_passes(promtool: str, rules_file: Path) -> None:
    done = _promtool(promtool, "check", "rules", rules_file.name, cwd=rules_file.parent)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "SUCCESS: 4 rules found" in done.stdout


@pytest.mark.parametrize("alert", list(CASES))
def test_promtool_unit_tests_pass(promtool: str, rules_file: Path, alert: str) -> None:
    tests_file = rules_file.parent / f"{alert}-test.yaml"
    tests_file.write_text(
        yaml.safe_dump(
            {"rule_files": [rules_file.name], "evaluation_interval": "1m", "tests": CASES[alert]}, sort_keys=False
        )
    )

    done = _promtool(promtool, "test", "rules", tests_file.name, cwd=rules_file.parent)

    assert done.returncode == 0, done.stdout + done.stderr


def test_promtool_unit_tests_catch_a_wrong_expectation(promtool: str, rules_file: Path) -> None:
    wrong = [
        {
            "interval": "1m",
            "input_series": [
                {"series": f'up{{job="{JOB}",node="node-a",pod="node-local-dns-abc"}}', "values": "1x20"},
            ],
            "alert_rule_test": [
                {
                    "eval_time": "15m",
                    "alertname": "NodeLocalDNSMetricsDown",
                    "exp_alerts": [{"exp_labels": {"severity": "warning", **ROUTING, "job": JOB}}],
                }
            ],
        }
    ]
    tests_file = rules_file.parent / "wrong-test.yaml"
    tests_file.write_text(yaml.safe_dump({"rule_files": [rules_file.name], "tests": wrong}, sort_keys=False))

    done = _promtool(promtool, "test", "rules", tests_file.name, cwd=rules_file.parent)

    assert done.returncode != 0
    assert "NodeLocalDNSMetricsDown" in done.stdout + done.stderr
