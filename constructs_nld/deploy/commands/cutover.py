"""``cutover``: the spec's soak gate carried out — a new pod template on canary nodes first, the fleet on a pass.

Four steps, each on the user's app as every command reads it, each convergent when rerun:

``start``
    Everything a deploy does before its writes (the refusals, the access check), then: the
    fleet must be settled on one template, the app's template must differ from it, and no
    ConfigMap that node-cache reads may change (node-cache reloads it on every node within a
    minute, canary or not: deploy such a change on its own, or give the new Corefile a
    ConfigMap of its own name, which only the new template mounts). The canary is chosen
    (:mod:`constructs_nld.deploy.cutover`) and the state written on the DaemonSet; then the
    app is applied with the DaemonSet's ``updateStrategy`` made ``OnDelete``, so no pod rolls
    by itself, and the canary nodes' pods are deleted; their replacements run the new
    template, and ``start`` follows them until they are ready. A node that joins meanwhile
    gets the new template too: the controller makes every new pod from the current one.
``status``
    The canary nodes' pods and the canary soak (:mod:`constructs_nld.deploy.canary`), judged
    as ``soak`` judges and with its exit codes.
``promote``
    Refused unless the canary soak passes (``--force`` overrides; it is recorded on the
    DaemonSet). Then the app is deployed as ``deploy --wait`` deploys it: ``RollingUpdate``
    with the app's ``max_unavailable`` rolls the rest, and the state is cleared.
``rollback``
    The old template and update strategy are put back; the controller then replaces only the
    pods not made from it (the canary's, and those of nodes that joined), ``max_unavailable``
    at a time, and the state is cleared. Without a cutover it does nothing.

While a cutover is in progress, a plain deploy refuses, ``verify`` warns, and ``uninstall``
ends it with the DaemonSet. The end of each cutover is kept on the DaemonSet
(:data:`~constructs_nld.defaults.LAST_CUTOVER_ANNOTATION`): how it ended, and whether forced.
"""

from __future__ import annotations

import copy
import functools
import json
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from kubernetes.client.exceptions import ApiException

from constructs_nld import defaults
from constructs_nld.deploy.access import check_access
from constructs_nld.deploy.canary import CanaryPod, CanaryReport, canary_signals, window_signal
from constructs_nld.deploy.checks.cluster import Cluster
from constructs_nld.deploy.compare import same_object
from constructs_nld.deploy.component import Component, locate
from constructs_nld.deploy.cutover import (
    REVISION_LABEL,
    CanaryNode,
    CutoverState,
    choose_canary,
    pool_of,
    pools_left_out,
    state_of,
    summary,
    template_hash,
    with_on_delete,
)
from constructs_nld.deploy.deployment import STEPS, Deployment, DeployReport, Planned
from constructs_nld.deploy.errors import (
    CutoverError,
    GateError,
    InvalidConfigError,
    PreconditionError,
    StalledError,
)
from constructs_nld.deploy.gate import VERDICT_CODES, VERDICTS, SignalResult, targets_of
from constructs_nld.deploy.kube import REREADS, KubeClient, Manifest, ObjectRef, RereadError
from constructs_nld.deploy.manifest import KUBE_DNS, is_ready, not_ready_reasons, usable_cluster_ip
from constructs_nld.deploy.options import CutoverOptions, DeployOptions
from constructs_nld.deploy.promapi import PrometheusAPI
from constructs_nld.deploy.rollout import Progress, RolloutReport, RolloutStatus, follow_rollout, not_ready_pods
from constructs_nld.deploy.source import AppSource
from constructs_nld.deploy.tables import format_table
from constructs_nld.deploy.throttle import PollBackoff
from constructs_nld.roles import Role

__all__ = ["end_cutover", "promote", "rollback", "start", "status"]

_CONFIG_ROLES = (Role.COREFILE, Role.KEEPER_CONFIG)
_ROLLBACK = "'python deploy.py cutover rollback' puts the old template back on the canary nodes"


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _started(state: CutoverState) -> float:
    return datetime.fromisoformat(state.started.replace("Z", "+00:00")).timestamp()


