"""The zone-local upstream where the API server cannot take it (1.31, 1.33, as kube-apiserver 1.34 emulates them).

kube-apiserver's ``--emulated-version`` serves an older minor's features from the same binary:
at 1.33, ``trafficDistribution`` is served but ``PreferSameZone`` is not (its gate,
``PreferSameTrafficDistribution``, is alpha and off); at 1.31 with ``ServiceTrafficDistribution``
off (beta there, so it may be turned off), the API server drops the field without an error,
as a server older than 1.31 does. The deploy refuses both before any write; ``verify`` says
when the live Service lacks the field (applied by another hand), and reads the Service's
EndpointSlices when it has it.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest

from constructs_nld import NodeLocalDNSProps, defaults, synthesize
from constructs_nld.deploy import DeployOptions, deploy, load_client, open_session, props_source, verify
from constructs_nld.deploy.checks import CheckResult
from constructs_nld.deploy.errors import AdmissionError
from tests.controlplane import ControlPlane
from tests.fleet import fleet_node
from tests.harness.components import CONTROLLERS
from tests.harness.process import wait_until
from tests.simcluster import SimulatedCluster

UPSTREAM = f"/api/v1/namespaces/{defaults.NAMESPACE}/services/{defaults.UPSTREAM_SERVICE_NAME}"
EMULATING_1_33 = ("--emulated-version=1.33",)
EMULATING_1_31_WITHOUT_THE_FIELD = ("--emulated-version=1.31", "--feature-gates=ServiceTrafficDistribution=false")


@pytest.fixture(scope="module", params=[EMULATING_1_33, EMULATING_1_31_WITHOUT_THE_FIELD], ids=["1.33", "1.31-off"])
def older(request: pytest.FixtureRequest) -> Iterator[ControlPlane]:
    """A control plane whose API server emulates an older Kubernetes (the parameter's flags)."""
    with ControlPlane(apiserver_flags=request.param) as plane:
        yield plane


def _props(value: str) -> NodeLocalDNSProps:
    return NodeLocalDNSProps(upstream_traffic_distribution=value)  # type: ignore[arg-type]


def _deploy(plane: ControlPlane, props: NodeLocalDNSProps) -> list[str]:
    lines: list[str] = []
    client = load_client(str(plane.kubeconfig_path), None, timeout=10)
    deploy(open_session(client, props_source(props), read="deployable", out=lines.append), DeployOptions())
    return lines


def _verify(plane: ControlPlane, props: NodeLocalDNSProps) -> CheckResult:
    client = load_client(str(plane.kubeconfig_path), None, timeout=10)
    results = verify(open_session(client, props_source(props), read="installed"))
    (result,) = [r for r in results if r.name == "upstream-traffic-distribution"]
    return result


@pytest.fixture
def plane(older: ControlPlane) -> ControlPlane:
    """The older control plane, reset."""
    older.reset()
    return older


def test_a_value_the_api_server_does_not_take_or_a_field_it_drops_refuses_the_deploy_before_any_write(
    plane: ControlPlane,
) -> None:
    value = "PreferSameZone" if plane.apiserver_flags == EMULATING_1_33 else "PreferClose"
    mark = plane.audit_mark()

    with pytest.raises(AdmissionError) as refused:
        _deploy(plane, _props(value))

    message = str(refused.value)
    assert message.startswith(f"service/kube-system/{defaults.UPSTREAM_SERVICE_NAME}: ")
    assert message.endswith("; nothing applied")
    if value == "PreferSameZone":
        assert 'Unsupported value: "PreferSameZone"' in message and 'supported values: "PreferClose"' in message
    else:
        assert "the API server dropped the field where the app sets spec.trafficDistribution 'PreferClose'" in message
        assert "unset upstream_traffic_distribution, or upgrade the control plane" in message
    assert plane.mutating_requests_since(mark) == []
    assert plane.get(UPSTREAM) is None


def test_verify_fails_on_a_live_service_without_the_apps_traffic_distribution(plane: ControlPlane) -> None:
    (service,) = [
        obj
        for chart in synthesize(_props("PreferClose"))
        for obj in chart.objects
        if obj["kind"] == "Service" and obj["metadata"]["name"] == defaults.UPSTREAM_SERVICE_NAME
    ]
    applied = _apply(plane, service)
    expected_live = "PreferClose" if plane.apiserver_flags == EMULATING_1_33 else None
    assert applied["spec"].get("trafficDistribution") == expected_live

    result = _verify(plane, _props("PreferClose"))

    if expected_live is None:
        assert result.status == "fail", result
        assert result.detail.startswith("the API server dropped the field where the app sets spec.trafficDistribution")
        assert result.fix.startswith("upgrade the control plane, or unset upstream_traffic_distribution")
    else:
        # Kept: no CoreDNS pod runs here, so there is no endpoint to judge.
        assert (result.status, result.detail) == (
            "warn",
            f"PreferClose, but {defaults.UPSTREAM_SERVICE_NAME} has no ready endpoint",
        )


def _apply(plane: ControlPlane, manifest: dict[str, Any]) -> dict[str, Any]:
    """Server-side apply ``manifest`` as ``kubectl apply --server-side`` would, the answer as the server keeps it."""
    plane.fixture_api().request(
        "PATCH",
        UPSTREAM,
        body=copy.deepcopy(manifest),
        query={"fieldManager": "kubectl", "force": "true"},
        content_type="application/apply-patch+yaml",
    )
    live = plane.get(UPSTREAM)
    assert live is not None
    return live


# --- the zone hints, as the real EndpointSlice controller writes them ------------------------

SLICES = f"/apis/discovery.k8s.io/v1/namespaces/{defaults.NAMESPACE}/endpointslices"


@pytest.fixture(scope="module")
def zonal() -> Iterator[SimulatedCluster]:
    """A simulated cluster whose kube-controller-manager runs the EndpointSlice controller too."""
    with SimulatedCluster(controllers=(*CONTROLLERS, "endpointslice-controller")) as sim:
        yield sim


def _coredns_pod(name: str, node: str) -> dict[str, Any]:
    """A cluster CoreDNS pod on ``node`` (kwok runs it: Ready, with an IPv6 address)."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": defaults.NAMESPACE, "labels": dict(defaults.KUBE_DNS_SELECTOR)},
        "spec": {"nodeName": node, "containers": [{"name": "coredns", "image": "coredns/coredns:1.13.2"}]},
    }


def _upstream_endpoints(sim: SimulatedCluster) -> list[dict[str, Any]]:
    rest = sim.control_plane.fixture_api()
    selector = f"kubernetes.io/service-name={defaults.UPSTREAM_SERVICE_NAME}"
    _, listed = rest.request("GET", SLICES, query={"labelSelector": selector})
    return [endpoint for item in listed["items"] for endpoint in item.get("endpoints") or ()]


def test_verify_passes_on_the_controllers_zone_hints_and_names_an_endpoint_without_one(zonal: SimulatedCluster) -> None:
    zonal.reset()
    zoned = [fleet_node("base", number, index=number) for number in (1, 2)]
    unzoned = fleet_node("base", 3, index=0)
    unzoned = type(unzoned)(
        unzoned.name, unzoned.role, {k: v for k, v in unzoned.labels.items() if k != defaults.ZONE_LABEL}
    )
    zonal.add_nodes([*zoned, unzoned])
    rest = zonal.control_plane.fixture_api()
    pods = f"/api/v1/namespaces/{defaults.NAMESPACE}/pods"
    for node in zoned:
        rest.request("POST", pods, body=_coredns_pod(f"coredns-{node.name}", node.name), ok=(201,))
    props = _props("PreferSameZone")
    _deploy(zonal.control_plane, props)

    def hinted(count: int) -> bool:
        endpoints = _upstream_endpoints(zonal)
        return len(endpoints) == count and all((e.get("hints") or {}).get("forZones") for e in endpoints)

    wait_until("the EndpointSlice controller's zone hints", lambda: hinted(2), 60, 0.2)
    zones = sorted(e["hints"]["forZones"][0]["name"] for e in _upstream_endpoints(zonal))
    assert zones == sorted(node.labels[defaults.ZONE_LABEL] for node in zoned)
    result = _verify(zonal.control_plane, props)
    assert (result.status, result.detail) == ("pass", "PreferSameZone: all 2 ready endpoint(s) have a zone hint")

    rest.request("POST", pods, body=_coredns_pod("coredns-unzoned", unzoned.name), ok=(201,))
    wait_until(
        "a third ready endpoint",
        lambda: sum((e.get("conditions") or {}).get("ready", False) for e in _upstream_endpoints(zonal)) == 3,
        60,
        0.2,
    )
    result = _verify(zonal.control_plane, props)

    assert result.status == "warn", result
    assert result.detail.startswith("PreferSameZone, but 1 of 3 ready endpoint(s) have no zone hint: fd00:ec2:2::")
    assert result.detail.endswith(f"(node {unzoned.name})")
    assert result.fix == f"label the nodes that run cluster CoreDNS with {defaults.ZONE_LABEL}"
