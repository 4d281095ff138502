"""Taking an object over from client-side ``kubectl apply``: the patch, computed from the live object alone."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from constructs_nld.deploy.takeover import take_over_patch

NOW = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
ROLLOUT = {
    "manager": "kubectl-rollout",
    "operation": "Update",
    "apiVersion": "apps/v1",
    "fieldsType": "FieldsV1",
    "fieldsV1": {
        "f:spec": {"f:template": {"f:metadata": {"f:annotations": {"f:kubectl.kubernetes.io/restartedAt": {}}}}}
    },
}
STATUS = {
    "manager": "kube-controller-manager",
    "operation": "Update",
    "apiVersion": "apps/v1",
    "subresource": "status",
    "fieldsType": "FieldsV1",
    "fieldsV1": {"f:status": {"f:numberReady": {}}},
}


def live(*entries: dict[str, Any], annotated: bool = True) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": "node-local-dns", "resourceVersion": "42", "managedFields": list(entries)}
    if annotated:
        metadata["annotations"] = {"kubectl.kubernetes.io/last-applied-configuration": "{}", "keep": "me"}
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": metadata}


def test_client_side_apply_fields_become_ours_and_its_record_goes() -> None:
    client_side = {
        "manager": "kubectl-client-side-apply",
        "operation": "Update",
        "apiVersion": "apps/v1",
        "fieldsType": "FieldsV1",
        "fieldsV1": {
            "f:metadata": {"f:annotations": {"f:kubectl.kubernetes.io/last-applied-configuration": {}}},
            "f:spec": {"f:template": {"f:metadata": {"f:annotations": {"f:prometheus.io/scrape": {}}}}},
        },
    }
    ours = {
        "manager": "nld-deploy",
        "operation": "Apply",
        "apiVersion": "apps/v1",
        "fieldsType": "FieldsV1",
        "fieldsV1": {"f:spec": {"f:template": {"f:spec": {"f:hostNetwork": {}}}}},
    }

    patch = take_over_patch(live(client_side, ROLLOUT, ours, STATUS), NOW)

    assert patch == [
        {"op": "test", "path": "/metadata/resourceVersion", "value": "42"},
        {
            "op": "replace",
            "path": "/metadata/managedFields",
            "value": [
                ROLLOUT,
                STATUS,
                {
                    "manager": "nld-deploy",
                    "operation": "Apply",
                    "apiVersion": "apps/v1",
                    "time": "2026-11-30T12:00:00Z",
                    "fieldsType": "FieldsV1",
                    "fieldsV1": {
                        "f:spec": {
                            "f:template": {
                                "f:spec": {"f:hostNetwork": {}},
                                "f:metadata": {"f:annotations": {"f:prometheus.io/scrape": {}}},
                            }
                        },
                        "f:metadata": {"f:annotations": {"f:kubectl.kubernetes.io/last-applied-configuration": {}}},
                    },
                },
            ],
        },
        {"op": "remove", "path": "/metadata/annotations/kubectl.kubernetes.io~1last-applied-configuration"},
    ]


def test_an_object_no_client_side_apply_touched_needs_no_patch() -> None:
    assert take_over_patch(live(ROLLOUT, STATUS, annotated=False), NOW) is None


def test_a_last_applied_annotation_alone_is_removed() -> None:
    patch = take_over_patch(live(ROLLOUT, annotated=True), NOW)

    assert patch == [
        {"op": "test", "path": "/metadata/resourceVersion", "value": "42"},
        {"op": "replace", "path": "/metadata/managedFields", "value": [ROLLOUT]},
        {"op": "remove", "path": "/metadata/annotations/kubectl.kubernetes.io~1last-applied-configuration"},
    ]


HELM_APPLY = {
    "manager": "helm",
    "operation": "Apply",
    "apiVersion": "apps/v1",
    "fieldsType": "FieldsV1",
    "fieldsV1": {"f:metadata": {"f:annotations": {"f:meta.helm.sh/release-name": {}}}},
}


def test_helms_fields_become_ours_only_when_its_release_is_taken_over() -> None:
    assert take_over_patch(live(HELM_APPLY, annotated=False), NOW) is None

    patch = take_over_patch(live(HELM_APPLY, STATUS, annotated=False), NOW, helm=True)

    assert patch is not None
    (entries,) = [op["value"] for op in patch if op["path"] == "/metadata/managedFields"]
    assert [(e["manager"], e["operation"]) for e in entries] == [
        ("kube-controller-manager", "Update"),
        ("nld-deploy", "Apply"),
    ]
    assert entries[1]["fieldsV1"] == HELM_APPLY["fieldsV1"]
