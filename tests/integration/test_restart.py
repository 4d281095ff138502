"""The restart decided from the cluster's facts, on real pods the DaemonSet controller makes (issue 18, item 8).

With no restart recorded, node-cache pods older than kube-dns-upstream (or, portable, than
kube-dns) are the fact that decides: a client-side ``kubectl apply`` of our synth, Services
first, needs no restart; a DaemonSet applied before its Service needs one; so does a
Service recreated under running pods.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import yaml

from constructs_nld import NodeLocalDNSProps
from constructs_nld.deploy import DeployOptions, DeployReport, deploy, load_client, open_session, props_source
from tests.deploysh import kubectl
from tests.fleet import fleet_node
from tests.harness.clock import next_whole_second
from tests.simcluster import SimulatedCluster

POD_LABELS = {"k8s-app": "node-local-dns"}
UPSTREAM = "/api/v1/namespaces/kube-system/services/kube-dns-upstream"
KUBE_DNS = "/api/v1/namespaces/kube-system/services/kube-dns"
DAEMON_SET = "/apis/apps/v1/namespaces/kube-system/daemonsets/node-local-dns"
RESTART = "kubectl.kubernetes.io/restartedAt"


@dataclass(frozen=True)
class Deployed:
    report: DeployReport
    output: str


def run_deploy(sim: SimulatedCluster, props: NodeLocalDNSProps | None = None, **options: Any) -> Deployed:
    client = load_client(str(sim.control_plane.kubeconfig_path), None, timeout=10)
    lines: list[str] = []
    report = deploy(
        open_session(client, props_source(props or NodeLocalDNSProps()), read="deployable", out=lines.append),
        DeployOptions(**options),
    )
    return Deployed(report, "\n".join(lines))


WAIT: dict[str, Any] = {"wait": True, "stall_after": 30.0, "rollout_poll_interval": 0.1}


def with_nodes(sim: SimulatedCluster, count: int = 3) -> None:
    sim.add_nodes(fleet_node("cpu", i) for i in range(1, count + 1))


def pods_ready(sim: SimulatedCluster, count: int) -> list[dict[str, Any]]:
    """Wait for ``count`` Running node-cache pods, and return them."""

    def running() -> list[dict[str, Any]]:
        return [
            p
            for p in sim.pods("kube-system", POD_LABELS)
            if p.get("status", {}).get("phase") == "Running" and not p["metadata"].get("deletionTimestamp")
        ]

    sim.wait_for(f"{count} node-cache pods", lambda: len(running()) == count)
    return running()


def created(obj: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(obj["metadata"]["creationTimestamp"].replace("Z", "+00:00"))


def restarted_at(sim: SimulatedCluster) -> str | None:
    daemon_set = sim.control_plane.fixture_api().get(DAEMON_SET)
    assert daemon_set is not None
    value: str | None = (daemon_set["spec"]["template"]["metadata"].get("annotations") or {}).get(RESTART)
    return value


def synth_as_yaml(sim: SimulatedCluster, phase: str, props: NodeLocalDNSProps | None = None) -> str:
    """The app's chart of ``phase``, synthesized with the live ClusterIP, as kubectl would be given it."""
    kube_dns = sim.control_plane.fixture_api().get(KUBE_DNS)
    assert kube_dns is not None
    charts = props_source(props or NodeLocalDNSProps())(kube_dns["spec"]["clusterIP"])
    return yaml.safe_dump_all([o for c in charts if c.name == phase for o in c.objects], sort_keys=False)


def test_a_fresh_install_needs_no_restart(sim: SimulatedCluster) -> None:
    with_nodes(sim)

    deployed = run_deploy(sim, **WAIT)

    assert not deployed.report.restarted
    assert restarted_at(sim) is None
    upstream = sim.control_plane.fixture_api().get(UPSTREAM)
    assert upstream is not None
    assert all(created(pod) >= created(upstream) for pod in pods_ready(sim, 3))


def test_after_a_client_side_apply_of_the_synth_there_is_no_restart(sim: SimulatedCluster) -> None:
    with_nodes(sim)
    kubectl(sim.control_plane, "apply", "-f", "-", input=synth_as_yaml(sim, "services"))
    kubectl(sim.control_plane, "apply", "-f", "-", input=synth_as_yaml(sim, "workload"))
    kubectl(sim.control_plane, "apply", "-f", "-", input=synth_as_yaml(sim, "monitoring"))
    before = {p["metadata"]["uid"] for p in pods_ready(sim, 3)}

    deployed = run_deploy(sim)

    assert not deployed.report.restarted
    assert "[7/7] rollout restart: not needed" in deployed.output
    assert restarted_at(sim) is None
    assert {p["metadata"]["uid"] for p in pods_ready(sim, 3)} == before
    assert not run_deploy(sim).report.restarted


