"""Who a labelled object belongs to: the owner of its ``part-of`` label, as the API server records it (pure)."""

from __future__ import annotations

from typing import Any

from constructs_nld.deploy.applyset import PART_OF_LABEL, ApplySet, member_key, owns_part_of
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


def test_a_stale_member_the_parent_does_not_record_is_foreign_even_when_its_label_is_our_applys() -> None:
    ours = live({"manager": "nld-deploy", "operation": "Apply", "fieldsV1": LABEL})
    [recorded] = ApplySet.stale([(REF, ours)], [], frozenset({member_key(REF)}))
    [unrecorded] = ApplySet.stale([(REF, ours)], [], frozenset({"ConfigMap/kube-system/other"}))
    [before_the_record] = ApplySet.stale([(REF, ours)], [], None)

    assert recorded.foreign == "" and before_the_record.foreign == ""
    assert unrecorded.foreign == "the parent does not record it as a member"


def test_the_parent_records_its_members_one_per_line_and_reads_them_back() -> None:
    applyset = ApplySet("kube-system")
    daemon_set = ObjectRef("apps/v1", "DaemonSet", "kube-system", "node-local-dns")
    parent = applyset.parent(["ConfigMap"], ["kube-system"], [member_key(REF), member_key(daemon_set)])

    assert parent["data"] == {
        "members": "ConfigMap/kube-system/team-settings\nDaemonSet.apps/kube-system/node-local-dns\n"
    }
    assert ApplySet.recorded_members(parent) == frozenset({member_key(REF), member_key(daemon_set)})
    assert ApplySet.recorded_members(None) == frozenset()
    assert ApplySet.recorded_members({"metadata": {}}) is None
