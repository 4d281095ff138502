"""The set of objects a deploy applied, tracked as a Kubernetes ApplySet (KEP-3659), so what leaves the app is pruned.

The parent is a ConfigMap (:data:`~constructs_nld.defaults.APPLYSET_NAME`, in the
DaemonSet's namespace) with the labels and annotations the KEP defines, and every object
the deploy applies carries ``applyset.kubernetes.io/part-of: <the set's id>``. The id is
the KEP's (``applyset-<base64url(sha256(name.namespace.ConfigMap.))>-v1``), so kubectl
computes the same one and ``kubectl get -l applyset.kubernetes.io/part-of=<id>`` lists the
same set. The parent says which tool manages it (``applyset.kubernetes.io/tooling:
nld-deploy/<version>``): by the KEP's rule, ``kubectl apply --prune --applyset`` refuses
to change a set another tool manages, and the deploy refuses one kubectl manages.

As kubectl does, the parent is widened to the union of the old and the new kinds and
namespaces before anything is applied, so an interrupted deploy leaks nothing, and
narrowed to the new set once pruning is done.

The label alone says nothing of who applied an object: anyone who may patch one can copy the
set's public id onto it. The parent therefore records its members too (under
:data:`MEMBERS_KEY` in its data, which the KEP leaves to the tool: kind, namespace and name,
written with the kinds and namespaces, so it costs no write of its own), and an object is
pruned only when the parent records it and this tool's server-side apply owns its
``part-of`` label: the API server's own record of who applied what (``managedFields``, an
``Apply`` entry of :data:`~constructs_nld.deploy.kube.FIELD_MANAGER`), which a ``kubectl
label``, an edit, or a patch sent in our manager's name (an ``Update``) never writes. Only the
kinds of the app and of NodeLocal DNS (:data:`~constructs_nld.roles.ROLES`), in the app's,
the component's and the ``monitoring`` namespaces, are listed, and of those only what the
parent records.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from constructs_nld import defaults
from constructs_nld.deploy.errors import PreconditionError
from constructs_nld.deploy.kube import FIELD_MANAGER, RESTART_FIELD_MANAGER, KubeClient, Manifest, ObjectRef
from constructs_nld.deploy.manifest import field_managers, main_resource

__all__ = [
    "ADDITIONAL_NAMESPACES_ANNOTATION",
    "GROUP_KINDS_ANNOTATION",
    "ID_LABEL",
    "MEMBERS_KEY",
    "PART_OF_LABEL",
    "TOOLING",
    "TOOLING_ANNOTATION",
    "ApplySet",
    "Stale",
    "applyset_id",
    "group_kind",
    "member_key",
    "owns_part_of",
]

ID_LABEL: Final = "applyset.kubernetes.io/id"
"""On the parent: the set's id."""

PART_OF_LABEL: Final = "applyset.kubernetes.io/part-of"
"""On every member: the id of the set it belongs to."""

TOOLING_ANNOTATION: Final = "applyset.kubernetes.io/tooling"
"""On the parent: ``<tool>/<version>`` of the tool that manages the set."""

GROUP_KINDS_ANNOTATION: Final = "applyset.kubernetes.io/contains-group-kinds"
"""On the parent: the kinds of the members (``Kind.group``, sorted), where pruning looks."""

ADDITIONAL_NAMESPACES_ANNOTATION: Final = "applyset.kubernetes.io/additional-namespaces"
"""On the parent: the namespaces of members besides the parent's own (sorted)."""

MEMBERS_KEY: Final = "members"
"""In the parent's data: every member as ``Kind.group/namespace/name`` (sorted, one per line): what may be pruned.

A name, not a uid: the record is written before the members are applied (with the widened
kinds), so it needs no write of its own after they are created; an object of that name that
someone else made is still not pruned unless this tool's apply owns its ``part-of`` label.
"""

