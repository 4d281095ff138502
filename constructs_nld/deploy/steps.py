"""The deploy's steps: the spec's seven against a live cluster, each a function of one small state.

A deploy applies the user's app (synthesized once for the cluster:
:mod:`constructs_nld.deploy.session`), every chart in the app's order, with the spec's
rules applied to the NodeLocal DNS objects wherever they sit in it
(:mod:`constructs_nld.deploy.component`). :data:`DEPLOY_STEPS` runs, in order:

1. precondition: kube-dns-upstream absent, or selecting ``k8s-app: kube-dns``; no stub
   domain of the ``kube-dns`` ConfigMap that the app's Corefile serves too (node-cache would
   exit, :mod:`constructs_nld.deploy.kube_dns_config`); no cutover in progress; the spec's
   ``first_deploy`` and ``freshly_created`` are reported;
2. the live kube-dns ClusterIP, IPv6 only (read with the session);
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
runs before the first write. An object last written by client-side ``kubectl apply`` (the
spec's ``deploy.sh``) is taken over first (:mod:`constructs_nld.deploy.takeover`).

``cutover`` composes the steps it needs with its own (:mod:`constructs_nld.deploy.commands.cutover`):
a step is a plain function of :class:`DeployState`, so a renamed step breaks its callers
at import, not at run time.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Final, Literal

from kubernetes.client.exceptions import ApiException

from constructs_nld import defaults
from constructs_nld.cachememory import cache_budget
from constructs_nld.deploy.access import check_access
from constructs_nld.deploy.applyset import ApplySet, Stale, group_kind, member_key
from constructs_nld.deploy.compare import is_subset, render_diff, same_object
from constructs_nld.deploy.component import Component
from constructs_nld.deploy.cutover import CutoverState, state_of, summary, template_hash
from constructs_nld.deploy.errors import (
    AdmissionError,
    CutoverError,
    InvalidConfigError,
    MonitoringUnavailableError,
    PreconditionError,
    WaitTimeoutError,
)
from constructs_nld.deploy.fleet import api_error
from constructs_nld.deploy.handover import Handover, find_release, mark_records, replace_daemon_set, replaces
from constructs_nld.deploy.history import Recorder
from constructs_nld.deploy.kube import FIELD_MANAGER, REREADS, KindNotServedError, Manifest, ObjectRef, RereadError
from constructs_nld.deploy.kube_dns_config import refuse_collisions
from constructs_nld.deploy.lease import DeployLease
from constructs_nld.deploy.manifest import KUBE_DNS, is_monitoring, selector
from constructs_nld.deploy.options import DeployOptions
from constructs_nld.deploy.program import hint
from constructs_nld.deploy.restart import Restart
from constructs_nld.deploy.rollout import Progress, RolloutReport, RolloutStatus, follow_rollout
from constructs_nld.deploy.session import Session
from constructs_nld.deploy.takeover import take_over_patch
from constructs_nld.deploy.wait import Poll, wait_for
from constructs_nld.permissions import Command
from constructs_nld.placeholders import NotDeployableError, check_deployable
from constructs_nld.roles import ROLES, Role, role_of

__all__ = [
    "DEPLOY_STEPS",
    "Action",
    "DeployReport",
    "DeployState",
    "ObjectResult",
    "Planned",
    "Step",
    "apply_rest",
    "apply_services",
    "check_app",
    "deploy_steps",
    "follow",
    "plan",
    "precondition",
    "prune",
    "read_history",
    "refuse_cutover",
    "refuse_other_cutover",
    "report_cluster_ip",
    "restart",
    "run_recorded",
    "run_steps",
    "warn_cache_budget",
]

Action = Literal["created", "configured", "unchanged", "pruned", "kept"]


@dataclass(frozen=True)
class ObjectResult:
    """What happened to one object."""

    ref: ObjectRef
    action: Action
    taken_over: bool = False
    """Its fields were taken over first, from ``taken_from``."""
    taken_from: str = "kubectl apply"
    """Whose fields were taken over: client-side ``kubectl apply``, or the Helm release handed over."""

    def __str__(self) -> str:
        """``kind/ns/name action``, noting a take-over."""
        return f"{self.ref} {f'taken over from {self.taken_from}, ' if self.taken_over else ''}{self.action}"


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
    warnings: list[str] = field(default_factory=list)
    """What the run warned of without refusing: the caches' worst case beyond the memory request."""


