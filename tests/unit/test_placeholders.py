"""Preview vs deployable: which placeholders nothing will fill, and where they are."""

from __future__ import annotations

from typing import Any

import pytest

from constructs_nld import NotDeployableError, check_deployable, find_unresolved_placeholders, is_deployable
from constructs_nld.placeholders import UnresolvedPlaceholder

# One finding per object, field and token: the Corefile's four binds are one finding.
PREVIEW_FINDINGS = [
    UnresolvedPlaceholder("ConfigMap", "kube-system/node-local-dns", "data.Corefile", "__KUBE_DNS_CLUSTER_IP__"),
    UnresolvedPlaceholder(
        "DaemonSet",
        "kube-system/node-local-dns",
        "spec.template.spec.containers[0].args[1]",
        "__KUBE_DNS_CLUSTER_IP__",
    ),
]


def _daemon_set(args: list[str]) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "hand-made", "namespace": "dns"},
        "spec": {"template": {"spec": {"containers": [{"name": "c", "args": args}]}}},
    }


def _config_map(data: dict[str, str]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "dns"}, "data": data}


def test_preview_reports_the_corefile_binds_and_the_localip_arg(preview_objects: list[dict[str, Any]]) -> None:
    assert find_unresolved_placeholders(preview_objects) == PREVIEW_FINDINGS


def test_preview_is_not_deployable(preview_objects: list[dict[str, Any]]) -> None:
    assert is_deployable(preview_objects) is False


def test_check_deployable_lists_every_finding(preview_objects: list[dict[str, Any]]) -> None:
    with pytest.raises(NotDeployableError) as caught:
        check_deployable(preview_objects)

    assert caught.value.unresolved == PREVIEW_FINDINGS
    assert str(caught.value) == (
        "manifests are not deployable: they still hold placeholders "
        "(synthesize with the live kube-dns ClusterIP):\n"
        "  - ConfigMap kube-system/node-local-dns: data.Corefile holds __KUBE_DNS_CLUSTER_IP__\n"
        "  - DaemonSet kube-system/node-local-dns: spec.template.spec.containers[0].args[1] "
        "holds __KUBE_DNS_CLUSTER_IP__"
    )


def test_not_deployable_error_is_a_value_error() -> None:
    assert issubclass(NotDeployableError, ValueError)


def test_synth_with_cluster_ip_is_deployable(deployable_objects: list[dict[str, Any]]) -> None:
    assert find_unresolved_placeholders(deployable_objects) == []
    assert is_deployable(deployable_objects) is True
    check_deployable(deployable_objects)


def test_deployable_corefile_still_holds_node_cache_runtime_placeholders(
    deployable_objects: list[dict[str, Any]],
) -> None:
    (config_map,) = [obj for obj in deployable_objects if obj["kind"] == "ConfigMap"]
    corefile = config_map["data"]["Corefile"]

    assert corefile.count("__PILLAR__CLUSTER__DNS__") == 3
    assert corefile.count("__PILLAR__UPSTREAM__SERVERS__") == 1


def test_runtime_placeholder_outside_the_corefile_is_reported() -> None:
    objects = [_daemon_set(["-upstream", "__PILLAR__CLUSTER__DNS__"])]

    assert find_unresolved_placeholders(objects) == [
        UnresolvedPlaceholder(
            "DaemonSet", "dns/hand-made", "spec.template.spec.containers[0].args[1]", "__PILLAR__CLUSTER__DNS__"
        )
    ]
    assert is_deployable(objects) is False


def test_runtime_placeholder_under_another_config_map_key_is_reported() -> None:
    objects = [_config_map({"Corefile": "forward . __PILLAR__UPSTREAM__SERVERS__", "extra": "__PILLAR__LOCAL__DNS__"})]

    assert find_unresolved_placeholders(objects) == [
        UnresolvedPlaceholder("ConfigMap", "dns/cm", "data.extra", "__PILLAR__LOCAL__DNS__")
    ]


def test_two_tokens_in_one_field_are_two_findings() -> None:
    objects = [_daemon_set(["__KUBE_DNS_CLUSTER_IP__,__PILLAR__FOO__,__KUBE_DNS_CLUSTER_IP__"])]

    assert [finding.token for finding in find_unresolved_placeholders(objects)] == [
        "__KUBE_DNS_CLUSTER_IP__",
        "__PILLAR__FOO__",
    ]


def test_unknown_pillar_in_the_corefile_is_reported() -> None:
    objects = [_config_map({"Corefile": "__PILLAR__DNS__DOMAIN__:53 {\n    forward . __PILLAR__CLUSTER__DNS__\n}\n"})]

    assert find_unresolved_placeholders(objects) == [
        UnresolvedPlaceholder("ConfigMap", "dns/cm", "data.Corefile", "__PILLAR__DNS__DOMAIN__")
    ]


def test_lower_case_prometheus_labels_are_not_placeholders() -> None:
    objects = [
        {
            "kind": "PodMonitor",
            "metadata": {"name": "pm", "namespace": "monitoring"},
            "spec": {"relabelings": [{"sourceLabels": ["__meta_kubernetes_pod_node_name", "__name__"]}]},
        }
    ]

    assert find_unresolved_placeholders(objects) == []


def test_not_deployable_error_message_lists_each_finding() -> None:
    findings = [
        UnresolvedPlaceholder("DaemonSet", "dns/a", "spec.x", "__KUBE_DNS_CLUSTER_IP__"),
        UnresolvedPlaceholder("ConfigMap", "dns/b", "data.y", "__PILLAR__FOO__"),
    ]

    error = NotDeployableError(findings)

    assert error.unresolved == findings
    assert str(error).splitlines()[1:] == [
        "  - DaemonSet dns/a: spec.x holds __KUBE_DNS_CLUSTER_IP__",
        "  - ConfigMap dns/b: data.y holds __PILLAR__FOO__",
    ]
