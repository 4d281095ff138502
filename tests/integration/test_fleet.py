"""deploy and verify on an EKS-shaped fleet where the controllers, the scheduler and kwok make the state.

Nothing here writes a status by hand: the DaemonSet controller creates and rolls the
pods, the scheduler places them where the taints allow, the node lifecycle controller
taints the NotReady node, kwok reports the pods Ready or failing as a test tells it
(:class:`~tests.simcluster.PodFate`). ``verify`` then reads what a production cluster
would show, and its checks are the production smoke test's conditions.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from constructs_nld import NodeLocalDNSProps, Toleration
from constructs_nld.deploy import (
    CheckResult,
    DeployOptions,
    DeployReport,
    deploy,
    load_client,
    open_session,
    props_source,
    verify,
)
from constructs_nld.deploy.cli import main
from constructs_nld.deploy.errors import StalledError
from constructs_nld.deploy.kube import KubeClient
from constructs_nld.props import default_tolerations
from tests.fleet import eks_fleet, fleet_node
from tests.harness.clock import next_whole_second
from tests.simcluster import PodFate, SimulatedCluster

POD_LABELS = {"k8s-app": "node-local-dns"}
LATER = datetime.now(UTC) + timedelta(days=1)
"""A 'now' after every node's creation: no node counts as new unless a test says so."""
UPSTREAM = "/api/v1/namespaces/kube-system/services/kube-dns-upstream"
DAEMON_SET = "/apis/apps/v1/namespaces/kube-system/daemonsets/node-local-dns"
FLEET_12_WITH_PODS = [
    "base-1",
    "base-2",
    "cordoned-1",
    "cpu-1",
    "cpu-2",
    "cpu-3",
    "cpu-4",
    "cpu-5",
    "gpu-1",
    "gpu-2",
]
"""The nodes of ``eks_fleet(12)`` node-cache runs on: all but not-ready-1 and disrupted-1."""


def client_of(sim: SimulatedCluster) -> KubeClient:
    return load_client(str(sim.control_plane.kubeconfig_path), None, timeout=10)


def deploy_and_wait(sim: SimulatedCluster, props: NodeLocalDNSProps | None = None, **options: Any) -> DeployReport:
    settings: dict[str, Any] = {"wait": True, "stall_after": 30.0, "rollout_poll_interval": 0.1, **options}
    return deploy(
        open_session(
            client_of(sim), props_source(props or NodeLocalDNSProps()), read="deployable", out=lambda line: None
        ),
        DeployOptions(**settings),
    )


def run_verify(
    sim: SimulatedCluster, props: NodeLocalDNSProps | None = None, *, now: datetime = LATER
) -> dict[str, CheckResult]:
    results = verify(
        open_session(client_of(sim), props_source(props or NodeLocalDNSProps()), read="installed"), now=now
    )
    return {result.name: result for result in results}


def pod_nodes(sim: SimulatedCluster) -> list[str]:
    """The nodes node-cache pods are scheduled to (pods not scheduled or being deleted left out)."""
    return sorted(
        pod["spec"]["nodeName"]
        for pod in sim.pods("kube-system", POD_LABELS)
        if pod["spec"].get("nodeName") and not pod["metadata"].get("deletionTimestamp")
    )


def status(sim: SimulatedCluster) -> tuple[int, int, int]:
    """(desired, updated, ready) as the DaemonSet controller reports them."""
    daemon_set = sim.control_plane.fixture_api().get(DAEMON_SET) or {}
    reported = daemon_set.get("status", {})
    return (
        reported.get("desiredNumberScheduled", 0),
        reported.get("updatedNumberScheduled", 0),
        reported.get("numberReady", 0),
    )


def passed_but_the_specs_cache_budget(results: dict[str, CheckResult]) -> bool:
    """Every check passed, but ``cache-memory-budget``, which warns of the spec's caches: full, they exceed 100Mi."""
    others = {r.status for name, r in results.items() if name != "cache-memory-budget"}
    return others == {"pass"} and results["cache-memory-budget"].status == "warn"


def node_created(sim: SimulatedCluster, name: str) -> datetime:
    node = sim.control_plane.fixture_api().get(f"/api/v1/nodes/{name}")
    assert node is not None
    return datetime.fromisoformat(node["metadata"]["creationTimestamp"].replace("Z", "+00:00"))


