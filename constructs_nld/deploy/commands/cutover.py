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

import contextlib
import copy
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

from kubernetes.client.exceptions import ApiException

from constructs_nld import defaults
from constructs_nld.deploy import steps
from constructs_nld.deploy.access import check_access
from constructs_nld.deploy.applyset import ApplySet
from constructs_nld.deploy.canary import CanaryPod, CanaryReport, canary_signals, window_signal
from constructs_nld.deploy.checks.cluster import Cluster
from constructs_nld.deploy.command import Command, Outcome
from constructs_nld.deploy.compare import same_object
from constructs_nld.deploy.component import Component
from constructs_nld.deploy.cutover import (
    REVISION_LABEL,
    CanaryNode,
    CutoverState,
    choose_canary,
    pool_of,
    pools_left_out,
    stamp,
    state_of,
    summary,
    template_hash,
    with_on_delete,
)
from constructs_nld.deploy.documents import DocumentSchema, array, boolean, enum, record, string
from constructs_nld.deploy.errors import (
    CutoverError,
    GateError,
    InvalidConfigError,
    PreconditionError,
    StalledError,
)
from constructs_nld.deploy.gate import (
    SIGNALS_SCHEMA,
    VERDICT_CODES,
    VERDICT_SCHEMA,
    VERDICTS,
    SignalResult,
    signals_document,
    targets_of,
)
from constructs_nld.deploy.history import Recorder
from constructs_nld.deploy.kube import REREADS, KubeClient, Manifest, ObjectRef, RereadError
from constructs_nld.deploy.manifest import is_ready, node_essentials, not_ready_reasons, without_bookkeeping
from constructs_nld.deploy.options import CutoverOptions, DeployOptions
from constructs_nld.deploy.program import hint
from constructs_nld.deploy.progress import PlainProgress, make_progress
from constructs_nld.deploy.promapi import PrometheusAPI
from constructs_nld.deploy.rollout import Progress, RolloutReport, RolloutStatus, follow_rollout, not_ready_pods
from constructs_nld.deploy.session import ClusterRead, Session
from constructs_nld.deploy.steps import DeployReport, DeployState, run_steps
from constructs_nld.deploy.tables import format_table
from constructs_nld.deploy.wait import Poll, wait_for
from constructs_nld.roles import Role

__all__ = [
    "COMMAND",
    "STATUS_DOCUMENT",
    "end_cutover",
    "promote",
    "recorded_template",
    "rollback",
    "run",
    "start",
    "status",
]

_CONFIG_ROLES = (Role.COREFILE, Role.KEEPER_CONFIG)


def _rollback() -> str:
    return f"{hint('cutover rollback')} puts the old template back on the canary nodes"


def _now(client: KubeClient) -> str:
    """The API server's time, as the state's times are written: the canary window is judged by its clock."""
    return stamp(client.server_time())


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
        annotations[defaults.LAST_CUTOVER_ANNOTATION] = json.dumps({**last, "ended": _now(client)}, sort_keys=True)
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
    pods = client.list(
        "v1", "Pod", component.namespace, label_selector=component.pod_selector, keep=without_bookkeeping
    )
    return [pod for pod in pods if not pod["metadata"].get("deletionTimestamp")]


def _by_node(pods: list[Manifest]) -> dict[str, Manifest]:
    return {str(pod["spec"].get("nodeName") or ""): pod for pod in pods}


def _deploy_options(options: CutoverOptions, *, wait: bool = False) -> DeployOptions:
    """The deploy a step runs: a cutover's timeouts, and with ``wait`` its stall window and display."""
    return DeployOptions(
        cluster_ip_timeout=options.cluster_ip_timeout,
        restart_timeout=options.restart_timeout,
        lease_timeout=options.lease_timeout,
        wait=wait,
        stall_after=options.stall_after,
        rollout_poll_interval=options.poll_interval,
        progress=options.progress,
    )