def _revision(pod: Manifest) -> str:
    return str((pod["metadata"].get("labels") or {}).get(REVISION_LABEL, ""))


def _image(pod: Manifest) -> str:
    containers = (pod.get("spec") or {}).get("containers") or []
    return next((str(c.get("image", "")) for c in containers if c.get("name") == defaults.CONTAINER_NAME), "")


def _write_state(
    client: KubeClient, ref: ObjectRef, state: CutoverState | None, *, resource_version: str = "", **last: Any
) -> Manifest:
    """Put ``state`` on the DaemonSet (None: clear it, keeping how it ended in the last-cutover annotation).

    With ``resource_version``, only if the DaemonSet has not changed since it was read at that
    version: of two cutovers started at once, one writes its state, the other is refused.
    """
    annotations: dict[str, Any] = {defaults.CUTOVER_ANNOTATION: state.to_annotation() if state else None}
    if last:
        annotations[defaults.LAST_CUTOVER_ANNOTATION] = json.dumps({**last, "ended": _now()}, sort_keys=True)
    metadata: dict[str, Any] = {"annotations": annotations}
    if resource_version:
        metadata["resourceVersion"] = resource_version
    return client.merge_patch(ref, {"metadata": metadata}, field_manager=defaults.CUTOVER_FIELD_MANAGER)


def end_cutover(client: KubeClient, ref: ObjectRef, state: CutoverState, outcome: str) -> None:
    """Clear the cutover's state from the DaemonSet ``ref``, recording ``outcome`` as the last cutover's."""
    _write_state(
        client,
        ref,
        None,
        outcome=outcome,
        started=state.started,
        forced=state.forced,
        canary=list(state.canary_names),
        template=state.template,
    )


def _last(live: Manifest | None) -> dict[str, Any]:
    """How the last cutover ended, as recorded on the DaemonSet (empty: none recorded, or not readable)."""
    text = ((live or {}).get("metadata", {}).get("annotations") or {}).get(defaults.LAST_CUTOVER_ANNOTATION, "")
    try:
        found = json.loads(text) if text else {}
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def _pods(client: KubeClient, component: Component) -> list[Manifest]:
    pods = client.list("v1", "Pod", component.namespace, label_selector=component.pod_selector)
    return [pod for pod in pods if not pod["metadata"].get("deletionTimestamp")]


def _by_node(pods: list[Manifest]) -> dict[str, Manifest]:
    return {str(pod["spec"].get("nodeName") or ""): pod for pod in pods}


