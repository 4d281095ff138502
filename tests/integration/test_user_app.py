"""A platform team's own cdk8s app, outside this repository: what they configure is what is deployed and verified.

The library is pip-installed into a fresh venv; the app has its own ``cdk8s.yaml`` and
``main.py`` with an extra toleration, extra labels, monitoring in ``observability``,
its own alert routing labels, and a chart of its own (the ``observability`` namespace
and a ConfigMap). It is synthesized by the real ``cdk8s synth``, deployed and verified
with ``python -m constructs_nld.deploy`` run by the venv's python, against a simulated
cluster of its own (:mod:`tests.simcluster`), where the real DaemonSet controller and
scheduler put a pod on the team's tainted node only because the app tolerates its taint.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from kubernetes import client as k8s

from tests.controlplane import ControlPlane
from tests.fleet import fleet_node
from tests.integration import rest
from tests.integration.cdk8s_cli import cdk8s_synth
from tests.simcluster import SimulatedCluster

USER_MAIN = '''\
"""The platform team's cdk8s app: NodeLocal DNS for their fleet, beside a chart of their own."""

import os

import constructs_nld  # first: it silences jsii's Node 20 banner before cdk8s loads jsii

import cdk8s
from cdk8s_plus_28 import k8s

from constructs_nld import (
    AlertSettings,
    NodeLocalDNS,
    NodeLocalDNSAlerts,
    NodeLocalDNSProps,
    Toleration,
    default_tolerations,
    props_from_environment,
)

ROUTING = {"team": "platform-dns", "priority": "P1"}
FLEET_TOLERATIONS = (TOLERATIONS)

