"""``verify``: the spec's smoke tests and its "Common Failure Modes" table, as checks on a live cluster.

Each check reports pass, fail or warn with what it saw; a failure also says the likely
cause and the fix, as the spec's table does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Final, Literal

from constructs_nld import defaults
from constructs_nld.deploy.kube import KubeClient, Manifest, ObjectRef
from constructs_nld.nodelocaldns import NodeLocalDNSProps
from constructs_nld.placeholders import find_unresolved_placeholders
from constructs_nld.rules import find_wrong_metric_prefix

__all__ = ["TRANSITION_GRACE", "CheckResult", "Status", "format_result", "verify"]

Status = Literal["pass", "fail", "warn"]

TRANSITION_GRACE: Final = timedelta(minutes=5)
"""A node younger than this is in transition: its node-cache pod may still be pulling the image."""

_CONDITION_TAINT_PREFIX: Final = "node.kubernetes.io/"
"""Taints the node controller sets from node conditions (not-ready, memory-pressure, …)."""


@dataclass(frozen=True)
class CheckResult:
    """The outcome of one check."""

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


def _timestamp(obj: Mapping[str, Any]) -> datetime:
    return datetime.fromisoformat(obj["metadata"]["creationTimestamp"].replace("Z", "+00:00"))


def _ready(conditions: list[Mapping[str, Any]] | None, kind: str = "Ready") -> bool:
    return any(c.get("type") == kind and c.get("status") == "True" for c in conditions or [])


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


class _Verify:
    def __init__(self, client: KubeClient, props: NodeLocalDNSProps, now: datetime) -> None:
        self.client = client
        self.props = props
        self.now = now
        ns = props.namespace
        self.daemon_set = client.get(ObjectRef("apps/v1", "DaemonSet", ns, defaults.DAEMON_SET_NAME))
        self.upstream = client.get(ObjectRef("v1", "Service", ns, defaults.UPSTREAM_SERVICE_NAME))
        self.metrics = client.get(ObjectRef("v1", "Service", ns, defaults.METRICS_SERVICE_NAME))
        self.config_map = client.get(ObjectRef("v1", "ConfigMap", ns, defaults.CONFIG_MAP_NAME))
        self.nodes = client.list("v1", "Node", None)
        selector = ",".join(f"{k}={v}" for k, v in defaults.NODE_CACHE_APP_LABEL.items())
        self.pods = client.list("v1", "Pod", ns, label_selector=selector)
        self.monitoring_served = client.served_resources("monitoring.coreos.com/v1") or set()
        pod_spec = (self.daemon_set or {}).get("spec", {}).get("template", {}).get("spec", {})
        self.tolerations: list[Mapping[str, Any]] = pod_spec.get("tolerations") or []

    def untolerated(self, node: Manifest) -> list[str]:
        taints = node.get("spec", {}).get("taints") or []
        return [
            f"{t['key']}{'=' + t['value'] if t.get('value') else ''}:{t['effect']}"
            for t in taints
            if t.get("effect") in ("NoSchedule", "NoExecute")
            # Node-condition taints: the DaemonSet controller tolerates them or they pass.
            and not t.get("key", "").startswith(_CONDITION_TAINT_PREFIX)
            and not any(tolerates(tol, t) for tol in self.tolerations)
        ]

    def in_transition(self, node: Manifest) -> str:
        if node["metadata"].get("deletionTimestamp"):
            return "being deleted"
        if node.get("spec", {}).get("unschedulable"):
            return "cordoned"
        if not _ready(node.get("status", {}).get("conditions")):
            return "not ready"
        if self.now - _timestamp(node) < TRANSITION_GRACE:
            return "new"
        return ""

    def check_daemon_set(self) -> CheckResult:
        name = "daemonset-healthy"
        if self.daemon_set is None:
            return CheckResult(
                name,
                "fail",
                f"daemonset {defaults.DAEMON_SET_NAME} not found",
                "NodeLocal DNSCache is not deployed",
                "python deploy.py",
            )
        pods_by_node: dict[str, list[Manifest]] = {}
        for pod in self.pods:
            pods_by_node.setdefault(pod.get("spec", {}).get("nodeName", ""), []).append(pod)
        skipped: list[str] = []
        missing: list[str] = []
        healthy = 0
        for node in self.nodes:
            node_name = node["metadata"]["name"]
            transition = self.in_transition(node)
            if transition:
                skipped.append(f"{node_name} ({transition})")
                continue
            if self.untolerated(node):
                skipped.append(f"{node_name} (untolerated taints)")
                continue
            ready = [
                p
                for p in pods_by_node.get(node_name, [])
                if p.get("status", {}).get("phase") == "Running" and _ready(p.get("status", {}).get("conditions"))
            ]
            if ready:
                healthy += 1
                continue
            reasons = sorted(
                {
                    s.get("state", {}).get("waiting", {}).get("reason", "")
                    for p in pods_by_node.get(node_name, [])
                    for s in p.get("status", {}).get("containerStatuses") or []
                }
                - {""}
            )
            missing.append(f"{node_name} ({', '.join(reasons) or 'no ready pod'})")
        tail = f"; skipped in transition: {', '.join(skipped)}" if skipped else ""
        if missing:
            return CheckResult(
                name,
                "fail",
                f"{len(missing)} node(s) without a ready node-cache pod: {', '.join(missing)}{tail}",
                "pod unavailable: image pull, scheduling or crashloop; those nodes fall through to cluster CoreDNS",
                f"kubectl describe pod -n {self.props.namespace} -l k8s-app=node-local-dns; "
                f"kubectl logs -n {self.props.namespace} <pod>",
            )
        return CheckResult(name, "pass", f"ready on {healthy} node(s){tail}")

    def check_metrics_headless(self) -> CheckResult:
        name = "metrics-service-headless"
        if self.metrics is None:
            return CheckResult(
                name,
                "fail",
                f"service {defaults.METRICS_SERVICE_NAME} not found",
                "the PodMonitor has no pod-level discovery",
                "python deploy.py",
            )
        cluster_ip = self.metrics.get("spec", {}).get("clusterIP")
        if cluster_ip != "None":
            return CheckResult(
                name,
                "fail",
                f"clusterIP is {cluster_ip!r}, not 'None'",
                "a non-headless Service load-balances one address instead of listing every pod",
                f"kubectl delete svc -n {self.props.namespace} {defaults.METRICS_SERVICE_NAME}; python deploy.py",
            )
        return CheckResult(name, "pass", "clusterIP None")

    def check_upstream_selector(self) -> CheckResult:
        name = "upstream-service-selects-kube-dns"
        if self.upstream is None:
            return CheckResult(
                name,
                "fail",
                f"service {defaults.UPSTREAM_SERVICE_NAME} not found",
                "node-cache pods get no KUBE_DNS_UPSTREAM_SERVICE_HOST and crashloop",
                "python deploy.py (it restarts the DaemonSet after recreating the Service)",
            )
        selector = self.upstream.get("spec", {}).get("selector") or {}
        if selector != defaults.KUBE_DNS_SELECTOR:
            return CheckResult(
                name,
                "fail",
                f"selector is {selector!r}",
                "selector drift: cache misses go to the wrong pods",
                "restore selector k8s-app=kube-dns (python deploy.py refuses to overwrite a foreign one)",
            )
        return CheckResult(name, "pass", "selector k8s-app=kube-dns")

    def check_placeholders(self) -> CheckResult:
        name = "no-unsubstituted-placeholder"
        objects = [o for o in (self.config_map, self.daemon_set) if o is not None]
        found = find_unresolved_placeholders(objects)
        if found:
            return CheckResult(
                name,
                "fail",
                "; ".join(str(f) for f in found),
                "__KUBE_DNS_CLUSTER_IP__ was not substituted: the Corefile does not parse and pods crashloop",
                "python deploy.py (it synthesizes with the live ClusterIP)",
            )
        return CheckResult(name, "pass", "ConfigMap and DaemonSet hold no placeholder of ours")

    def check_pods_after_service(self) -> CheckResult:
        name = "pods-created-after-upstream-service"
        if self.upstream is None:
            return CheckResult(name, "warn", "kube-dns-upstream not found; see upstream-service-selects-kube-dns")
        created = _timestamp(self.upstream)
        early = [p["metadata"]["name"] for p in self.pods if _timestamp(p) < created]
        if early:
            return CheckResult(
                name,
                "fail",
                f"{len(early)} pod(s) predate {defaults.UPSTREAM_SERVICE_NAME}: {', '.join(sorted(early))}",
                "kubelet injects KUBE_DNS_UPSTREAM_SERVICE_HOST only into pods created after the Service: "
                "no interception",
                f"kubectl rollout restart ds {defaults.DAEMON_SET_NAME} -n {self.props.namespace}",
            )
        return CheckResult(name, "pass", f"all {len(self.pods)} pod(s) created after the Service")

    def check_taints(self) -> CheckResult:
        name = "node-taints-tolerated"
        if self.daemon_set is None:
            return CheckResult(name, "warn", "daemonset not found; taints not checked")
        bad = {node["metadata"]["name"]: self.untolerated(node) for node in self.nodes}
        bad = {node: taints for node, taints in bad.items() if taints}
        if bad:
            listing = "; ".join(f"{node}: {', '.join(taints)}" for node, taints in sorted(bad.items()))
            return CheckResult(
                name,
                "fail",
                f"taints not tolerated: {listing}",
                "node-cache cannot run there; those nodes have no local cache",
                "add the taint keys to NodeLocalDNSProps.tolerations (never operator Exists without a key)",
            )
        return CheckResult(name, "pass", f"every taint on {len(self.nodes)} node(s) tolerated")

    def check_rule_prefix(self) -> CheckResult:
        name = "alert-metric-prefix"
        if "prometheusrules" not in self.monitoring_served:
            return CheckResult(name, "warn", "monitoring.coreos.com PrometheusRule not served; not checked")
        wrong: list[str] = []
        for rule_object in self.client.list("monitoring.coreos.com/v1", "PrometheusRule", None):
            where = f"{rule_object['metadata'].get('namespace')}/{rule_object['metadata']['name']}"
            for group in rule_object.get("spec", {}).get("groups") or []:
                for rule in group.get("rules") or []:
                    metric = find_wrong_metric_prefix(str(rule.get("expr", "")))
                    if metric:
                        wrong.append(f"{where} {rule.get('alert') or rule.get('record')}: {metric}")
        if wrong:
            return CheckResult(
                name,
                "fail",
                "; ".join(wrong),
                "nodelocaldns_* metrics do not exist: the query silently returns nothing",
                "use the coredns_nodecache_ prefix (e.g. coredns_nodecache_setup_errors_total)",
            )
        return CheckResult(name, "pass", "no rule queries a nodelocaldns_* metric")

    def check_pod_monitor(self) -> CheckResult:
        name = "podmonitor-scrapes-both-ports"
        if "podmonitors" not in self.monitoring_served:
            return CheckResult(name, "warn", "monitoring.coreos.com PodMonitor not served; not checked")
        ref = ObjectRef(
            "monitoring.coreos.com/v1", "PodMonitor", self.props.monitoring_namespace, defaults.POD_MONITOR_NAME
        )
        monitor = self.client.get(ref)
        ports = {e.get("port") for e in (monitor or {}).get("spec", {}).get("podMetricsEndpoints") or []}
        expected = {defaults.METRICS_PORT_NAME, defaults.BINARY_METRICS_PORT_NAME}
        if not expected <= ports:
            return CheckResult(
                name,
                "fail",
                f"{ref} scrapes {sorted(ports) or 'nothing'}",
                "coredns_nodecache_setup_errors_total lives only on :9353 (metrics-binary)",
                "python deploy.py (the PodMonitor has both endpoints)",
            )
        return CheckResult(name, "pass", "metrics (9253) and metrics-binary (9353)")

    def run(self) -> list[CheckResult]:
        checks: list[Callable[[], CheckResult]] = [
            self.check_daemon_set,
            self.check_metrics_headless,
            self.check_upstream_selector,
            self.check_placeholders,
            self.check_pods_after_service,
            self.check_taints,
            self.check_rule_prefix,
            self.check_pod_monitor,
        ]
        return [check() for check in checks]


def verify(
    client: KubeClient, props: NodeLocalDNSProps | None = None, *, now: datetime | None = None
) -> list[CheckResult]:
    """Run every check against the cluster behind ``client``."""
    return _Verify(client, props or NodeLocalDNSProps(), now or datetime.now(UTC)).run()
