"""What every verify check reads: the app's component and the live cluster, each read once and shared.

A check is a function of a :class:`Cluster` returning a :class:`CheckResult`; the live
objects it needs are read on first use, so a check that does not need the nodes costs no
node list, and two checks that need the pods share one list.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cached_property
from typing import Final, Literal

from constructs_nld.deploy.component import Component
from constructs_nld.deploy.cutover import CutoverState, state_of
from constructs_nld.deploy.kube import KubeClient, Manifest, ObjectRef
from constructs_nld.deploy.manifest import (
    KARPENTER_DISRUPTION_TAINTS,
    MONITORING_GROUP,
    created_at,
    has_condition,
    node_essentials,
    tolerates,
    without_bookkeeping,
)
from constructs_nld.deploy.program import command_line
from constructs_nld.deploy.source import AppChart

__all__ = [
    "TRANSITION_GRACE",
    "Check",
    "CheckResult",
    "Cluster",
    "Status",
    "format_result",
]

Status = Literal["pass", "fail", "warn"]

TRANSITION_GRACE: Final = timedelta(minutes=5)
"""A node younger than this is in transition: its node-cache pod may still be pulling the image."""

_CONDITION_TAINT_PREFIX: Final = "node.kubernetes.io/"
"""Taints the node controller sets from node conditions (not-ready, memory-pressure, …)."""


@dataclass(frozen=True)
class CheckResult:
    """The outcome of one check: what it saw, and for a failure the likely cause and the fix."""

    name: str
    status: Status
    detail: str
    diagnosis: str = ""
    fix: str = ""


def format_result(result: CheckResult) -> str:
    """One line per check; failures add the diagnosis and the fix on their own lines."""
    line = f"{result.status.upper():4} {result.name}: {result.detail}"
    if result.status != "pass":
        if result.diagnosis:
            line += f"\n     cause: {result.diagnosis}"
        if result.fix:
            line += f"\n     fix:   {result.fix}"
    return line


@dataclass
class Cluster:
    """The app's NodeLocal DNS and the live cluster, for the checks."""

    client: KubeClient
    component: Component
    kube_dns: Manifest | None
    now: datetime
    charts: tuple[AppChart, ...] = ()
    """The app's charts as synthesized for this cluster (the ``rolled-back`` check compares their digest)."""
    _objects: dict[ObjectRef, Manifest | None] = field(default_factory=dict, repr=False)

    def live(self, manifest: Manifest) -> Manifest | None:
        """The live object of an app's manifest (read once)."""
        ref = ObjectRef.of(manifest)
        if ref not in self._objects:
            self._objects[ref] = self.client.get(ref)
        return self._objects[ref]

    @property
    def namespace(self) -> str:
        """The namespace of the node-cache pods."""
        return self.component.namespace

    @property
    def ds_name(self) -> str:
        """The DaemonSet's name."""
        return str(self.component.daemon_set["metadata"]["name"])

    @cached_property
    def daemon_set(self) -> Manifest | None:
        """The live DaemonSet."""
        return self.live(self.component.daemon_set)

    @cached_property
    def cutover(self) -> CutoverState | None:
        """The cutover in progress on the live DaemonSet, if one is."""
        return state_of(self.daemon_set)

    @cached_property
    def upstream(self) -> Manifest | None:
        """The live kube-dns-upstream."""
        return self.live(self.component.upstream_service)

    @cached_property
    def nodes(self) -> list[Manifest]:
        """Every node, as much of it as the checks read (:func:`~constructs_nld.deploy.manifest.node_essentials`)."""
        return self.client.list("v1", "Node", None, keep=node_essentials)

    @cached_property
    def pods(self) -> list[Manifest]:
        """The node-cache pods (the DaemonSet's selector)."""
        return self.client.list(
            "v1", "Pod", self.namespace, label_selector=self.component.pod_selector, keep=without_bookkeeping
        )

    @cached_property
    def monitoring_served(self) -> set[str]:
        """The prometheus-operator resources the cluster serves (none without its CRDs)."""
        return self.client.served_resources(f"{MONITORING_GROUP}/v1") or set()

    @property
    def rollout_status(self) -> str:
        """The command that shows the DaemonSet's rollout."""
        return f"kubectl rollout status ds {self.ds_name} -n {self.namespace}"

    @property
    def rollout_restart(self) -> str:
        """The command that restarts the DaemonSet's pods."""
        return f"kubectl rollout restart ds {self.ds_name} -n {self.namespace}"

    def untolerated(self, node: Manifest) -> list[str]:
        """The taints of ``node`` that keep node-cache off it: not tolerated, not a condition, not Karpenter's."""
        taints = node.get("spec", {}).get("taints") or []
        return [
            f"{t['key']}{'=' + t['value'] if t.get('value') else ''}:{t['effect']}"
            for t in taints
            if t.get("effect") in ("NoSchedule", "NoExecute")
            # Node-condition taints: the DaemonSet controller tolerates them or they pass.
            and not t.get("key", "").startswith(_CONDITION_TAINT_PREFIX)
            and t.get("key") not in KARPENTER_DISRUPTION_TAINTS
            and not any(tolerates(tol, t) for tol in self.component.tolerations)
        ]

    def in_transition(self, node: Manifest) -> str:
        """Why ``node`` is in transition (being deleted, cordoned, disrupted, not ready, new), or ""."""
        if node["metadata"].get("deletionTimestamp"):
            return "being deleted"
        if node.get("spec", {}).get("unschedulable"):
            return "cordoned"
        if any(t.get("key") in KARPENTER_DISRUPTION_TAINTS for t in node.get("spec", {}).get("taints") or []):
            return "disrupted by Karpenter"
        if not has_condition(node):
            return "not ready"
        if self.now - created_at(node) < TRANSITION_GRACE:
            return "new"
        return ""

    def not_deployed(self, name: str, what: str, diagnosis: str) -> CheckResult:
        """The failure of a check whose object is missing: deploy it."""
        return CheckResult(name, "fail", f"{what} not found", diagnosis, command_line())


Check = Callable[[Cluster], CheckResult]
"""A verify check: one function of the cluster, registered in :data:`constructs_nld.deploy.checks.CHECKS`."""
