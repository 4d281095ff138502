"""One deploy of a cluster writes at a time: the deploy Lease, on the test API server.

A deploy that finds the Lease held says who holds it and waits, then reads the cluster again
and deploys; past ``--lease-timeout`` it exits 6 with nothing applied. A Lease whose holder
stopped renewing is taken over. A deploy with nothing to write takes none. A write by another
run between a deploy's reads and its Lease sends it back to its reads. Two deploys of different
apps at once end with one app whole, never a mix (the interruption matrix's entries).
"""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from constructs_nld import NodeLocalDNSProps
from constructs_nld.deploy import DeployOptions, deploy, load_client, open_session, props_source
from constructs_nld.deploy.cli import main
from constructs_nld.deploy.errors import WaitTimeoutError
from constructs_nld.deploy.exitcodes import ExitCode
from constructs_nld.deploy.kube import KubeClient
from constructs_nld.deploy.lease import DeployLease
from tests.controlplane import REPO_ROOT, ControlPlane
from tests.faults import MATRIX, before_apply_of

LEASE = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/node-local-dns-deploy"
PARENT = "/api/v1/namespaces/kube-system/configmaps/node-local-dns-applyset"
DASHBOARD = "/api/v1/namespaces/monitoring/configmaps/nodelocaldns-dashboard"
WITHOUT_DASHBOARD = NodeLocalDNSProps(dashboard=False, monitoring=False)


def _client(cluster: ControlPlane) -> KubeClient:
    return load_client(str(cluster.kubeconfig_path), None, timeout=10)


def _deploy(cluster: ControlPlane, props: NodeLocalDNSProps, options: DeployOptions | None = None) -> list[str]:
    lines: list[str] = []
    session = open_session(_client(cluster), props_source(props), read="deployable", out=lines.append)
    deploy(session, options or DeployOptions())
    return lines


def _holder(cluster: ControlPlane) -> str | None:
    lease = cluster.fixture_api().get(LEASE)
    return None if lease is None else (lease.get("spec") or {}).get("holderIdentity")


def _held(cluster: ControlPlane) -> DeployLease:
    """The deploy Lease, taken by another run."""
    other = DeployLease(_client(cluster), "kube-system")
    assert other.acquire(timeout=1, interval=0.1, out=print) is False
    return other


def test_a_deploy_that_finds_the_lease_held_waits_then_reads_the_cluster_again(cluster: ControlPlane) -> None:
    other = _held(cluster)
    lines: list[str] = []
    waiting = threading.Event()
    failed: list[BaseException] = []

    def out(line: str) -> None:
        lines.append(line)
        if "waiting for it to finish" in line:
            waiting.set()

    def run() -> None:
        session = open_session(_client(cluster), props_source(NodeLocalDNSProps()), read="deployable", out=out)
        try:
            deploy(session, DeployOptions(lease_timeout=120))
        except BaseException as error:  # the test thread reports it
            failed.append(error)

    thread = threading.Thread(target=run)
    thread.start()
    try:
        assert waiting.wait(60), lines
    finally:
        other.release()
    thread.join(120)

    assert not thread.is_alive() and failed == [], failed
    said = next(line for line in lines if "waiting for it to finish" in line)
    assert said.startswith(f"[5/7] {other.holder!r} holds lease/kube-system/node-local-dns-deploy since ")
    assert "[5/7] another deploy wrote the cluster meanwhile: reading it again" in lines
    assert sum(line.startswith("[1/7]") for line in lines) == 2
    assert cluster.fixture_api().get(PARENT) is not None
    assert _holder(cluster) is None


def test_past_the_lease_timeout_the_deploy_exits_6_on_one_line_with_nothing_applied(
    cluster: ControlPlane, capsys: pytest.CaptureFixture[str]
) -> None:
    other = _held(cluster)
    mark = cluster.audit_mark()
    try:
        code = main(["--kubeconfig", str(cluster.kubeconfig_path), "--lease-timeout", "0.5"])
        writes = cluster.mutating_requests_since(mark)
    finally:
        other.release()

    err = capsys.readouterr().err.strip()
    assert code == ExitCode.TIMEOUT, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert f"{other.holder!r} holds lease/kube-system/node-local-dns-deploy since " in err
    assert "(--lease-timeout): another deploy of this cluster is still writing, and this one applied nothing" in err
    assert writes == []


def test_a_deploy_with_nothing_to_write_takes_no_lease_and_a_deploy_gives_its_lease_up(cluster: ControlPlane) -> None:
    lines = _deploy(cluster, NodeLocalDNSProps())
    assert (
        "[5/7] holding lease/kube-system/node-local-dns-deploy (one deploy of this cluster writes at a time)" in lines
    )
    assert cluster.fixture_api().get(LEASE) is not None and _holder(cluster) is None
    mark = cluster.audit_mark()

    _deploy(cluster, NodeLocalDNSProps())

    assert cluster.mutating_requests_since(mark) == []


