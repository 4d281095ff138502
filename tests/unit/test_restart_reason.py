"""When the pods need a rollout restart: decided from the DaemonSet and kube-dns-upstream alone."""

from __future__ import annotations

from typing import Any

from constructs_nld.deploy.deployer import restart_reason

UPSTREAM = {"metadata": {"name": "kube-dns-upstream", "uid": "uid-2", "creationTimestamp": "2026-11-30T12:00:05Z"}}


def daemon_set(*, recorded: str | None = None, stamp: str | None = None) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": "node-local-dns"}
    if recorded is not None:
        metadata["annotations"] = {"nodelocaldns.osdc/restarted-for-upstream-uid": recorded}
    template: dict[str, Any] = {"metadata": {"labels": {"k8s-app": "node-local-dns"}}}
    if stamp is not None:
        template["metadata"]["annotations"] = {"kubectl.kubernetes.io/restartedAt": stamp}
    return {"metadata": metadata, "spec": {"template": template}}


def test_no_daemon_set_yet_is_a_first_deploy() -> None:
    assert restart_reason(None, UPSTREAM) == "first deploy"


def test_a_pod_template_never_restarted_is_a_first_deploy() -> None:
    assert restart_reason(daemon_set(), UPSTREAM) == "first deploy: the pod template was never restarted"


def test_restarted_for_this_service_needs_nothing() -> None:
    assert restart_reason(daemon_set(recorded="uid-2", stamp="2026-11-30T11:00:00Z"), UPSTREAM) is None


def test_restarted_for_a_service_since_recreated_needs_a_restart() -> None:
    reason = restart_reason(daemon_set(recorded="uid-1", stamp="2026-11-30T12:00:05Z"), UPSTREAM)

    assert reason == "kube-dns-upstream was recreated since the last restart: its pods lack the new address"


def test_someone_elses_restart_after_the_service_was_created_needs_nothing() -> None:
    assert restart_reason(daemon_set(stamp="2026-11-30T12:00:05Z"), UPSTREAM) is None


def test_someone_elses_restart_before_the_service_was_created_needs_a_restart() -> None:
    reason = restart_reason(daemon_set(stamp="2026-11-30T12:00:04Z"), UPSTREAM)

    assert reason == "the last restart (2026-11-30T12:00:04Z) predates kube-dns-upstream (created 2026-11-30T12:00:05Z)"