@dataclass(frozen=True)
class Planned:
    """One object to apply: its chart, its manifest (an ApplySet member), its identity as the cluster serves it."""

    chart: str
    manifest: Manifest
    ref: ObjectRef


@dataclass
class DeployState:
    """What the steps of one deploy share: its session and options, what it read, planned and applied."""

    session: Session
    options: DeployOptions
    progress: Progress
    """How ``follow`` shows the rollout."""
    permission: Command = "deploy"
    """Whose permissions the access check asks for (:mod:`constructs_nld.permissions`)."""
    report: DeployReport = field(default_factory=DeployReport)
    live: dict[ObjectRef, Manifest | None] = field(default_factory=dict)
    """Objects as read before any write (None: absent)."""
    cutover: CutoverState | None = None
    """The cutover in progress on the DaemonSet, as ``precondition`` read it."""
    planned: list[Planned] = field(default_factory=list)
    split: int = 0
    """How many of ``planned`` step 5 applies (through kube-dns-upstream's chart)."""
    stale: list[Stale] = field(default_factory=list)
    """What the ApplySet holds that the app no longer defines."""
    members: set[str] = field(default_factory=set)
    """The app's objects, as the parent records its members (:func:`~constructs_nld.deploy.applyset.member_key`)."""
    instead: dict[ObjectRef, Manifest] = field(default_factory=dict)
    """Manifests to apply in place of the app's (a cutover's DaemonSet, made ``OnDelete``)."""
    applied: dict[ObjectRef, Manifest] = field(default_factory=dict)
    upstream: Manifest = field(default_factory=dict)
    """kube-dns-upstream once it has its ClusterIP."""
    kinds: set[str] = field(default_factory=set)
    namespaces: set[str] = field(default_factory=set)
    probes: dict[ObjectRef, Manifest] = field(default_factory=dict)
    """Each planned object as the API server would store it: ``admit``'s dry runs."""
    lease: DeployLease | None = None
    """The cluster's deploy Lease, while this run holds it."""
    recorder: Recorder | None = None
    """What records this run's revision in the release history (None: a run that records none)."""
    handover: Handover | None = None
    """The Helm release this run takes over, as ``find_release`` planned it (None: none)."""

    def again(self) -> DeployState:
        """A fresh state for the same run, its Lease kept: the cluster read again (the Services of kube-dns too)."""
        client = self.session.kube
        services = {ObjectRef.of(s): s for s in client.list("v1", "Service", defaults.NAMESPACE)}
        return DeployState(
            replace(self.session, services=services),
            self.options,
            self.progress,
            self.permission,
            lease=self.lease,
            recorder=self.recorder,
        )

    @property
    def component(self) -> Component:
        """NodeLocal DNS in the session's app."""
        return self.session.component

    @property
    def applyset(self) -> ApplySet:
        """The set this deploy applies, in the component's namespace."""
        return ApplySet(self.component.namespace)

    @property
    def out(self) -> Callable[[str], None]:
        """Where the step lines go."""
        return self.session.out

    @property
    def suffix(self) -> str:
        """What each line of a write adds under a dry run."""
        return " (dry run)" if self.options.dry_run else ""


Step = Callable[[DeployState], None]
"""One step of a deploy."""


# --- steps 1-4: read, decide, refuse; no writes ----------------------------------------------
def check_app(state: DeployState) -> None:
    """Step 3: the app synthesized with the live address is NodeLocal DNS, in kube-dns's namespace, deployable."""
    component = state.component
    state.report.cluster_ip = state.session.cluster_ip or ""
    if component.namespace != defaults.NAMESPACE:
        raise InvalidConfigError(
            f"the app puts NodeLocal DNS in namespace {component.namespace!r}, but kube-dns lives in "
            f"{defaults.NAMESPACE!r}: kube-dns-upstream selects kube-dns pods in its own namespace, and "
            "kubelet gives node-cache only the Services of its own namespace"
        )
    component.check_cluster_ip(state.report.cluster_ip)
    try:
        check_deployable(component.objects())
    except NotDeployableError as error:
        raise InvalidConfigError(str(error)) from None


