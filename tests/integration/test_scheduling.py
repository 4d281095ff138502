"""Where the node-cache pods run and what they carry, on real pods the DaemonSet controller and scheduler make.

The simulated cluster (:mod:`tests.simcluster`) runs the real kube-controller-manager and
kube-scheduler over kwok nodes shaped like the fleet (:mod:`tests.fleet`): the controller
makes a pod for each node the template's node selector and node affinity allow, the
scheduler binds it, and with ``OnDelete`` nothing is replaced until a pod is deleted.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from constructs_nld import NodeAffinity, NodeLocalDNSProps, NodeSelectorRequirement, NodeSelectorTerm
from tests.fleet import fleet_node
from tests.integration.test_restart import POD_LABELS, WAIT, run_deploy
from tests.simcluster import SimulatedCluster

INSTANCE_TYPE = "node.kubernetes.io/instance-type"


def fleet(sim: SimulatedCluster) -> None:
    """A base node (m6i.2xlarge), two CPU nodes (c7i.8xlarge) and a GPU node (p5.48xlarge)."""
    sim.add_nodes([fleet_node("base", 1), fleet_node("cpu", 1), fleet_node("cpu", 2, 1), fleet_node("gpu", 1)])


def live_pods(sim: SimulatedCluster) -> list[dict[str, Any]]:
    return [p for p in sim.pods("kube-system", POD_LABELS) if not p["metadata"].get("deletionTimestamp")]


def placed(sim: SimulatedCluster) -> set[str]:
    """The nodes the scheduler bound the node-cache pods to."""
    return {p["spec"]["nodeName"] for p in live_pods(sim) if p["spec"].get("nodeName")}


def test_the_node_selector_keeps_pods_to_the_nodes_that_carry_its_labels(sim: SimulatedCluster) -> None:
    fleet(sim)

    deployed = run_deploy(sim, NodeLocalDNSProps(node_selector={INSTANCE_TYPE: "c7i.8xlarge"}), **WAIT)

    assert deployed.report.rollout is not None and deployed.report.rollout.status.desired == 2
    assert placed(sim) == {"cpu-1", "cpu-2"}


def test_required_node_affinity_places_pods_only_on_matching_nodes(sim: SimulatedCluster) -> None:
    fleet(sim)
    affinity = NodeAffinity(
        required=(
            NodeSelectorTerm(
                match_expressions=(
                    NodeSelectorRequirement(key=INSTANCE_TYPE, operator="In", values=("m6i.2xlarge", "p5.48xlarge")),
                )
            ),
        )
    )

    run_deploy(sim, NodeLocalDNSProps(affinity=affinity), **WAIT)

    assert placed(sim) == {"base-1", "gpu-1"}


def test_the_pull_secret_annotations_and_extra_labels_reach_the_pods(sim: SimulatedCluster) -> None:
    fleet(sim)
    props = NodeLocalDNSProps(
        image_pull_secrets=("registry-mirror",),
        pod_annotations={"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"},
        pod_labels={"team": "platform-dns"},
    )

    run_deploy(sim, props, **WAIT)

    pods = live_pods(sim)
    assert len(pods) == 4
    for pod in pods:
        assert pod["spec"]["imagePullSecrets"] == [{"name": "registry-mirror"}]
        assert pod["metadata"]["annotations"]["cluster-autoscaler.kubernetes.io/safe-to-evict"] == "false"
        assert pod["metadata"]["labels"]["team"] == "platform-dns"
        assert pod["metadata"]["labels"]["k8s-app"] == "node-local-dns"


def test_on_delete_keeps_the_old_pods_until_each_is_deleted(sim: SimulatedCluster) -> None:
    fleet(sim)
    props = NodeLocalDNSProps(update_strategy="OnDelete")
    run_deploy(sim, props, **WAIT)
    before = {p["metadata"]["uid"]: p["spec"]["nodeName"] for p in live_pods(sim)}
    assert len(before) == 4

    changed = run_deploy(sim, replace(props, pod_annotations={"rev": "2"}), **WAIT)

    # --wait returns at once: the controller saw the template, every pod is available, none replaced.
    assert "OnDelete: 0/4 pods run the current template" in changed.output
    assert {p["metadata"]["uid"] for p in live_pods(sim)} == set(before)
    victim, node = next(iter(before.items()))
    sim.control_plane.fixture_api().request("DELETE", f"/api/v1/namespaces/kube-system/pods/{live_name(sim, victim)}")

    def replaced() -> bool:
        pods = {p["spec"].get("nodeName"): p for p in live_pods(sim)}
        new = pods.get(node)
        return new is not None and new["metadata"]["uid"] != victim

    sim.wait_for(f"a new pod on {node}", replaced)
    pods = {p["spec"]["nodeName"]: p for p in live_pods(sim)}
    assert (pods[node]["metadata"].get("annotations") or {}).get("rev") == "2"
    others = [p for n, p in pods.items() if n != node]
    assert {p["metadata"]["uid"] for p in others} == set(before) - {victim}
    assert all("rev" not in (p["metadata"].get("annotations") or {}) for p in others)


def live_name(sim: SimulatedCluster, uid: str) -> str:
    """The name of the live pod with ``uid``."""
    (name,) = [p["metadata"]["name"] for p in live_pods(sim) if p["metadata"]["uid"] == uid]
    return str(name)
