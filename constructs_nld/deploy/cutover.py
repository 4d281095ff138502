"""The staged cutover's model: its state on the DaemonSet, the node pools, and the canary's choice.

A cutover (``deploy.py cutover``, :mod:`constructs_nld.deploy.commands.cutover`) puts a new
pod template on a few canary nodes first. Its state lives in one annotation of the DaemonSet
(:data:`~constructs_nld.defaults.CUTOVER_ANNOTATION`), so that any machine can continue or
end it, and an interrupted step converges when rerun. Pure code: no I/O, no clock.

Pools are told apart by their taints and their :data:`~constructs_nld.defaults.POOL_LABELS`;
the taints a node carries only for a while (its conditions, a drain, Karpenter's disruption)
are left out. By default the canary is one node of every pool: GPU and CPU pools fail
differently.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, Final

from constructs_nld import defaults
from constructs_nld.deploy.errors import InvalidConfigError
from constructs_nld.deploy.kube import ObjectRef
from constructs_nld.deploy.manifest import KARPENTER_DISRUPTION_TAINTS

__all__ = [
    "REVISION_LABEL",
    "CanaryNode",
    "CutoverState",
    "choose_canary",
    "pool_of",
    "pools_left_out",
    "state_of",
    "stamp",
    "summary",
    "template_hash",
    "with_on_delete",
]

REVISION_LABEL: Final = "controller-revision-hash"
"""The label the DaemonSet controller puts on each pod: the revision of the template it was made from."""

_TRANSIENT_TAINTS: Final = frozenset(
    {*KARPENTER_DISRUPTION_TAINTS, "ToBeDeletedByClusterAutoscaler", "DeletionCandidateOfClusterAutoscaler"}
)
_VERSION: Final = 1


def _transient(key: str) -> bool:
    return key.startswith("node.kubernetes.io/") or key in _TRANSIENT_TAINTS


def pool_of(node: Mapping[str, Any]) -> str:
    """The pool of ``node``: its lasting taints and pool labels, as ``key=value:Effect`` and ``key=value``."""
    taints = sorted(
        f"{t['key']}{'=' + t['value'] if t.get('value') else ''}:{t.get('effect', '')}"
        for t in (node.get("spec") or {}).get("taints") or []
        if not _transient(str(t.get("key", "")))
    )
    labels = (node.get("metadata") or {}).get("labels") or {}
    pool_labels = [f"{key}={labels[key]}" for key in defaults.POOL_LABELS if key in labels]
    return ",".join(taints + pool_labels) or "(no taints, no pool labels)"


@dataclass(frozen=True, order=True)
class CanaryNode:
    """A node of the canary, with its pool."""

    pool: str
    name: str


def choose_canary(candidates: Iterable[CanaryNode], count: int | None = None) -> tuple[CanaryNode, ...]:
    """``count`` nodes of ``candidates``, spread over the pools; by default (None) one of each pool.

    The pools take turns, in the order of their names, each giving its nodes in the order of
    theirs: the choice is the same on every machine. ``count`` below the number of pools
    leaves the last pools out (the caller says which); above the candidates it is refused.
    """
    by_pool: dict[str, list[CanaryNode]] = {}
    for node in sorted(set(candidates)):
        by_pool.setdefault(node.pool, []).append(node)
    total = sum(len(nodes) for nodes in by_pool.values())
    wanted = len(by_pool) if count is None else count
    if wanted < 1:
        raise InvalidConfigError(f"--canary-nodes: must be at least 1, got {wanted}")
    if wanted > total:
        raise InvalidConfigError(
            f"--canary-nodes: {wanted} nodes asked for, but only {total} run a ready node-cache pod "
            "and are settled (not cordoned, draining, disrupted or not ready)"
        )
    chosen: list[CanaryNode] = []
    turn = 0
    while len(chosen) < wanted:
        for nodes in by_pool.values():
            if turn < len(nodes) and len(chosen) < wanted:
                chosen.append(nodes[turn])
        turn += 1
    return tuple(chosen)


def template_hash(template: Mapping[str, Any]) -> str:
    """A short digest of a pod template as the app writes it: the same app gives the same one everywhere."""
    text = json.dumps(template, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def with_on_delete(daemon_set: Mapping[str, Any]) -> dict[str, Any]:
    """``daemon_set`` with ``updateStrategy: OnDelete``: the controller replaces no pod on its own."""
    changed = json.loads(json.dumps(daemon_set))
    changed["spec"]["updateStrategy"] = {"type": "OnDelete"}
    return dict(changed)


@dataclass(frozen=True, kw_only=True)
class CutoverState:
    """What a cutover in progress has decided: kept on the DaemonSet, read back by every step."""

    template: str
    """:func:`template_hash` of the app's new pod template: a rerun with another one is another cutover."""

    old_revision: str
    """The controller's revision of the pods before the cutover (their ``controller-revision-hash``)."""

    canary: tuple[CanaryNode, ...]
    """The canary nodes, with their pools."""

    started: str
    """When the cutover started (RFC 3339, UTC): the canary soak's window starts there."""

    old_strategy: Mapping[str, Any] = field(default_factory=dict)
    """The DaemonSet's ``updateStrategy`` before the cutover."""

    new_revision: str = ""
    """The controller's revision of the canary pods, once they run (empty before)."""

    promoted: str = ""
    """When ``promote`` started rolling the rest (RFC 3339), empty before: a rerun continues the rollout."""

    forced: bool = False
    """``promote --force`` overrode a soak that did not pass."""

    @property
    def started_at(self) -> float:
        """``started`` in epoch seconds: where the canary soak's window starts."""
        return _time("started", self.started)

    @property
    def canary_names(self) -> tuple[str, ...]:
        """The canary nodes' names."""
        return tuple(node.name for node in self.canary)

    def to_annotation(self) -> str:
        """The state as the annotation's JSON."""
        data = asdict(self)
        data["version"] = _VERSION
        data["canary"] = [{"pool": n.pool, "name": n.name} for n in self.canary]
        return json.dumps(data, sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_annotation(
        cls, text: str, ref: ObjectRef, *, created: str | None = None, now: float | None = None
    ) -> CutoverState:
        """Read the annotation of the DaemonSet ``ref``; a malformed one is refused, saying how to remove it.

        Read strictly, as input from the cluster: each field of its type and shape, nothing
        else, no deeper than the state is. ``started`` (and ``promoted``) must not be before the
        DaemonSet's ``created`` nor after ``now`` (the API server's clock), when given: the
        canary window starts there.
        """
        fix = (
            "it is not a cutover's state; if no cutover is in progress, remove it with "
            f"'kubectl annotate daemonset -n {ref.namespace} {ref.name} {defaults.CUTOVER_ANNOTATION}-'"
        )
        try:
            state = _parse_state(text)
            _check_times(state, created, now)
        except (ValueError, TypeError, KeyError) as error:
            raise InvalidConfigError(f"{ref}: annotation {defaults.CUTOVER_ANNOTATION}: {error}; {fix}") from None
        return state

    def but(self, **changes: Any) -> CutoverState:
        """A copy with ``changes``."""
        return replace(self, **changes)


def state_of(daemon_set: Mapping[str, Any] | None, *, now: float | None = None) -> CutoverState | None:
    """The cutover in progress on a live DaemonSet (None: none, or no DaemonSet).

    ``now``: the API server's clock, which a ``started`` may not be after.
    """
    metadata = (daemon_set or {}).get("metadata") or {}
    text = (metadata.get("annotations") or {}).get(defaults.CUTOVER_ANNOTATION)
    if daemon_set is None or text is None:
        return None
    created = metadata.get("creationTimestamp")
    return CutoverState.from_annotation(
        text, ObjectRef.of(daemon_set), created=created if isinstance(created, str) else None, now=now
    )


_MAX_STATE_CHARS: Final = 256 * 1024
"""The API server's limit on all of an object's annotations together: no state is longer."""
_TEMPLATE_DIGEST: Final = re.compile(r"[0-9a-f]{16}")
_REVISION: Final = re.compile(r"[0-9a-z]{1,63}")
"""A ``controller-revision-hash``: the controller's encoding of a hash, a label value that is also a name part."""
_NODE_NAME: Final = re.compile(r"[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?")
_TIME_FORMAT: Final = "%Y-%m-%dT%H:%M:%SZ"
_PERCENT: Final = re.compile(r"(100|[1-9]?[0-9])%")
_FIELDS: Final = {
    "version": int,
    "template": str,
    "old_revision": str,
    "canary": list,
    "started": str,
    "old_strategy": dict,
    "new_revision": str,
    "promoted": str,
    "forced": bool,
    "old_template": dict,
}
"""Every key a state may hold, and its JSON type. ``old_template`` is one an earlier release wrote: it is
ignored, since a rollback takes the old template from the DaemonSet controller's own record."""


def _parse_state(text: str) -> CutoverState:
    if not isinstance(text, str) or len(text) > _MAX_STATE_CHARS:
        raise ValueError(f"not a string of at most {_MAX_STATE_CHARS} characters")
    _check_depth(text)
    data = json.loads(text)
    if not isinstance(data, dict) or data.pop("version", None) != _VERSION:
        raise ValueError(f"version {_VERSION} expected")
    for key, value in data.items():
        wanted = _FIELDS.get(key)
        if wanted is None:
            raise ValueError(f"unknown field {key!r}")
        if type(value) is not wanted:
            raise ValueError(f"{key}: a JSON {wanted.__name__} expected, got {type(value).__name__}")
    data.pop("old_template", None)
    for name in ("template", "old_revision", "started"):
        if not data.get(name):
            raise ValueError(f"{name} missing")
    if not _TEMPLATE_DIGEST.fullmatch(data["template"]):
        raise ValueError("template: not a template digest")
    for name in ("old_revision", "new_revision"):
        if data.get(name) and not _REVISION.fullmatch(data[name]):
            raise ValueError(f"{name}: not a controller-revision-hash")
    data["canary"] = tuple(_canary_node(n) for n in data["canary"])
    if not data["canary"]:
        raise ValueError("no canary node")
    _check_strategy(data.get("old_strategy", {}))
    return CutoverState(**data)


_MAX_DEPTH: Final = 32
"""How deeply a state's JSON may nest: the state itself nests 3 deep, a pod template an earlier release kept
about 10; the JSON decoder would run out of stack at about a thousand."""


def _check_depth(text: str) -> None:
    """Refuse JSON nested deeper than :data:`_MAX_DEPTH`, before it is decoded."""
    depth, in_string, escaped = 0, False, False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > _MAX_DEPTH:
                raise ValueError(f"nested deeper than {_MAX_DEPTH} levels")
        elif char in "]}":
            depth -= 1


def _canary_node(node: object) -> CanaryNode:
    if not isinstance(node, dict) or set(node) - {"pool", "name"}:
        raise ValueError("a canary node is an object of a pool and a name")
    pool, name = node["pool"], node["name"]
    if not isinstance(name, str) or not _NODE_NAME.fullmatch(name):
        raise ValueError(f"canary node {name!r}: not a node name")
    if not isinstance(pool, str) or len(pool) > 4096 or not pool.isprintable():
        raise ValueError(f"canary node {name}: its pool is not a line of text")
    return CanaryNode(pool, name)


def _check_strategy(strategy: Mapping[str, Any]) -> None:
    """Refuse anything but a DaemonSet's ``updateStrategy``: what a rollback puts back is only that."""
    if not strategy:
        return
    if set(strategy) - {"type", "rollingUpdate"} or strategy.get("type") not in ("RollingUpdate", "OnDelete"):
        raise ValueError("old_strategy: not a DaemonSet's updateStrategy")
    rolling = strategy.get("rollingUpdate", {})
    if not isinstance(rolling, dict) or set(rolling) - {"maxUnavailable", "maxSurge"}:
        raise ValueError("old_strategy: not a DaemonSet's updateStrategy")
    for key, value in rolling.items():
        number = type(value) is int and 0 <= value <= 1_000_000
        if not number and not (isinstance(value, str) and _PERCENT.fullmatch(value)):
            raise ValueError(f"old_strategy: {key} is neither a count nor a percentage")


def stamp(epoch: float) -> str:
    """An instant as the state writes its times (``2026-12-02T03:00:00Z``): UTC, whole seconds."""
    return datetime.fromtimestamp(epoch, UTC).strftime(_TIME_FORMAT)


def _time(name: str, value: str) -> float:
    try:
        return datetime.strptime(value, _TIME_FORMAT).replace(tzinfo=UTC).timestamp()
    except ValueError:
        raise ValueError(f"{name}: {value!r} is not a time as YYYY-MM-DDTHH:MM:SSZ") from None


def _check_times(state: CutoverState, created: str | None, now: float | None) -> None:
    started = state.started_at
    times = [("started", started)]
    if state.promoted:
        promoted = _time("promoted", state.promoted)
        if promoted < started:
            raise ValueError(f"promoted {state.promoted} is before started {state.started}")
        times.append(("promoted", promoted))
    born = None if created is None else _time("the DaemonSet's creationTimestamp", created)
    for name, value in times:
        if born is not None and value < born:
            raise ValueError(f"{name} {getattr(state, name)} is before the DaemonSet was created ({created})")
        if now is not None and value > now + _CLOCK_STEP:
            raise ValueError(f"{name} {getattr(state, name)} is in the future by the API server's clock")


_CLOCK_STEP: Final = 1.0
"""The states' times have whole seconds, and the API server's ``Date`` too: a time one second ahead is now."""


def summary(state: CutoverState) -> str:
    """``started 2026-12-02T03:00:00Z on 3 canary node(s) (a, b, c)``."""
    return f"started {state.started} on {len(state.canary)} canary node(s) ({', '.join(state.canary_names)})"


def pools_left_out(candidates: Sequence[CanaryNode], chosen: Sequence[CanaryNode]) -> list[str]:
    """The pools of ``candidates`` with no node in ``chosen``."""
    return sorted({node.pool for node in candidates} - {node.pool for node in chosen})