def precondition(state: DeployState) -> None:
    """Step 1: refuse a foreign kube-dns-upstream; read the cutover state; report the spec's two triggers."""
    component = state.component
    client = state.session.kube
    state.live.update(state.session.services)
    upstream_ref = ObjectRef.of(component.upstream_service)
    daemon_set_ref = ObjectRef.of(component.daemon_set)
    for service in (component.upstream_service, component.metrics_service):
        if service is not None:
            state.live.setdefault(ObjectRef.of(service), None)
    state.live[daemon_set_ref] = client.get(daemon_set_ref)
    state.cutover = state_of(state.live[daemon_set_ref])
    upstream = state.live[upstream_ref]
    component.check_upstream(upstream, refusing="to overwrite it")
    if component.reads_kube_dns_config:
        kube_dns_config = ObjectRef("v1", "ConfigMap", component.namespace, defaults.KUBE_DNS_CONFIG_MAP_NAME)
        refuse_collisions(component, client.get(kube_dns_config))
    # freshly_created: the Service is absent at the start of this run. first_deploy: this
    # cluster never had it, read as "neither the Service nor an earlier DaemonSet exists".
    state.report.freshly_created = upstream is None
    state.report.first_deploy = upstream is None and state.live[daemon_set_ref] is None
    found = "absent" if upstream is None else "present, selector " + selector(component.upstream_selector)
    state.out(
        f"[1/7] precondition: {upstream_ref} {found}; "
        f"first_deploy={_yes(state.report.first_deploy)} freshly_created={_yes(state.report.freshly_created)}"
    )


def _refuse_cutover_unless(state: DeployState, allowed: Callable[[CutoverState], bool]) -> None:
    cutover = state.cutover
    if cutover is None or allowed(cutover) or state.options.diff or state.options.dry_run:
        return
    ref = ObjectRef.of(state.component.daemon_set)
    raise CutoverError(
        f"a cutover of {ref} is in progress ({summary(cutover)}): a deploy would roll every node; "
        f"promote it ({hint('cutover promote')}) or roll it back ({hint('cutover rollback')})"
    )


def refuse_cutover(state: DeployState) -> None:
    """A plain deploy would roll the fleet: refused while a cutover is in progress (a diff or dry run is not)."""
    _refuse_cutover_unless(state, lambda _: False)


def refuse_other_cutover(state: DeployState) -> None:
    """``cutover promote``'s deploy: only the cutover it promotes (the app's template, or one promoting) may be."""
    template = template_hash(state.component.daemon_set["spec"]["template"])
    _refuse_cutover_unless(state, lambda cutover: bool(cutover.promoted) or cutover.template == template)


def report_cluster_ip(state: DeployState) -> None:
    """Step 2's line: the address the app was synthesized with."""
    state.out(f"[2/7] kube-dns ClusterIP: {state.report.cluster_ip} (IPv6)")


def warn_cache_budget(state: DeployState) -> None:
    """Warn, refusing nothing, when the app's caches, full, would exceed node-cache's memory request.

    Every deploy says it, the ``--diff`` and the ``--dry-run`` too, before anything is written
    (:mod:`constructs_nld.cachememory`).
    """
    config_map = state.component.corefile
    if config_map is None:
        return
    try:
        budget = cache_budget(config_map, state.component.daemon_set)
    except ValueError as error:
        raise InvalidConfigError(f"the app's DaemonSet: {error}") from None
    warning = budget.warning() if budget is not None else None
    if warning is not None:
        state.report.warnings.append(warning)
        state.out(f"warning: {warning}")