class _Start(Deployment):
    """``cutover start``: a deploy's reads and refusals, the canary's choice, then its writes on the canary only."""

    command = "cutover"
    steps = (*STEPS[: STEPS.index("plan") + 1], "begin", "apply_services", "apply_rest", "replace", "follow")

    def __init__(self, client: KubeClient, source: AppSource, options: CutoverOptions, out: Callable[[str], None]):
        super().__init__(client, source, DeployOptions(timeout=options.timeout), out, None)
        self.cutover = options
        self.state: CutoverState | None = None
        self.fresh = False
        self.candidates: list[CanaryNode] = []

    @property
    def ref(self) -> ObjectRef:
        return ObjectRef.of(self.component.daemon_set)

    def check_cutover(self, state: CutoverState | None) -> None:
        """A cutover in progress is continued when it is this one (the same template), refused otherwise."""
        self.state = state

    def plan(self) -> None:
        super().plan()
        live = self.live[self.ref]
        if live is None or self.report.freshly_created:
            missing = self.ref if live is None else ObjectRef.of(self.component.upstream_service)
            raise PreconditionError(
                f"{missing} is not installed: a cutover changes an install; install with 'python deploy.py --wait'"
            )
        template = template_hash(self.component.daemon_set["spec"]["template"])
        if self.state is not None and self.state.template != template:
            raise CutoverError(
                f"a cutover of {self.ref} is in progress ({summary(self.state)}) with another pod template: "
                "promote it ('python deploy.py cutover promote') or roll it back ('python deploy.py cutover rollback') "
                "first"
            )
        if self.state is not None and self.state.promoted:
            raise CutoverError(
                f"the cutover of {self.ref} is being promoted (since {self.state.promoted}): "
                "rerun 'python deploy.py cutover promote' to finish it"
            )
        self.refuse_config_changes()
        if self.state is None:
            self.state = self.new_state(live, template)
            self.fresh = True
            left = pools_left_out(self.candidates, self.state.canary)
            note = f"; pools without a canary node: {', '.join(left)}" if left else ""
        else:
            note = " (continuing the cutover in progress)"
        canary = ", ".join(f"{node.name} ({node.pool})" for node in self.state.canary)
        self.out(f"[cutover] canary: {canary}{note}")

    def refuse_config_changes(self) -> None:
        """A ConfigMap node-cache reads is reloaded on every node at once: refused when the app changes it."""
        for item in self.planned:
            if self.component.role(item.ref) not in _CONFIG_ROLES:
                continue
            live = self.client.get(item.ref)
            if live is None or same_object(live, self.client.apply(item.manifest, dry_run=True)):
                continue
            raise InvalidConfigError(
                f"the app changes {item.ref}, which node-cache reloads on every node within a minute, canary or "
                "not: deploy that change on its own first ('python deploy.py --wait'), or give the new Corefile "
                "a ConfigMap of its own name, which only the new template mounts"
            )

    def new_state(self, live: Manifest, template: str) -> CutoverState:
        """The fleet settled on one template, the app's a new one: choose the canary."""
        status = RolloutStatus.of(live)
        pods = _pods(self.client, self.component)
        revisions = sorted({_revision(pod) for pod in pods})
        if not status.complete or status.updated < status.desired or len(revisions) != 1:
            started = state_of(self.client.get(self.ref))
            if started is not None:  # another start got there first, since this one read the DaemonSet
                raise CutoverError(
                    f"another cutover of {self.ref} started while this cutover was planned ({summary(started)}): "
                    "nothing was applied; see 'python deploy.py cutover status'"
                )
            raise PreconditionError(
                f"{self.ref} is not settled on one template ({status}; {len(revisions)} template revision(s) among "
                "its pods): a cutover starts from a finished rollout; finish it with 'python deploy.py --wait'"
            )
        probe = self.client.apply(self.desired_daemon_set(), dry_run=True)
        if probe["spec"]["template"] == live["spec"]["template"]:
            raise CutoverError(
                f"the app's pod template is the one {self.ref} runs: there is nothing to cut over "
                "(a change of the other objects alone is a plain 'python deploy.py')"
            )
        self.candidates = self.choose_among(pods)
        count = self.cutover.canary_nodes
        if count is None and self.cutover.canary_selector:
            count = len(self.candidates)  # a selector alone: every node it matches
        return CutoverState(
            template=template,
            old_revision=revisions[0],
            canary=choose_canary(self.candidates, count),
            started=_now(),
            old_template=live["spec"]["template"],
            old_strategy=live["spec"].get("updateStrategy") or {},
        )

    def choose_among(self, pods: list[Manifest]) -> list[CanaryNode]:
        """The nodes the canary may take: settled, running a ready pod, matching ``--canary-selector``."""
        try:
            nodes = self.client.list("v1", "Node", None, label_selector=self.cutover.canary_selector)
        except ApiException as error:
            if error.status != 400:
                raise
            raise InvalidConfigError(
                f"--canary-selector {self.cutover.canary_selector!r}: the API server refused it as a label selector"
            ) from None
        cluster = Cluster(self.client, self.component, None, datetime.now(UTC))
        running = _by_node(pods)
        candidates = [
            CanaryNode(pool_of(node), node["metadata"]["name"])
            for node in nodes
            if node["metadata"]["name"] in running
            and is_ready(running[node["metadata"]["name"]])
            # A new node with a ready pod may be the canary; one being drained or not ready may not.
            and cluster.in_transition(node) in ("", "new")
        ]
        if not candidates:
            which = f" matching {self.cutover.canary_selector!r}" if self.cutover.canary_selector else ""
            raise InvalidConfigError(
                f"no node{which} runs a ready node-cache pod and is settled (not cordoned, draining, disrupted or not "
                "ready): there is no node to be the canary"
            )
        return candidates

    def desired_daemon_set(self) -> Manifest:
        (item,) = [item for item in self.planned if item.ref == self.ref]
        return with_on_delete(item.manifest)

    def desired(self, item: Planned) -> Manifest:
        """The DaemonSet with ``OnDelete``: only the pods the cutover deletes take the new template."""
        return with_on_delete(item.manifest) if item.ref == self.ref else item.manifest

    def begin(self) -> None:
        """The state first: an interruption after any later write leaves a cutover that a rerun continues."""
        assert self.state is not None
        if self.fresh:
            live = self.live[self.ref]
            assert live is not None
            try:
                self._claim(live["metadata"]["resourceVersion"])
            except ApiException as error:
                if error.status != 409:
                    raise
                raise CutoverError(
                    f"{self.ref} changed while this cutover was planned (another cutover started, or a deploy): "
                    "nothing was applied; see 'python deploy.py cutover status', or rerun"
                ) from None
            self.out(f"[cutover] started: {summary(self.state)}; state kept on {self.ref}")

    def _claim(self, resource_version: str) -> None:
        """Write the state only if the DaemonSet is still at ``resource_version`` (409 otherwise).

        Throttled or lost on the way, the write is not resent as it was: a fresh read shows it
        made (the state is ours), or the DaemonSet unchanged (written again), or changed (409).
        """
        assert self.state is not None
        for reread in range(REREADS + 1):
            try:
                _write_state(self.client, self.ref, self.state, resource_version=resource_version)
                return
            except RereadError:
                if reread == REREADS:
                    raise
                current = self.client.get(self.ref)
                if current is not None and state_of(current) == self.state:
                    return
                if current is None or current["metadata"]["resourceVersion"] != resource_version:
                    raise ApiException(status=409, reason="Conflict") from None

    def replace(self) -> None:
        """Delete the canary nodes' pods of the old template; the controller makes them anew from the new one."""
        assert self.state is not None
        canary = set(self.state.canary_names)
        old = [
            pod
            for pod in _pods(self.client, self.component)
            if pod["spec"].get("nodeName") in canary and _revision(pod) == self.state.old_revision
        ]
        for pod in old:
            try:
                self.client.delete(ObjectRef.of(pod), uid=pod["metadata"]["uid"])
            except ApiException as error:
                if error.status != 409:  # 409: replaced since it was listed (the uid precondition)
                    raise
        names = ", ".join(f"{pod['metadata']['name']} on {pod['spec']['nodeName']}" for pod in old)
        self.out(f"[cutover] replaced: {names or 'nothing (the canary pods already run the new template)'}")

    def follow(self) -> None:
        """Wait until every canary node runs a ready pod of the new template; record its revision."""
        assert self.state is not None
        state = self.state
        started = last_progress = time.monotonic()
        best = -1
        interval = PollBackoff(self.cutover.poll_interval)
        while True:
            pods = _pods(self.client, self.component)
            on_canary = [pod for pod in pods if pod["spec"].get("nodeName") in state.canary_names]
            new = [pod for pod in on_canary if _revision(pod) != state.old_revision]
            ready = [pod for pod in new if is_ready(pod)]
            changed = len(ready) > best
            if changed:
                best, last_progress = len(ready), time.monotonic()
            if len(ready) == len(state.canary):
                break
            idle = time.monotonic() - last_progress
            if idle >= self.cutover.stall_after:
                raise StalledError(
                    f"cutover of {self.ref}: {len(ready)} of {len(state.canary)} canary pods ready on the new template "
                    f"after {self.cutover.stall_after:g}s without progress; not ready: {not_ready_pods(new)}\n"
                    f"  {_ROLLBACK}"
                )
            time.sleep(interval.next(changed=changed, stalls_in=self.cutover.stall_after - idle))
        revision = _revision(ready[0])
        if state.new_revision != revision:
            self.state = state.but(new_revision=revision)
            _write_state(self.client, self.ref, self.state)
        images = sorted({_image(pod) for pod in ready})
        self.out(
            f"[cutover] {len(ready)} canary pod(s) ready on the new template ({', '.join(images)}) in "
            f"{time.monotonic() - started:.1f}s; nodes that join from now on get it too. Next: "
            "'python deploy.py cutover status' until it passes, then 'python deploy.py cutover promote'"
        )


