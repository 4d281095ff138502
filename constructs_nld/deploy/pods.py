"""Reading a node-cache pod as kubectl shows it: where it runs, whether it is ready, why not."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["is_ready", "not_ready_reasons", "target_node"]


def is_ready(pod: Mapping[str, Any]) -> bool:
    """The pod's Ready condition is true."""
    conditions = (pod.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


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
