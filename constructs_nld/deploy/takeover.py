"""Taking over an object last written by client-side ``kubectl apply`` (the spec's ``deploy.sh``), or by Helm.

As ``kubectl apply --server-side`` upgrades an object from client-side apply: the fields
the old manager owns become ours, so our next apply removes those the app no longer sets,
and ``last-applied-configuration`` goes, so a later client-side apply cannot resurrect old
fields from it. An object of a Helm release being handed over (:mod:`constructs_nld.deploy.helm`)
is taken over the same way from Helm's field manager, whether Helm updated it (Helm 3) or
applied it (Helm 4): its chart labels and release annotations then go with our apply.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from constructs_nld.deploy.helm import HELM_FIELD_MANAGER
from constructs_nld.deploy.kube import FIELD_MANAGER
from constructs_nld.deploy.manifest import CLIENT_SIDE_APPLY_MANAGERS, LAST_APPLIED_ANNOTATION, main_resource

__all__ = ["take_over_patch"]


def _union(left: Mapping[str, Any], right: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(left)
    for key, value in right.items():
        merged[key] = _union(merged[key], value) if key in merged else value
    return merged


def _old(entry: Mapping[str, Any], helm: bool) -> bool:
    """Whether ``entry`` is a manager's whose fields become ours: client-side apply's, and Helm's with ``helm``."""
    if not main_resource(entry):
        return False
    if entry.get("manager") in CLIENT_SIDE_APPLY_MANAGERS:
        return entry.get("operation") == "Update"
    return helm and entry.get("manager") == HELM_FIELD_MANAGER


def take_over_patch(live: Mapping[str, Any], now: datetime, *, helm: bool = False) -> list[dict[str, Any]] | None:
    """A JSON patch moving client-side ``kubectl apply``'s fields (and Helm's, with ``helm``) to ours, or None.

    The fields the old manager owns become ours (an ``Apply`` entry); the annotation is
    removed. The patch is guarded by the ``resourceVersion`` it was computed from.
    """
    metadata = live.get("metadata") or {}
    entries: list[dict[str, Any]] = list(metadata.get("managedFields") or [])
    annotations = metadata.get("annotations") or {}
    old = [e for e in entries if _old(e, helm)]
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
