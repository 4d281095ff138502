"""The deploy's steps for a Helm release handed over in place (``deploy --adopt-helm-release NAME``).

:func:`find_release`, among the checks: an object of the app that a Helm release holds
refuses the deploy unless that release is named; with it, the release's records are read
and checked, and what the handover will do is planned (nothing written). :func:`mark_records`,
the first write: every revision's record keeps the app's objects (:mod:`constructs_nld.deploy.helm`).

The objects that share a name are then applied as any other, their fields taken over from
Helm first (:mod:`constructs_nld.deploy.takeover`). The release's DaemonSet cannot be: its
selector (the chart's ``app.kubernetes.io/name`` and ``instance``) differs from the app's,
and a selector never changes. :func:`replace_daemon_set` deletes it leaving its pods
(``propagationPolicy: Orphan``), gives those pods the app's selector labels, and creates the
app's DaemonSet, whose controller adopts them and replaces them node by node at the app's
``maxUnavailable``: every node keeps its node-cache until its turn, as in any rolling update.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kubernetes.client.exceptions import ApiException

from constructs_nld.deploy.errors import PreconditionError, WaitTimeoutError
from constructs_nld.deploy.helm import (
    HelmRecordError,
    Record,
    keep_in_manifest,
    manifest_documents,
    read_records,
    record_patch,
    release_of,
)
from constructs_nld.deploy.kube import FIELD_MANAGER, Manifest, ObjectRef, RereadError
from constructs_nld.deploy.manifest import selector
from constructs_nld.deploy.program import hint
from constructs_nld.deploy.wait import Poll, wait_for

if TYPE_CHECKING:
    from constructs_nld.deploy.steps import DeployState

__all__ = ["Handover", "find_release", "mark_records", "replace_daemon_set"]

_GUIDE = "docs/from-deliveryhero.md, 'Taking over a running release'"
_GENERATION = "pod-template-generation"
"""The DaemonSet controller's older record of a pod's template, beside ``controller-revision-hash``."""


@dataclass
class Handover:
    """What a deploy found of the Helm release it takes over, and what it will write."""

    name: str
    namespace: str
    records: list[tuple[Record, dict[str, Any]]] = field(default_factory=list)
    """Each record to rewrite, with its release as it will be (records that already keep the app's objects: none)."""
    marked: list[str] = field(default_factory=list)
    """The documents of the latest revision that the rewrite marks ``keep``: ``Kind name``."""
    old_selector: Mapping[str, str] = field(default_factory=dict)
    """The chart DaemonSet's selector, from the release's manifest (empty: its DaemonSet is not the app's)."""
    replaced: bool = False
    """Whether this run created the app's DaemonSet in place of the release's."""

    @property
    def label(self) -> str:
        """``Helm release kube-system/node-local-dns``."""
        return f"Helm release {self.namespace}/{self.name}"


def _owners(state: DeployState) -> dict[ObjectRef, tuple[str, str]]:
    """The app's live objects that a Helm release holds, each with that release."""
    client = state.session.kube
    found = {}
    for item in state.planned:
        if item.ref not in state.live:
            state.live[item.ref] = client.get(item.ref)
        live = state.live[item.ref]
        owner = release_of(live) if live is not None else None
        if owner is not None:
            found[item.ref] = owner
    return found


def find_release(state: DeployState) -> None:
    """Step 4: refuse an object of a Helm release unless its release is named; plan that release's handover."""
    owners = _owners(state)
    adopt = state.options.adopt_helm_release
    if adopt is None:
        for ref, (name, namespace) in owners.items():
            raise PreconditionError(
                f"{ref} belongs to Helm release {namespace}/{name}: take it over with "
                f"{hint('deploy --adopt-helm-release ' + name)} ({_GUIDE}); nothing applied"
            )
        return
    namespace = state.component.namespace
    for ref, (name, where) in owners.items():
        if name != adopt:
            raise PreconditionError(
                f"{ref} belongs to Helm release {where}/{name}, not {adopt!r}: nothing applied; name that release"
            )
        namespace = where
    handover = Handover(adopt, namespace)
    records = read_records(state.session.kube, adopt, namespace, state.options.helm_driver)
    if not records:
        raise PreconditionError(
            f"{handover.label} has no records ({state.options.helm_driver} driver, labels owner=helm,name={adopt}): "
            "nothing applied; check --helm-driver, or drop --adopt-helm-release once the release is gone"
        )
    keep = [item.ref for item in state.planned]
    for record in records:
        try:
            manifest, marked = keep_in_manifest(record.release["manifest"], keep, state.component.namespace)
            documents = manifest_documents(manifest) if record is records[-1] else []
        except HelmRecordError as error:
            raise PreconditionError(f"{handover.label}: record {record.ref.name}: {error}: nothing applied") from None
        if marked:
            handover.records.append((record, {**record.release, "manifest": manifest}))
        if record is records[-1]:
            handover.marked = marked
            handover.old_selector = _chart_selector(state, documents)
    state.handover = handover
    revisions = f"{len(handover.records)} of its {len(records)} revision record(s)"
    marking = f"marks {', '.join(handover.marked)} keep in {revisions}" if handover.records else "keeps them already"
    replacing = (
        f"; the DaemonSet is replaced (its selector {selector(handover.old_selector)} differs), its pods adopted"
        if handover.old_selector
        else ""
    )
    state.out(f"[4/7] taking over {handover.label}: {marking}{replacing}")


def _chart_selector(state: DeployState, documents: list[dict[str, Any]]) -> dict[str, str]:
    """The selector of the release's DaemonSet of the app's name, when it is not the app's; else empty.

    Empty too when the live DaemonSet is the app's already (an earlier handover replaced it).
    """
    ours = state.component.daemon_set
    for doc in documents:
        metadata = doc.get("metadata") or {}
        if doc.get("kind") != "DaemonSet" or metadata.get("name") != ours["metadata"]["name"]:
            continue
        chosen = (doc.get("spec") or {}).get("selector") or {}
        labels = chosen.get("matchLabels") or {}
        if chosen.get("matchExpressions") or not labels or not all(isinstance(v, str) for v in labels.values()):
            raise PreconditionError(
                f"{ObjectRef.of(ours)}: the Helm release's DaemonSet selects its pods by expressions, "
                "which this handover cannot carry over: nothing applied"
            )
        wanted = ours["spec"]["selector"].get("matchLabels") or {}
        live = state.live.get(ObjectRef.of(ours))
        already = live is not None and (live["spec"].get("selector") or {}).get("matchLabels") == wanted
        return {} if labels == wanted or already else dict(labels)
    return {}


def mark_records(state: DeployState) -> None:
    """Step 5, first: every record of the release keeps the app's objects, each written only if unchanged since read."""
    handover = state.handover
    if handover is None or not handover.records:
        return
    client = state.session.kube
    if not state.options.diff:
        for record, release in handover.records:
            try:
                patch = record_patch(record, release)
                client.json_patch(record.ref, patch, field_manager=FIELD_MANAGER, dry_run=state.options.dry_run)
            except RereadError:
                raise PreconditionError(
                    f"{handover.label}: record {record.ref.name} could not be written once: rerun"
                ) from None
            except ApiException as error:
                if error.status not in (409, 422):
                    raise
                raise PreconditionError(
                    f"{handover.label}: record {record.ref.name} changed while this deploy read it: rerun"
                ) from None
    verb = "would mark" if state.options.diff else "marked"
    state.out(
        f"[5/7] {handover.label}: {verb} {', '.join(handover.marked) or 'the app objects'} "
        f"keep in {len(handover.records)} record(s){state.suffix}"
    )


def replaces(state: DeployState, ref: ObjectRef) -> bool:
    """Whether ``ref`` is the DaemonSet that the handover replaces (its live selector is the chart's)."""
    handover = state.handover
    return bool(handover and handover.old_selector and ref == ObjectRef.of(state.component.daemon_set))


def replace_daemon_set(state: DeployState, desired: Manifest, ref: ObjectRef, live: Manifest | None) -> Manifest:
    """The release's DaemonSet deleted, its pods kept and labelled for the app's, then the app's created.

    Each step is safe to run again: a run stopped after the delete finds the DaemonSet gone
    and the pods still orphaned, labels them and creates the app's.
    """
    handover = state.handover
    assert handover is not None
    client = state.session.kube
    namespace = state.component.namespace
    timeout = state.options.restart_timeout
    if live is not None:
        client.delete(ref, uid=live["metadata"].get("uid"), propagation="Orphan")

        def gone(_: float) -> Poll:
            return Poll(done=client.get(ref) is None)

        wait_for(
            gone,
            interval=state.options.poll_interval,
            timeout=timeout,
            timed_out=lambda _: WaitTimeoutError(
                f"{ref}: the Helm release's DaemonSet was not gone within {timeout:g}s (--restart-timeout); "
                "its pods run on: rerun"
            ),
        )
    old = selector(handover.old_selector)
    # The app's selector, and no pod-template-generation: the new DaemonSet's generation is 1 again, and
    # its controller counts a pod whose label says the same as updated, so it would never roll the chart's.
    labels: dict[str, str | None] = {**(desired["spec"]["selector"].get("matchLabels") or {}), _GENERATION: None}
    pods = [p for p in client.list("v1", "Pod", namespace, label_selector=old) if _orphan(p)]
    for pod in pods:
        client.merge_patch(
            ObjectRef("v1", "Pod", namespace, pod["metadata"]["name"]),
            {"metadata": {"labels": labels}},
            field_manager=FIELD_MANAGER,
        )
    revisions = [r for r in client.list("apps/v1", "ControllerRevision", namespace, label_selector=old) if _orphan(r)]
    for revision in revisions:
        client.delete(ObjectRef.of(revision), uid=revision["metadata"].get("uid"))
    created = client.apply(desired)
    handover.replaced = True
    state.out(
        f"[6/7] {ref}: the Helm release's replaced, {len(pods)} pod(s) kept for it to adopt and roll, "
        f"{len(revisions)} old revision(s) deleted"
    )
    return created


def _orphan(live: Mapping[str, Any]) -> bool:
    """Whether ``live`` has no controller (its DaemonSet deleted with its dependents orphaned) and is not going."""
    metadata = live.get("metadata") or {}
    owners = metadata.get("ownerReferences") or []
    return not metadata.get("deletionTimestamp") and not any(o.get("controller") for o in owners)
