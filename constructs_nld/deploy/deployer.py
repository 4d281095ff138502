"""The deploy: the spec's seven steps against a live cluster, idempotent, nothing written on refusal.

It deploys the user's cdk8s app (:mod:`constructs_nld.deploy.source`), every chart in the
app's order, with the spec's rules applied to the NodeLocal DNS objects wherever they sit
in it (:mod:`constructs_nld.deploy.component`):

1. precondition: kube-dns-upstream absent, or selecting ``k8s-app: kube-dns``; the two
   restart triggers ``first_deploy`` and ``freshly_created`` are read here;
2. the live kube-dns ClusterIP, IPv6 only;
3. the app synthesized with that address, refused if a placeholder is left or if it did
   not take the address;
4. the apply order: the app's charts in order, kube-dns-upstream before the DaemonSet;
5. every object up to kube-dns-upstream, then a poll until it has its ClusterIP (no fixed
   sleep);
6. the rest, in the app's order (the workload, monitoring, charts of the user's);
7. a rollout restart when either trigger is set, so pods start after the Service exists
   and kubelet injects ``KUBE_DNS_UPSTREAM_SERVICE_HOST``;

then, with ``wait``, the DaemonSet's rollout is followed to the end
(:mod:`constructs_nld.deploy.rollout`), or stopped when it stalls.

Every check that can refuse (steps 1-4, kinds the cluster does not serve, the monitoring
CRDs) runs before the first write. An object last written by client-side ``kubectl apply``
(the spec's ``deploy.sh``) is taken over first: its fields move to our field manager and
its ``last-applied-configuration`` goes, so our apply leaves none of the old manager's
fields behind.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final, Literal

from kubernetes.client.exceptions import ApiException

from constructs_nld import defaults
from constructs_nld.deploy.compare import is_subset, render_diff, same_object
from constructs_nld.deploy.component import Component, is_monitoring, locate
from constructs_nld.deploy.errors import (
    ClusterIPError,
    InvalidConfigError,
    MonitoringUnavailableError,
    WaitTimeoutError,
)
from constructs_nld.deploy.kube import FIELD_MANAGER, KindNotServedError, KubeClient, Manifest, ObjectRef
from constructs_nld.deploy.progress import PlainProgress
from constructs_nld.deploy.rollout import DEFAULT_STALL_AFTER, Progress, RolloutReport, follow_rollout
from constructs_nld.deploy.source import AppChart, AppSource
from constructs_nld.placeholders import NotDeployableError, check_deployable
from constructs_nld.props import check_ipv6_address

__all__ = [
    "CLIENT_SIDE_APPLY_MANAGERS",
    "LAST_APPLIED_ANNOTATION",
    "RESTARTED_FOR_ANNOTATION",
    "RESTART_ANNOTATION",
    "Action",
    "DeployOptions",
    "DeployReport",
    "ObjectResult",
    "deploy",
    "restart_reason",
    "take_over_patch",
]

RESTART_ANNOTATION: Final = "kubectl.kubernetes.io/restartedAt"
"""The pod-template annotation ``kubectl rollout restart`` sets; changing it rolls the pods."""

RESTART_FIELD_MANAGER: Final = "nld-deploy-rollout"
"""Owns the restart annotations, so our applies (another manager) never remove them."""

RESTARTED_FOR_ANNOTATION: Final = "nodelocaldns.osdc/restarted-for-upstream-uid"
"""On the DaemonSet (not its pod template): the uid of the kube-dns-upstream Service its pods
were last restarted for. A recreated Service has a new uid, so the need for a restart is read
from the cluster, exactly, whatever run created the Service or was interrupted."""

_CONFLICT_RETRIES: Final = 3

LAST_APPLIED_ANNOTATION: Final = "kubectl.kubernetes.io/last-applied-configuration"
"""Client-side ``kubectl apply``'s record of what it applied last."""

CLIENT_SIDE_APPLY_MANAGERS: Final = frozenset({"kubectl-client-side-apply", "kubectl"})
"""Field managers of client-side ``kubectl apply`` (current, and before kubectl named it)."""

Action = Literal["created", "configured", "unchanged"]


