"""The deploy's steps: the spec's seven against a live cluster, idempotent, nothing written on refusal.

It deploys the user's cdk8s app (:mod:`constructs_nld.deploy.source`), every chart in the
app's order, with the spec's rules applied to the NodeLocal DNS objects wherever they sit
in it (:mod:`constructs_nld.deploy.component`). The steps are a table (:data:`STEPS`),
run in order:

1. precondition: kube-dns-upstream absent, or selecting ``k8s-app: kube-dns``; no stub
   domain of the ``kube-dns`` ConfigMap that the app's Corefile serves too (node-cache would
   exit, :mod:`constructs_nld.deploy.kube_dns_config`); the spec's ``first_deploy`` and
   ``freshly_created`` are reported;
2. the live kube-dns ClusterIP, IPv6 only;
3. the app synthesized with that address, refused if a placeholder is left or if it did
   not take the address;
4. the apply order: the app's charts in order, kube-dns-upstream before the DaemonSet, and
   what the ApplySet holds that the app no longer defines;
5. every object up to kube-dns-upstream, then a poll until it has its ClusterIP (no fixed
   sleep);
6. the rest, in the app's order (the workload, monitoring, charts of the user's);
7. a rollout restart when the cluster shows pods that lack an address
   (:mod:`constructs_nld.deploy.restart`);

then, with ``wait``, the DaemonSet's rollout is followed to the end
(:mod:`constructs_nld.deploy.rollout`), and what the app no longer defines is pruned
(:mod:`constructs_nld.deploy.applyset`).

Every check that can refuse (steps 1-4, kinds the cluster does not serve, the monitoring
CRDs, a foreign ApplySet parent, a permission the user lacks: :mod:`constructs_nld.deploy.access`)
runs before the first write. An object last written by
client-side ``kubectl apply`` (the spec's ``deploy.sh``) is taken over first
(:mod:`constructs_nld.deploy.takeover`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Final, Literal

from constructs_nld import defaults
from constructs_nld.deploy.access import check_access
from constructs_nld.deploy.applyset import ApplySet, Stale, group_kind
from constructs_nld.deploy.compare import is_subset, render_diff, same_object
from constructs_nld.deploy.component import Component, locate
from constructs_nld.deploy.cutover import CutoverState, state_of, summary
from constructs_nld.deploy.errors import (
    ClusterIPError,
    CutoverError,
    InvalidConfigError,
    MonitoringUnavailableError,
    WaitTimeoutError,
)
from constructs_nld.deploy.kube import (
    FIELD_MANAGER,
    REREADS,
    KindNotServedError,
    KubeClient,
    Manifest,
    ObjectRef,
    RereadError,
)
from constructs_nld.deploy.kube_dns_config import refuse_collisions
from constructs_nld.deploy.manifest import KUBE_DNS, is_monitoring, selector
from constructs_nld.deploy.options import DeployOptions
from constructs_nld.deploy.progress import PlainProgress
from constructs_nld.deploy.restart import Restart
from constructs_nld.deploy.rollout import Progress, RolloutReport, RolloutStatus, follow_rollout
from constructs_nld.deploy.source import AppChart, AppSource
from constructs_nld.deploy.takeover import take_over_patch
from constructs_nld.permissions import Command
from constructs_nld.placeholders import NotDeployableError, check_deployable
from constructs_nld.props import check_ipv6_address
from constructs_nld.roles import ROLES, Role, role_of

__all__ = ["STEPS", "Action", "DeployReport", "Deployment", "ObjectResult", "Planned"]

Action = Literal["created", "configured", "unchanged", "pruned", "kept"]


@dataclass(frozen=True)
class ObjectResult:
    """What happened to one object."""

    ref: ObjectRef
    action: Action
    taken_over: bool = False
    """Its fields were taken over from client-side ``kubectl apply`` first."""

    def __str__(self) -> str:
        """``kind/ns/name action``, noting a take-over."""
        return f"{self.ref} {'taken over from kubectl apply, ' if self.taken_over else ''}{self.action}"


@dataclass
class DeployReport:
    """The outcome of a deploy, for callers and tests."""

    cluster_ip: str = ""
    first_deploy: bool = False
    freshly_created: bool = False
    objects: list[ObjectResult] = field(default_factory=list)
    diffs: dict[str, str] = field(default_factory=dict)
    restarted: bool = False
    rollout: RolloutReport | None = None
    """How the rollout went, when the deploy waited for it."""
    pruned: list[ObjectRef] = field(default_factory=list)
    """Objects the app no longer defines that this run deleted (or, with a dry run or a diff, would delete)."""


@dataclass(frozen=True)
class Planned:
    """One object to apply: its chart, its manifest (an ApplySet member), its identity as the cluster serves it."""

    chart: str
    manifest: Manifest
    ref: ObjectRef


STEPS: Final = (
    "read_cluster",
    "synthesize",
    "precondition",
    "report_cluster_ip",
    "plan",
    "apply_services",
    "apply_rest",
    "restart",
    "follow_rollout",
    "prune",
)
"""The deploy's steps, in the order :meth:`Deployment.run` takes them: one method each."""


