"""The test control plane must behave like a real IPv6 EKS API server, or tests lie.

These tests check the behaviour the deploy-tool tests rely on: dual-stack Service
allocation, the prometheus-operator CRDs, exact audit counts, restarts and reset().
"""

from __future__ import annotations

import ipaddress
import socket
from pathlib import Path
from typing import Any, cast

import pytest
from kubernetes import client as k8s
from kubernetes.client.exceptions import ApiException

from tests.controlplane import (
    ADMIN_USER,
    APISERVER_USER,
    FIXTURE_USER,
    ControlPlane,
    is_mutating,
)

MANAGED_LABELS = {"app.kubernetes.io/managed-by": "osdc-base"}
IPV6_SERVICE_RANGE = ipaddress.ip_network("fd00:ec2::/108")
IPV4_SERVICE_RANGE = ipaddress.ip_network("10.100.0.0/16")


def _config_map(name: str, labels: dict[str, str] | None = None) -> k8s.V1ConfigMap:
    return k8s.V1ConfigMap(
        metadata=k8s.V1ObjectMeta(name=name, namespace="kube-system", labels=labels),
        data={"key": "value"},
    )


def _spec(service: k8s.V1Service) -> k8s.V1ServiceSpec:
    assert service.spec is not None
    return service.spec


def _cluster_ip(service: k8s.V1Service) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    cluster_ip = _spec(service).cluster_ip
    assert cluster_ip is not None
    return ipaddress.ip_address(cluster_ip)


def _names(items: list[Any]) -> set[str]:
    return {item.metadata.name for item in items}


def _custom(obj: object) -> dict[str, Any]:
    assert isinstance(obj, dict)
    return cast("dict[str, Any]", obj)


def _pod_monitor(name: str = "nodelocaldns", interval: str = "60s") -> dict[str, Any]:
    return {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PodMonitor",
        "metadata": {"name": name, "namespace": "monitoring"},
        "spec": {
            "selector": {"matchLabels": {"k8s-app": "node-local-dns"}},
            "namespaceSelector": {"matchNames": ["kube-system"]},
            "podMetricsEndpoints": [{"port": "metrics", "interval": interval}],
        },
    }


def test_readyz_answers_ok(api_client: k8s.ApiClient) -> None:
    method, url, headers, _, _ = api_client.param_serialize("GET", "/readyz", auth_settings=["BearerToken"])
    response = api_client.call_api(method, url, header_params=headers)
    response.read()  # type: ignore[no-untyped-call]
    assert response.status == 200
    assert response.data == b"ok"


def test_kubeconfig_points_at_loopback_with_admin_token(cluster: ControlPlane) -> None:
    text = cluster.kubeconfig_path.read_text()
    assert f"server: {cluster.server}" in text
    assert cluster.server.startswith("https://127.0.0.1:")
    assert f"token: {cluster.token}" in text


def test_kube_dns_has_ipv6_cluster_ip_in_primary_service_range(
    api_client: k8s.ApiClient,
) -> None:
    service = k8s.CoreV1Api(api_client).read_namespaced_service("kube-dns", "kube-system")
    cluster_ip = _cluster_ip(service)
    assert cluster_ip.version == 6
    assert cluster_ip in IPV6_SERVICE_RANGE
    spec = _spec(service)
    assert spec.ip_families == ["IPv6"]
    assert spec.ip_family_policy == "SingleStack"
    assert spec.selector == {"k8s-app": "kube-dns"}
    assert sorted((p.name, p.port, p.protocol) for p in spec.ports or []) == [
        ("dns", 53, "UDP"),
        ("dns-tcp", 53, "TCP"),
    ]


def test_service_without_ip_families_defaults_to_ipv6(
    api_client: k8s.ApiClient,
) -> None:
    body = k8s.V1Service(
        metadata=k8s.V1ObjectMeta(name="default-family", labels=MANAGED_LABELS),
        spec=k8s.V1ServiceSpec(ports=[k8s.V1ServicePort(port=80)]),
    )
    created = k8s.CoreV1Api(api_client).create_namespaced_service("kube-system", body)
    assert _cluster_ip(created) in IPV6_SERVICE_RANGE


def test_ipv4_single_stack_service_gets_address_in_secondary_range(
    api_client: k8s.ApiClient,
) -> None:
    body = k8s.V1Service(
        metadata=k8s.V1ObjectMeta(name="ipv4-only", labels=MANAGED_LABELS),
        spec=k8s.V1ServiceSpec(
            ip_family_policy="SingleStack",
            ip_families=["IPv4"],
            ports=[k8s.V1ServicePort(name="dns", port=53, protocol="UDP")],
        ),
    )
    created = k8s.CoreV1Api(api_client).create_namespaced_service("kube-system", body)
    cluster_ip = _cluster_ip(created)
    assert cluster_ip.version == 4
    assert cluster_ip in IPV4_SERVICE_RANGE


