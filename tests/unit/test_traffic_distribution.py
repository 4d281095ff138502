"""The zone-local upstream (``upstream_traffic_distribution``): the prop, its Service, the verify check's judgement."""

from __future__ import annotations

from typing import Any

import pytest

from constructs_nld import NodeLocalDNSProps, UpstreamServiceProps, defaults, synthesize
from constructs_nld.deploy.checks.upstream_traffic_distribution import unhinted
from constructs_nld.deploy.component import locate
from constructs_nld.deploy.source import AppChart


def _upstream(props: NodeLocalDNSProps) -> dict[str, Any]:
    (service,) = [
        obj
        for chart in synthesize(props)
        for obj in chart.objects
        if obj["kind"] == "Service" and obj["metadata"]["name"] == defaults.UPSTREAM_SERVICE_NAME
    ]
    return service


@pytest.mark.parametrize("value", ["PreferClose", "PreferSameZone", "PreferSameNode"])
def test_the_prop_sets_the_traffic_distribution_of_kube_dns_upstream_alone(value: str) -> None:
    props = NodeLocalDNSProps(upstream_traffic_distribution=value)  # type: ignore[arg-type]
    plain = _upstream(NodeLocalDNSProps())

    assert _upstream(props)["spec"] == {**plain["spec"], "trafficDistribution": value}
    others = [obj for chart in synthesize(props) for obj in chart.objects if obj["kind"] != "Service"]
    assert all("trafficDistribution" not in str(obj) for obj in others)


def test_by_default_kube_dns_upstream_has_no_traffic_distribution() -> None:
    assert "trafficDistribution" not in _upstream(NodeLocalDNSProps())["spec"]


@pytest.mark.parametrize("value", ["preferClose", "PreferSameZone ", "", "Nearest"])
def test_a_traffic_distribution_kubernetes_does_not_define_is_refused_naming_the_choices(value: str) -> None:
    expected = (
        r"^upstream_traffic_distribution: must be one of PreferClose \(Kubernetes 1\.31\), "
        r"PreferSameZone \(Kubernetes 1\.34\), PreferSameNode \(Kubernetes 1\.34\), or None, got "
    )
    with pytest.raises(ValueError, match=expected):
        NodeLocalDNSProps(upstream_traffic_distribution=value)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^traffic_distribution: must be one of PreferClose"):
        UpstreamServiceProps(traffic_distribution=value)  # type: ignore[arg-type]


def test_a_traffic_distribution_of_another_type_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^upstream_traffic_distribution: must be one of 'PreferClose'"):
        NodeLocalDNSProps(upstream_traffic_distribution=1)  # type: ignore[arg-type]


def _component(value: str | None) -> Any:
    props = NodeLocalDNSProps(upstream_traffic_distribution=value, kube_dns_cluster_ip="fd00:ec2::a")  # type: ignore[arg-type]
    return locate([AppChart(chart.phase, chart.objects) for chart in synthesize(props)])


def test_the_component_says_what_the_api_server_dropped_or_changed() -> None:
    component = _component("PreferSameZone")
    kept = {"spec": {"trafficDistribution": "PreferSameZone"}}

    assert component.traffic_distribution == "PreferSameZone"
    assert component.dropped_traffic_distribution(kept) is None
    assert component.dropped_traffic_distribution({"spec": {}}) == (
        "the API server dropped the field where the app sets spec.trafficDistribution 'PreferSameZone' "
        "(served from Kubernetes 1.34 on, unless its feature gate is off)"
    )
    assert "holds 'PreferClose'" in str(
        component.dropped_traffic_distribution({"spec": {"trafficDistribution": "PreferClose"}})
    )
    assert _component(None).dropped_traffic_distribution({"spec": {}}) is None


def _endpoint(address: str, node: str, zone: str | None, *, ready: bool = True) -> dict[str, Any]:
    endpoint: dict[str, Any] = {"addresses": [address], "nodeName": node, "conditions": {"ready": ready}}
    if zone is not None:
        endpoint["zone"] = zone
        endpoint["hints"] = {"forZones": [{"name": zone}]}
    return endpoint


def test_ready_endpoints_without_a_zone_hint_are_named_and_unready_ones_skipped() -> None:
    slices: list[dict[str, Any]] = [
        {"endpoints": [_endpoint("fd00::1", "a-1", "zone-a"), _endpoint("fd00::2", "b-1", None)]},
        {"endpoints": [_endpoint("fd00::3", "c-1", None, ready=False), {"addresses": ["fd00::4"]}]},
        {"endpoints": None},
    ]

    assert unhinted(slices) == (3, ["fd00::2 (node b-1)", "fd00::4 (node ?)"])
    assert unhinted([{"endpoints": [_endpoint("fd00::1", "a-1", "zone-a")]}]) == (1, [])
    assert unhinted([]) == (0, [])
