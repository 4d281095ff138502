"""``verify``: the spec's smoke tests and its "Common Failure Modes" table, as checks on a live cluster.

It checks what the user's app configures — namespace, names, tolerations, ports,
PodMonitor — read from the same synthesized app ``deploy`` applies
(:mod:`constructs_nld.deploy.source`), never from defaults. Each check reports pass,
fail or warn with what it saw; a failure also says the likely cause and the fix, as the
spec's table does.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Final, Literal

from constructs_nld import defaults
from constructs_nld import placeholders as ph
from constructs_nld.deploy.compare import is_subset
from constructs_nld.deploy.component import Component, is_monitoring, locate
from constructs_nld.deploy.deployer import LAST_APPLIED_ANNOTATION
from constructs_nld.deploy.kube import KindNotServedError, KubeClient, Manifest, ObjectRef
from constructs_nld.deploy.pods import not_ready_reasons, target_node
from constructs_nld.deploy.source import AppSource
from constructs_nld.fallthrough import Interception, interception_of
from constructs_nld.placeholders import KUBE_DNS_SERVICE_HOST, find_unresolved_placeholders
from constructs_nld.props import check_ipv6_address
from constructs_nld.rules import find_wrong_metric_prefix

__all__ = [
    "KARPENTER_DISRUPTION_TAINTS",
    "TRANSITION_GRACE",
    "CheckResult",
    "Status",
    "format_result",
    "verify",
    "verify_uninstalled",
    "without_bookkeeping",
]

Status = Literal["pass", "fail", "warn"]

TRANSITION_GRACE: Final = timedelta(minutes=5)
"""A node younger than this is in transition: its node-cache pod may still be pulling the image."""

_CONDITION_TAINT_PREFIX: Final = "node.kubernetes.io/"
"""Taints the node controller sets from node conditions (not-ready, memory-pressure, …)."""

KARPENTER_DISRUPTION_TAINTS: Final = frozenset(
    {"karpenter.sh/unschedulable", "karpenter.sh/disrupted", "karpenter.sh/disruption"}
)
"""Taints Karpenter puts on a node it is draining for consolidation or replacement. The spec
tolerates them deliberately never (tolerating them blocks consolidation): such a node is in
transition, not a gap in the app's tolerations."""

_MODE_RULES: Final[dict[Interception, str]] = {
    "node-cache": "node-cache's own NOTRACK rules, unconditional: a SIGKILLed or OOM-killed node-cache "
    "leaves them and black-holes the node's DNS until it is back",
    "fallthrough": "the keeper's socket-conditional rules: lookups fall through to cluster CoreDNS "
    "whenever node-cache is not listening",
}