@dataclass
class _Start:
    """``cutover start``'s own state beside its deploy's: the cutover, whether this run began it, the candidates."""

    deploy: DeployState
    options: CutoverOptions
    state: CutoverState | None = None
    fresh: bool = False
    candidates: list[CanaryNode] = field(default_factory=list)

    @property
    def client(self) -> KubeClient:
        return self.deploy.session.kube

    @property
    def component(self) -> Component:
        return self.deploy.component

    @property
    def ref(self) -> ObjectRef:
        return ObjectRef.of(self.component.daemon_set)

    def out(self, line: str) -> None:
        self.deploy.out(line)

    def plan(self) -> None:
        """After the deploy's plan: what a cutover refuses, the canary's choice, the DaemonSet made ``OnDelete``."""
        deploy = self.deploy
        self.state = deploy.cutover
        live = deploy.live[self.ref]
        if live is None or deploy.report.freshly_created:
            missing = self.ref if live is None else ObjectRef.of(self.component.upstream_service)
            raise PreconditionError(
                f"{missing} is not installed: a cutover changes an install; install with {hint('--wait')}"
            )
        template = template_hash(self.component.daemon_set["spec"]["template"])
        if self.state is not None and self.state.template != template:
            raise CutoverError(
                f"a cutover of {self.ref} is in progress ({summary(self.state)}) with another pod template: "
                f"promote it ({hint('cutover promote')}) or roll it back ({hint('cutover rollback')}) first"
            )
        if self.state is not None and self.state.promoted:
            raise CutoverError(
                f"the cutover of {self.ref} is being promoted (since {self.state.promoted}): "
                f"rerun {hint('cutover promote')} to finish it"
            )
        self.refuse_config_changes()
        (item,) = [item for item in deploy.planned if item.ref == self.ref]
        # Only the pods the cutover deletes take the new template.
        deploy.instead[self.ref] = with_on_delete(item.manifest)
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
        for item in self.deploy.planned:
            if self.component.role(item.ref) not in _CONFIG_ROLES:
                continue
            live = self.client.get(item.ref)
            if live is None or same_object(live, self.client.apply(item.manifest, dry_run=True)):
                continue
            raise InvalidConfigError(
                f"the app changes {item.ref}, which node-cache reloads on every node within a minute, canary or "
                f"not: deploy that change on its own first ({hint('--wait')}), or give the new Corefile "
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
                    f"nothing was applied; see {hint('cutover status')}"
                )
            raise PreconditionError(
                f"{self.ref} is not settled on one template ({status}; {len(revisions)} template revision(s) among "
                f"its pods): a cutover starts from a finished rollout; finish it with {hint('--wait')}"
            )
        probe = self.client.apply(self.deploy.instead[self.ref], dry_run=True)
        if probe["spec"]["template"] == live["spec"]["template"]:
            raise CutoverError(
                f"the app's pod template is the one {self.ref} runs: there is nothing to cut over "
                f"(a change of the other objects alone is a plain {hint()})"
            )
        self.candidates = self.choose_among(pods)
        count = self.options.canary_nodes
        if count is None and self.options.canary_selector:
            count = len(self.candidates)  # a selector alone: every node it matches
        return CutoverState(
            template=template,
            old_revision=revisions[0],
            canary=choose_canary(self.candidates, count),
            started=_now(self.client),
            old_strategy=live["spec"].get("updateStrategy") or {},
        )

    def choose_among(self, pods: list[Manifest]) -> list[CanaryNode]:
        """The nodes the canary may take: settled, running a ready pod, matching ``--canary-selector``."""
        try:
            nodes = self.client.list(
                "v1", "Node", None, label_selector=self.options.canary_selector, keep=node_essentials
            )
        except ApiException as error:
            if error.status != 400:
                raise
            raise InvalidConfigError(
                f"--canary-selector {self.options.canary_selector!r}: the API server refused it as a label selector"
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
            which = f" matching {self.options.canary_selector!r}" if self.options.canary_selector else ""
            raise InvalidConfigError(
                f"no node{which} runs a ready node-cache pod and is settled (not cordoned, draining, disrupted or not "
                "ready): there is no node to be the canary"
            )
        return candidates

    def begin(self) -> None:
        """The state first: an interruption after any later write leaves a cutover that a rerun continues."""
        assert self.state is not None
        if not self.fresh:
            return
        live = self.deploy.live[self.ref]
        assert live is not None
        # The deploy's DaemonSet write is conditional on the state it read: this one, at this version.
        self.deploy.live[self.ref] = self.claim(live["metadata"]["resourceVersion"])
        self.deploy.cutover = self.state
        self.out(f"[cutover] started: {summary(self.state)}; state kept on {self.ref}")

    def claim(self, resource_version: str) -> Manifest:
        """Write the state only if the DaemonSet is still at ``resource_version``; refused if it changed.

        Throttled or lost on the way, the write is not resent as it was: a fresh read shows it
        made (the state is ours), or the DaemonSet unchanged (written again), or changed (refused).
        The DaemonSet as it is after the write.
        """
        assert self.state is not None
        changed = CutoverError(
            f"{self.ref} changed while this cutover was planned (another cutover started, or a deploy): "
            f"nothing was applied; see {hint('cutover status')}, or rerun"
        )
        rereads = 0
        while True:
            try:
                return _write_state(self.client, self.ref, self.state, resource_version=resource_version)
            except ApiException as error:
                if error.status != 409:
                    raise
                raise changed from None
            except RereadError:
                rereads += 1
                if rereads > REREADS:
                    raise
                current = self.client.get(self.ref)
                if current is not None and state_of(current) == self.state:
                    return current
                if current is None or current["metadata"]["resourceVersion"] != resource_version:
                    raise changed from None

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
        best = -1
        ready: list[Manifest] = []
        new: list[Manifest] = []

        def poll(_: float) -> Poll:
            nonlocal best, ready, new
            pods = _pods(self.client, self.component)
            new = [
                p
                for p in pods
                if p["spec"].get("nodeName") in state.canary_names and _revision(p) != state.old_revision
            ]
            ready = [pod for pod in new if is_ready(pod)]
            progressed = len(ready) > best
            best = max(best, len(ready))
            return Poll(done=len(ready) == len(state.canary), progressed=progressed)

        def stalled(_: float) -> StalledError:
            return StalledError(
                f"cutover of {self.ref}: {len(ready)} of {len(state.canary)} canary pods ready on the new template "
                f"after {self.options.stall_after:g}s without progress; not ready: {not_ready_pods(new)}\n"
                f"  {_rollback()}"
            )

        seconds = wait_for(
            poll, interval=self.options.poll_interval, stall_after=self.options.stall_after, stalled=stalled
        )
        revision = _revision(ready[0])
        if state.new_revision != revision:
            self.state = state.but(new_revision=revision)
            _write_state(self.client, self.ref, self.state)
        images = sorted({_image(pod) for pod in ready})
        self.out(
            f"[cutover] {len(ready)} canary pod(s) ready on the new template ({', '.join(images)}) in "
            f"{seconds:.1f}s; nodes that join from now on get it too. Next: "
            f"{hint('cutover status')} until it passes, then {hint('cutover promote')}"
        )


def start(session: Session, options: CutoverOptions) -> CutoverState:
    """``cutover start`` on the session's app: a deploy's reads and refusals, the canary's choice, its writes."""
    deploy = DeployState(session, _deploy_options(options), PlainProgress(session.out), permission="cutover")
    for step in (steps.check_app, steps.precondition, steps.report_cluster_ip, steps.warn_cache_budget, steps.plan):
        step(deploy)
    run = _Start(deploy, options)
    run.plan()
    steps.admit(deploy)
    steps.refuse_dropped_fields(deploy)
    run.begin()
    steps.apply_services(deploy)
    steps.apply_rest(deploy)
    run.replace()
    run.follow()
    assert run.state is not None
    return run.state


def _in_progress(client: KubeClient, ref: ObjectRef, live: Manifest | None) -> CutoverState:
    state = state_of(live, now=client.server_time())
    if state is None:
        raise CutoverError(f"no cutover of {ref} is in progress: start one with {hint('cutover start')}")
    return state


def _prometheus(options: CutoverOptions) -> PrometheusAPI | None:
    if not options.prometheus:
        return None
    return PrometheusAPI(options.prometheus, timeout=options.prometheus_timeout, auth=options.prometheus_auth)


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
    now = client.server_time()
    started = state.started_at
    prometheus_signals = canary_signals(
        prometheus, targets_of(component, None), [row.pod for row in rows if row.pod], started, now
    )
    signals = (available, *prometheus_signals, window_signal(started, now, options.window))
    return CanaryReport(tuple(rows), signals, joined)


def _shown(ref: ObjectRef, state: CutoverState, report: CanaryReport) -> list[str]:
    """The canary's pods, its signals and the verdict, as ``status`` prints them."""
    lines = [f"cutover of {ref}: {summary(state)}" + (f"; promoting since {state.promoted}" if state.promoted else "")]
    pods = [
        (r.node, r.pool, r.pod or "-", r.image or "-", "yes" if r.ready else f"no: {r.why}", "new" if r.new else "old")
        for r in report.pods
    ]
    lines += format_table(("node", "pool", "pod", "image", "ready", "template"), pods)
    if report.joined:
        lines.append(f"joined during the cutover, on the new template: {', '.join(report.joined)}")
    signals = [(s.name, s.expected, s.observed, s.outcome.upper()) for s in report.signals]
    lines += format_table(("signal", "expected", "observed", "result"), signals)
    lines.append(f"verdict: {VERDICTS[report.verdict]}")
    return lines


STATUS_DOCUMENT: Final = DocumentSchema(
    "cutover-status",
    "cutover status -o json",
    "A cutover in progress on one cluster: its canary nodes, the canary soak's signals and its verdict.",
    {
        "cluster": string("The cluster's name: its context; empty for the current one."),
        "daemon_set": string("The node-cache DaemonSet, as namespace/name."),
        "started": string("When the cutover started, RFC 3339 in UTC: the canary soak's window starts there."),
        "promoted": string("When promote started rolling the rest, RFC 3339; empty before."),
        "forced": boolean("Whether promote --force overrode a canary soak that did not pass."),
        "canary": array(
            "One entry per canary node.",
            record(
                "A canary node and its pod.",
                {
                    "node": string("The node."),
                    "pool": string("Its node pool."),
                    "pod": string("The node-cache pod on it; empty when there is none."),
                    "image": string("The pod's node-cache image; empty when there is no pod."),
                    "ready": boolean("Whether the pod is ready."),
                    "template": enum("Which pod template it runs.", "new", "old"),
                    "why": string("Why it is not ready; empty when it is."),
                },
            ),
        ),
        "joined": array(
            "Nodes outside the canary that joined during the cutover, on the new template.", string("A node.")
        ),
        "signals": SIGNALS_SCHEMA,
        "verdict": VERDICT_SCHEMA,
    },
)
"""``cutover status -o json``: the document's schema (``docs/schemas/cutover-status.schema.json``)."""


def _status_document(cluster: str, ref: ObjectRef, state: CutoverState, report: CanaryReport) -> dict[str, Any]:
    return STATUS_DOCUMENT.document(
        cluster=cluster,
        daemon_set=f"{ref.namespace}/{ref.name}",
        started=state.started,
        promoted=state.promoted,
        forced=state.forced,
        canary=[
            {
                "node": row.node,
                "pool": row.pool,
                "pod": row.pod,
                "image": row.image,
                "ready": row.ready,
                "template": "new" if row.new else "old",
                "why": row.why,
            }
            for row in report.pods
        ],
        joined=list(report.joined),
        signals=signals_document(report.signals),
        verdict=report.verdict,
    )


def _status(session: Session, options: CutoverOptions) -> tuple[CanaryReport, list[str], dict[str, Any]]:
    component = session.component
    ref = ObjectRef.of(component.daemon_set)
    state = _in_progress(session.kube, ref, session.kube.get(ref))
    report = _judge(session.kube, component, state, _prometheus(options), options)
    return report, _shown(ref, state, report), _status_document(session.target.name, ref, state, report)


def status(session: Session, options: CutoverOptions) -> tuple[CanaryReport, list[str]]:
    """``cutover status``: the canary pods and the canary soak; the report and its lines."""
    report, lines, _ = _status(session, options)
    return report, lines


def promote(
    session: Session, options: CutoverOptions, progress: Progress | None = None, *, recorder: Recorder | None = None
) -> DeployReport:
    """``cutover promote``: the gate, then the rest of the fleet rolled as ``deploy --wait`` rolls it.

    With ``recorder``, the promote is recorded in the release history as a deploy is.
    """
    client, component, out = session.kube, session.component, session.out
    ref = ObjectRef.of(component.daemon_set)
    live = client.get(ref)
    template = template_hash(component.daemon_set["spec"]["template"])
    last = _last(live)
    if state_of(live) is None and (last.get("outcome"), last.get("template")) == ("promoted", template):
        out(f"the cutover of {ref} to the app's template was promoted ({last.get('ended')}): nothing to do")
        return DeployReport()
    state = _in_progress(client, ref, live)
    deploy_options = _deploy_options(options, wait=True)
    shown = progress or make_progress(deploy_options.progress, out)
    deploy = DeployState(session, deploy_options, shown, permission="cutover", recorder=recorder)
    with recorder.recording(lambda: deploy.lease is not None) if recorder else contextlib.nullcontext():
        if not state.promoted:
            if template != state.template:
                raise CutoverError(
                    f"the app's pod template is not the one the canary runs (cutover {summary(state)}): "
                    f"promote with the app the cutover started from, or {_rollback()} and start again"
                )
            report = _judge(client, component, state, _prometheus(options), options)
            for line in _shown(ref, state, report):
                out(line)
            if report.verdict != "pass":
                failing = [s.name for s in report.signals if s.outcome != "pass"]
                if not options.force:
                    raise GateError(
                        f"promote refused: the canary soak is {VERDICTS[report.verdict]} ({', '.join(failing)}); "
                        f"wait and rerun, or {_rollback()}; --force promotes anyway and is recorded",
                        VERDICT_CODES[report.verdict],
                    )
                out(f"[promote] forced past a canary soak that is {VERDICTS[report.verdict]} ({', '.join(failing)}): "
                    f"recorded on {ref}")  # fmt: skip
            run_steps(deploy, steps.deploy_checks(steps.refuse_other_cutover))  # every refusal before the first write
            with steps.holding(deploy, "cutover promote"):
                state = state.but(promoted=_now(client), forced=options.force and report.verdict != "pass")
                deploy.live[ref] = _write_state(client, ref, state)
                deploy.cutover = state
                result = run_steps(deploy, steps.DEPLOY_WRITES)
        else:
            result = run_steps(deploy, steps.deploy_steps(steps.refuse_other_cutover))
        end_cutover(client, ref, state, "promoted")
        out(f"[promote] the cutover of {ref} is promoted: every node runs the new template" + (
            " (forced)" if state.forced else ""))  # fmt: skip
        return result


def recorded_template(client: KubeClient, live: Manifest, revision: str) -> Manifest:
    """The pod template of ``revision`` of the DaemonSet ``live``, from the ControllerRevision its controller wrote.

    A rollback puts back what the cluster itself recorded, never a template carried in an
    annotation that anyone with ``patch`` on the DaemonSet could write. The revision must be
    controlled by this DaemonSet (its uid) and carry the hash asked for.
    """
    owner = ObjectRef.of(live)
    ref = ObjectRef("apps/v1", "ControllerRevision", owner.namespace, f"{owner.name}-{revision}")
    found = client.get(ref)
    why, template = "", None
    if found is None:
        why = "it does not exist (the DaemonSet's revisionHistoryLimit may have removed it)"
    else:
        controllers = [o for o in found["metadata"].get("ownerReferences") or [] if o.get("controller")]
        labels = found["metadata"].get("labels") or {}
        template = ((found.get("data") or {}).get("spec") or {}).get("template")
        if [(o.get("kind"), o.get("uid")) for o in controllers] != [("DaemonSet", live["metadata"]["uid"])]:
            why = f"it is not controlled by {owner}"
        elif labels.get(REVISION_LABEL) != revision:
            why = f"its {REVISION_LABEL} label is not {revision!r}"
        elif not isinstance(template, dict) or not isinstance(template.get("spec"), dict):
            why = "it holds no pod template"
    if why:
        raise CutoverError(
            f"cannot roll back {owner} to the template of before the cutover: {ref}: {why}; deploy the app of "
            f"before the cutover with {hint('--wait')} instead, then end the cutover with "
            f"'kubectl annotate daemonset -n {owner.namespace} {owner.name} {defaults.CUTOVER_ANNOTATION}-'"
        )
    assert isinstance(template, dict)  # every other case has its why
    return {key: value for key, value in template.items() if key != "$patch"}


def rollback(session: Session, options: CutoverOptions, progress: Progress | None = None) -> RolloutReport | None:
    """``cutover rollback``: the old template back on the canary (and joined) nodes only; its rollout (None: none)."""
    client, component, out = session.kube, session.component, session.out
    ref = ObjectRef.of(component.daemon_set)
    live = client.get(ref)
    state = state_of(live, now=client.server_time())
    if live is None or state is None:
        out(
            f"no cutover of {ref} is in progress: cutover rollback changed nothing; to put back an earlier "
            f"deploy, {hint('history')} lists the revisions and {hint('rollback [REVISION]')} restores one"
        )
        return None
    check_access(
        client, "cutover", [ref], namespace=component.namespace, kube_dns_config=component.reads_kube_dns_config
    )
    restored = copy.deepcopy(ApplySet(component.namespace).member(component.daemon_set))
    restored["spec"]["template"] = recorded_template(client, live, state.old_revision)
    restored["spec"]["updateStrategy"] = state.old_strategy
    client.apply(restored)
    out(f"[rollback] {ref}: the template of before the cutover ({summary(state)}) put back")
    report = follow_rollout(
        client,
        ref,
        progress or make_progress(options.progress, out),
        stall_after=options.stall_after,
        poll_interval=options.poll_interval,
    )
    end_cutover(client, ref, state, "rolled back")
    out(f"[rollback] the cutover of {ref} is rolled back")
    return report


def run(session: Session, options: CutoverOptions) -> Outcome:
    """The cutover step ``options.step`` on one cluster."""
    if options.step == "start":
        state = start(session, options)
        return Outcome(f"canary on {len(state.canary)} node(s)")
    if options.step == "status":
        report, lines, shown = _status(session, options)
        return Outcome(VERDICTS[report.verdict], VERDICT_CODES[report.verdict], lines=tuple(lines), document=shown)
    if options.step == "promote":
        promote(session, options, recorder=Recorder.of(session, "cutover promote", options.history_max))
        return Outcome("promoted")
    rolled = rollback(session, options)
    return Outcome("rolled back" if rolled is not None else "no cutover to roll back")


def _reads(options: CutoverOptions) -> ClusterRead:
    """``start`` and ``promote`` deploy, so they read as a deploy does; ``status`` and ``rollback`` read kube-dns."""
    return "deployable" if options.step in ("start", "promote") else "installed"


COMMAND: Final = Command(CutoverOptions, run, _reads, across_fleet=False)