def test_a_lease_whose_holder_stopped_renewing_is_taken_over_at_once(cluster: ControlPlane) -> None:
    killed = {
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": {"name": "node-local-dns-deploy", "namespace": "kube-system"},
        "spec": {
            "holderIdentity": "ci-runner/1/killed",
            "leaseDurationSeconds": 60,
            "acquireTime": "2026-01-01T00:00:00.000000Z",
            "renewTime": "2026-01-01T00:00:00.000000Z",
        },
    }
    cluster.fixture_api().request(
        "PATCH", LEASE, body=killed, query={"fieldManager": "nld-deploy-lease-killed"},
        content_type="application/apply-patch+yaml",
    )  # fmt: skip

    lines = _deploy(cluster, NodeLocalDNSProps())

    assert not any("waiting for it to finish" in line for line in lines), lines
    assert (
        "[5/7] holding lease/kube-system/node-local-dns-deploy (one deploy of this cluster writes at a time)" in lines
    )
    assert _holder(cluster) is None


def test_a_deploy_started_while_another_writes_gives_way_and_the_set_stays_whole(cluster: ControlPlane) -> None:
    _deploy(cluster, NodeLocalDNSProps())
    gave_way: list[str] = []

    def deploy_without_the_dashboard() -> None:
        # The first deploy holds the Lease and waits on this one (same thread): its wait must end.
        with pytest.raises(WaitTimeoutError) as refused:
            _deploy(cluster, WITHOUT_DASHBOARD, DeployOptions(lease_timeout=0.5))
        gave_way.append(str(refused.value))

    with before_apply_of("ConfigMap", deploy_without_the_dashboard):
        _deploy(cluster, NodeLocalDNSProps(dashboard=True))

    assert len(gave_way) == 1 and "another deploy of this cluster is still writing" in gave_way[0]
    parent = cluster.fixture_api().get(PARENT)
    assert parent is not None and "ConfigMap/monitoring/nodelocaldns-dashboard" in parent["data"]["members"]
    assert cluster.fixture_api().get(DASHBOARD) is not None
    _deploy(cluster, WITHOUT_DASHBOARD)
    parent = cluster.fixture_api().get(PARENT)
    assert parent is not None and "monitoring" not in parent["data"]["members"]
    assert cluster.fixture_api().get(DASHBOARD) is None
    MATRIX.append("deploy: another app's deploy while it writes; that one waits for the Lease, the set stays whole")


def test_a_write_between_a_deploys_reads_and_its_lease_sends_it_back_to_its_reads(
    cluster: ControlPlane, monkeypatch: pytest.MonkeyPatch
) -> None:
    _deploy(cluster, NodeLocalDNSProps())
    acquire = DeployLease.acquire
    ran: list[bool] = []

    def another_deploy_first(self: DeployLease, **kwargs: object) -> bool:
        if not ran:
            ran.append(True)
            _deploy(cluster, NodeLocalDNSProps(dashboard=True))
        return acquire(self, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(DeployLease, "acquire", another_deploy_first)

    lines = _deploy(cluster, WITHOUT_DASHBOARD)

    assert ran == [True]
    assert "[5/7] another deploy wrote the cluster meanwhile: reading it again" in lines
    assert cluster.fixture_api().get(DASHBOARD) is None
    parent = cluster.fixture_api().get(PARENT)
    assert parent is not None and "monitoring" not in parent["data"]["members"]
    assert _holder(cluster) is None
    MATRIX.append("deploy: another deploy between its reads and its Lease; it reads again, its own app applied")


def _app_on(cluster: ControlPlane) -> str | None:
    """Which app the cluster runs, whole: ``dashboard``, ``plain``, or None for a mix of the two."""
    api = cluster.fixture_api()
    parent = api.get(PARENT)
    assert parent is not None
    recorded = "ConfigMap/monitoring/nodelocaldns-dashboard" in parent["data"]["members"]
    monitoring = api.get("/apis/monitoring.coreos.com/v1/namespaces/monitoring/podmonitors/nodelocaldns")
    if recorded and api.get(DASHBOARD) is not None and monitoring is not None:
        return "dashboard"
    if not recorded and "monitoring" not in parent["data"]["members"] and api.get(DASHBOARD) is None:
        return "plain" if monitoring is None else None
    return None


APP = '''"""The spec's component, {what}."""
import sys

from constructs_nld import NodeLocalDNSProps
from constructs_nld.app import main

sys.exit(main(NodeLocalDNSProps({props})))
'''


def test_two_deploys_of_different_apps_at_once_end_with_the_later_ones_app_whole(
    cluster: ControlPlane, tmp_path: Path
) -> None:
    apps = {
        "dashboard": APP.format(what="with the dashboard", props="dashboard=True"),
        "plain": APP.format(what="without monitoring", props="dashboard=False, monitoring=False"),
    }
    runs = {}
    for name, text in apps.items():
        (tmp_path / f"{name}.py").write_text(text)
        command = [sys.executable, "deploy.py", "--kubeconfig", str(cluster.kubeconfig_path)]
        runs[name] = subprocess.Popen(
            [*command, "--app", f"python {tmp_path / name}.py", "--lease-timeout", "120"],
            cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
    outputs = {name: run.communicate(timeout=180) for name, run in runs.items()}

    assert {name: run.returncode for name, run in runs.items()} == {"dashboard": 0, "plain": 0}, outputs
    again = [name for name, (out, _) in outputs.items() if "reading it again" in out]
    assert len(again) <= 1, outputs
    assert _app_on(cluster) in ([again[0]] if again else ["dashboard", "plain"]), outputs
    assert _holder(cluster) is None
    MATRIX.append("deploy: two deploys of different apps at once; both succeed, the later one's app whole")