def test_a_daemon_set_applied_before_its_service_is_restarted(sim: SimulatedCluster) -> None:
    with_nodes(sim)
    kubectl(sim.control_plane, "apply", "-f", "-", input=synth_as_yaml(sim, "workload"))
    early = pods_ready(sim, 3)
    next_whole_second()
    kubectl(sim.control_plane, "apply", "-f", "-", input=synth_as_yaml(sim, "services"))

    deployed = run_deploy(sim, **WAIT)

    assert deployed.report.restarted
    assert "3 pod(s) predate kube-dns-upstream" in deployed.output
    upstream = sim.control_plane.fixture_api().get(UPSTREAM)
    assert upstream is not None
    now = pods_ready(sim, 3)
    assert {p["metadata"]["uid"] for p in now}.isdisjoint(p["metadata"]["uid"] for p in early)
    assert all(created(pod) >= created(upstream) for pod in now)
    assert not run_deploy(sim).report.restarted


def test_a_service_recreated_under_running_pods_restarts_them_once(sim: SimulatedCluster) -> None:
    with_nodes(sim)
    run_deploy(sim, **WAIT)
    pods_ready(sim, 3)
    sim.control_plane.fixture_api().request("DELETE", UPSTREAM)
    sim.wait_for("kube-dns-upstream gone", lambda: sim.control_plane.fixture_api().get(UPSTREAM) is None)
    next_whole_second()

    deployed = run_deploy(sim, **WAIT)

    assert deployed.report.restarted
    assert "first_deploy=no freshly_created=yes" in deployed.output
    assert "3 pod(s) predate kube-dns-upstream" in deployed.output
    assert restarted_at(sim) is not None
    assert not run_deploy(sim).report.restarted


def test_a_dry_run_of_a_needed_restart_persists_nothing(sim: SimulatedCluster) -> None:
    with_nodes(sim)
    run_deploy(sim, **WAIT)
    before = {p["metadata"]["uid"] for p in pods_ready(sim, 3)}
    sim.control_plane.fixture_api().request("DELETE", UPSTREAM)
    sim.wait_for("kube-dns-upstream gone", lambda: sim.control_plane.fixture_api().get(UPSTREAM) is None)
    # Timestamps have whole seconds: the pods must be a second older than the Service to come.
    next_whole_second()
    mark = sim.control_plane.audit_mark()

    deployed = run_deploy(sim, dry_run=True)

    assert not deployed.report.restarted
    assert "restarted at" in deployed.output and "(dry run)" in deployed.output
    assert sim.control_plane.mutating_requests_since(mark) == []
    restarts = [
        e
        for e in sim.control_plane.requests_since(mark)
        if "fieldManager=nld-deploy-rollout" in e["requestURI"] and "dryRun=All" in e["requestURI"]
    ]
    assert len(restarts) == 1
    assert restarted_at(sim) is None
    assert sim.control_plane.fixture_api().get(UPSTREAM) is None
    assert {p["metadata"]["uid"] for p in pods_ready(sim, 3)} == before


def test_portable_pods_older_than_a_recreated_kube_dns_are_restarted(sim: SimulatedCluster) -> None:
    with_nodes(sim)
    portable = NodeLocalDNSProps(portable=True)
    run_deploy(sim, portable, **WAIT)
    pods_ready(sim, 3)
    rest = sim.control_plane.fixture_api()
    kube_dns = rest.get(KUBE_DNS)
    assert kube_dns is not None
    rest.request("DELETE", KUBE_DNS)
    sim.wait_for("kube-dns gone", lambda: rest.get(KUBE_DNS) is None)
    next_whole_second()
    spec = {k: v for k, v in kube_dns["spec"].items() if k not in ("clusterIP", "clusterIPs")}
    rest.request(
        "POST",
        "/api/v1/namespaces/kube-system/services",
        body={
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "kube-dns", "labels": {"k8s-app": "kube-dns"}},
            "spec": spec,
        },
    )

    deployed = run_deploy(sim, portable, **WAIT)

    assert deployed.report.restarted
    assert "3 pod(s) predate kube-dns (created" in deployed.output
    recreated = rest.get(KUBE_DNS)
    assert recreated is not None
    assert all(created(pod) >= created(recreated) for pod in pods_ready(sim, 3))
    assert not run_deploy(sim, portable).report.restarted