TOOLING_NAME: Final = "nld-deploy"
TOOLING: Final = f"{TOOLING_NAME}/v1"
"""This tool, as the parent names it; the version is the ApplySet format it writes, not a release."""


def group_kind(api_version: str, kind: str) -> str:
    """``Kind.group`` as the KEP (and kubectl's ``GroupKind.String``) writes it: ``DaemonSet.apps``, ``ConfigMap``."""
    group = api_version.rpartition("/")[0]
    return f"{kind}.{group}" if group else kind


def applyset_id(name: str, namespace: str) -> str:
    """The KEP's id of a ConfigMap parent: base64url (no padding) of sha256 of ``name.namespace.ConfigMap.``."""
    digest = hashlib.sha256(f"{name}.{namespace}.ConfigMap.".encode()).digest()
    return f"applyset-{base64.urlsafe_b64encode(digest).decode().rstrip('=')}-v1"


def member_key(ref: ObjectRef) -> str:
    """How :data:`MEMBERS_KEY` names a member: ``DaemonSet.apps/kube-system/node-local-dns``."""
    return f"{group_kind(ref.api_version, ref.kind)}/{ref.namespace or ''}/{ref.name}"


def owns_part_of(live: Mapping[str, Any]) -> bool:
    """Whether this tool's server-side apply owns the object's ``part-of`` label (its ``managedFields``)."""
    for entry in (live.get("metadata") or {}).get("managedFields") or []:
        if entry.get("manager") != FIELD_MANAGER or entry.get("operation") != "Apply" or not main_resource(entry):
            continue
        labels = ((entry.get("fieldsV1") or {}).get("f:metadata") or {}).get("f:labels") or {}
        if isinstance(labels, dict) and f"f:{PART_OF_LABEL}" in labels:
            return True
    return False


@dataclass(frozen=True)
class Stale:
    """A live member the app no longer defines."""

    ref: ObjectRef
    live: Manifest
    others: tuple[str, ...]
    """Field managers besides ours that own fields of it: then it is never pruned."""

    foreign: str = ""
    """Why it is not this tool's to prune although it carries the set's label (empty: it is ours)."""

    denied: str = ""
    """Why this run may not delete it although it is ours: kept, and still recorded as a member."""


