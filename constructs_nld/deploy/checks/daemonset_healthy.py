"""``daemonset-healthy``: a ready node-cache pod on every settled node, and a DaemonSet status that agrees.

The spec's smoke test. Nodes in transition (being deleted, cordoned, disrupted by Karpenter —
``karpenter.sh/unschedulable``, ``karpenter.sh/disrupted``, taints the spec deliberately never
tolerates —, not ready, younger than 5 minutes, tainted beyond the app's tolerations) are
skipped and named; a node without a ready pod is named with the reason, the container's (such as
``ImagePullBackOff``) or the scheduler's (``Unschedulable``). The status must say the same:
the current generation observed, desired = updated, ready pods short only by the nodes in
transition, and never zero, so a DaemonSet without pods fails however young its nodes are.

Cause: pods that cannot pull their image, be scheduled or start (their nodes fall through to
cluster CoreDNS), a rollout in progress or stuck, a DaemonSet controller that is behind, or
no DaemonSet at all.

Fix: the pods' events and logs (``kubectl describe pod``, ``kubectl logs``), the rollout
(``kubectl rollout status``); ``python deploy.py`` when NodeLocal DNS is not deployed.
"""

from __future__ import annotations

from constructs_nld.deploy.checks.cluster import CheckResult, Cluster
from constructs_nld.deploy.kube import Manifest
from constructs_nld.deploy.manifest import is_ready, not_ready_reasons, target_node

NAME = "daemonset-healthy"


def _summary(daemon_set: Manifest) -> str:
    status = daemon_set.get("status") or {}
    return (
        f"desired {status.get('desiredNumberScheduled', 0)}, ready {status.get('numberReady', 0)}, "
        f"updated {status.get('updatedNumberScheduled', 0)}"
    )


def _status_problem(cluster: Cluster, daemon_set: Manifest, in_transition: int, logs: str) -> CheckResult | None:
    """What the DaemonSet's own status says is wrong, as the production smoke test reads it."""
    status = daemon_set.get("status") or {}
    desired = status.get("desiredNumberScheduled", 0)
    ready = status.get("numberReady", 0)
    updated = status.get("updatedNumberScheduled", 0)
    generation = daemon_set["metadata"].get("generation", 0)
    observed = status.get("observedGeneration", 0)
    summary = _summary(daemon_set)
    if observed < generation:
        return CheckResult(
            NAME,
            "fail",
            f"the DaemonSet controller has not observed generation {generation} (observed {observed}; {summary})",
            "the controller is behind or not running: the status says nothing about the current pod template",
            f"{cluster.rollout_status}; check kube-controller-manager",
        )
    if desired == 0 or ready == 0:
        what = "no node runs node-cache" if desired == 0 else "no node-cache pod is ready"
        return CheckResult(
            NAME,
            "fail",
            f"{what} ({summary})",
            "nothing is cached anywhere: every node is new, not ready, cordoned or tainted beyond the "
            "app's tolerations, or the pods cannot start",
            f"wait for the nodes to settle and check taints against the app's tolerations; {logs}",
        )
    if updated < desired and cluster.cutover is None:
        return CheckResult(
            NAME,
            "fail",
            f"rollout unfinished: {updated} of {desired} pods run the current template ({summary})",
            "a rollout is in progress or stuck (new pods not becoming ready)",
            f"{cluster.rollout_status}; {logs}",
        )
    if desired - ready > in_transition:
        return CheckResult(
            NAME,
            "fail",
            f"{desired - ready} pod(s) not ready, more than the {in_transition} node(s) in transition ({summary})",
            "pods are failing on settled nodes; those nodes fall through to cluster CoreDNS",
            logs,
        )
    return None


def check(cluster: Cluster) -> CheckResult:
    """Every settled node has a ready node-cache pod, and the DaemonSet's status agrees."""
    daemon_set = cluster.daemon_set
    if daemon_set is None:
        return cluster.not_deployed(NAME, f"daemonset {cluster.ds_name}", "NodeLocal DNSCache is not deployed")
    pods_by_node: dict[str, list[Manifest]] = {}
    for pod in cluster.pods:
        pods_by_node.setdefault(target_node(pod), []).append(pod)
    skipped: list[str] = []
    missing: list[str] = []
    healthy = 0
    for node in cluster.nodes:
        node_name = node["metadata"]["name"]
        ready = [
            p for p in pods_by_node.get(node_name, []) if p.get("status", {}).get("phase") == "Running" and is_ready(p)
        ]
        transition = cluster.in_transition(node) or ("untolerated taints" if cluster.untolerated(node) else "")
        if ready:
            healthy += 1
        elif transition:
            skipped.append(f"{node_name} ({transition})")
        else:
            reasons = sorted({reason for p in pods_by_node.get(node_name, []) for reason in not_ready_reasons(p)})
            missing.append(f"{node_name} ({', '.join(reasons) or 'no ready pod'})")
    tail = f"; skipped in transition: {', '.join(skipped)}" if skipped else ""
    logs = f"kubectl describe pod -n {cluster.namespace} -l {cluster.component.pod_selector}; "
    logs += f"kubectl logs -n {cluster.namespace} <pod>"
    if missing:
        return CheckResult(
            NAME,
            "fail",
            f"{len(missing)} node(s) without a ready node-cache pod: {', '.join(missing)}{tail}",
            "pod unavailable: image pull, scheduling or crashloop; those nodes fall through to cluster CoreDNS",
            logs,
        )
    problem = _status_problem(cluster, daemon_set, len(skipped), logs)
    if problem is not None:
        return CheckResult(NAME, "fail", problem.detail + tail, problem.diagnosis, problem.fix)
    return CheckResult(NAME, "pass", f"ready on {healthy} node(s); {_summary(daemon_set)}{tail}")