def plan(state: DeployState) -> None:
    """Step 4: every object to apply with its chart and identity, and what the set holds beyond them.

    Refuses kinds the cluster does not serve, a parent another tool manages, and a
    permission the user lacks.
    """
    client = state.session.kube
    applyset = state.applyset
    charts = state.session.charts
    monitoring_missing: list[str] = []
    defined: list[ObjectRef] = []
    for chart in charts:
        for obj in chart.objects:
            if is_monitoring(obj) and state.options.skip_monitoring:
                defined.append(ObjectRef.of(obj))  # still the app's: never pruned
                continue
            try:
                ref = client.ref_of(obj)
            except KindNotServedError as error:
                if not is_monitoring(obj):
                    raise InvalidConfigError(f"{chart.name}: {ObjectRef.of(obj)}: {error}") from None
                monitoring_missing.append(obj["kind"])
                continue
            defined.append(ref)
            state.planned.append(Planned(chart.name, applyset.member(obj), ref))
    if monitoring_missing:
        kinds = ", ".join(sorted(set(monitoring_missing)))
        raise MonitoringUnavailableError(
            f"the cluster does not serve {kinds} (prometheus-operator CRDs not installed): "
            "install them, or rerun with --skip-monitoring"
        )
    parent = client.get(applyset.ref)
    state.live[applyset.ref] = parent
    applyset.check_parent(parent)
    recorded_kinds, recorded_namespaces = ApplySet.recorded(parent)
    # The set is what the app defines, applied this run or not (--skip-monitoring keeps them).
    state.kinds = {group_kind(ref.api_version, ref.kind) for ref in defined}
    state.namespaces = {ref.namespace for ref in defined if ref.namespace}
    # Where members are looked for: the kinds and namespaces the app and NodeLocal DNS know, of those the
    # parent records; never where a parent written by another hand points alone.
    known_kinds = state.kinds | {group_kind(spec.api_version, spec.kind) for spec in ROLES.values()}
    known_namespaces = state.namespaces | {state.component.namespace, defaults.ALERTS_NAMESPACE}
    members = applyset.live_members(
        client, known_kinds & recorded_kinds, known_namespaces & (recorded_namespaces | {applyset.namespace})
    )
    state.stale = ApplySet.stale(members, defined, ApplySet.recorded_members(parent))
    state.members = {member_key(ref) for ref in defined}
    undeletable = check_access(
        client,
        state.permission,
        [item.ref for item in state.planned],
        namespace=state.component.namespace,
        kube_dns_config=state.component.reads_kube_dns_config,
        retired=[stale.ref for stale in state.stale if not stale.foreign],
        helm_driver=state.options.helm_driver if state.options.adopt_helm_release else None,
    )
    not_granted = "the deployer may not delete it (DeployerRBAC names the app's objects: see its retired prop)"
    state.stale = [replace(s, denied=not_granted) if s.ref in undeletable else s for s in state.stale]
    state.split = _services_phase(state.planned, state.component)
    objects = sum(len(chart.objects) for chart in charts)
    how = (
        "portable: kubelet gives node-cache the address as $(KUBE_DNS_SERVICE_HOST)"
        if state.component.portable
        else f"with ClusterIP {state.report.cluster_ip}"
    )
    state.out(f"[3/7] synthesized {objects} objects in {len(charts)} chart(s) {how}")
    skipped = objects - len(state.planned)
    pruning = ", ".join(str(s.ref) for s in state.stale if not s.foreign)
    state.out(
        "[4/7] apply order: "
        + " -> ".join(f"{chart.name} ({len(chart.objects)})" for chart in charts)
        + (f"; {skipped} monitoring object(s) skipped (--skip-monitoring)" if skipped else "")
        + (f"; no longer in the app: {pruning}" if pruning else "")
    )


def admit(state: DeployState) -> None:
    """Step 4, last: every planned object through the API server's admission as a dry run, before any write.

    A refusal that only the cluster knows (PodSecurity, a webhook, a ResourceQuota, a policy)
    of the last object refuses the whole deploy, with nothing applied. The answers are kept:
    ``_reconcile`` reads from them whether an object changes, so a deploy with nothing to
    change makes no more requests than before. An object in a namespace that the app itself
    creates cannot be tried before that namespace exists: the API server tries it as it is
    applied, after the namespace.
    """
    if state.options.diff:
        return
    client = state.session.kube
    for item in state.planned:
        if item.ref not in state.live:
            state.live[item.ref] = client.get(item.ref)
    created = {item.ref.name for item in state.planned if item.ref.kind == "Namespace" and state.live[item.ref] is None}
    for item in state.planned:
        if item.ref.namespace in created or replaces(state, item.ref):
            continue  # the release's DaemonSet is replaced, never changed: its selector cannot change
        try:
            state.probes[item.ref] = client.apply(state.instead.get(item.ref, item.manifest), dry_run=True)
        except ApiException as error:
            said = " ".join(api_error(error).split())
            raise AdmissionError(f"{item.ref}: refused in a dry run, {said}; nothing applied") from None


def refuse_dropped_fields(state: DeployState) -> None:
    """Step 4, after ``admit``: refuse when its dry run drops kube-dns-upstream's ``trafficDistribution``.

    An API server too old for the field, or with its feature gate off, drops it silently:
    the deploy would succeed and the cache misses would still cross zones. A value the
    server knows but does not take (``PreferSameZone`` before 1.34) is refused by ``admit``'s
    dry run itself, with the server's message.
    """
    ref = ObjectRef.of(state.component.upstream_service)
    probe = next((answer for key, answer in state.probes.items() if (key.kind, key.name) == (ref.kind, ref.name)), None)
    dropped = state.component.dropped_traffic_distribution(probe)
    if dropped is not None:
        raise AdmissionError(
            f"{ref}: in a dry run, {dropped}: unset upstream_traffic_distribution, or upgrade the control plane; "
            "nothing applied"
        )