@dataclass(frozen=True, kw_only=True)
class DeployOptions:
    """How to deploy."""

    dry_run: bool = False
    """Server-side dry run: every write is sent with ``dryRun=All`` and nothing persists."""

    diff: bool = False
    """Print what would change per object; write nothing."""

    skip_monitoring: bool = False
    """Leave out the prometheus-operator objects (their CRDs are not installed)."""

    timeout: float = 30.0
    """Seconds to wait for the kube-dns-upstream ClusterIP."""

    poll_interval: float = 0.2
    """Seconds between polls while waiting for the ClusterIP."""

    wait: bool = False
    """After applying, follow the DaemonSet's rollout until it completes, or stop when it stalls."""

    stall_after: float = DEFAULT_STALL_AFTER
    """With ``wait``: seconds without progress after which the rollout counts as stalled."""

    rollout_poll_interval: float = 1.0
    """With ``wait``: seconds between two reads of the DaemonSet's status."""

    def __post_init__(self) -> None:
        """Refuse options that contradict each other."""
        if self.dry_run and self.diff:
            raise ValueError("dry_run: cannot be combined with diff, got both")
        if self.wait and (self.dry_run or self.diff):
            raise ValueError("wait: a dry run or a diff starts no rollout to wait for, got wait with one")
        if not self.stall_after > 0:
            raise ValueError(f"stall_after: must be a positive number of seconds, got {self.stall_after!r}")


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