def start(
    client: KubeClient, source: AppSource, options: CutoverOptions, out: Callable[[str], None] = print
) -> CutoverState:
    """``cutover start`` on the app of ``source``; the cutover's state."""
    run = _Start(client, source, options, out)
    run.run()
    assert run.state is not None
    return run.state


def _located(client: KubeClient, source: AppSource) -> tuple[Component, ObjectRef, Manifest | None]:
    component = locate(tuple(source(usable_cluster_ip(client.get(KUBE_DNS)))))
    ref = ObjectRef.of(component.daemon_set)
    return component, ref, client.get(ref)


def _in_progress(ref: ObjectRef, live: Manifest | None) -> CutoverState:
    state = state_of(live)
    if state is None:
        raise CutoverError(f"no cutover of {ref} is in progress: start one with 'python deploy.py cutover start'")
    return state


def _judge(
    client: KubeClient,
    component: Component,
    state: CutoverState,
    prometheus: PrometheusAPI | None,
    options: CutoverOptions,
) -> CanaryReport:
    pods = _pods(client, component)
    running = _by_node(pods)
    rows: list[CanaryPod] = []
    for node in state.canary:
        pod = running.get(node.name)
        if pod is None:
            rows.append(CanaryPod(node.name, node.pool, "", "", False, False, "no pod on the node"))
            continue
        new = _revision(pod) != state.old_revision
        why = "" if is_ready(pod) else "; ".join(not_ready_reasons(pod, detail=True)) or "not ready"
        rows.append(CanaryPod(node.name, node.pool, pod["metadata"]["name"], _image(pod), is_ready(pod), new, why))
    joined = tuple(
        sorted(
            name
            for name, pod in running.items()
            if name not in state.canary_names and _revision(pod) != state.old_revision
        )
    )
    down = [row for row in rows if not (row.ready and row.new)]
    available = SignalResult(
        "canary pods available",
        f"{len(rows)} ready on the new template",
        ", ".join(f"{r.node}: {r.why or ('old template' if not r.new else 'not ready')}" for r in down)
        or f"{len(rows)} ready",
        None,
        "fail" if down else "pass",
    )
    now = time.time()
    started = _started(state)
    prometheus_signals = canary_signals(
        prometheus, targets_of(component, None), [row.pod for row in rows if row.pod], started, now
    )
    signals = (available, *prometheus_signals, window_signal(started, now, options.window))
    return CanaryReport(tuple(rows), signals, joined)


