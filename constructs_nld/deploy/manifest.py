"""Reading manifests and live objects the way every command needs: one helper per question, written once.

Selectors, readiness, where a pod runs and why it is not ready, creation times, taints,
what tools record on an object, the interception mode a pod runs, and the kube-dns Service
every command starts from.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Final

from constructs_nld import defaults
from constructs_nld.deploy.kube import ObjectRef
from constructs_nld.keeper import SETUP_IPTABLES_OFF
from constructs_nld.props import Interception, check_ipv6_address

__all__ = [
    "CLIENT_SIDE_APPLY_MANAGERS",
    "KARPENTER_DISRUPTION_TAINTS",
    "KUBE_DNS",
    "LAST_APPLIED_ANNOTATION",
    "MONITORING_GROUP",
    "created_at",
    "field_managers",
    "flag",
    "has_condition",
    "interception_of",
    "is_monitoring",
    "is_ready",
    "keeper_container",
    "main_resource",
    "not_ready_reasons",
    "same_address",
    "selector",
    "target_node",
    "tolerates",
    "usable_cluster_ip",
    "without_bookkeeping",
]

KUBE_DNS: Final = ObjectRef("v1", "Service", defaults.NAMESPACE, defaults.KUBE_DNS_SERVICE_NAME)
"""Cluster DNS: the Service whose ClusterIP node-cache intercepts (NodeLocal DNS never writes it)."""

KARPENTER_DISRUPTION_TAINTS: Final = frozenset(
    {"karpenter.sh/unschedulable", "karpenter.sh/disrupted", "karpenter.sh/disruption"}
)
"""Taints Karpenter puts on a node it is draining for consolidation or replacement. The spec
tolerates them deliberately never (tolerating them blocks consolidation): such a node is in
transition, not a gap in the app's tolerations."""

MONITORING_GROUP: Final = defaults.MONITORING_GROUP
"""The prometheus-operator API group: served only where its CRDs are installed."""

LAST_APPLIED_ANNOTATION: Final = "kubectl.kubernetes.io/last-applied-configuration"
"""Client-side ``kubectl apply``'s record of what it applied last."""

CLIENT_SIDE_APPLY_MANAGERS: Final = frozenset({"kubectl-client-side-apply", "kubectl"})
"""Field managers of client-side ``kubectl apply`` (current, and before kubectl named it)."""


def selector(labels: Mapping[str, str]) -> str:
    """A label selector (``k=v,k2=v2``) matching ``labels``, as ``kubectl -l`` and ``labelSelector`` take it."""
    return ",".join(f"{key}={value}" for key, value in labels.items())


def is_monitoring(manifest: Mapping[str, Any]) -> bool:
    """True for a prometheus-operator object (PodMonitor, PrometheusRule, …)."""
    return str(manifest.get("apiVersion", "")).startswith(f"{MONITORING_GROUP}/")


def created_at(obj: Mapping[str, Any]) -> datetime:
    """The object's ``metadata.creationTimestamp`` (whole seconds, as the API server keeps it)."""
    return datetime.fromisoformat(str(obj["metadata"]["creationTimestamp"]).replace("Z", "+00:00"))


def has_condition(obj: Mapping[str, Any], kind: str = "Ready") -> bool:
    """The status condition ``kind`` is true (a node's or a pod's ``Ready``)."""
    conditions = (obj.get("status") or {}).get("conditions") or []
    return any(c.get("type") == kind and c.get("status") == "True" for c in conditions)


def node_essentials(node: dict[str, Any]) -> dict[str, Any]:
    """What the commands read of a Node: its metadata, taints, cordon and conditions, without its images.

    A Node's status carries every image on it, often most of its bytes, and its metadata the
    field managers' bookkeeping (:func:`without_bookkeeping`): kept out of a list as each page
    arrives, a 5,000-node list holds a few MiB instead of hundreds.
    """
    spec = node.get("spec") or {}
    status = node.get("status") or {}
    return {
        "metadata": without_bookkeeping(node)["metadata"],
        "spec": {key: spec[key] for key in ("taints", "unschedulable") if key in spec},
        "status": {"conditions": status.get("conditions") or []},
    }


def is_ready(pod: Mapping[str, Any]) -> bool:
    """The pod's Ready condition is true."""
    return has_condition(pod)


def target_node(pod: Mapping[str, Any]) -> str:
    """The node a pod runs on, or, not yet scheduled, the one its DaemonSet made it for ("" if neither).

    The DaemonSet controller pins each pod to its node with a required node affinity on
    ``metadata.name``; the scheduler sets ``spec.nodeName`` only once the pod fits there.
    """
    spec = pod.get("spec") or {}
    if spec.get("nodeName"):
        return str(spec["nodeName"])
    affinity = (spec.get("affinity") or {}).get("nodeAffinity") or {}
    required = affinity.get("requiredDuringSchedulingIgnoredDuringExecution") or {}
    for term in required.get("nodeSelectorTerms") or []:
        for field in term.get("matchFields") or []:
            if field.get("key") == "metadata.name" and field.get("values"):
                return str(field["values"][0])
    return ""