class Deployment:
    """The deploy's steps as methods, run in the order of :attr:`steps`; ``cutover`` reuses and extends them."""

    command: Command = "deploy"
    """Whose permissions the access check asks for (:mod:`constructs_nld.permissions`)."""

    steps: tuple[str, ...] = STEPS

    def __init__(
        self,
        client: KubeClient,
        source: AppSource,
        options: DeployOptions,
        out: Callable[[str], None],
        progress: Progress | None,
    ):
        """A deploy of ``source``'s app through ``client``, reporting to ``out`` (``progress``: the rollout's)."""
        self.client = client
        self.source = source
        self.options = options
        self.out = out
        self.progress = progress or PlainProgress(out)
        self.report = DeployReport()
        self.live: dict[ObjectRef, Manifest | None] = {}
        self.suffix = " (dry run)" if options.dry_run else ""
        self.charts: tuple[AppChart, ...] = ()
        self.component: Component
        self.applyset: ApplySet
        self.planned: list[Planned] = []
        self.split = 0
        self.stale: list[Stale] = []
        self.applied: dict[ObjectRef, Manifest] = {}
        self.upstream: Manifest = {}
        self.kinds: set[str] = set()
        self.namespaces: set[str] = set()

    # --- steps 1-4: read, decide, refuse; no writes ----------------------------------------
    def read_cluster(self) -> None:
        """Step 2's read: kube-dns's ClusterIP, IPv6; the same list serves step 1 (NLD lives beside kube-dns)."""
        for service in self.client.list("v1", "Service", defaults.NAMESPACE):
            self.live[ObjectRef.of(service)] = service
        kube_dns = self.live.get(KUBE_DNS)
        if kube_dns is None:
            raise ClusterIPError(f"{KUBE_DNS} not found: the cluster DNS Service must exist before NodeLocal DNSCache")
        cluster_ip = kube_dns.get("spec", {}).get("clusterIP")
        if not cluster_ip or cluster_ip == "None":
            raise ClusterIPError(f"{KUBE_DNS} has no ClusterIP (got {cluster_ip!r}): node-cache needs one to intercept")
        try:
            check_ipv6_address("kube-dns ClusterIP", cluster_ip)
        except ValueError as error:
            raise ClusterIPError(str(error)) from None
        self.report.cluster_ip = str(cluster_ip)

    def synthesize(self) -> None:
        """Step 3: the app with the live address; the component located once, checked deployable."""
        self.charts = tuple(self.source(self.report.cluster_ip))
        self.component = component = locate(self.charts)
        if component.namespace != defaults.NAMESPACE:
            raise InvalidConfigError(
                f"the app puts NodeLocal DNS in namespace {component.namespace!r}, but kube-dns lives in "
                f"{defaults.NAMESPACE!r}: kube-dns-upstream selects kube-dns pods in its own namespace, and "
                "kubelet gives node-cache only the Services of its own namespace"
            )
        component.check_cluster_ip(self.report.cluster_ip)
        try:
            check_deployable(component.objects())
        except NotDeployableError as error:
            raise InvalidConfigError(str(error)) from None
        self.applyset = ApplySet(component.namespace)

    def precondition(self) -> None:
        """Step 1: refuse a foreign kube-dns-upstream; report the spec's two triggers."""
        component = self.component
        upstream_ref = ObjectRef.of(component.upstream_service)
        daemon_set_ref = ObjectRef.of(component.daemon_set)
        for service in (component.upstream_service, component.metrics_service):
            if service is not None:
                self.live.setdefault(ObjectRef.of(service), None)
        self.live[daemon_set_ref] = self.client.get(daemon_set_ref)
        self.check_cutover(state_of(self.live[daemon_set_ref]))
        upstream = self.live[upstream_ref]
        component.check_upstream(upstream, refusing="to overwrite it")
        if component.reads_kube_dns_config:
            kube_dns_config = ObjectRef("v1", "ConfigMap", component.namespace, defaults.KUBE_DNS_CONFIG_MAP_NAME)
            refuse_collisions(component, self.client.get(kube_dns_config))
        # freshly_created: the Service is absent at the start of this run. first_deploy: this
        # cluster never had it, read as "neither the Service nor an earlier DaemonSet exists".
        self.report.freshly_created = upstream is None
        self.report.first_deploy = upstream is None and self.live[daemon_set_ref] is None
        state = "absent" if upstream is None else "present, selector " + selector(component.upstream_selector)
        self.out(
            f"[1/7] precondition: {upstream_ref} {state}; "
            f"first_deploy={_yes(self.report.first_deploy)} freshly_created={_yes(self.report.freshly_created)}"
        )

    def check_cutover(self, state: CutoverState | None) -> None:
        """A plain deploy would roll the fleet: refused while a cutover is in progress (a diff or dry run is not)."""
        if state is not None and not (self.options.diff or self.options.dry_run):
            ref = ObjectRef.of(self.component.daemon_set)
            raise CutoverError(
                f"a cutover of {ref} is in progress ({summary(state)}): a deploy would roll every node; "
                "promote it ('python deploy.py cutover promote') or roll it back ('python deploy.py cutover rollback')"
            )

    def report_cluster_ip(self) -> None:
        """Step 2's line: the address the app was synthesized with."""
        self.out(f"[2/7] kube-dns ClusterIP: {self.report.cluster_ip} (IPv6)")

    def plan(self) -> None:
        """Step 4: every object to apply with its chart and identity, and what the set holds beyond them.

        Refuses kinds the cluster does not serve and a parent another tool manages.
        """
        monitoring_missing: list[str] = []
        defined: list[ObjectRef] = []
        for chart in self.charts:
            for obj in chart.objects:
                if is_monitoring(obj) and self.options.skip_monitoring:
                    defined.append(ObjectRef.of(obj))  # still the app's: never pruned
                    continue
                try:
                    ref = self.client.ref_of(obj)
                except KindNotServedError as error:
                    if not is_monitoring(obj):
                        raise InvalidConfigError(f"{chart.name}: {ObjectRef.of(obj)}: {error}") from None
                    monitoring_missing.append(obj["kind"])
                    continue
                defined.append(ref)
                self.planned.append(Planned(chart.name, self.applyset.member(obj), ref))
        if monitoring_missing:
            kinds = ", ".join(sorted(set(monitoring_missing)))
            raise MonitoringUnavailableError(
                f"the cluster does not serve {kinds} (prometheus-operator CRDs not installed): "
                "install them, or rerun with --skip-monitoring"
            )
        parent = self.client.get(self.applyset.ref)
        self.live[self.applyset.ref] = parent
        self.applyset.check_parent(parent)
        recorded_kinds, recorded_namespaces = ApplySet.recorded(parent)
        # The set is what the app defines, applied this run or not (--skip-monitoring keeps them).
        self.kinds = {group_kind(ref.api_version, ref.kind) for ref in defined}
        self.namespaces = {ref.namespace for ref in defined if ref.namespace}
        members = self.applyset.live_members(
            self.client, self.kinds | recorded_kinds, self.namespaces | recorded_namespaces
        )
        self.stale = ApplySet.stale(members, defined)
        touched = [item.ref for item in self.planned] + [stale.ref for stale in self.stale]
        check_access(self.client, self.command, touched, namespace=self.component.namespace)
        self.split = _services_phase(self.planned, self.component)
        objects = sum(len(chart.objects) for chart in self.charts)
        how = (
            "portable: kubelet gives node-cache the address as $(KUBE_DNS_SERVICE_HOST)"
            if self.component.portable
            else f"with ClusterIP {self.report.cluster_ip}"
        )
        self.out(f"[3/7] synthesized {objects} objects in {len(self.charts)} chart(s) {how}")
        skipped = objects - len(self.planned)
        pruning = ", ".join(str(s.ref) for s in self.stale)
        self.out(
            "[4/7] apply order: "
            + " -> ".join(f"{chart.name} ({len(chart.objects)})" for chart in self.charts)
            + (f"; {skipped} monitoring object(s) skipped (--skip-monitoring)" if skipped else "")
            + (f"; no longer in the app: {pruning}" if pruning else "")
        )

    # --- steps 5-7: writes ---------------------------------------------------------------------
    def write_parent(self, kinds: set[str], namespaces: set[str]) -> None:
        """Apply the ApplySet parent for ``kinds`` and ``namespaces`` unless it already says so."""
        desired = self.applyset.parent(kinds, namespaces)
        live = self.live.get(self.applyset.ref)
        if self.options.diff or (live is not None and is_subset(desired, live)):
            return
        self.live[self.applyset.ref] = self.client.apply(desired, dry_run=self.options.dry_run)

    def take_over(self, ref: ObjectRef, live: Manifest) -> Manifest | None:
        """Take ``live``'s fields over from client-side ``kubectl apply``; the object after, or None if not needed.

        The patch is guarded by ``live``'s resourceVersion; throttled or lost on the way, it is
        computed again from a fresh read (which shows it made when it was).
        """
        current: Manifest | None = live
        rereads = 0
        while True:
            patch = None if current is None else take_over_patch(current, datetime.now(UTC))
            if patch is None:
                return None if current is live else current
            try:
                return self.client.json_patch(ref, patch, field_manager=FIELD_MANAGER, dry_run=self.options.dry_run)
            except RereadError:
                rereads += 1
                if rereads > REREADS:
                    raise
                current = self.client.get(ref)

    def reconcile(self, desired: Manifest, ref: ObjectRef) -> tuple[Manifest, ObjectResult | None]:
        """Apply ``desired`` unless the live object is it already; the object after, and what happened (None: diff)."""
        live = self.live[ref] if ref in self.live else self.client.get(ref)
        if self.options.diff:
            after = self.client.apply(desired, dry_run=True)
            text = render_diff(str(ref), live, after)
            if text:
                self.report.diffs[str(ref)] = text
            return after, None
        taken_over = False
        if live is not None:
            adopted = self.take_over(ref, live)
            if adopted is not None:
                live, taken_over = adopted, True
        if live is not None and is_subset(desired, live):
            probe = self.client.apply(desired, dry_run=True)
            if same_object(live, probe):
                return live, ObjectResult(ref, "unchanged", taken_over)
        result = self.client.apply(desired, dry_run=self.options.dry_run)
        return result, ObjectResult(ref, "created" if live is None else "configured", taken_over)

    def desired(self, item: Planned) -> Manifest:
        """What to apply for ``item``: the app's manifest (a cutover changes the DaemonSet's)."""
        return item.manifest

    def apply(self, step: str, planned: list[Planned]) -> None:
        """Reconcile ``planned`` in order; one line per chart, under ``step``."""
        by_chart: dict[str, list[str]] = {}
        for item in planned:
            self.applied[item.ref], result = self.reconcile(self.desired(item), item.ref)
            if result is not None:
                self.report.objects.append(result)
                by_chart.setdefault(item.chart, []).append(str(result) + self.suffix)
            elif str(item.ref) in self.report.diffs:
                by_chart.setdefault(item.chart, []).append(f"would change {item.ref}")
            else:
                by_chart.setdefault(item.chart, [])
        for chart, lines in by_chart.items():
            self.out(f"[{step}] {chart}: " + (", ".join(lines) or "no changes"))

    def apply_services(self) -> None:
        """Step 5: the parent widened first (an interrupted run leaks nothing), then up to kube-dns-upstream."""
        recorded_kinds, recorded_namespaces = ApplySet.recorded(self.live.get(self.applyset.ref))
        self.write_parent(self.kinds | recorded_kinds, self.namespaces | recorded_namespaces)
        self.apply("5/7", self.planned[: self.split])
        self.upstream = self.wait_for_upstream_ip(ObjectRef.of(self.component.upstream_service))

    def wait_for_upstream_ip(self, ref: ObjectRef) -> Manifest:
        """Poll kube-dns-upstream ``ref`` until it has its ClusterIP (not with a dry run or a diff)."""
        if self.options.dry_run or self.options.diff:
            self.out(f"[5/7] {ref} ClusterIP: not waited for{self.suffix or ' (diff)'}")
            return self.applied[ref]
        started = time.monotonic()
        service: Manifest | None = self.applied[ref]
        while not (service and service.get("spec", {}).get("clusterIP")):
            if time.monotonic() - started > self.options.timeout:
                raise WaitTimeoutError(f"{ref} got no ClusterIP within {self.options.timeout:g}s")
            time.sleep(self.options.poll_interval)
            service = self.client.get(ref)
        waited = time.monotonic() - started
        self.out(f"[5/7] {ref} ClusterIP: {service['spec']['clusterIP']} (waited {waited:.1f}s)")
        return service

    def apply_rest(self) -> None:
        """Step 6: everything after kube-dns-upstream's chart, in the app's order."""
        if self.planned[self.split :]:
            self.apply("6/7", self.planned[self.split :])

    def restart(self) -> None:
        """Step 7: a restart when the cluster shows node-cache pods that lack an address."""
        ref = ObjectRef.of(self.component.daemon_set)
        restart = Restart(
            self.client,
            ref,
            self.component.pod_selector,
            timeout=self.options.timeout,
            dry_run=self.options.dry_run,
            out=self.out,
        )
        kube_dns = self.live.get(KUBE_DNS) if self.component.portable else None
        self.report.restarted = restart.run(self.applied.get(ref), self.upstream, kube_dns, preview=self.options.diff)

    def follow_rollout(self) -> None:
        """With ``wait``: follow the DaemonSet's rollout to its end."""
        if not self.options.wait:
            return
        self.report.rollout = follow_rollout(
            self.client,
            ObjectRef.of(self.component.daemon_set),
            self.progress,
            stall_after=self.options.stall_after,
            poll_interval=self.options.rollout_poll_interval,
        )

    def prune(self) -> None:
        """Delete what the app no longer defines; narrow the parent to the app's set.

        Never an object another field manager also owns. An object the node-cache pods may
        still use (a workload or Services object) waits while the DaemonSet's rollout runs:
        old pods mount the old ConfigMaps until they are replaced.
        """
        rolling = self._rolling()
        kept: list[str] = []
        for item in reversed(self.stale):
            if item.others:
                kept.append(f"{item.ref} (also owned by {', '.join(item.others)})")
                continue
            if rolling and _phase(item.live) in ("services", "workload"):
                kept.append(f"{item.ref} (until the rollout completes: rerun, or deploy --wait)")
                continue
            if not self.options.diff:
                self.client.delete(item.ref, uid=item.live["metadata"].get("uid"), dry_run=self.options.dry_run)
            self.report.pruned.append(item.ref)
            self.report.objects.append(ObjectResult(item.ref, "pruned"))
        if not kept:
            self.write_parent(self.kinds, self.namespaces)
        if self.stale:
            verb = "would prune" if self.options.diff else "pruned"
            line = f"[prune] {verb}: {', '.join(str(r) for r in self.report.pruned) or 'nothing'}{self.suffix}"
            self.out(line + (f"; kept: {', '.join(kept)}" if kept else ""))

    def _rolling(self) -> bool:
        if self.options.diff or self.report.rollout is not None:
            return False
        ref = ObjectRef.of(self.component.daemon_set)
        live = self.applied.get(ref) or self.client.get(ref)
        return live is not None and not RolloutStatus.of(live).complete

    def run(self) -> DeployReport:
        """Take every step in order; the report."""
        for step in self.steps:
            getattr(self, step)()
        return self.report


def _phase(live: Manifest) -> str | None:
    role = role_of(live)
    return ROLES[role].phase if isinstance(role, Role) else None


def _services_phase(planned: list[Planned], component: Component) -> int:
    """How many planned objects step 5 applies: through the end of kube-dns-upstream's chart, never the DaemonSet.

    The spec applies the Services, waits for the ClusterIP, then the rest; a chart holding
    the Service and the DaemonSet both is split just before the DaemonSet.
    """
    upstream, daemon_set = ObjectRef.of(component.upstream_service), ObjectRef.of(component.daemon_set)
    index = next(i for i, item in enumerate(planned) if item.ref == upstream)
    chart = planned[index].chart
    end = index + 1
    while end < len(planned) and planned[end].chart == chart and planned[end].ref != daemon_set:
        end += 1
    return end


def _yes(value: bool) -> str:
    return "yes" if value else "no"