def status(
    client: KubeClient,
    source: AppSource,
    options: CutoverOptions,
    prometheus: PrometheusAPI | None,
    out: Callable[[str], None] = print,
) -> CanaryReport:
    """``cutover status``: the canary pods and the canary soak, printed to ``out``; the report."""
    component, ref, live = _located(client, source)
    return _show(client, component, _in_progress(ref, live), prometheus, options, out)


def _show(
    client: KubeClient,
    component: Component,
    state: CutoverState,
    prometheus: PrometheusAPI | None,
    options: CutoverOptions,
    out: Callable[[str], None],
) -> CanaryReport:
    """Judge the canary and print its pods, its signals and the verdict."""
    report = _judge(client, component, state, prometheus, options)
    ref = ObjectRef.of(component.daemon_set)
    out(f"cutover of {ref}: {summary(state)}" + (f"; promoting since {state.promoted}" if state.promoted else ""))
    pods = [
        (r.node, r.pool, r.pod or "-", r.image or "-", "yes" if r.ready else f"no: {r.why}", "new" if r.new else "old")
        for r in report.pods
    ]
    for line in format_table(("node", "pool", "pod", "image", "ready", "template"), pods):
        out(line)
    if report.joined:
        out(f"joined during the cutover, on the new template: {', '.join(report.joined)}")
    signals = [(s.name, s.expected, s.observed, s.outcome.upper()) for s in report.signals]
    for line in format_table(("signal", "expected", "observed", "result"), signals):
        out(line)
    out(f"verdict: {VERDICTS[report.verdict]}")
    return report