def read_history(state: DeployState) -> None:
    """Step 4, after the access check: the release history read, so that a malformed one refuses before any write."""
    if state.recorder is not None and not (state.options.diff or state.options.dry_run):
        state.recorder.read()


def _writes(state: DeployState) -> bool:
    """Whether the checks found anything to write: an object to apply, a member to prune, a parent to change."""
    changed = any(
        state.live.get(item.ref) is None
        or (item.ref in state.probes and not same_object(state.live[item.ref] or {}, state.probes[item.ref]))
        for item in state.planned
    )
    parent = state.live.get(state.applyset.ref)
    kinds, namespaces = ApplySet.recorded(parent)
    kept = {member_key(item.ref) for item in state.stale if item.denied or item.others}
    handover = state.handover
    return (
        changed
        or (handover is not None and bool(handover.records or handover.old_selector))
        or any(not (item.foreign or item.denied or item.others) for item in state.stale)
        or parent is None
        or kinds != state.kinds
        or namespaces != state.namespaces - {state.applyset.namespace}
        or ApplySet.recorded_members(parent) != frozenset(state.members | kept)
    )


def _fingerprint(live: Manifest | None) -> tuple[str, str] | None:
    """What says an object was written since it was read.

    Its generation (its controller's status writes do not count), else its resourceVersion,
    and its labels and annotations.
    """
    if live is None:
        return None
    metadata = live.get("metadata") or {}
    version = str(metadata["generation"]) if "generation" in metadata else str(metadata.get("resourceVersion"))
    return version, repr(
        sorted((metadata.get("labels") or {}).items()) + sorted((metadata.get("annotations") or {}).items())
    )


class StaleReadsError(Exception):
    """This run holds the Lease now, but another run wrote the cluster after this one read it: read it again."""


def hold_lease(state: DeployState) -> bool:
    """Hold the cluster's deploy Lease (waiting while another run holds it); whether this run's reads are stale.

    They are when it waited for another run, or when something it read (the parent, an object
    it plans, a member it prunes) was written since: a plan made on what is no longer there is
    never applied.
    """
    client = state.session.kube
    if state.lease is None:
        lease = DeployLease(client, state.component.namespace)
        waited = lease.acquire(timeout=state.options.lease_timeout, interval=state.options.poll_interval, out=state.out)
        state.lease = lease
        if waited:
            return True
    read = {state.applyset.ref: state.live.get(state.applyset.ref)}
    read.update({item.ref: state.live.get(item.ref) for item in state.planned})
    read.update({item.ref: item.live for item in state.stale if not (item.foreign or item.denied)})
    return any(_fingerprint(client.get(ref)) != _fingerprint(then) for ref, then in read.items())


@contextlib.contextmanager
def holding(state: DeployState, command: str) -> Iterator[None]:
    """Within the block, ``command`` (a cutover step that writes outside :func:`run_steps`) holds the deploy Lease.

    Refused, nothing applied, when another run wrote the cluster after this one read it; the
    Lease is given up at the end, whatever happened.
    """
    try:
        if hold_lease(state):
            raise PreconditionError(
                f"another deploy wrote the cluster while this {command} read it: nothing applied; rerun {hint(command)}"
            )
        yield
    finally:
        if state.lease is not None:
            state.lease.release()


def take_lease(state: DeployState) -> None:
    """Step 5, first: a deploy with something to write holds the cluster's deploy Lease while it writes.

    One deploy of a cluster writes at a time (:mod:`constructs_nld.deploy.lease`). When
    another run wrote the cluster after this one read it, :class:`StaleReadsError` sends the deploy back
    to its reads, under the Lease. A deploy with nothing to write takes none: it writes nothing.
    """
    if state.options.diff or state.options.dry_run or not _writes(state):
        return
    if hold_lease(state):
        raise StaleReadsError
    assert state.lease is not None
    state.out(f"[5/7] holding {state.lease.ref} (one deploy of this cluster writes at a time)")


# --- steps 5-7: writes ---------------------------------------------------------------------------
def _write_parent(state: DeployState, kinds: set[str], namespaces: set[str], members: set[str]) -> None:
    """Apply the ApplySet parent for ``kinds``, ``namespaces`` and ``members`` unless it already says so."""
    applyset = state.applyset
    desired = applyset.parent(kinds, namespaces, members)
    live = state.live.get(applyset.ref)
    if state.options.diff or (live is not None and is_subset(desired, live)):
        return
    state.live[applyset.ref] = state.session.kube.apply(desired, dry_run=state.options.dry_run)