def not_ready_reasons(pod: Mapping[str, Any], *, detail: bool = False) -> list[str]:
    """Why a pod is not ready: its containers' waiting reasons, else the scheduler's (``Unschedulable``).

    With ``detail``, each reason carries the container's last error (a crash's message) or
    the waiting message: ``CrashLoopBackOff: plugin/forward: …``.
    """
    status = pod.get("status") or {}
    reasons: list[str] = []
    for container in status.get("containerStatuses") or []:
        waiting = (container.get("state") or {}).get("waiting") or {}
        if not waiting.get("reason"):
            continue
        reason = str(waiting["reason"])
        if detail:
            last = ((container.get("lastState") or {}).get("terminated") or {}).get("message") or waiting.get("message")
            reason = f"{reason}: {last}" if last else reason
        reasons.append(reason)
    if not reasons:
        reasons = [
            str(c.get("reason") or "not scheduled")
            for c in status.get("conditions") or []
            if c.get("type") == "PodScheduled" and c.get("status") == "False"
        ]
    return sorted(set(reasons))


def tolerates(toleration: Mapping[str, Any], taint: Mapping[str, Any]) -> bool:
    """Kubernetes' toleration-matches-taint rule."""
    if toleration.get("effect") and toleration.get("effect") != taint.get("effect"):
        return False
    operator = toleration.get("operator", "Equal")
    if not toleration.get("key"):
        return bool(operator == "Exists")
    if toleration["key"] != taint.get("key"):
        return False
    return bool(operator == "Exists" or toleration.get("value", "") == taint.get("value", ""))


def without_bookkeeping(obj: Mapping[str, Any]) -> dict[str, Any]:
    """``obj`` without what tools record about it rather than configure in it.

    ``managedFields`` and client-side ``kubectl apply``'s ``last-applied-configuration``
    hold copies of old configurations (the spec's Corefile with node-cache's placeholders,
    say) that nothing reads at runtime.
    """
    metadata = dict(obj.get("metadata") or {})
    metadata.pop("managedFields", None)
    annotations = {k: v for k, v in (metadata.get("annotations") or {}).items() if k != LAST_APPLIED_ANNOTATION}
    if annotations:
        metadata["annotations"] = annotations
    else:
        metadata.pop("annotations", None)
    return {**obj, "metadata": metadata}


def main_resource(entry: Mapping[str, Any]) -> bool:
    """Whether a ``managedFields`` entry is about the object itself, not a subresource (a controller's status)."""
    return not entry.get("subresource")


def field_managers(live: Mapping[str, Any]) -> set[str]:
    """The field managers that own fields of the object itself."""
    entries = (live.get("metadata") or {}).get("managedFields") or []
    return {str(e.get("manager")) for e in entries if main_resource(e)}


def flag(args: Sequence[Any], name: str) -> str | None:
    """The value after ``name`` in a container's args, or None when ``name`` is not given a value."""
    words = [str(arg) for arg in args]
    if name not in words[:-1]:
        return None
    return words[words.index(name) + 1]


def interception_of(pod_spec: Mapping[str, Any]) -> Interception:
    """The interception mode a pod spec runs: fallthrough when node-cache is told to write no rules of its own."""
    for container in pod_spec.get("containers") or []:
        if SETUP_IPTABLES_OFF in [str(arg) for arg in container.get("args") or []]:
            return "fallthrough"
    return "node-cache"


def keeper_container(pod_spec: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The fallthrough keeper container of a pod spec (named as the construct names it), if there is one."""
    return next((c for c in pod_spec.get("containers") or [] if c.get("name") == defaults.KEEPER_CONTAINER_NAME), None)


def usable_cluster_ip(kube_dns: Mapping[str, Any] | None) -> str | None:
    """kube-dns's ClusterIP when it is a usable IPv6 address, else None (an app then synthesizes a preview)."""
    cluster_ip = (kube_dns or {}).get("spec", {}).get("clusterIP")
    try:
        check_ipv6_address("kube-dns ClusterIP", cluster_ip)
    except ValueError:
        return None
    return str(cluster_ip)


def same_address(text: str, address: str) -> bool:
    """Whether two address strings are the same address (``FD00::A`` is ``fd00::a``); False for a non-address."""
    try:
        return ipaddress.ip_address(text) == ipaddress.ip_address(address)
    except ValueError:
        return False