class _Promote(Deployment):
    """A deploy that a promoted cutover allows: the app's ``RollingUpdate`` rolls the rest."""

    command = "cutover"

    def check_cutover(self, state: CutoverState | None) -> None:
        """Only the cutover being promoted is allowed."""
        if state is not None and not state.promoted:
            super().check_cutover(state)


def promote(
    client: KubeClient,
    source: AppSource,
    options: CutoverOptions,
    prometheus: PrometheusAPI | None,
    out: Callable[[str], None] = print,
    progress: Progress | None = None,
) -> DeployReport:
    """``cutover promote``: the gate, then the rest of the fleet rolled as ``deploy --wait`` rolls it."""
    source = functools.cache(source)  # one synth for the gate and the deploy: the same kube-dns ClusterIP
    component, ref, live = _located(client, source)
    template = template_hash(component.daemon_set["spec"]["template"])
    last = _last(live)
    if state_of(live) is None and (last.get("outcome"), last.get("template")) == ("promoted", template):
        out(f"the cutover of {ref} to the app's template was promoted ({last.get('ended')}): nothing to do")
        return DeployReport()
    state = _in_progress(ref, live)
    if not state.promoted:
        if template != state.template:
            raise CutoverError(
                f"the app's pod template is not the one the canary runs (cutover {summary(state)}): "
                f"promote with the app the cutover started from, or {_ROLLBACK} and start again"
            )
        report = _show(client, component, state, prometheus, options, out)
        if report.verdict != "pass":
            failing = [s.name for s in report.signals if s.outcome != "pass"]
            if not options.force:
                raise GateError(
                    f"promote refused: the canary soak is {VERDICTS[report.verdict]} ({', '.join(failing)}); "
                    f"wait and rerun, or {_ROLLBACK}; --force promotes anyway and is recorded",
                    VERDICT_CODES[report.verdict],
                )
            out(f"[promote] forced past a canary soak that is {VERDICTS[report.verdict]} ({', '.join(failing)}): "
                f"recorded on {ref}")  # fmt: skip
        state = state.but(promoted=_now(), forced=options.force and report.verdict != "pass")
        _write_state(client, ref, state)
    deploy_options = DeployOptions(
        timeout=options.timeout,
        wait=True,
        stall_after=options.stall_after,
        rollout_poll_interval=options.poll_interval,
    )
    result = _Promote(client, source, deploy_options, out, progress).run()
    end_cutover(client, ref, state, "promoted")
    out(f"[promote] the cutover of {ref} is promoted: every node runs the new template" + (
        " (forced)" if state.forced else ""))  # fmt: skip
    return result


def rollback(
    client: KubeClient,
    source: AppSource,
    options: CutoverOptions,
    out: Callable[[str], None] = print,
    progress: Progress | None = None,
) -> RolloutReport | None:
    """``cutover rollback``: the old template back on the canary (and joined) nodes only; its rollout (None: none)."""
    from constructs_nld.deploy.applyset import ApplySet
    from constructs_nld.deploy.progress import PlainProgress

    component, ref, live = _located(client, source)
    state = state_of(live)
    if state is None:
        out(f"no cutover of {ref} is in progress: nothing to roll back")
        return None
    check_access(client, "cutover", [ref], namespace=component.namespace)
    restored = copy.deepcopy(ApplySet(component.namespace).member(component.daemon_set))
    restored["spec"]["template"] = state.old_template
    restored["spec"]["updateStrategy"] = state.old_strategy
    client.apply(restored)
    out(f"[rollback] {ref}: the template of before the cutover ({summary(state)}) put back")
    report = follow_rollout(
        client,
        ref,
        progress or PlainProgress(out),
        stall_after=options.stall_after,
        poll_interval=options.poll_interval,
    )
    end_cutover(client, ref, state, "rolled back")
    out(f"[rollback] the cutover of {ref} is rolled back")
    return report