def _take_over(state: DeployState, ref: ObjectRef, live: Manifest) -> Manifest | None:
    """Take ``live``'s fields over from client-side ``kubectl apply``; the object after, or None if not needed.

    The patch is guarded by ``live``'s resourceVersion; throttled or lost on the way, it is
    computed again from a fresh read (which shows it made when it was).
    """
    client = state.session.kube
    current: Manifest | None = live
    rereads = 0
    while True:
        helm = state.handover is not None
        patch = None if current is None else take_over_patch(current, datetime.now(UTC), helm=helm)
        if patch is None:
            return None if current is live else current
        try:
            return client.json_patch(ref, patch, field_manager=FIELD_MANAGER, dry_run=state.options.dry_run)
        except RereadError:
            rereads += 1
            if rereads > REREADS:
                raise
            current = client.get(ref)


def _reconcile(state: DeployState, desired: Manifest, ref: ObjectRef) -> tuple[Manifest, ObjectResult | None]:
    """Apply ``desired`` unless the live object is it already; the object after, and what happened (None: diff)."""
    client = state.session.kube
    live = state.live[ref] if ref in state.live else client.get(ref)
    if state.options.diff:
        # The release's DaemonSet is replaced, not changed: its diff is to the app's as synthesized.
        after = desired if replaces(state, ref) else client.apply(desired, dry_run=True)
        text = render_diff(str(ref), live, after)
        if text:
            state.report.diffs[str(ref)] = text
        return after, None
    if replaces(state, ref):
        return _replace(state, desired, ref, live)
    taken_over = False
    if live is not None:
        adopted = _take_over(state, ref, live)
        if adopted is not None:
            live, taken_over = adopted, True
    if live is not None and is_subset(desired, live):
        probe = state.probes[ref] if ref in state.probes and not taken_over else client.apply(desired, dry_run=True)
        if same_object(live, probe):
            return live, ObjectResult(ref, "unchanged", taken_over, _taken_from(state))
    if ref == ObjectRef.of(state.component.daemon_set) and live is not None and not state.options.dry_run:
        return _apply_daemon_set(state, desired, ref, live), ObjectResult(
            ref, "configured", taken_over, _taken_from(state)
        )
    if state.options.dry_run and ref in state.probes and not taken_over:
        result = state.probes[ref]  # admit's dry run was this one
    else:
        result = client.apply(desired, dry_run=state.options.dry_run)
    return result, ObjectResult(ref, "created" if live is None else "configured", taken_over, _taken_from(state))


def _taken_from(state: DeployState) -> str:
    return state.handover.label if state.handover is not None else "kubectl apply"


def _replace(
    state: DeployState, desired: Manifest, ref: ObjectRef, live: Manifest | None
) -> tuple[Manifest, ObjectResult]:
    """The Helm release's DaemonSet replaced by the app's; with a dry run, shown as the app's alone."""
    if state.options.dry_run:
        assert state.handover is not None
        after, state.handover.replaced = desired, True
    else:
        after = replace_daemon_set(state, desired, ref, live)
    action: Action = "created" if live is None else "configured"
    return after, ObjectResult(ref, action, live is not None, _taken_from(state))


def _apply_daemon_set(state: DeployState, desired: Manifest, ref: ObjectRef, live: Manifest) -> Manifest:
    """Apply the DaemonSet only while its cutover state is the one this run judged.

    The apply is conditional on the resourceVersion last read. When the DaemonSet changed
    meanwhile (its controller's status writes change it too), it is read again: the same
    cutover state (or none, as before) applies again on the new version; another one (a
    ``cutover start`` since this run read it) wins, and the deploy refuses with the
    DaemonSet untouched.
    """
    client = state.session.kube
    for reread in range(REREADS + 1):
        try:
            return client.apply(desired, resource_version=live["metadata"]["resourceVersion"])
        except ApiException as error:
            if error.status != 409:
                raise
        except RereadError:
            if reread == REREADS:
                raise
        fresh = client.get(ref)
        if fresh is None:
            raise PreconditionError(f"{ref} was deleted while this deploy ran: nothing of it was applied; rerun")
        now = state_of(fresh)
        if now != state.cutover:
            raise CutoverError(
                f"a cutover of {ref} started while this deploy ran ({summary(now) if now else 'it ended'}): the "
                f"DaemonSet was not applied, so the cutover stands; see {hint('cutover status')}"
            )
        live = fresh
    raise PreconditionError(
        f"{ref} changed {REREADS + 1} times while this deploy applied it: nothing of it was applied; rerun"
    )


