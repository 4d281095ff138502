"""The deploy: the spec's seven steps against a live cluster, idempotent, nothing written on refusal.

1. precondition: kube-dns-upstream absent, or selecting ``k8s-app: kube-dns``; the two
   restart triggers ``first_deploy`` and ``freshly_created`` are read here;
2. the live kube-dns ClusterIP, IPv6 only;
3. synthesis in-process with that address, refused if a placeholder is left;
4. the charts in apply order (services, workload, monitoring);
5. the services, then a poll until kube-dns-upstream has its ClusterIP (no fixed sleep);
6. the workload, then monitoring;
7. a rollout restart when either trigger is set, so pods start after the Service exists
   and kubelet injects ``KUBE_DNS_UPSTREAM_SERVICE_HOST``.

Every check that can refuse (steps 1-4, and the monitoring CRDs) runs before the first
write.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Final, Literal

from constructs_nld import defaults
from constructs_nld.app import SynthesizedChart, synthesize
from constructs_nld.deploy.compare import is_subset, render_diff, same_object
from constructs_nld.deploy.errors import (
    ClusterIPError,
    InvalidConfigError,
    MonitoringUnavailableError,
    PreconditionError,
    WaitTimeoutError,
)
from constructs_nld.deploy.kube import KubeClient, Manifest, ObjectRef
from constructs_nld.nodelocaldns import ChartRole, NodeLocalDNSProps
from constructs_nld.placeholders import NotDeployableError, check_deployable
from constructs_nld.props import check_ipv6_address

__all__ = [
    "APPLY_ORDER",
    "RESTART_ANNOTATION",
    "Action",
    "DeployOptions",
    "DeployReport",
    "ObjectResult",
    "deploy",
]

APPLY_ORDER: Final[tuple[ChartRole, ...]] = ("services", "workload", "monitoring")
"""Charts in the order they are applied; Services first so kubelet can inject their address."""

RESTART_ANNOTATION: Final = "kubectl.kubernetes.io/restartedAt"
"""The pod-template annotation ``kubectl rollout restart`` sets; changing it rolls the pods."""

RESTART_FIELD_MANAGER: Final = "nld-deploy-rollout"
"""Owns the restart annotation, so our applies (another manager) never remove it."""

MONITORING_GROUP: Final = "monitoring.coreos.com/v1"
MONITORING_RESOURCES: Final = frozenset({"podmonitors", "prometheusrules"})

Action = Literal["created", "configured", "unchanged"]


@dataclass(frozen=True, kw_only=True)
class DeployOptions:
    """How to deploy."""

    dry_run: bool = False
    """Server-side dry run: every write is sent with ``dryRun=All`` and nothing persists."""

    diff: bool = False
    """Print what would change per object; write nothing."""

    skip_monitoring: bool = False
    """Leave out the monitoring chart (the prometheus-operator CRDs are not installed)."""

    timeout: float = 30.0
    """Seconds to wait for the kube-dns-upstream ClusterIP."""

    poll_interval: float = 0.2
    """Seconds between polls while waiting."""


@dataclass(frozen=True)
class ObjectResult:
    """What happened to one object."""

    ref: ObjectRef
    action: Action


@dataclass
class DeployReport:
    """The outcome of a deploy, for callers and tests."""

    cluster_ip: str = ""
    first_deploy: bool = False
    freshly_created: bool = False
    objects: list[ObjectResult] = field(default_factory=list)
    diffs: dict[str, str] = field(default_factory=dict)
    restarted: bool = False


class _Deploy:
    def __init__(
        self, client: KubeClient, props: NodeLocalDNSProps, options: DeployOptions, out: Callable[[str], None]
    ):
        self.client = client
        self.props = props
        self.options = options
        self.out = out
        self.report = DeployReport()
        self.live: dict[ObjectRef, Manifest | None] = {}
        self.suffix = " (dry run)" if options.dry_run else ""

    def ref(self, kind: str, name: str, api_version: str = "v1") -> ObjectRef:
        return ObjectRef(api_version, kind, self.props.namespace, name)

    # --- steps 1-4: read, decide, refuse; no writes ----------------------------------------
    def precondition(self) -> None:
        for service in self.client.list("v1", "Service", self.props.namespace):
            self.live[ObjectRef.of(service)] = service
        upstream_ref = self.ref("Service", defaults.UPSTREAM_SERVICE_NAME)
        daemon_set_ref = self.ref("DaemonSet", defaults.DAEMON_SET_NAME, "apps/v1")
        self.live.setdefault(upstream_ref, None)
        self.live.setdefault(self.ref("Service", defaults.METRICS_SERVICE_NAME), None)
        self.live[daemon_set_ref] = self.client.get(daemon_set_ref)
        upstream = self.live[upstream_ref]
        if upstream is not None:
            selector = upstream.get("spec", {}).get("selector") or {}
            if selector != defaults.KUBE_DNS_SELECTOR:
                raise PreconditionError(
                    f"{upstream_ref} exists with selector {selector!r}, not {defaults.KUBE_DNS_SELECTOR!r}: "
                    "a stale or foreign install; refusing to overwrite it. Inspect it with "
                    f"'kubectl get svc -n {self.props.namespace} {defaults.UPSTREAM_SERVICE_NAME} -o yaml' "
                    "and delete it if it is not in use, then rerun."
                )
        # freshly_created: the Service is absent at the start of this run. first_deploy: this
        # cluster never had it, read as "neither the Service nor an earlier DaemonSet exists".
        self.report.freshly_created = upstream is None
        self.report.first_deploy = upstream is None and self.live[daemon_set_ref] is None
        state = "absent" if upstream is None else "present, selector k8s-app=kube-dns"
        self.out(
            f"[1/7] precondition: {upstream_ref} {state}; "
            f"first_deploy={_yes(self.report.first_deploy)} freshly_created={_yes(self.report.freshly_created)}"
        )

    def resolve_cluster_ip(self) -> None:
        ref = ObjectRef("v1", "Service", defaults.NAMESPACE, defaults.KUBE_DNS_SERVICE_NAME)
        kube_dns = self.live[ref] if ref in self.live else self.client.get(ref)
        if kube_dns is None:
            raise ClusterIPError(f"{ref} not found: the cluster DNS Service must exist before NodeLocal DNSCache")
        cluster_ip = kube_dns.get("spec", {}).get("clusterIP")
        if not cluster_ip or cluster_ip == "None":
            raise ClusterIPError(f"{ref} has no ClusterIP (got {cluster_ip!r}): node-cache needs one to intercept")
        try:
            check_ipv6_address("kube-dns ClusterIP", cluster_ip)
        except ValueError as error:
            raise ClusterIPError(str(error)) from None
        self.report.cluster_ip = cluster_ip
        self.out(f"[2/7] kube-dns ClusterIP: {cluster_ip} (IPv6)")

    def check_monitoring_api(self) -> bool:
        if not self.props.monitoring or self.options.skip_monitoring:
            return False
        served = self.client.served_resources(MONITORING_GROUP) or set()
        missing = sorted(MONITORING_RESOURCES - served)
        if missing:
            raise MonitoringUnavailableError(
                f"the cluster does not serve {MONITORING_GROUP} {', '.join(missing)} "
                "(prometheus-operator CRDs not installed): install them, or rerun with --skip-monitoring"
            )
        return True

    def synthesize(self, with_monitoring: bool) -> tuple[SynthesizedChart, ...]:
        try:
            props = replace(self.props, kube_dns_cluster_ip=self.report.cluster_ip, monitoring=with_monitoring)
        except ValueError as error:
            raise InvalidConfigError(str(error)) from None
        charts = synthesize(props)
        objects = [obj for chart in charts for obj in chart.objects]
        try:
            check_deployable(objects)
        except NotDeployableError as error:
            raise InvalidConfigError(str(error)) from None
        self.out(f"[3/7] synthesized {len(objects)} objects with ClusterIP {self.report.cluster_ip}: deployable")
        order = [chart.role for chart in charts]
        if order != [role for role in APPLY_ORDER if role in order]:
            raise InvalidConfigError(f"charts out of apply order: {order}")
        self.out("[4/7] apply order: " + " -> ".join(f"{c.role} ({len(c.objects)})" for c in charts))
        return charts

    # --- steps 5-7: writes ---------------------------------------------------------------------
    def reconcile(self, desired: Manifest) -> Manifest:
        ref = ObjectRef.of(desired)
        live = self.live[ref] if ref in self.live else self.client.get(ref)
        if self.options.diff:
            after = self.client.apply(desired, dry_run=True)
            text = render_diff(str(ref), live, after)
            if text:
                self.report.diffs[str(ref)] = text
            return after
        if live is not None and is_subset(desired, live):
            probe = self.client.apply(desired, dry_run=True)
            if same_object(live, probe):
                self.report.objects.append(ObjectResult(ref, "unchanged"))
                return live
        result = self.client.apply(desired, dry_run=self.options.dry_run)
        self.report.objects.append(ObjectResult(ref, "created" if live is None else "configured"))
        return result

    def apply_chart(self, step: str, chart: SynthesizedChart) -> dict[ObjectRef, Manifest]:
        done = len(self.report.objects)
        applied = {ObjectRef.of(obj): self.reconcile(obj) for obj in chart.objects}
        if self.options.diff:
            changed = [str(ref) for ref in applied if str(ref) in self.report.diffs]
            self.out(f"[{step}] {chart.role}: " + (f"would change {', '.join(changed)}" if changed else "no changes"))
        else:
            results = self.report.objects[done:]
            self.out(f"[{step}] {chart.role}: " + ", ".join(f"{r.ref} {r.action}" for r in results) + self.suffix)
        return applied

    def wait_for_upstream_ip(self, applied: dict[ObjectRef, Manifest]) -> None:
        ref = self.ref("Service", defaults.UPSTREAM_SERVICE_NAME)
        if self.options.dry_run or self.options.diff:
            self.out(f"[5/7] {ref} ClusterIP: not waited for{self.suffix or ' (diff)'}")
            return
        started = time.monotonic()
        service: Manifest | None = applied[ref]
        while not (service and service.get("spec", {}).get("clusterIP")):
            if time.monotonic() - started > self.options.timeout:
                raise WaitTimeoutError(f"{ref} got no ClusterIP within {self.options.timeout:g}s")
            time.sleep(self.options.poll_interval)
            service = self.client.get(ref)
        waited = time.monotonic() - started
        self.out(f"[5/7] {ref} ClusterIP: {service['spec']['clusterIP']} (waited {waited:.1f}s)")

    def restart(self) -> None:
        ref = self.ref("DaemonSet", defaults.DAEMON_SET_NAME, "apps/v1")
        if not (self.report.first_deploy or self.report.freshly_created):
            upstream = self.ref("Service", defaults.UPSTREAM_SERVICE_NAME)
            self.out(f"[7/7] rollout restart: not needed ({upstream} predates this run)")
            return
        if self.options.diff or (self.options.dry_run and self.live[ref] is None):
            self.out(f"[7/7] rollout restart: would restart {ref}{self.suffix or ' (diff)'}")
            return
        stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        patch = {"spec": {"template": {"metadata": {"annotations": {RESTART_ANNOTATION: stamp}}}}}
        self.client.merge_patch(ref, patch, field_manager=RESTART_FIELD_MANAGER, dry_run=self.options.dry_run)
        self.report.restarted = not self.options.dry_run
        reason = "first deploy" if self.report.first_deploy else "kube-dns-upstream created in this run"
        self.out(f"[7/7] rollout restart: {ref} restarted at {stamp} ({reason}){self.suffix}")

    def run(self) -> DeployReport:
        self.precondition()
        self.resolve_cluster_ip()
        with_monitoring = self.check_monitoring_api()
        charts = self.synthesize(with_monitoring)
        by_role = {chart.role: chart for chart in charts}
        applied = self.apply_chart("5/7", by_role["services"])
        self.wait_for_upstream_ip(applied)
        self.apply_chart("6/7", by_role["workload"])
        if "monitoring" in by_role:
            self.apply_chart("6/7", by_role["monitoring"])
        else:
            self.out("[6/7] monitoring: skipped")
        self.restart()
        return self.report


def _yes(value: bool) -> str:
    return "yes" if value else "no"


def deploy(
    client: KubeClient,
    props: NodeLocalDNSProps,
    options: DeployOptions | None = None,
    out: Callable[[str], None] = print,
) -> DeployReport:
    """Deploy NodeLocal DNSCache to the cluster behind ``client``; one line per step to ``out``.

    Raises a :class:`~constructs_nld.deploy.errors.DeployError` (whose ``exit_code`` the
    CLI returns) or ``ApiException`` for a request the API server refused.
    """
    return _Deploy(client, props, options or DeployOptions(), out).run()