def test_pods_land_where_the_tolerations_allow_and_verify_passes_like_the_smoke_test(
    sim: SimulatedCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    sim.add_nodes(eks_fleet(12))
    kubeconfig = str(sim.control_plane.kubeconfig_path)
    assert main(["--kubeconfig", kubeconfig, "verify"]) == 7
    assert "FAIL daemonset-healthy: daemonset node-local-dns not found" in capsys.readouterr().out

    report = deploy_and_wait(sim)

    assert report.rollout is not None and report.rollout.status.desired == 10
    assert pod_nodes(sim) == FLEET_12_WITH_PODS
    results = run_verify(sim)
    assert {name: r.status for name, r in results.items()} == {
        "daemonset-healthy": "pass",
        "metrics-service-headless": "pass",
        "upstream-service-selects-kube-dns": "pass",
        "upstream-traffic-distribution": "pass",
        "no-unsubstituted-placeholder": "pass",
        "pods-created-after-upstream-service": "pass",
        "node-cache-intercepts-kube-dns": "pass",
        "node-taints-tolerated": "pass",
        "cache-memory-budget": "warn",  # the spec's caches, full, exceed its 100Mi (docs/configuration.md)
        "alert-metric-prefix": "pass",
        "podmonitor-scrapes-both-ports": "pass",
        "interception-mode": "pass",
        "live-matches-app": "pass",
        "kube-dns-configmap": "pass",
        "cutover-in-progress": "pass",
        "rolled-back": "pass",
    }
    assert results["daemonset-healthy"].detail == (
        "ready on 10 node(s); desired 10, ready 10, updated 10; "
        "skipped in transition: disrupted-1 (disrupted by Karpenter), not-ready-1 (not ready)"
    )
    assert results["pods-created-after-upstream-service"].detail == "all 10 pod(s) created after the Service"
    capsys.readouterr()
    assert main(["--kubeconfig", kubeconfig, "verify"]) == 0
    assert "15 passed, 1 warned, 0 failed" in capsys.readouterr().out


def test_a_taint_beyond_the_tolerations_keeps_the_pod_off_until_the_app_tolerates_it(sim: SimulatedCluster) -> None:
    team_pool = replace(
        fleet_node("dedicated", 1),
        taints=(
            {"key": "dedicated", "value": "ci", "effect": "NoSchedule"},
            {"key": "spot", "effect": "NoExecute"},
            {"key": "soft", "effect": "PreferNoSchedule"},
        ),
    )
    sim.add_nodes([*eks_fleet(6), team_pool])
    deploy_and_wait(sim)

    assert "dedicated-1" not in pod_nodes(sim)
    results = run_verify(sim)
    assert results["node-taints-tolerated"].status == "fail"
    assert results["node-taints-tolerated"].detail == (
        "taints not tolerated: dedicated-1: dedicated=ci:NoSchedule, spot:NoExecute"
    )
    assert results["daemonset-healthy"].status == "pass"
    assert "dedicated-1 (untolerated taints)" in results["daemonset-healthy"].detail

    tolerant = replace(
        NodeLocalDNSProps(),
        tolerations=(
            *default_tolerations(),
            Toleration(key="dedicated", operator="Exists"),
            Toleration(key="spot", operator="Exists", effect="NoExecute"),
        ),
    )
    report = deploy_and_wait(sim, tolerant)

    assert report.rollout is not None and report.rollout.max_unavailable <= 1
    assert "dedicated-1" in pod_nodes(sim)
    results = run_verify(sim, tolerant)
    assert passed_but_the_specs_cache_budget(results), results


def test_pods_older_than_a_recreated_upstream_service_fail_verify_and_a_deploy_rolls_them_all(
    sim: SimulatedCluster,
) -> None:
    sim.add_nodes(eks_fleet(12))
    deploy_and_wait(sim)
    before = {pod["metadata"]["uid"] for pod in sim.pods("kube-system", POD_LABELS)}
    rest = sim.control_plane.fixture_api()
    upstream = rest.get(UPSTREAM)
    assert upstream is not None
    rest.request("DELETE", UPSTREAM)
    sim.wait_for("kube-dns-upstream to be deleted", lambda: rest.get(UPSTREAM) is None)
    next_whole_second()
    spec = {k: v for k, v in upstream["spec"].items() if k not in ("clusterIP", "clusterIPs")}
    metadata = {"name": "kube-dns-upstream", "namespace": "kube-system", "labels": upstream["metadata"]["labels"]}
    services = "/api/v1/namespaces/kube-system/services"
    rest.request("POST", services, body={**upstream, "metadata": metadata, "spec": spec})

    result = run_verify(sim)["pods-created-after-upstream-service"]
    assert result.status == "fail"
    assert result.detail.startswith("10 pod(s) predate kube-dns-upstream: node-local-dns-")
    assert result.fix == "kubectl rollout restart ds node-local-dns -n kube-system"

    report = deploy_and_wait(sim)

    assert report.restarted
    assert report.rollout is not None
    assert report.rollout.max_unavailable <= 1  # maxUnavailable 1% of 10 nodes
    assert report.rollout.waves >= 2
    pods = sim.pods("kube-system", POD_LABELS)
    assert len(pods) == 10 and not before & {pod["metadata"]["uid"] for pod in pods}
    recreated = rest.get(UPSTREAM)
    assert recreated is not None
    assert all(pod["metadata"]["creationTimestamp"] >= recreated["metadata"]["creationTimestamp"] for pod in pods)
    assert passed_but_the_specs_cache_budget(run_verify(sim))


def test_new_nodes_whose_pods_cannot_start_are_in_transition_until_they_hold_up_a_rollout(
    sim: SimulatedCluster,
) -> None:
    sim.add_nodes(eks_fleet(6))
    deploy_and_wait(sim)
    sim.set_pod_fates(PodFate(labels=POD_LABELS, nodes=("gpu-2",), start="image-pull-backoff"))
    full = replace(fleet_node("cpu", 9), name="full-1", allocatable_cpu="10m")  # no room for a 25m request
    sim.add_nodes([fleet_node("gpu", 2), full])
    sim.wait_for("6 pods, 4 of them ready", lambda: status(sim) == (6, 6, 4) and len(pod_nodes(sim)) == 5)
    young = node_created(sim, "full-1") + timedelta(minutes=1)

    settled = run_verify(sim)["daemonset-healthy"]
    new = run_verify(sim, now=young)["daemonset-healthy"]

    assert settled.status == "fail"
    assert settled.detail.startswith(
        "2 node(s) without a ready node-cache pod: full-1 (Unschedulable), gpu-2 (ImagePullBackOff)"
    )
    assert "image pull" in settled.diagnosis and "kubectl logs" in settled.fix
    assert new.status == "pass"
    assert new.detail == (
        "ready on 4 node(s); desired 6, ready 4, updated 6; skipped in transition: "
        "disrupted-1 (disrupted by Karpenter), full-1 (new), gpu-2 (new), not-ready-1 (not ready)"
    )

    # Two unavailable pods use up maxUnavailable (1% of 6 nodes: 1): the controller replaces
    # them and can take down no healthy pod, so the rollout of a template change stops there.
    changed = replace(NodeLocalDNSProps(), cpu_request="30m")
    with pytest.raises(StalledError) as stalled:
        deploy_and_wait(sim, changed, stall_after=5.0)
    unfinished = run_verify(sim, changed, now=young)["daemonset-healthy"]

    message = str(stalled.value)
    assert message.startswith(
        "rollout of daemonset/kube-system/node-local-dns stalled: no pod became ready for 5s "
        "(updated 2/6, ready 4/6, unavailable 2); not ready: node-local-dns-"
    )
    assert " on full-1 (Unschedulable)" in message and " on gpu-2 (ImagePullBackOff: Back-off pulling image)" in message
    assert message.splitlines()[1].startswith("  to roll back, run ")
    assert unfinished.status == "fail"
    assert unfinished.detail.startswith(
        "rollout unfinished: 2 of 6 pods run the current template (desired 6, ready 4, updated 2)"
    )


def test_a_daemon_set_without_ready_pods_fails_however_new_the_nodes(sim: SimulatedCluster) -> None:
    sim.add_nodes([fleet_node("dedicated", 1), fleet_node("not-ready", 1)])
    deploy_and_wait(sim)
    young = node_created(sim, "dedicated-1") + timedelta(minutes=1)

    result = run_verify(sim, now=young)["daemonset-healthy"]

    assert result.status == "fail"
    assert result.detail == (
        "no node runs node-cache (desired 0, ready 0, updated 0); "
        "skipped in transition: dedicated-1 (new), not-ready-1 (not ready)"
    )
    assert "nothing is cached anywhere" in result.diagnosis
    assert "tolerations" in result.fix and "kubectl describe pod" in result.fix

    sim.set_pod_fates(PodFate(labels=POD_LABELS, start="crash-loop", message="plugin/forward: no upstream"))
    sim.add_nodes([fleet_node("base", 1), fleet_node("gpu", 1)])
    sim.wait_for("two crash-looping pods", lambda: status(sim) == (2, 2, 0) and len(crashing(sim)) == 2)
    result = run_verify(sim, now=young)["daemonset-healthy"]

    assert result.status == "fail"
    assert result.detail.startswith("no node-cache pod is ready (desired 2, ready 0, updated 2)")


def crashing(sim: SimulatedCluster) -> list[str]:
    return [
        pod["metadata"]["name"]
        for pod in sim.pods("kube-system", POD_LABELS)
        for container in pod.get("status", {}).get("containerStatuses") or []
        if container.get("state", {}).get("waiting", {}).get("reason") == "CrashLoopBackOff"
    ]


def test_a_controller_that_is_not_running_fails_verify_and_stalls_a_wait(sim: SimulatedCluster) -> None:
    sim.add_nodes(eks_fleet(6))
    deploy_and_wait(sim)
    sim.controller_manager.stop()
    try:
        with pytest.raises(StalledError) as stalled:
            deploy_and_wait(sim, replace(NodeLocalDNSProps(), cpu_request="30m"), stall_after=2.0)
        result = run_verify(sim, replace(NodeLocalDNSProps(), cpu_request="30m"))["daemonset-healthy"]
    finally:
        sim.controller_manager.start()

    assert str(stalled.value).startswith(
        "rollout of daemonset/kube-system/node-local-dns stalled: the DaemonSet controller has not observed "
        "generation 2 (observed 1) for 2s: is kube-controller-manager running?"  # a fresh install restarts nothing
    )
    assert result.status == "fail"
    assert result.detail.startswith("the DaemonSet controller has not observed generation 2 (observed 1;")
    assert "kube-controller-manager" in result.fix