_PLACEHOLDER_CAUSES: Final = {
    ph.KUBE_DNS_CLUSTER_IP: "__KUBE_DNS_CLUSTER_IP__ was not substituted (a preview was applied): "
    "the Corefile does not parse and pods crashloop",
}


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
    def __init__(self, client: KubeClient, component: Component, kube_dns: Manifest | None, now: datetime) -> None:
        self.client = client
        self.component = component
        self.kube_dns = kube_dns
        self.now = now
        self.namespace = component.namespace
        self.daemon_set = client.get(ObjectRef.of(component.daemon_set))
        self.upstream = client.get(ObjectRef.of(component.upstream_service))
        self.nodes = client.list("v1", "Node", None)
        self.pods = client.list("v1", "Pod", self.namespace, label_selector=component.pod_selector)
        self.monitoring_served = client.served_resources("monitoring.coreos.com/v1") or set()
        self.tolerations = component.tolerations
        self.ds_name = component.daemon_set["metadata"]["name"]
        self.upstream_name = component.upstream_service["metadata"]["name"]

    def untolerated(self, node: Manifest) -> list[str]:
        taints = node.get("spec", {}).get("taints") or []
        return [
            f"{t['key']}{'=' + t['value'] if t.get('value') else ''}:{t['effect']}"
            for t in taints
            if t.get("effect") in ("NoSchedule", "NoExecute")
            # Node-condition taints: the DaemonSet controller tolerates them or they pass.
            and not t.get("key", "").startswith(_CONDITION_TAINT_PREFIX)
            and t.get("key") not in KARPENTER_DISRUPTION_TAINTS
            and not any(tolerates(tol, t) for tol in self.tolerations)
        ]

    def in_transition(self, node: Manifest) -> str:
        if node["metadata"].get("deletionTimestamp"):
            return "being deleted"
        if node.get("spec", {}).get("unschedulable"):
            return "cordoned"
        if any(t.get("key") in KARPENTER_DISRUPTION_TAINTS for t in node.get("spec", {}).get("taints") or []):
            return "disrupted by Karpenter"
        if not _ready(node.get("status", {}).get("conditions")):
            return "not ready"
        if self.now - _timestamp(node) < TRANSITION_GRACE:
            return "new"
        return ""

    def _not_deployed(self, name: str, what: str, diagnosis: str) -> CheckResult:
        return CheckResult(name, "fail", f"{what} not found", diagnosis, "python deploy.py")

    def check_daemon_set(self) -> CheckResult:
        name = "daemonset-healthy"
        if self.daemon_set is None:
            return self._not_deployed(name, f"daemonset {self.ds_name}", "NodeLocal DNSCache is not deployed")
        pods_by_node: dict[str, list[Manifest]] = {}
        for pod in self.pods:
            pods_by_node.setdefault(target_node(pod), []).append(pod)
        skipped: list[str] = []
        missing: list[str] = []
        healthy = 0
        for node in self.nodes:
            node_name = node["metadata"]["name"]
            ready = [
                p
                for p in pods_by_node.get(node_name, [])
                if p.get("status", {}).get("phase") == "Running" and _ready(p.get("status", {}).get("conditions"))
            ]
            transition = self.in_transition(node) or ("untolerated taints" if self.untolerated(node) else "")
            if ready:
                healthy += 1
            elif transition:
                skipped.append(f"{node_name} ({transition})")
            else:
                reasons = sorted({reason for p in pods_by_node.get(node_name, []) for reason in not_ready_reasons(p)})
                missing.append(f"{node_name} ({', '.join(reasons) or 'no ready pod'})")
        tail = f"; skipped in transition: {', '.join(skipped)}" if skipped else ""
        logs = f"kubectl describe pod -n {self.namespace} -l {self.component.pod_selector}; "
        logs += f"kubectl logs -n {self.namespace} <pod>"
        if missing:
            return CheckResult(
                name,
                "fail",
                f"{len(missing)} node(s) without a ready node-cache pod: {', '.join(missing)}{tail}",
                "pod unavailable: image pull, scheduling or crashloop; those nodes fall through to cluster CoreDNS",
                logs,
            )
        problem = self.status_problem(len(skipped), logs)
        if problem is not None:
            detail, cause, fix = problem
            return CheckResult(name, "fail", detail + tail, cause, fix)
        return CheckResult(name, "pass", f"ready on {healthy} node(s); {self.status_summary()}{tail}")

    def status_summary(self) -> str:
        status = (self.daemon_set or {}).get("status") or {}
        return (
            f"desired {status.get('desiredNumberScheduled', 0)}, ready {status.get('numberReady', 0)}, "
            f"updated {status.get('updatedNumberScheduled', 0)}"
        )

    def status_problem(self, in_transition: int, logs: str) -> tuple[str, str, str] | None:
        """What the DaemonSet's own status says is wrong, as the production smoke test reads it.

        desired = ready = updated with the current generation observed; the pods missing
        may only be those of nodes in transition, and never all of them: a DaemonSet with
        no ready pod does not pass, however young the nodes are.
        """
        assert self.daemon_set is not None
        status = self.daemon_set.get("status") or {}
        desired = status.get("desiredNumberScheduled", 0)
        ready = status.get("numberReady", 0)
        updated = status.get("updatedNumberScheduled", 0)
        generation = self.daemon_set["metadata"].get("generation", 0)
        observed = status.get("observedGeneration", 0)
        summary = self.status_summary()
        rollout = f"kubectl rollout status ds {self.ds_name} -n {self.namespace}"
        if observed < generation:
            return (
                f"the DaemonSet controller has not observed generation {generation} (observed {observed}; {summary})",
                "the controller is behind or not running: the status says nothing about the current pod template",
                f"{rollout}; check kube-controller-manager",
            )
        if desired == 0 or ready == 0:
            what = "no node runs node-cache" if desired == 0 else "no node-cache pod is ready"
            return (
                f"{what} ({summary})",
                "nothing is cached anywhere: every node is new, not ready, cordoned or tainted beyond the "
                "app's tolerations, or the pods cannot start",
                f"wait for the nodes to settle and check taints against the app's tolerations; {logs}",
            )
        if updated < desired:
            return (
                f"rollout unfinished: {updated} of {desired} pods run the current template ({summary})",
                "a rollout is in progress or stuck (new pods not becoming ready)",
                f"{rollout}; {logs}",
            )
        if desired - ready > in_transition:
            return (
                f"{desired - ready} pod(s) not ready, more than the {in_transition} node(s) in transition ({summary})",
                "pods are failing on settled nodes; those nodes fall through to cluster CoreDNS",
                logs,
            )
        return None

    def check_metrics_headless(self) -> CheckResult:
        name = "metrics-service-headless"
        if not self.component.metrics_services:
            return CheckResult(name, "warn", "the app defines no headless Service selecting the node-cache pods")
        for service in self.component.metrics_services:
            ref = ObjectRef.of(service)
            live = self.client.get(ref)
            if live is None:
                return self._not_deployed(name, f"service {ref.name}", "the PodMonitor has no pod-level discovery")
            cluster_ip = live.get("spec", {}).get("clusterIP")
            if cluster_ip != "None":
                return CheckResult(
                    name,
                    "fail",
                    f"{ref} clusterIP is {cluster_ip!r}, not 'None'",
                    "a non-headless Service load-balances one address instead of listing every pod",
                    f"kubectl delete svc -n {ref.namespace} {ref.name}; python deploy.py",
                )
        return CheckResult(name, "pass", "clusterIP None")

    def check_upstream_selector(self) -> CheckResult:
        name = "upstream-service-selects-kube-dns"
        expected = self.component.upstream_service["spec"].get("selector") or {}
        if self.upstream is None:
            return self._not_deployed(
                name,
                f"service {self.upstream_name}",
                "node-cache pods get no KUBE_DNS_UPSTREAM_SERVICE_HOST and crashloop",
            )
        selector = self.upstream.get("spec", {}).get("selector") or {}
        if selector != expected:
            return CheckResult(
                name,
                "fail",
                f"selector is {selector!r}",
                "selector drift: cache misses go to the wrong pods",
                f"restore selector {_labels(expected)} (python deploy.py refuses to overwrite a foreign one)",
            )
        return CheckResult(name, "pass", f"selector {_labels(expected)}")

    def check_placeholders(self) -> CheckResult:
        name = "no-unsubstituted-placeholder"
        refs = [ObjectRef.of(obj) for obj in (*self.component.config_maps, self.component.daemon_set)]
        live = [without_bookkeeping(obj) for ref in refs if (obj := self.client.get(ref)) is not None]
        found = find_unresolved_placeholders(live)
        if found:
            tokens = sorted({f.token for f in found})
            cause = "; ".join(
                _PLACEHOLDER_CAUSES.get(
                    token,
                    f"{token} is left where nothing fills it (node-cache fills its __PILLAR__ placeholders "
                    "only in the Corefile it renders)",
                )
                for token in tokens
            )
            return CheckResult(
                name,
                "fail",
                "; ".join(str(f) for f in found),
                cause,
                "python deploy.py (it synthesizes the app with the live ClusterIP)",
            )
        return CheckResult(name, "pass", "ConfigMap and DaemonSet hold no placeholder of ours")

    def check_pods_after_service(self) -> CheckResult:
        name = "pods-created-after-upstream-service"
        if self.upstream is None:
            return CheckResult(name, "warn", f"{self.upstream_name} not found; see upstream-service-selects-kube-dns")
        created = _timestamp(self.upstream)
        early = [p["metadata"]["name"] for p in self.pods if _timestamp(p) < created]
        if early:
            return CheckResult(
                name,
                "fail",
                f"{len(early)} pod(s) predate {self.upstream_name}: {', '.join(sorted(early))}",
                "kubelet injects KUBE_DNS_UPSTREAM_SERVICE_HOST only into pods created after the Service: "
                "no interception",
                f"kubectl rollout restart ds {self.ds_name} -n {self.namespace}",
            )
        return CheckResult(name, "pass", f"all {len(self.pods)} pod(s) created after the Service")

    def check_kube_dns_address(self) -> CheckResult:
        """node-cache intercepts kube-dns's live address: pinned in its args, or given by kubelet."""
        name = "node-cache-intercepts-kube-dns"
        if self.kube_dns is None:
            return CheckResult(
                name,
                "fail",
                f"service {defaults.KUBE_DNS_SERVICE_NAME} not found",
                "there is no cluster DNS to cache",
                "restore kube-dns (the cluster's CoreDNS Service)",
            )
        if self.daemon_set is None:
            return CheckResult(name, "warn", f"daemonset {self.ds_name} not found; see daemonset-healthy")
        live_ip = str(self.kube_dns.get("spec", {}).get("clusterIP"))
        pod_spec = self.daemon_set["spec"]["template"]["spec"]
        restart = f"kubectl rollout restart ds {self.ds_name} -n {self.namespace}"
        if pod_spec.get("enableServiceLinks") is False:
            return CheckResult(
                name,
                "fail",
                f"{self.ds_name} sets enableServiceLinks: false",
                "kubelet injects no Service variables: node-cache gets no KUBE_DNS_UPSTREAM_SERVICE_HOST "
                "(nor, portable, KUBE_DNS_SERVICE_HOST) and exits at start",
                "python deploy.py (the app leaves Service links on)",
            )
        args = [str(a) for container in pod_spec.get("containers") or [] for a in container.get("args") or []]
        local_ips = args[args.index("-localip") + 1].split(",") if "-localip" in args[:-1] else []
        if KUBE_DNS_SERVICE_HOST in local_ips:
            created = _timestamp(self.kube_dns)
            early = sorted(p["metadata"]["name"] for p in self.pods if _timestamp(p) < created)
            if early:
                return CheckResult(
                    name,
                    "fail",
                    f"{len(early)} pod(s) predate {defaults.KUBE_DNS_SERVICE_NAME}: {', '.join(early)}",
                    "kubelet gave them no KUBE_DNS_SERVICE_HOST: $(KUBE_DNS_SERVICE_HOST) stays literal and "
                    "node-cache exits ('invalid localip')",
                    restart,
                )
            return CheckResult(
                name,
                "pass",
                f"portable: kubelet gives {len(self.pods)} pod(s) {live_ip} as $(KUBE_DNS_SERVICE_HOST)",
            )
        if not any(_same_address(address, live_ip) for address in local_ips):
            return CheckResult(
                name,
                "fail",
                f"-localip is {','.join(local_ips)}, kube-dns's ClusterIP is {live_ip}",
                "kube-dns was recreated with a new address since the last deploy: node-cache intercepts "
                "nothing pods ask",
                "python deploy.py (it pins the live ClusterIP)",
            )
        return CheckResult(name, "pass", f"-localip holds kube-dns's ClusterIP {live_ip}")

    def check_taints(self) -> CheckResult:
        name = "node-taints-tolerated"
        bad = {node["metadata"]["name"]: self.untolerated(node) for node in self.nodes}
        bad = {node: taints for node, taints in bad.items() if taints}
        if bad:
            listing = "; ".join(f"{node}: {', '.join(taints)}" for node, taints in sorted(bad.items()))
            return CheckResult(
                name,
                "fail",
                f"taints not tolerated: {listing}",
                "node-cache cannot run there; those nodes have no local cache",
                "add the taint keys to the app's NodeLocalDNSProps.tolerations (never operator Exists without a key)",
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
        if not self.component.pod_monitors:
            return CheckResult(name, "warn", "the app defines no PodMonitor for the node-cache pods")
        container_ports = {p.get("name"): p.get("containerPort") for p in self.component.container.get("ports") or []}
        expected = {defaults.METRICS_PORT_NAME, defaults.BINARY_METRICS_PORT_NAME} & set(container_ports)
        for monitor in self.component.pod_monitors:
            ref = ObjectRef.of(monitor)
            live = self.client.get(ref)
            ports = {e.get("port") for e in (live or {}).get("spec", {}).get("podMetricsEndpoints") or []}
            if not expected <= ports:
                return CheckResult(
                    name,
                    "fail",
                    f"{ref} scrapes {sorted(p for p in ports if p) or 'nothing'}",
                    f"coredns_nodecache_setup_errors_total lives only on :{container_ports.get('metrics-binary')} "
                    "(metrics-binary)",
                    "python deploy.py (the app's PodMonitor has both endpoints)",
                )
        described = " and ".join(f"{port} ({container_ports[port]})" for port in sorted(expected))
        return CheckResult(name, "pass", described)

    def check_interception(self) -> CheckResult:
        """The interception mode: the live template's and every pod's are the app's; in fallthrough, keepers ready.

        The rules themselves live in each node's ip6tables, out of the API's sight. What the
        API shows is which mode each pod runs (node-cache's ``-setupiptables=false``), and in
        the fallthrough mode each keeper's readiness, whose probe runs on the node: ready
        only while every jump into the keeper's chains is in place and node-cache's
        unconditional NOTRACK of the kube-dns ClusterIP is not.
        """
        name = "interception-mode"
        app = self.component.interception
        if self.daemon_set is None:
            return self._not_deployed(name, f"daemonset {self.ds_name}", "NodeLocal DNSCache is not deployed")
        live = interception_of(self.daemon_set["spec"]["template"]["spec"])
        if live != app:
            return CheckResult(
                name,
                "fail",
                f"the live DaemonSet runs the {live} mode, the app configures {app}",
                f"the nodes run {_MODE_RULES[live]}",
                "python deploy.py",
            )
        others = sorted(
            f"{pod.get('spec', {}).get('nodeName', '?')} ({pod['metadata']['name']})"
            for pod in self.pods
            if interception_of(pod.get("spec") or {}) != app
        )
        rollout = f"kubectl rollout status ds {self.ds_name} -n {self.namespace}"
        if others:
            other: Interception = "fallthrough" if app == "node-cache" else "node-cache"
            return CheckResult(
                name,
                "fail",
                f"{len(others)} pod(s) still run the {other} mode: {', '.join(others)}",
                f"the rollout to {app} is unfinished: those nodes run {_MODE_RULES[other]}",
                rollout,
            )
        if app == "node-cache":
            return CheckResult(
                name,
                "pass",
                f"node-cache (the spec's) on {len(self.pods)} pod(s): {_MODE_RULES[app]}; "
                "the rules are seen only on the node (ip6tables-save -t raw)",
            )
        keeper = self.component.keeper
        if keeper is None:
            return CheckResult(
                name,
                "fail",
                "node-cache runs with -setupiptables=false but the app's pods have no keeper container",
                "nothing installs the rules: node-cache is never reached through the kube-dns ClusterIP",
                "use NodeLocalDNSProps(interception='fallthrough'), which adds the keeper",
            )
        keeper_name = keeper["name"]
        unready: list[str] = []
        restarts = 0
        for pod in self.pods:
            statuses = [s for s in pod.get("status", {}).get("containerStatuses") or [] if s.get("name") == keeper_name]
            node = pod.get("spec", {}).get("nodeName", "?")
            if not statuses:
                unready.append(f"{node} (no status)")
                continue
            status = statuses[0]
            restarts += int(status.get("restartCount", 0))
            if not status.get("ready"):
                reason = status.get("state", {}).get("waiting", {}).get("reason", "not ready")
                unready.append(f"{node} ({reason}, {status.get('restartCount', 0)} restart(s))")
        if unready:
            return CheckResult(
                name,
                "fail",
                f"{keeper_name} not ready on {len(unready)} node(s): {', '.join(sorted(unready))}",
                "its readiness probe fails while a jump into its chains is missing or node-cache's unconditional "
                "NOTRACK of the kube-dns ClusterIP is in place (a black hole whenever node-cache dies); a "
                "restarting keeper cannot write its rules",
                f"kubectl describe pod -n {self.namespace} <pod> (the probe's output); "
                f"kubectl logs -n {self.namespace} <pod> -c {keeper_name}",
            )
        return CheckResult(
            name,
            "pass",
            f"fallthrough: {keeper_name} ready on {len(self.pods)} pod(s) ({restarts} restart(s)): {_MODE_RULES[app]}",
        )

    def check_matches_app(self) -> CheckResult:
        name = "live-matches-app"
        drifted: list[str] = []
        for desired in self.component.objects():
            if is_monitoring(desired) and "podmonitors" not in self.monitoring_served:
                continue
            try:
                live = self.client.get(self.client.ref_of(desired))
            except KindNotServedError:
                continue
            if live is None:
                drifted.append(f"{ObjectRef.of(desired)} missing")
            elif not is_subset(desired, live):
                drifted.append(f"{ObjectRef.of(desired)} differs")
        if drifted:
            return CheckResult(
                name,
                "fail",
                "; ".join(drifted),
                "the cluster runs something other than what the app configures (an older deploy, or hand edits)",
                "python deploy.py --diff to see it; python deploy.py to apply the app",
            )
        return CheckResult(name, "pass", f"{len(self.component.objects())} object(s) as the app configures them")

    def run(self) -> list[CheckResult]:
        checks: list[Callable[[], CheckResult]] = [
            self.check_daemon_set,
            self.check_metrics_headless,
            self.check_upstream_selector,
            self.check_placeholders,
            self.check_pods_after_service,
            self.check_kube_dns_address,
            self.check_taints,
            self.check_rule_prefix,
            self.check_pod_monitor,
            self.check_interception,
            self.check_matches_app,
        ]
        return [check() for check in checks]


def _labels(labels: Mapping[str, str]) -> str:
    return ",".join(f"{key}={value}" for key, value in labels.items())


def _same_address(text: str, address: str) -> bool:
    try:
        return ipaddress.ip_address(text) == ipaddress.ip_address(address)
    except ValueError:
        return False


def usable_cluster_ip(kube_dns: Manifest | None) -> str | None:
    """kube-dns's ClusterIP when it is a usable IPv6 address, else None (the app then synthesizes a preview)."""
    cluster_ip = (kube_dns or {}).get("spec", {}).get("clusterIP")
    try:
        check_ipv6_address("kube-dns ClusterIP", cluster_ip)
    except ValueError:
        return None
    return str(cluster_ip)


def live_cluster_ip(client: KubeClient) -> str | None:
    """The live kube-dns's ClusterIP when it is a usable IPv6 address, else None."""
    return usable_cluster_ip(client.get(ObjectRef("v1", "Service", defaults.NAMESPACE, defaults.KUBE_DNS_SERVICE_NAME)))


def verify(client: KubeClient, source: AppSource, *, now: datetime | None = None) -> list[CheckResult]:
    """Run every check against the cluster behind ``client``, for the app of ``source``."""
    kube_dns = client.get(ObjectRef("v1", "Service", defaults.NAMESPACE, defaults.KUBE_DNS_SERVICE_NAME))
    component = locate(tuple(source(usable_cluster_ip(kube_dns))))
    return _Verify(client, component, kube_dns, now or datetime.now(UTC)).run()


def _uninstalled_checks(client: KubeClient, component: Component) -> list[CheckResult]:
    left: list[str] = []
    for desired in component.objects():
        try:
            live = client.get(client.ref_of(desired))
        except KindNotServedError:
            continue  # its CRD is gone, and every object of the kind with it
        if live is not None:
            deleting = " (being deleted)" if live["metadata"].get("deletionTimestamp") else ""
            left.append(f"{ObjectRef.of(desired)}{deleting}")
    objects = (
        CheckResult(
            "nothing-left",
            "fail",
            f"still live: {', '.join(left)}",
            "the uninstall was interrupted or refused, or something applied the objects again",
            "python deploy.py uninstall",
        )
        if left
        else CheckResult(
            "nothing-left", "pass", f"none of the app's {len(component.objects())} NodeLocal DNS object(s) is live"
        )
    )
    pods = client.list("v1", "Pod", component.namespace, label_selector=component.pod_selector)
    where = f"{component.pod_selector} in {component.namespace}"
    if pods:
        names = ", ".join(
            f"{p['metadata']['name']} on {target_node(p) or 'no node'}"
            for p in sorted(pods, key=lambda p: str(p["metadata"]["name"]))[:5]
        )
        more = f" and {len(pods) - 5} more" if len(pods) > 5 else ""
        pod_check = CheckResult(
            "no-node-cache-pods",
            "fail",
            f"{len(pods)} pod(s) match {where}: {names}{more}",
            "node-cache pods still stopping (or orphaned): until they stop, their nodes keep NodeLocal DNS's rules",
            "python deploy.py uninstall (it waits until they are gone)",
        )
    else:
        pod_check = CheckResult("no-node-cache-pods", "pass", f"no pod matches {where}")
    kube_dns = client.get(ObjectRef("v1", "Service", defaults.NAMESPACE, defaults.KUBE_DNS_SERVICE_NAME))
    cluster_ip = (kube_dns or {}).get("spec", {}).get("clusterIP")
    if not cluster_ip or cluster_ip == "None":
        dns = CheckResult(
            "cluster-dns-intact",
            "fail",
            f"service {defaults.NAMESPACE}/{defaults.KUBE_DNS_SERVICE_NAME} "
            + ("not found" if kube_dns is None else "has no ClusterIP"),
            "pods have no cluster DNS to fall back to (NodeLocal DNS never owns kube-dns: something else removed it)",
            "restore the cluster's DNS add-on (CoreDNS and its kube-dns Service)",
        )
    else:
        dns = CheckResult(
            "cluster-dns-intact",
            "pass",
            f"kube-dns at {cluster_ip}: pods resolve through cluster CoreDNS, as before NodeLocal DNS",
        )
    return [objects, pod_check, dns]


def verify_uninstalled(client: KubeClient, source: AppSource) -> list[CheckResult]:
    """After ``uninstall``: no object of the app's NodeLocal DNS, no node-cache pod left, kube-dns intact."""
    return _uninstalled_checks(client, locate(tuple(source(live_cluster_ip(client)))))
