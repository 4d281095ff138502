"""Who a labelled object belongs to: the owner of its ``part-of`` label, as the API server records it (pure)."""

from __future__ import annotations

from typing import Any

from constructs_nld.deploy.applyset import PART_OF_LABEL, ApplySet, owns_part_of
from constructs_nld.deploy.kube import ObjectRef

REF = ObjectRef("v1", "ConfigMap", "kube-system", "team-settings")
LABEL: dict[str, Any] = {"f:metadata": {"f:labels": {f"f:{PART_OF_LABEL}": {}}}}


def live(*entries: dict[str, Any]) -> dict[str, Any]:
    return {"metadata": {"name": REF.name, "namespace": REF.namespace, "managedFields": list(entries)}}


def test_the_label_is_ours_only_when_our_apply_owns_it() -> None:
    assert owns_part_of(live({"manager": "nld-deploy", "operation": "Apply", "fieldsV1": LABEL}))
    assert not owns_part_of(live({"manager": "nld-deploy", "operation": "Update", "fieldsV1": LABEL}))
    assert not owns_part_of(live({"manager": "kubectl-label", "operation": "Apply", "fieldsV1": LABEL}))
    assert not owns_part_of(
        live({"manager": "nld-deploy", "operation": "Apply", "fieldsV1": LABEL, "subresource": "status"})
    )
    assert not owns_part_of(live({"manager": "nld-deploy", "operation": "Apply", "fieldsV1": {"f:data": {}}}))
    assert not owns_part_of(live())
    assert not owns_part_of(live({"manager": "nld-deploy", "operation": "Apply", "fieldsV1": {"f:metadata": []}}))


def test_a_stale_member_is_foreign_unless_its_label_is_our_applys() -> None:
    ours = live({"manager": "nld-deploy", "operation": "Apply", "fieldsV1": LABEL})
    [applied] = ApplySet.stale([(REF, ours)], [])
    [relabelled] = ApplySet.stale(
        [(REF, live({"manager": "kubectl-label", "operation": "Update", "fieldsV1": LABEL}))], []
    )

    assert applied.foreign == "" and applied.others == ()
    assert relabelled.foreign == f"its {PART_OF_LABEL} label was set by another hand than nld-deploy's apply"
    assert relabelled.others == ("kubectl-label",)
    assert ApplySet.stale([(REF, ours)], [REF]) == []