def _time(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def restart_reason(daemon_set: Mapping[str, Any] | None, upstream: Mapping[str, Any]) -> str | None:
    """Why the DaemonSet's pods must restart to see ``upstream``'s address, or None when they need not.

    Read from the cluster alone, so any rerun after any interruption decides the same:
    the Service uid the pods were last restarted for (:data:`RESTARTED_FOR_ANNOTATION`);
    on an install restarted by someone else (``kubectl rollout restart``, the spec's
    deploy.sh), whether that restart came after the Service was created; on a pod
    template never restarted, the spec's first-deploy trigger.
    """
    name = upstream["metadata"]["name"]
    if daemon_set is None:
        return "first deploy"
    recorded = (daemon_set["metadata"].get("annotations") or {}).get(RESTARTED_FOR_ANNOTATION)
    if recorded is not None:
        if recorded == upstream["metadata"].get("uid"):
            return None
        return f"{name} was recreated since the last restart: its pods lack the new address"
    template = daemon_set["spec"]["template"].get("metadata") or {}
    stamp = (template.get("annotations") or {}).get(RESTART_ANNOTATION)
    if stamp is None:
        return "first deploy: the pod template was never restarted"
    created = upstream["metadata"]["creationTimestamp"]
    if _time(stamp) < _time(created):
        return f"the last restart ({stamp}) predates {name} (created {created})"
    return None


def _union(left: Mapping[str, Any], right: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(left)
    for key, value in right.items():
        merged[key] = _union(merged[key], value) if key in merged else value
    return merged


def take_over_patch(live: Mapping[str, Any], now: datetime) -> list[dict[str, Any]] | None:
    """A JSON patch moving client-side ``kubectl apply``'s fields to our field manager, or None.

    As ``kubectl apply --server-side`` upgrades an object from client-side apply: the
    fields the old manager owns become ours (an ``Apply`` entry), so our next apply
    removes those it no longer sets; ``last-applied-configuration`` is removed, so a
    later client-side apply cannot resurrect old fields from it. The patch is guarded by
    the ``resourceVersion`` it was computed from.
    """
    metadata = live.get("metadata") or {}
    entries: list[dict[str, Any]] = list(metadata.get("managedFields") or [])
    annotations = metadata.get("annotations") or {}

    def main_resource(entry: Mapping[str, Any]) -> bool:
        return not entry.get("subresource")

    old = [
        e
        for e in entries
        if e.get("manager") in CLIENT_SIDE_APPLY_MANAGERS and e.get("operation") == "Update" and main_resource(e)
    ]
    if not old and LAST_APPLIED_ANNOTATION not in annotations:
        return None
    ours = [
        e for e in entries if e.get("manager") == FIELD_MANAGER and e.get("operation") == "Apply" and main_resource(e)
    ]
    fields: dict[str, Any] = {}
    for entry in (*ours, *old):
        fields = _union(fields, entry.get("fieldsV1") or {})
    kept = [e for e in entries if e not in old and e not in ours]
    if fields:
        kept.append(
            {
                "manager": FIELD_MANAGER,
                "operation": "Apply",
                "apiVersion": live.get("apiVersion"),
                "time": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "fieldsType": "FieldsV1",
                "fieldsV1": fields,
            }
        )
    patch: list[dict[str, Any]] = [
        {"op": "test", "path": "/metadata/resourceVersion", "value": metadata.get("resourceVersion")},
        {"op": "replace", "path": "/metadata/managedFields", "value": kept},
    ]
    if LAST_APPLIED_ANNOTATION in annotations:
        escaped = LAST_APPLIED_ANNOTATION.replace("~", "~0").replace("/", "~1")
        patch.append({"op": "remove", "path": f"/metadata/annotations/{escaped}"})
    return patch


class _Deploy:
    def __init__(
        self,
        client: KubeClient,
        source: AppSource,
        options: DeployOptions,
        out: Callable[[str], None],
        progress: Progress | None,
    ):
        self.client = client
        self.source = source
        self.options = options
        self.out = out
        self.progress = progress or PlainProgress(out)
        self.report = DeployReport()
        self.live: dict[ObjectRef, Manifest | None] = {}
        self.listed_namespace = ""
        self.suffix = " (dry run)" if options.dry_run else ""

    # --- steps 1-4: read, decide, refuse; no writes ----------------------------------------
    def resolve_cluster_ip(self) -> str:
        ref = ObjectRef("v1", "Service", defaults.NAMESPACE, defaults.KUBE_DNS_SERVICE_NAME)
        # One list serves this and step 1: NodeLocal DNS lives in kube-dns's namespace.
        for service in self.client.list("v1", "Service", defaults.NAMESPACE):
            self.live[ObjectRef.of(service)] = service
        self.listed_namespace = defaults.NAMESPACE
        kube_dns = self.live.get(ref)
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
        return str(cluster_ip)

    def plan(self, charts: tuple[AppChart, ...]) -> Component:
        component = locate(charts)
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
        return component

    def precondition(self, component: Component) -> None:
        if component.namespace != self.listed_namespace:
            for service in self.client.list("v1", "Service", component.namespace):
                self.live[ObjectRef.of(service)] = service
        upstream_ref = ObjectRef.of(component.upstream_service)
        daemon_set_ref = ObjectRef.of(component.daemon_set)
        for service in (component.upstream_service, *component.metrics_services):
            self.live.setdefault(ObjectRef.of(service), None)
        self.live[daemon_set_ref] = self.client.get(daemon_set_ref)
        upstream = self.live[upstream_ref]
        component.check_upstream(upstream, refusing="to overwrite it")
        # freshly_created: the Service is absent at the start of this run. first_deploy: this
        # cluster never had it, read as "neither the Service nor an earlier DaemonSet exists".
        self.report.freshly_created = upstream is None
        self.report.first_deploy = upstream is None and self.live[daemon_set_ref] is None
        state = "absent" if upstream is None else "present, selector " + _labels(component.upstream_selector)
        self.out(
            f"[1/7] precondition: {upstream_ref} {state}; "
            f"first_deploy={_yes(self.report.first_deploy)} freshly_created={_yes(self.report.freshly_created)}"
        )

    def order(self, charts: tuple[AppChart, ...]) -> list[tuple[str, Manifest, ObjectRef]]:
        """Every object to apply with its chart and identity; refuses kinds the cluster does not serve."""
        planned: list[tuple[str, Manifest, ObjectRef]] = []
        monitoring_missing: list[str] = []
        for chart in charts:
            for obj in chart.objects:
                if is_monitoring(obj) and self.options.skip_monitoring:
                    continue
                try:
                    planned.append((chart.name, obj, self.client.ref_of(obj)))
                except KindNotServedError as error:
                    if not is_monitoring(obj):
                        raise InvalidConfigError(f"{chart.name}: {ObjectRef.of(obj)}: {error}") from None
                    monitoring_missing.append(obj["kind"])
        if monitoring_missing:
            kinds = ", ".join(sorted(set(monitoring_missing)))
            raise MonitoringUnavailableError(
                f"the cluster does not serve {kinds} (prometheus-operator CRDs not installed): "
                "install them, or rerun with --skip-monitoring"
            )
        return planned

    # --- steps 5-7: writes ---------------------------------------------------------------------
    def take_over(self, ref: ObjectRef, live: Manifest) -> Manifest | None:
        patch = take_over_patch(live, datetime.now(UTC))
        if patch is None:
            return None
        return self.client.json_patch(ref, patch, field_manager=FIELD_MANAGER, dry_run=self.options.dry_run)

    def reconcile(self, desired: Manifest, ref: ObjectRef) -> tuple[Manifest, ObjectResult | None]:
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

    def apply(self, step: str, planned: list[tuple[str, Manifest, ObjectRef]]) -> dict[ObjectRef, Manifest]:
        applied: dict[ObjectRef, Manifest] = {}
        by_chart: dict[str, list[str]] = {}
        for chart, obj, ref in planned:
            applied[ref], result = self.reconcile(obj, ref)
            if result is not None:
                self.report.objects.append(result)
                by_chart.setdefault(chart, []).append(str(result) + self.suffix)
            elif str(ref) in self.report.diffs:
                by_chart.setdefault(chart, []).append(f"would change {ref}")
            else:
                by_chart.setdefault(chart, [])
        for chart, lines in by_chart.items():
            self.out(f"[{step}] {chart}: " + (", ".join(lines) or "no changes"))
        return applied

    def wait_for_upstream_ip(self, ref: ObjectRef, applied: dict[ObjectRef, Manifest]) -> Manifest:
        if self.options.dry_run or self.options.diff:
            self.out(f"[5/7] {ref} ClusterIP: not waited for{self.suffix or ' (diff)'}")
            return applied[ref]
        started = time.monotonic()
        service: Manifest | None = applied[ref]
        while not (service and service.get("spec", {}).get("clusterIP")):
            if time.monotonic() - started > self.options.timeout:
                raise WaitTimeoutError(f"{ref} got no ClusterIP within {self.options.timeout:g}s")
            time.sleep(self.options.poll_interval)
            service = self.client.get(ref)
        waited = time.monotonic() - started
        self.out(f"[5/7] {ref} ClusterIP: {service['spec']['clusterIP']} (waited {waited:.1f}s)")
        return service

    def restart(self, ref: ObjectRef, known: Manifest | None, upstream: Manifest) -> None:
        """Step 7: a rollout restart when :func:`restart_reason` says the pods need one; at most one.

        The decision is confirmed on a fresh read, and the restart is conditional on that
        read's resourceVersion, so of two deploys at once only one restarts; the other
        re-reads and finds it done. A conflict that left the generation alone (the
        controller's status writes) is retried until ``timeout``; three spec changes give up.
        """
        if restart_reason(known, upstream) is None:
            self.out(f"[7/7] rollout restart: not needed (the pods of {ref} start after {ObjectRef.of(upstream)})")
            return
        if self.options.diff or (self.options.dry_run and self.live.get(ref) is None):
            self.out(f"[7/7] rollout restart: would restart {ref} ({restart_reason(known, upstream)})")
            return
        deadline = time.monotonic() + self.options.timeout
        spec_changes, generation = 0, None
        while spec_changes < _CONFLICT_RETRIES and time.monotonic() < deadline:
            current = self.client.get(ref)
            reason = restart_reason(current, upstream)
            if current is None or reason is None:
                self.out(f"[7/7] rollout restart: not needed (another deploy restarted {ref} for this Service)")
                return
            if generation is not None and current["metadata"].get("generation") != generation:
                spec_changes += 1
            generation = current["metadata"].get("generation")
            stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            patch = {
                "metadata": {
                    "resourceVersion": current["metadata"]["resourceVersion"],
                    "annotations": {RESTARTED_FOR_ANNOTATION: upstream["metadata"].get("uid")},
                },
                "spec": {"template": {"metadata": {"annotations": {RESTART_ANNOTATION: stamp}}}},
            }
            try:
                self.client.merge_patch(ref, patch, field_manager=RESTART_FIELD_MANAGER, dry_run=self.options.dry_run)
            except ApiException as error:
                if error.status == 409:
                    # Changed since the read: by another deploy (decide again), or — most often on a
                    # live cluster — by the DaemonSet controller writing its status, which leaves the
                    # generation as it was and is no reason to give up.
                    continue
                raise
            self.report.restarted = not self.options.dry_run
            self.out(f"[7/7] rollout restart: {ref} restarted at {stamp} ({reason}){self.suffix}")
            return
        raise WaitTimeoutError(
            f"{ref} kept changing under the restart ({spec_changes} spec change(s) within "
            f"{self.options.timeout:g}s): rerun"
        )

    def run(self) -> DeployReport:
        cluster_ip = self.resolve_cluster_ip()
        charts = tuple(self.source(cluster_ip))
        component = self.plan(charts)
        self.precondition(component)
        self.out(f"[2/7] kube-dns ClusterIP: {cluster_ip} (IPv6)")
        planned = self.order(charts)
        objects = sum(len(chart.objects) for chart in charts)
        how = (
            "portable: kubelet gives node-cache the address as $(KUBE_DNS_SERVICE_HOST)"
            if component.portable
            else f"with ClusterIP {cluster_ip}"
        )
        self.out(f"[3/7] synthesized {objects} objects in {len(charts)} chart(s) {how}")
        skipped = objects - len(planned)
        self.out(
            "[4/7] apply order: "
            + " -> ".join(f"{chart.name} ({len(chart.objects)})" for chart in charts)
            + (f"; {skipped} monitoring object(s) skipped (--skip-monitoring)" if skipped else "")
        )
        upstream = ObjectRef.of(component.upstream_service)
        split = _services_phase(planned, upstream, ObjectRef.of(component.daemon_set))
        applied = self.apply("5/7", planned[:split])
        service = self.wait_for_upstream_ip(upstream, applied)
        if planned[split:]:
            applied |= self.apply("6/7", planned[split:])
        daemon_set = ObjectRef.of(component.daemon_set)
        self.restart(daemon_set, applied.get(daemon_set), service)
        if self.options.wait:
            self.report.rollout = follow_rollout(
                self.client,
                daemon_set,
                self.progress,
                stall_after=self.options.stall_after,
                poll_interval=self.options.rollout_poll_interval,
            )
        return self.report


def _services_phase(planned: list[tuple[str, Manifest, ObjectRef]], upstream: ObjectRef, daemon_set: ObjectRef) -> int:
    """How many planned objects step 5 applies: through the end of kube-dns-upstream's chart, never the DaemonSet.

    The spec applies the Services, waits for the ClusterIP, then the rest; a chart holding
    the Service and the DaemonSet both is split just before the DaemonSet.
    """
    index = next(i for i, (_, _, ref) in enumerate(planned) if ref == upstream)
    chart = planned[index][0]
    end = index + 1
    while end < len(planned) and planned[end][0] == chart and planned[end][2] != daemon_set:
        end += 1
    return end


def _yes(value: bool) -> str:
    return "yes" if value else "no"


def _labels(labels: Mapping[str, str]) -> str:
    return ",".join(f"{key}={value}" for key, value in labels.items())


def deploy(
    client: KubeClient,
    source: AppSource,
    options: DeployOptions | None = None,
    out: Callable[[str], None] = print,
    progress: Progress | None = None,
) -> DeployReport:
    """Deploy the app of ``source`` to the cluster behind ``client``; one line per step to ``out``.

    With ``options.wait``, ``progress`` shows the rollout (default: a line per change
    through ``out``). Raises a :class:`~constructs_nld.deploy.errors.DeployError` (whose
    ``exit_code`` the CLI returns) or ``ApiException`` for a request the API server refused.
    """
    return _Deploy(client, source, options or DeployOptions(), out, progress).run()
