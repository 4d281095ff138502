"""``verify``'s interception-mode check on the simulated fleet: the statuses are kwok's, the pods the controller's.

The fallthrough mode adds a keeper container to each pod; what the API shows of it is its
readiness (its probe runs on the node) and which mode each pod's node-cache runs. kwok's
fates make a keeper crash-loop or fail its image pull while node-cache runs, and a
stalled rollout leaves pods of the old mode on their nodes, as on a real cluster.
"""

from __future__ import annotations

import pytest

from constructs_nld import NodeLocalDNSProps
from constructs_nld.deploy.cli import main
from constructs_nld.deploy.errors import StalledError
from tests.fleet import fleet_node
from tests.integration.test_fleet import POD_LABELS, deploy_and_wait, pod_nodes, run_verify
from tests.simcluster import PodFate, SimulatedCluster

FALLTHROUGH = NodeLocalDNSProps(interception="fallthrough")
KEEPER = "keeper"


def test_fallthrough_with_every_keeper_ready_passes(sim: SimulatedCluster) -> None:
    sim.add_nodes([fleet_node("cpu", 1), fleet_node("cpu", 2)])
    deploy_and_wait(sim, FALLTHROUGH)

    results = run_verify(sim, FALLTHROUGH)

    assert {name for name, r in results.items() if r.status != "pass"} == {"cache-memory-budget"}  # the spec's
    assert results["interception-mode"].detail.startswith(
        f"fallthrough: {KEEPER} ready on 2 pod(s) (0 restart(s)): the keeper's socket-conditional rules"
    )
    assert results["live-matches-app"].detail == "8 object(s) as the app configures them"


def test_a_keeper_not_ready_fails_and_names_its_node(sim: SimulatedCluster) -> None:
    sim.add_nodes([fleet_node("cpu", 1), fleet_node("cpu", 2), fleet_node("cpu", 3)])
    sim.set_pod_fates(
        PodFate(labels=POD_LABELS, nodes=("cpu-2",), start="crash-loop", containers=(KEEPER,)),
        PodFate(labels=POD_LABELS, nodes=("cpu-3",), start="image-pull-backoff", containers=(KEEPER,)),
    )
    deploy_and_wait(sim, FALLTHROUGH, wait=False)
    sim.wait_for("a pod on each node", lambda: pod_nodes(sim) == ["cpu-1", "cpu-2", "cpu-3"])
    sim.wait_for(
        "every pod with container statuses",
        lambda: all(p.get("status", {}).get("containerStatuses") for p in sim.pods("kube-system", POD_LABELS)),
    )

    results = run_verify(sim, FALLTHROUGH)
    result = results["interception-mode"]

    assert result.status == "fail"
    assert result.detail == (
        f"{KEEPER} not ready on 2 node(s): "
        "cpu-2 (CrashLoopBackOff, 5 restart(s)), cpu-3 (ImagePullBackOff, 0 restart(s))"
    )
    assert "unconditional NOTRACK of the kube-dns ClusterIP" in result.diagnosis
    assert result.fix.endswith(f"kubectl logs -n kube-system <pod> -c {KEEPER}")
    # node-cache itself runs in every pod: the keeper is what the check names.
    for pod in sim.pods("kube-system", POD_LABELS):
        statuses = {s["name"]: s["ready"] for s in pod["status"]["containerStatuses"]}
        assert statuses["node-cache"] is True


def test_pods_still_in_the_other_mode_fail_as_an_unfinished_rollout(sim: SimulatedCluster) -> None:
    sim.add_nodes([fleet_node("cpu", 1), fleet_node("cpu", 2)])
    deploy_and_wait(sim)
    # The first new pod's keeper never gets ready: maxUnavailable (1 of 2 nodes) is used up
    # and the other node keeps its pod of the node-cache mode.
    sim.set_pod_fates(PodFate(labels=POD_LABELS, start="crash-loop", containers=(KEEPER,)))

    with pytest.raises(StalledError):
        deploy_and_wait(sim, FALLTHROUGH, stall_after=3.0)
    result = run_verify(sim, FALLTHROUGH)["interception-mode"]

    assert result.status == "fail"
    assert result.detail.startswith("1 pod(s) still run the node-cache mode: cpu-")
    assert result.diagnosis.startswith("the rollout to fallthrough is unfinished: those nodes run node-cache's own")
    assert result.fix == "kubectl rollout status ds node-local-dns -n kube-system"


def test_a_live_daemon_set_of_the_other_mode_fails(sim: SimulatedCluster) -> None:
    sim.add_nodes([fleet_node("cpu", 1)])
    assert main(["--kubeconfig", str(sim.control_plane.kubeconfig_path), "--wait"]) == 0

    results = run_verify(sim, FALLTHROUGH)

    assert results["interception-mode"].status == "fail"
    assert results["interception-mode"].detail == (
        "the live DaemonSet runs the node-cache mode, the app configures fallthrough"
    )
    assert results["interception-mode"].fix == "python deploy.py"
    assert results["live-matches-app"].status == "fail"