@pytest.mark.parametrize(
    "name",
    ["podmonitors.monitoring.coreos.com", "prometheusrules.monitoring.coreos.com"],
)
def test_crd_is_established(api_client: k8s.ApiClient, name: str) -> None:
    crd = k8s.ApiextensionsV1Api(api_client).read_custom_resource_definition(name)
    assert crd.status is not None
    conditions = {c.type: c.status for c in crd.status.conditions or []}
    assert conditions["Established"] == "True"
    assert conditions["NamesAccepted"] == "True"


def test_pod_monitor_round_trips(api_client: k8s.ApiClient) -> None:
    api = k8s.CustomObjectsApi(api_client)
    api.create_namespaced_custom_object("monitoring.coreos.com", "v1", "monitoring", "podmonitors", _pod_monitor())
    read = _custom(
        api.get_namespaced_custom_object("monitoring.coreos.com", "v1", "monitoring", "podmonitors", "nodelocaldns")
    )
    assert read["kind"] == "PodMonitor"
    assert read["spec"] == _pod_monitor()["spec"]


def test_pod_monitor_schema_is_enforced(api_client: k8s.ApiClient) -> None:
    api = k8s.CustomObjectsApi(api_client)
    with pytest.raises(ApiException) as raised:
        api.create_namespaced_custom_object(
            "monitoring.coreos.com",
            "v1",
            "monitoring",
            "podmonitors",
            _pod_monitor(interval="sixty seconds"),
        )
    assert raised.value.status == 422


def test_audit_counts_one_mutating_request_for_one_create(cluster: ControlPlane, api_client: k8s.ApiClient) -> None:
    api = k8s.CoreV1Api(api_client)
    mark = cluster.audit_mark()
    api.create_namespaced_config_map("kube-system", _config_map("audited", MANAGED_LABELS))
    events = cluster.requests_since(mark)
    mutating = [e for e in events if is_mutating(e)]
    assert len(mutating) == 1
    assert mutating[0]["verb"] == "create"
    assert mutating[0]["objectRef"]["resource"] == "configmaps"
    assert mutating[0]["objectRef"]["name"] == "audited"
    assert mutating[0]["user"]["username"] == ADMIN_USER
    assert mutating[0]["stage"] == "ResponseComplete"
    assert len(events) == 1  # one event per request: no RequestReceived stage


def test_audit_counts_no_mutating_request_for_a_read(cluster: ControlPlane, api_client: k8s.ApiClient) -> None:
    api = k8s.CoreV1Api(api_client)
    api.create_namespaced_config_map("kube-system", _config_map("read-me", MANAGED_LABELS))
    mark = cluster.audit_mark()
    api.read_namespaced_config_map("read-me", "kube-system")
    events = cluster.requests_since(mark)
    assert [e["verb"] for e in events] == ["get"]
    assert cluster.mutating_requests_since(mark) == []


def test_audit_counts_no_mutating_request_for_a_server_side_dry_run(
    cluster: ControlPlane, api_client: k8s.ApiClient
) -> None:
    api = k8s.CoreV1Api(api_client)
    mark = cluster.audit_mark()
    api.create_namespaced_config_map("kube-system", _config_map("dry", MANAGED_LABELS), dry_run="All")
    events = cluster.requests_since(mark)
    assert [e["verb"] for e in events] == ["create"]  # audited, but not mutating
    assert "dryRun=All" in events[0]["requestURI"]
    assert not is_mutating(events[0])
    with pytest.raises(ApiException) as raised:
        api.read_namespaced_config_map("dry", "kube-system")
    assert raised.value.status == 404


def test_audit_excludes_fixture_and_apiserver_requests_by_default(
    cluster: ControlPlane,
) -> None:
    mark = cluster.audit_mark()
    cluster.reset()
    assert cluster.requests_since(mark) == []
    assert cluster.requests_since(mark, user=FIXTURE_USER) != []
    users = {e["user"]["username"] for e in cluster.audit_events()}
    assert APISERVER_USER in users


def test_apiserver_restart_keeps_data(cluster: ControlPlane, api_client: k8s.ApiClient) -> None:
    api = k8s.CoreV1Api(api_client)
    api.create_namespaced_config_map("kube-system", _config_map("survivor", MANAGED_LABELS))
    port = int(cluster.server.rsplit(":", 1)[1])
    mark = cluster.audit_mark()
    cluster.stop_apiserver()
    try:
        assert not cluster.apiserver_running
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=2).close()
    finally:
        cluster.start_apiserver()
    assert cluster.apiserver_running
    # Same kubeconfig, port and serving certificate: the old client still verifies TLS.
    read = api.read_namespaced_config_map("survivor", "kube-system")
    assert read.data == {"key": "value"}
    # The restarted apiserver appends to the same audit log: marks stay valid.
    assert [e["verb"] for e in cluster.requests_since(mark)] == ["get"]


