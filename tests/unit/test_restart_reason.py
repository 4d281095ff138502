"""When the pods need a rollout restart: decided from the cluster's facts, the pods' ages against the Services'."""

from __future__ import annotations

from typing import Any

from constructs_nld.deploy.restart import restart_reason

UPSTREAM = {"metadata": {"name": "kube-dns-upstream", "uid": "uid-2", "creationTimestamp": "2026-11-30T12:00:05Z"}}
KUBE_DNS = {"metadata": {"name": "kube-dns", "uid": "dns-2", "creationTimestamp": "2026-11-30T12:00:10Z"}}


def daemon_set(*, recorded: str | None = None, recorded_dns: str | None = None) -> dict[str, Any]:
    annotations = {}
    if recorded is not None:
        annotations["nodelocaldns.osdc/restarted-for-upstream-uid"] = recorded
    if recorded_dns is not None:
        annotations["nodelocaldns.osdc/restarted-for-kube-dns-uid"] = recorded_dns
    return {"metadata": {"name": "node-local-dns", "annotations": annotations}}


def pod(name: str, created: str, *, deleting: bool = False) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "creationTimestamp": created}
    if deleting:
        metadata["deletionTimestamp"] = "2026-11-30T12:30:00Z"
    return {"metadata": metadata}


def test_no_daemon_set_yet_needs_nothing_its_pods_come_after_the_service() -> None:
    assert restart_reason(None, UPSTREAM, []) is None


def test_pods_created_after_the_service_need_nothing() -> None:
    pods = [pod("a", "2026-11-30T12:00:05Z"), pod("b", "2026-11-30T12:01:00Z")]

    assert restart_reason(daemon_set(), UPSTREAM, pods) is None


def test_a_pod_created_before_the_service_needs_a_restart() -> None:
    pods = [pod("old", "2026-11-30T12:00:04Z"), pod("new", "2026-11-30T12:01:00Z")]

    reason = restart_reason(daemon_set(), UPSTREAM, pods)

    assert reason == "1 pod(s) predate kube-dns-upstream (created 2026-11-30T12:00:05Z): old"


def test_many_old_pods_are_counted_and_three_named() -> None:
    pods = [pod(f"p{i}", "2026-11-30T11:00:00Z") for i in range(5)]

    reason = restart_reason(daemon_set(), UPSTREAM, pods)

    assert reason == "5 pod(s) predate kube-dns-upstream (created 2026-11-30T12:00:05Z): p0, p1, p2 and 2 more"


def test_a_terminating_old_pod_needs_nothing() -> None:
    assert restart_reason(daemon_set(), UPSTREAM, [pod("going", "2026-11-30T11:00:00Z", deleting=True)]) is None


def test_restarted_for_this_service_needs_nothing_while_old_pods_roll() -> None:
    pods = [pod("old", "2026-11-30T11:00:00Z")]

    assert restart_reason(daemon_set(recorded="uid-2"), UPSTREAM, pods) is None


def test_restarted_for_a_service_since_recreated_needs_a_restart() -> None:
    reason = restart_reason(daemon_set(recorded="uid-1"), UPSTREAM, [pod("a", "2026-11-30T12:01:00Z")])

    assert reason == "kube-dns-upstream was recreated since the last restart: its pods lack the new address"


def test_portable_pods_older_than_kube_dns_need_a_restart() -> None:
    pods = [pod("a", "2026-11-30T12:00:07Z")]

    assert restart_reason(daemon_set(), UPSTREAM, pods) is None
    reason = restart_reason(daemon_set(), UPSTREAM, pods, kube_dns=KUBE_DNS)

    assert reason == "1 pod(s) predate kube-dns (created 2026-11-30T12:00:10Z): a"


def test_portable_restart_recorded_for_this_kube_dns_needs_nothing() -> None:
    pods = [pod("a", "2026-11-30T12:00:07Z")]

    assert restart_reason(daemon_set(recorded="uid-2", recorded_dns="dns-2"), UPSTREAM, pods, kube_dns=KUBE_DNS) is None


def test_portable_kube_dns_recreated_since_the_restart_needs_one() -> None:
    reason = restart_reason(daemon_set(recorded="uid-2", recorded_dns="dns-1"), UPSTREAM, [], kube_dns=KUBE_DNS)

    assert reason == "kube-dns was recreated since the last restart: its pods lack the new address"