def _apply(state: DeployState, step: str, planned: list[Planned]) -> None:
    """Reconcile ``planned`` in order; one line per chart, under ``step``."""
    by_chart: dict[str, list[str]] = {}
    for item in planned:
        desired = state.instead.get(item.ref, item.manifest)
        state.applied[item.ref], result = _reconcile(state, desired, item.ref)
        if result is not None:
            state.report.objects.append(result)
            by_chart.setdefault(item.chart, []).append(str(result) + state.suffix)
        elif str(item.ref) in state.report.diffs:
            by_chart.setdefault(item.chart, []).append(f"would change {item.ref}")
        else:
            by_chart.setdefault(item.chart, [])
    for chart, lines in by_chart.items():
        state.out(f"[{step}] {chart}: " + (", ".join(lines) or "no changes"))


def apply_services(state: DeployState) -> None:
    """Step 5: the parent widened first (an interrupted run leaks nothing), then up to kube-dns-upstream."""
    parent = state.live.get(state.applyset.ref)
    recorded_kinds, recorded_namespaces = ApplySet.recorded(parent)
    recorded_members = ApplySet.recorded_members(parent) or frozenset()
    _write_parent(
        state, state.kinds | recorded_kinds, state.namespaces | recorded_namespaces, state.members | recorded_members
    )
    _apply(state, "5/7", state.planned[: state.split])
    state.upstream = _wait_for_upstream_ip(state, ObjectRef.of(state.component.upstream_service))


def _wait_for_upstream_ip(state: DeployState, ref: ObjectRef) -> Manifest:
    """Poll kube-dns-upstream ``ref`` until it has its ClusterIP (not with a dry run or a diff)."""
    if state.options.dry_run or state.options.diff:
        state.out(f"[5/7] {ref} ClusterIP: not waited for{state.suffix or ' (diff)'}")
        return state.applied[ref]
    service: list[Manifest | None] = [state.applied[ref]]

    def poll(_: float) -> Poll:
        if service[0] is None or not service[0].get("spec", {}).get("clusterIP"):
            service[0] = state.session.kube.get(ref)
        return Poll(done=bool(service[0] and service[0].get("spec", {}).get("clusterIP")))

    timeout = state.options.cluster_ip_timeout
    waited = wait_for(
        poll,
        interval=state.options.poll_interval,
        timeout=timeout,
        timed_out=lambda _: WaitTimeoutError(f"{ref} got no ClusterIP within {timeout:g}s"),
    )
    found = service[0]
    assert found is not None
    state.out(f"[5/7] {ref} ClusterIP: {found['spec']['clusterIP']} (waited {waited:.1f}s)")
    return found


def apply_rest(state: DeployState) -> None:
    """Step 6: everything after kube-dns-upstream's chart, in the app's order."""
    if state.planned[state.split :]:
        _apply(state, "6/7", state.planned[state.split :])


def restart(state: DeployState) -> None:
    """Step 7: a restart when the cluster shows node-cache pods that lack an address."""
    ref = ObjectRef.of(state.component.daemon_set)
    if state.handover is not None and state.handover.replaced:
        state.out(f"[7/7] no restart: {ref} is new, so its controller replaces every pod of the Helm release's")
        return
    decision = Restart(
        state.session.kube,
        ref,
        state.component.pod_selector,
        timeout=state.options.restart_timeout,
        dry_run=state.options.dry_run,
        out=state.out,
    )
    kube_dns = state.live.get(KUBE_DNS) if state.component.portable else None
    state.report.restarted = decision.run(state.applied.get(ref), state.upstream, kube_dns, preview=state.options.diff)


def follow(state: DeployState) -> None:
    """With ``wait``: follow the DaemonSet's rollout to its end."""
    if not state.options.wait:
        return
    state.report.rollout = follow_rollout(
        state.session.kube,
        ObjectRef.of(state.component.daemon_set),
        state.progress,
        stall_after=state.options.stall_after,
        poll_interval=state.options.rollout_poll_interval,
    )