def test_reset_removes_a_labelled_config_map(cluster: ControlPlane, api_client: k8s.ApiClient) -> None:
    api = k8s.CoreV1Api(api_client)
    api.create_namespaced_config_map("kube-system", _config_map("labelled", MANAGED_LABELS))
    api.create_namespaced_config_map("kube-system", _config_map("unlabelled"))
    try:
        cluster.reset()
        names = _names(api.list_namespaced_config_map("kube-system").items)
        assert "labelled" not in names
        assert "unlabelled" in names
    finally:
        api.delete_namespaced_config_map("unlabelled", "kube-system")


def test_reset_restores_bootstrap_state(cluster: ControlPlane, api_client: k8s.ApiClient) -> None:
    core = k8s.CoreV1Api(api_client)
    apps = k8s.AppsV1Api(api_client)
    custom = k8s.CustomObjectsApi(api_client)
    selector = k8s.V1LabelSelector(match_labels={"k8s-app": "node-local-dns"})
    template = k8s.V1PodTemplateSpec(
        metadata=k8s.V1ObjectMeta(labels={"k8s-app": "node-local-dns"}),
        spec=k8s.V1PodSpec(containers=[k8s.V1Container(name="node-cache", image="pause")]),
    )
    apps.create_namespaced_daemon_set(
        "kube-system",
        k8s.V1DaemonSet(
            metadata=k8s.V1ObjectMeta(name="node-local-dns", labels=MANAGED_LABELS),
            spec=k8s.V1DaemonSetSpec(selector=selector, template=template),
        ),
    )
    core.create_node(k8s.V1Node(metadata=k8s.V1ObjectMeta(name="node-a")))
    core.create_namespaced_pod(
        "kube-system",
        k8s.V1Pod(
            metadata=k8s.V1ObjectMeta(name="node-local-dns-abcde"),
            spec=k8s.V1PodSpec(
                node_name="node-a",
                containers=[k8s.V1Container(name="node-cache", image="pause")],
            ),
        ),
    )
    core.create_namespaced_service(  # unlabelled: reset() removes it by name
        "kube-system",
        k8s.V1Service(
            metadata=k8s.V1ObjectMeta(name="kube-dns-upstream"),
            spec=k8s.V1ServiceSpec(selector={"k8s-app": "kube-dns"}, ports=[k8s.V1ServicePort(port=53)]),
        ),
    )
    custom.create_namespaced_custom_object("monitoring.coreos.com", "v1", "monitoring", "podmonitors", _pod_monitor())
    core.delete_namespaced_service("kube-dns", "kube-system")
    core.create_namespaced_service(
        "kube-system",
        k8s.V1Service(
            metadata=k8s.V1ObjectMeta(name="kube-dns"),
            spec=k8s.V1ServiceSpec(
                selector={"k8s-app": "kube-dns"},
                ip_family_policy="SingleStack",
                ip_families=["IPv4"],
                ports=[k8s.V1ServicePort(name="dns", port=53, protocol="UDP")],
            ),
        ),
    )

    cluster.reset()

    assert apps.list_namespaced_daemon_set("kube-system").items == []
    assert core.list_node().items == []
    assert core.list_namespaced_pod("kube-system").items == []
    assert _names(core.list_namespaced_service("kube-system").items) == {"kube-dns"}
    kube_dns = core.read_namespaced_service("kube-dns", "kube-system")
    assert _cluster_ip(kube_dns) in IPV6_SERVICE_RANGE
    monitors = _custom(custom.list_namespaced_custom_object("monitoring.coreos.com", "v1", "monitoring", "podmonitors"))
    assert monitors["items"] == []


def test_crds_can_be_uninstalled_and_reinstalled(cluster: ControlPlane, api_client: k8s.ApiClient) -> None:
    custom = k8s.CustomObjectsApi(api_client)
    cluster.uninstall_crds()
    with pytest.raises(ApiException) as raised:
        custom.list_namespaced_custom_object("monitoring.coreos.com", "v1", "monitoring", "prometheusrules")
    assert raised.value.status == 404
    cluster.install_crds()
    listed = _custom(
        custom.list_namespaced_custom_object("monitoring.coreos.com", "v1", "monitoring", "prometheusrules")
    )
    assert listed["items"] == []


def test_fails_when_a_binary_is_missing(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match=r"etcd binary not found.*bash tools/build-binaries\.sh"):
        ControlPlane(cache_dir=tmp_path).start()


def test_reset_recreates_a_deleted_monitoring_namespace(cluster: ControlPlane, api_client: k8s.ApiClient) -> None:
    core = k8s.CoreV1Api(api_client)
    core.delete_namespace("monitoring")
    terminating = core.read_namespace("monitoring")
    assert terminating.metadata is not None
    assert terminating.metadata.deletion_timestamp is not None  # no namespace controller
    cluster.reset()
    namespace = core.read_namespace("monitoring")
    assert namespace.metadata is not None
    assert namespace.metadata.deletion_timestamp is None
    k8s.CustomObjectsApi(api_client).create_namespaced_custom_object(
        "monitoring.coreos.com", "v1", "monitoring", "podmonitors", _pod_monitor()
    )