app = cdk8s.App()
platform = cdk8s.Chart(app, "platform")
k8s.KubeNamespace(platform, "ns", metadata=k8s.ObjectMeta(name="observability"))
k8s.KubeConfigMap(
    platform,
    "runbook",
    metadata=k8s.ObjectMeta(name="dns-runbook", namespace="observability"),
    data={"runbook": "page #platform-dns"},
)
props = NodeLocalDNSProps(
    tolerations=(*default_tolerations(), *FLEET_TOLERATIONS),
    labels={"app.kubernetes.io/managed-by": "platform-team", "team": "platform"},
    monitoring_namespace="observability",
    monitoring_labels={"release": "kube-prometheus"},
    alerts=NodeLocalDNSAlerts(
        setup_errors=AlertSettings(for_="5m", severity="critical", labels=ROUTING),
        pod_restarting=AlertSettings(for_="10m", severity="warning", labels=ROUTING),
        daemonset_degraded=AlertSettings(for_="15m", severity="warning", labels=ROUTING),
        target_down=AlertSettings(for_="10m", severity="warning", labels=ROUTING),
    ),
)
nld = NodeLocalDNS(app, "nodelocaldns", props_from_environment(os.environ, props))
nld.monitoring_chart.add_dependency(platform)
app.synth()
'''

EXTRA_TOLERATION = 'Toleration(key="dedicated", operator="Equal", value="dns", effect="NoSchedule"),'
FLEET_TAINT = {"key": "dedicated", "value": "dns", "effect": "NoSchedule"}
DS_PATH = "/apis/apps/v1/namespaces/kube-system/daemonsets/node-local-dns"
OBSERVABILITY = "/apis/monitoring.coreos.com/v1/namespaces/observability"


def write_app(directory: Path, *, extra_toleration: bool) -> None:
    (directory / "cdk8s.yaml").write_text("language: python\napp: python main.py\n")
    tolerations = EXTRA_TOLERATION if extra_toleration else ""
    (directory / "main.py").write_text(USER_MAIN.replace("(TOLERATIONS)", f"({tolerations})"))


def run_cli(python: Path, project: Path, cluster: ControlPlane, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m constructs_nld.deploy ARGS`` from the project, with no venv activated."""
    env = {key: value for key, value in os.environ.items() if key not in ("VIRTUAL_ENV", "KUBE_DNS_CLUSTER_IP")}
    node = shutil.which("node")
    assert node is not None, "the suite needs Node.js on PATH (make test installs it)"
    env["PATH"] = f"{Path(node).parent}:/usr/bin:/bin"  # no venv, and the supported Node.js a user installs
    return subprocess.run(
        [str(python), "-m", "constructs_nld.deploy", "--kubeconfig", str(cluster.kubeconfig_path), *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def assert_holds(live: Any, desired: Any, where: str) -> None:
    """Every field of ``desired`` is in ``live`` with the same value (lists: same length, item by item).

    The API server stores no zero value (``readOnly: false``), so a missing key matches one.
    """
    if isinstance(desired, dict):
        assert isinstance(live, dict), where
        for key, value in desired.items():
            if key not in live:
                assert value in (False, 0, "", [], {}), f"{where}.{key} missing live"
                continue
            assert_holds(live[key], value, f"{where}.{key}")
    elif isinstance(desired, list):
        assert isinstance(live, list) and len(live) == len(desired), f"{where}: {live!r} != {desired!r}"
        for index, (live_item, desired_item) in enumerate(zip(live, desired, strict=True)):
            assert_holds(live_item, desired_item, f"{where}[{index}]")
    else:
        assert live == desired, f"{where}: live {live!r}, synthesized {desired!r}"


def live_path(obj: dict[str, Any]) -> str:
    group = "/api/v1" if obj["apiVersion"] == "v1" else f"/apis/{obj['apiVersion']}"
    plural = {
        "Namespace": "namespaces",
        "ConfigMap": "configmaps",
        "Service": "services",
        "ServiceAccount": "serviceaccounts",
        "DaemonSet": "daemonsets",
        "PodMonitor": "podmonitors",
        "PrometheusRule": "prometheusrules",
    }[obj["kind"]]
    namespace = obj["metadata"].get("namespace")
    where = f"/namespaces/{namespace}" if namespace else ""
    return f"{group}{where}/{plural}/{obj['metadata']['name']}"


@pytest.fixture(scope="module")
def user_fleet() -> Iterator[SimulatedCluster]:
    """A simulated cluster of this module's own: the app creates a namespace no reset removes."""
    with SimulatedCluster() as simulated:
        yield simulated


@pytest.fixture
def user_cluster(user_fleet: SimulatedCluster) -> ControlPlane:
    """The control plane of :func:`user_fleet`."""
    return user_fleet.control_plane


def rollout_done(api: k8s.ApiClient, pods: int) -> bool:
    """The DaemonSet controller reports ``pods`` pods, all of the current template and ready."""
    daemon_set = rest.get(api, DS_PATH) or {"metadata": {}}
    status = daemon_set.get("status") or {}
    counts = [status.get(key) for key in ("desiredNumberScheduled", "updatedNumberScheduled", "numberReady")]
    return counts == [pods] * 3 and status.get("observedGeneration") == daemon_set["metadata"].get("generation")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write_app(tmp_path, extra_toleration=True)
    return tmp_path


def test_the_users_app_is_what_deploy_applies_and_verify_checks(
    installed_python: Path, project: Path, user_cluster: ControlPlane, user_fleet: SimulatedCluster
) -> None:
    api = user_cluster.api_client()
    mark = user_cluster.audit_mark()

    deployed = run_cli(installed_python, project, user_cluster)

    assert deployed.returncode == 0, deployed.stderr
    assert deployed.stderr == ""
    lines = deployed.stdout.splitlines()
    # The app's order: cdk8s puts the team's chart (the observability namespace) before the
    # monitoring chart that depends on it.
    order = lines[4].removeprefix("[4/7] apply order: ").split(" -> ")  # after the spec's cache warning
    assert [chart.split("-")[1] for chart in order] == [
        "nodelocaldns",
        "nodelocaldns",
        "platform.k8s.yaml (2)",
        "nodelocaldns",
    ]
    assert lines[-2].endswith(
        "(the pods of daemonset/kube-system/node-local-dns start after service/kube-system/kube-dns-upstream)"
    )
    assert lines[-1] == "[history] recorded revision 1 (deploy, succeeded)"
    writes = [
        e["objectRef"]["resource"] + "/" + e["objectRef"]["name"] for e in user_cluster.mutating_requests_since(mark)
    ]
    assert writes == [
        "leases/node-local-dns-deploy",  # one deploy of a cluster writes at a time
        "configmaps/node-local-dns-applyset",  # the set the deploy applies (KEP-3659)
        "services/kube-dns-upstream",
        "services/node-local-dns-metrics",
        "serviceaccounts/node-local-dns",
        "configmaps/node-local-dns",
        "daemonsets/node-local-dns",
        "namespaces/observability",
        "configmaps/dns-runbook",
        "podmonitors/nodelocaldns",
        "prometheusrules/nodelocaldns-alerts",
        "configmaps/node-local-dns-history",  # the release history, recorded under the Lease
        "leases/node-local-dns-deploy",
    ]

    kube_dns = rest.get(api, "/api/v1/namespaces/kube-system/services/kube-dns")
    assert kube_dns is not None
    synthesized = cdk8s_synth(installed_python, project, cluster_ip=kube_dns["spec"]["clusterIP"])
    assert len(synthesized) == 9
    for obj in synthesized:
        live = rest.get(api, live_path(obj))
        assert live is not None, live_path(obj)
        assert_holds(live, obj, live_path(obj))
    rule = rest.get(api, f"{OBSERVABILITY}/prometheusrules/nodelocaldns-alerts")
    assert rule is not None
    assert {r["alert"]: r["labels"] for r in rule["spec"]["groups"][0]["rules"]}["NodeLocalDNSSetupErrors"] == {
        "severity": "critical",
        "team": "platform-dns",
        "priority": "P1",
    }
    daemon_set = rest.get(api, DS_PATH)
    assert daemon_set is not None
    assert {"key": "dedicated", "operator": "Equal", "value": "dns", "effect": "NoSchedule"} in daemon_set["spec"][
        "template"
    ]["spec"]["tolerations"]

    mark = user_cluster.audit_mark()
    again = run_cli(installed_python, project, user_cluster)
    assert again.returncode == 0, again.stderr
    assert user_cluster.mutating_requests_since(mark) == []

    # A node of the team's pool: the controllers place a pod there only because the app tolerates its taint.
    user_fleet.add_nodes([replace(fleet_node("dedicated", 1), name="fleet-1", taints=(FLEET_TAINT,))])
    user_fleet.wait_for("node-cache ready on fleet-1", lambda: rollout_done(api, 1))
    verified = run_cli(installed_python, project, user_cluster, "verify")
    assert verified.returncode == 0, verified.stdout
    assert "PASS node-taints-tolerated: every taint on 1 node(s) tolerated" in verified.stdout
    assert "PASS podmonitor-scrapes-both-ports" in verified.stdout
    assert verified.stdout.rstrip().endswith("15 passed, 1 warned, 0 failed")

    write_app(project, extra_toleration=False)
    failed = run_cli(installed_python, project, user_cluster, "verify")

    assert failed.returncode == 7, failed.stdout
    assert "FAIL node-taints-tolerated: taints not tolerated: fleet-1: dedicated=dns:NoSchedule" in failed.stdout
    assert "FAIL live-matches-app: daemonset/kube-system/node-local-dns differs" in failed.stdout


def test_a_project_without_cdk8s_yaml_is_refused_in_one_line(
    installed_python: Path, tmp_path: Path, user_cluster: ControlPlane
) -> None:
    done = run_cli(installed_python, tmp_path, user_cluster)

    assert done.returncode == 2
    assert done.stderr == (
        f"error: no cdk8s.yaml in {tmp_path.resolve()}: run from your cdk8s project, "
        "or name the app with --app 'python main.py'\n"
    )


def test_app_flag_overrides_cdk8s_yaml_and_a_failing_app_is_refused(
    installed_python: Path, project: Path, user_cluster: ControlPlane
) -> None:
    (project / "broken.py").write_text("raise SystemExit('props: a typo in the team config')\n")
    mark = user_cluster.audit_mark()

    done = run_cli(installed_python, project, user_cluster, "--app", "python broken.py", "--dry-run")

    assert done.returncode == 2
    assert done.stderr.startswith(f"error: the app 'python broken.py' failed (exit 1) in {project.resolve()}:\n")
    assert "props: a typo in the team config" in done.stderr
    assert user_cluster.mutating_requests_since(mark) == []