def prune(state: DeployState) -> None:
    """Delete what the app no longer defines; narrow the parent to the app's set.

    Only what is ours (its ``part-of`` label our apply's), and never an object another field
    manager also owns. An object the node-cache pods may still use (a workload or Services
    object) waits while the DaemonSet's rollout runs: old pods mount the old ConfigMaps until
    they are replaced. The parent is narrowed once nothing of ours is kept.
    """
    rolling = _rolling(state)
    kept: list[str] = []
    held = False
    for item in reversed(state.stale):
        if item.foreign:
            kept.append(f"{item.ref} ({item.foreign})")
            continue
        if item.denied:
            kept.append(f"{item.ref} ({item.denied})")
            held = True
            continue
        if item.others:
            kept.append(f"{item.ref} (also owned by {', '.join(item.others)})")
            held = True
            continue
        if rolling and _phase(item.live) in ("services", "workload"):
            kept.append(f"{item.ref} (until the rollout completes: rerun, or deploy --wait)")
            held = True
            continue
        if not state.options.diff:
            state.session.kube.delete(item.ref, uid=item.live["metadata"].get("uid"), dry_run=state.options.dry_run)
        state.report.pruned.append(item.ref)
        state.report.objects.append(ObjectResult(item.ref, "pruned"))
    if not held:
        _write_parent(state, state.kinds, state.namespaces, state.members)
    if state.stale:
        verb = "would prune" if state.options.diff else "pruned"
        line = f"[prune] {verb}: {', '.join(str(r) for r in state.report.pruned) or 'nothing'}{state.suffix}"
        state.out(line + (f"; kept: {', '.join(kept)}" if kept else ""))


def _rolling(state: DeployState) -> bool:
    if state.options.diff or state.report.rollout is not None:
        return False
    ref = ObjectRef.of(state.component.daemon_set)
    live = state.applied.get(ref) or state.session.kube.get(ref)
    return live is not None and not RolloutStatus.of(live).complete


def deploy_checks(guard: Step = refuse_cutover) -> tuple[Step, ...]:
    """A deploy's steps before its first write, with ``guard`` judging the cutover that ``precondition`` read.

    Every refusal of a deploy is among them: a caller that writes state of its own (``cutover
    promote``) takes them first, so that a refused run leaves nothing behind.
    """
    return (
        check_app,
        precondition,
        guard,
        report_cluster_ip,
        warn_cache_budget,
        plan,
        find_release,
        admit,
        refuse_dropped_fields,
        read_history,
    )


DEPLOY_WRITES: Final[tuple[Step, ...]] = (take_lease, mark_records, apply_services, apply_rest, restart, follow, prune)
"""A deploy's steps from its first write on."""


def deploy_steps(guard: Step = refuse_cutover) -> tuple[Step, ...]:
    """A deploy's steps in order, with ``guard`` judging the cutover that ``precondition`` read."""
    return (*deploy_checks(guard), *DEPLOY_WRITES)


DEPLOY_STEPS: Final = deploy_steps()
"""A plain deploy's steps, in order: one function each."""


def run_steps(state: DeployState, steps: tuple[Step, ...] = DEPLOY_STEPS) -> DeployReport:
    """Take ``steps`` in order on ``state``; its report. A Lease taken is given up at the end, whatever happened.

    When the Lease says the reads are stale (:class:`StaleReadsError`), steps that begin with the reads
    start again on a fresh state; others (the writes alone) refuse, nothing applied.
    """
    try:
        return _run_holding(state, steps)
    finally:
        if state.lease is not None:
            state.lease.release()


def _run_holding(state: DeployState, steps: tuple[Step, ...]) -> DeployReport:
    """:func:`run_steps`, the Lease (once taken) kept: the caller gives it up."""
    while True:
        try:
            for step in steps:
                step(state)
        except StaleReadsError:
            if steps[0] is not check_app:
                raise PreconditionError(
                    "another deploy wrote the cluster while this one read it: nothing applied; rerun"
                ) from None
            state.out("[5/7] another deploy wrote the cluster meanwhile: reading it again")
            state = state.again()
            continue
        return state.report


def run_recorded(state: DeployState, steps: tuple[Step, ...] = DEPLOY_STEPS) -> DeployReport:
    """:func:`run_steps`, its revision recorded by ``state.recorder`` (none for a dry run, a diff, or no recorder).

    A run that refuses before its first write (it never took the Lease) records nothing; one
    that wrote records before it gives the Lease up.
    """
    recorder = state.recorder
    if recorder is None or state.options.dry_run or state.options.diff:
        return run_steps(state, steps)
    try:
        # Recorded under the Lease: two runs' revisions are in the order of their writes.
        with recorder.recording(lambda: state.lease is not None):
            return _run_holding(state, steps)
    finally:
        if state.lease is not None:
            state.lease.release()


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
