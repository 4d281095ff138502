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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
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

    old_template: Mapping[str, Any] = field(default_factory=dict)
    """The DaemonSet's pod template before the cutover, as the API server held it: what a rollback restores."""

    old_strategy: Mapping[str, Any] = field(default_factory=dict)
    """The DaemonSet's ``updateStrategy`` before the cutover."""

    new_revision: str = ""
    """The controller's revision of the canary pods, once they run (empty before)."""

    promoted: str = ""
    """When ``promote`` started rolling the rest (RFC 3339), empty before: a rerun continues the rollout."""

    forced: bool = False
    """``promote --force`` overrode a soak that did not pass."""

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
    def from_annotation(cls, text: str, ref: ObjectRef) -> CutoverState:
        """Read the annotation of the DaemonSet ``ref``; a malformed one is refused, saying how to remove it."""
        fix = (
            "it is not a cutover's state; if no cutover is in progress, remove it with "
            f"'kubectl annotate daemonset -n {ref.namespace} {ref.name} {defaults.CUTOVER_ANNOTATION}-'"
        )
        try:
            data = json.loads(text)
            if not isinstance(data, dict) or data.pop("version", None) != _VERSION:
                raise ValueError(f"version {_VERSION} expected")
            data["canary"] = tuple(CanaryNode(str(n["pool"]), str(n["name"])) for n in data["canary"])
            state = cls(**data)
            for name in ("template", "old_revision", "started"):
                if not isinstance(getattr(state, name), str) or not getattr(state, name):
                    raise ValueError(f"{name} missing")
            if not state.canary:
                raise ValueError("no canary node")
        except (ValueError, TypeError, KeyError) as error:
            raise InvalidConfigError(f"{ref}: annotation {defaults.CUTOVER_ANNOTATION}: {error}; {fix}") from None
        return state

    def but(self, **changes: Any) -> CutoverState:
        """A copy with ``changes``."""
        return replace(self, **changes)


def state_of(daemon_set: Mapping[str, Any] | None) -> CutoverState | None:
    """The cutover in progress on a live DaemonSet (None: none, or no DaemonSet)."""
    annotations = ((daemon_set or {}).get("metadata") or {}).get("annotations") or {}
    text = annotations.get(defaults.CUTOVER_ANNOTATION)
    if daemon_set is None or text is None:
        return None
    return CutoverState.from_annotation(text, ObjectRef.of(daemon_set))


def summary(state: CutoverState) -> str:
    """``started 2026-12-02T03:00:00Z on 3 canary node(s) (a, b, c)``."""
    return f"started {state.started} on {len(state.canary)} canary node(s) ({', '.join(state.canary_names)})"


def pools_left_out(candidates: Sequence[CanaryNode], chosen: Sequence[CanaryNode]) -> list[str]:
    """The pools of ``candidates`` with no node in ``chosen``."""
    return sorted({node.pool for node in candidates} - {node.pool for node in chosen})