@dataclass
class ApplySet:
    """The ApplySet of one install: its parent, and the members of a plan."""

    namespace: str
    name: str = defaults.APPLYSET_NAME

    @property
    def id(self) -> str:
        """The set's id (the parent's :data:`ID_LABEL`, each member's :data:`PART_OF_LABEL`)."""
        return applyset_id(self.name, self.namespace)

    @property
    def ref(self) -> ObjectRef:
        """The parent ConfigMap."""
        return ObjectRef("v1", "ConfigMap", self.namespace, self.name)

    def member(self, manifest: Mapping[str, Any]) -> Manifest:
        """``manifest`` labelled as a member of this set."""
        metadata = dict(manifest["metadata"])
        metadata["labels"] = {**(metadata.get("labels") or {}), PART_OF_LABEL: self.id}
        return {**manifest, "metadata": metadata}

    def check_parent(self, live: Mapping[str, Any] | None) -> None:
        """Refuse a parent another tool manages, or one whose id is not this set's (no write is made)."""
        if live is None:
            return
        metadata = live.get("metadata") or {}
        tooling = (metadata.get("annotations") or {}).get(TOOLING_ANNOTATION, "")
        if tooling.split("/")[0] != TOOLING_NAME:
            raise PreconditionError(
                f"{self.ref} exists and says it is managed by {tooling or 'no tool'!r} "
                f"({TOOLING_ANNOTATION}), not {TOOLING_NAME}: refusing to take over another tool's set. "
                f"Delete it if nothing uses it ('kubectl delete cm -n {self.namespace} {self.name}'), then rerun."
            )
        if (metadata.get("labels") or {}).get(ID_LABEL) != self.id:
            raise PreconditionError(
                f"{self.ref} has {ID_LABEL}={(metadata.get('labels') or {}).get(ID_LABEL)!r}, not {self.id!r}: "
                "it is not this set's parent; delete it, then rerun"
            )

    def parent(self, kinds: Iterable[str], namespaces: Iterable[str], members: Iterable[str]) -> Manifest:
        """The parent as applied: the set's kinds, namespaces (besides the parent's own) and members."""
        return {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": self.name,
                "namespace": self.namespace,
                "labels": {ID_LABEL: self.id},
                "annotations": {
                    TOOLING_ANNOTATION: TOOLING,
                    GROUP_KINDS_ANNOTATION: ",".join(sorted(set(kinds))),
                    ADDITIONAL_NAMESPACES_ANNOTATION: ",".join(sorted(set(namespaces) - {self.namespace})),
                },
            },
            "data": {MEMBERS_KEY: "".join(f"{key}\n" for key in sorted(set(members)))},
        }

    @staticmethod
    def recorded(live: Mapping[str, Any] | None) -> tuple[set[str], set[str]]:
        """The kinds and extra namespaces a live parent records (empty when there is none)."""
        annotations = ((live or {}).get("metadata") or {}).get("annotations") or {}
        kinds = {k for k in str(annotations.get(GROUP_KINDS_ANNOTATION, "")).split(",") if k}
        namespaces = {n for n in str(annotations.get(ADDITIONAL_NAMESPACES_ANNOTATION, "")).split(",") if n}
        return kinds, namespaces

    @staticmethod
    def recorded_members(live: Mapping[str, Any] | None) -> frozenset[str] | None:
        """The members a live parent records (:func:`member_key`); None for a parent written before the record."""
        data = (live or {}).get("data") or {}
        if MEMBERS_KEY not in data:
            return None if live is not None else frozenset()
        return frozenset(key for key in str(data[MEMBERS_KEY]).splitlines() if key)

    def live_members(
        self, client: KubeClient, kinds: Iterable[str], namespaces: Iterable[str]
    ) -> list[tuple[ObjectRef, Manifest]]:
        """Every live object labelled a member of this set, of ``kinds`` (``Kind.group``) in the set's namespaces.

        A kind the cluster no longer serves (its CRD removed) has no member left.
        """
        found: dict[ObjectRef, Manifest] = {}
        for name in sorted(set(kinds)):
            resource = client.resource_of_group_kind(name)
            if resource is None:
                continue
            scopes: list[str | None] = [*sorted({self.namespace, *namespaces})] if resource.namespaced else [None]
            for namespace in scopes:
                selector = f"{PART_OF_LABEL}={self.id}"
                for obj in client.list(resource.api_version, resource.kind, namespace, label_selector=selector):
                    found[ObjectRef.of(obj)] = obj
        return list(found.items())

    @staticmethod
    def stale(
        members: Iterable[tuple[ObjectRef, Manifest]],
        defined: Iterable[ObjectRef],
        recorded: frozenset[str] | None = None,
    ) -> list[Stale]:
        """The live members the app no longer defines, with their other field managers and why one is not ours.

        ``recorded``: the members the parent records; an object it does not name is not ours.
        None (a parent written before the record) leaves the ``part-of`` label's owner to decide.
        """
        kept = set(defined)
        ours = frozenset({FIELD_MANAGER, RESTART_FIELD_MANAGER})

        def foreign(ref: ObjectRef, live: Manifest) -> str:
            if not owns_part_of(live):
                return f"its {PART_OF_LABEL} label was set by another hand than nld-deploy's apply"
            if recorded is not None and member_key(ref) not in recorded:
                return "the parent does not record it as a member"
            return ""

        return [
            Stale(ref, live, tuple(sorted(field_managers(live) - ours)), foreign(ref, live))
            for ref, live in members
            if ref not in kept
        ]
