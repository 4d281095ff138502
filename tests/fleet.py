"""Simulated nodes shaped like the EKS fleet NodeLocal DNS runs on.

Labels and taints follow what EKS managed node groups and Karpenter put on nodes: a base
node group tainted ``CriticalAddonsOnly``, Karpenter node pools for CPU and GPU work
tainted ``node-fleet`` (GPU nodes also ``nvidia.com/gpu``), and the nodes a live fleet
always has a few of: one cordoned (``kubectl cordon``), one NotReady, one Karpenter is
disrupting (``karpenter.sh/unschedulable``, which NodeLocal DNS deliberately does not
tolerate, see the spec's "Explicit tolerations").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

__all__ = ["NOT_READY_ANNOTATION", "FleetNode", "Role", "eks_fleet", "fleet_node", "node_manifest"]

Role = Literal["base", "cpu", "gpu", "cordoned", "not-ready", "disrupted", "dedicated"]

KWOK_ANNOTATION: Final = ("kwok.x-k8s.io/node", "fake")
"""The annotation kwok's ``--manage-nodes-with-annotation-selector`` picks its nodes by."""

NOT_READY_ANNOTATION: Final = "sim.nld.test/not-ready"
"""A node carrying it is created NotReady, and kwok's Stages leave its condition alone."""

_ZONES: Final = ("us-east-1a", "us-east-1b", "us-east-1c")


@dataclass(frozen=True)
class FleetNode:
    """One simulated node: what it is called, what it carries, how it behaves."""

    name: str
    role: Role
    labels: Mapping[str, str] = field(default_factory=dict)
    taints: tuple[Mapping[str, str], ...] = ()
    cordoned: bool = False
    """``spec.unschedulable``, as ``kubectl cordon`` sets it."""
    ready: bool = True
    """False: created with Ready=False, which kwok leaves as it is; the node lifecycle controller keeps it tainted."""
    allocatable_cpu: str | None = None
    """CPU the node offers (default: kwok's ample 1k); a small value leaves no room for a 25m request."""
    address: str | None = None
    """The InternalIP the node reports, and its hostNetwork pods' IP (default: kwok's one address for every node)."""


def _labels(name: str, index: int, instance_type: str, extra: Mapping[str, str]) -> dict[str, str]:
    return {
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "node.kubernetes.io/instance-type": instance_type,
        "topology.kubernetes.io/region": "us-east-1",
        "topology.kubernetes.io/zone": _ZONES[index % len(_ZONES)],
        "type": "kwok",
        **extra,
    }


def fleet_node(role: Role, number: int, index: int = 0) -> FleetNode:
    """Node ``{role}-{number}`` with that role's labels and taints (``index`` picks its zone)."""
    name = f"{role}-{number}"
    fleet: dict[str, str] = {"key": "node-fleet", "value": role, "effect": "NoSchedule"}
    taints: tuple[Mapping[str, str], ...]
    karpenter = {"karpenter.sh/nodepool": f"{role}-fleet", "karpenter.sh/capacity-type": "on-demand"}
    if role == "base":
        return FleetNode(
            name,
            role,
            _labels(name, index, "m6i.2xlarge", {"eks.amazonaws.com/nodegroup": "base"}),
            ({"key": "CriticalAddonsOnly", "value": "true", "effect": "NoSchedule"},),
        )
    if role == "gpu":
        labels = {**karpenter, "nvidia.com/gpu.present": "true", "nvidia.com/gpu.count": "8"}
        taints = ({"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}, fleet)
        return FleetNode(name, role, _labels(name, index, "p5.48xlarge", labels), taints)
    if role == "disrupted":
        taints = (
            {"key": "node-fleet", "value": "cpu", "effect": "NoSchedule"},
            {"key": "karpenter.sh/unschedulable", "effect": "NoSchedule"},
        )
        return FleetNode(name, role, _labels(name, index, "c7i.8xlarge", karpenter), taints)
    if role == "dedicated":
        taints = ({"key": "dedicated", "value": "ci", "effect": "NoSchedule"},)
        return FleetNode(name, role, _labels(name, index, "c7i.8xlarge", {"dedicated": "ci"}), taints)
    cpu = {"key": "node-fleet", "value": "cpu", "effect": "NoSchedule"}
    return FleetNode(
        name,
        role,
        _labels(name, index, "c7i.8xlarge", karpenter),
        (cpu, {"key": "instance-type", "value": "c7i.8xlarge", "effect": "NoSchedule"}),
        cordoned=role == "cordoned",
        ready=role != "not-ready",
    )


def eks_fleet(size: int, *, dedicated: int = 0) -> tuple[FleetNode, ...]:
    """``size`` nodes: 2 base, a fifth GPU, one each cordoned, NotReady and disrupted, the rest CPU.

    ``dedicated`` more nodes carry a ``dedicated=ci:NoSchedule`` taint the default
    tolerations do not cover (a team's own pool).
    """
    if size < 6:
        raise ValueError(f"size: must be at least 6 (every role once), got {size}")
    counts: dict[Role, int] = {"base": 2, "gpu": max(1, size // 5), "cordoned": 1, "not-ready": 1, "disrupted": 1}
    counts["cpu"] = size - sum(counts.values())
    counts["dedicated"] = dedicated
    nodes: list[FleetNode] = []
    for role, count in counts.items():
        nodes += [fleet_node(role, number, len(nodes) + number) for number in range(1, count + 1)]
    return tuple(nodes)


def node_manifest(node: FleetNode) -> dict[str, Any]:
    """The Node object to create; kwok manages it and fills in its status."""
    annotations = {KWOK_ANNOTATION[0]: KWOK_ANNOTATION[1]}
    if not node.ready:
        annotations[NOT_READY_ANNOTATION] = "true"
    manifest: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": node.name, "labels": dict(node.labels), "annotations": annotations},
        "spec": {"taints": [dict(t) for t in node.taints], "unschedulable": node.cordoned},
    }
    status: dict[str, Any] = {}
    if node.allocatable_cpu is not None:
        resources = {"cpu": node.allocatable_cpu, "memory": "64Gi", "pods": "110"}
        status.update(allocatable=resources, capacity=resources)
    if node.address is not None:
        status["addresses"] = [
            {"type": "InternalIP", "address": node.address},
            {"type": "Hostname", "address": node.name},
        ]
    if not node.ready:
        # NotReady from the start, as a node whose kubelet never became ready: the node
        # lifecycle controller then keeps the not-ready:NoSchedule taint the API server puts
        # on every new node. Created without the condition, the node would lose that taint
        # for a moment (the controller sees no condition) and could get a DaemonSet pod.
        status["conditions"] = [
            {"type": "Ready", "status": "False", "reason": "KubeletNotReady", "message": "container runtime is down"}
        ]
    if status:
        manifest["status"] = status
    return manifest
