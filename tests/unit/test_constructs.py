"""Each object of the composed component, field by field, against the spec and DECISIONS.md."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cdk8s
import pytest

from constructs_nld import (
    CorefileConfigMap,
    CorefileConfigMapProps,
    KeeperConfigMap,
    KeeperConfigMapProps,
    MetricsService,
    MetricsServiceProps,
    NodeCacheDaemonSet,
    NodeCacheDaemonSetProps,
    NodeLocalDNS,
    NodeLocalDNSProps,
    PodMonitor,
    PodMonitorProps,
    Ports,
    PrometheusRule,
    PrometheusRuleProps,
    ServiceAccount,
    ServiceAccountProps,
    UpstreamService,
    UpstreamServiceProps,
    find_unresolved_placeholders,
    synthesize,
)
from constructs_nld.keeper import Keeper

MANAGED = {"app.kubernetes.io/managed-by": "osdc-base"}
NODE_CACHE_LABELS = {"app.kubernetes.io/managed-by": "osdc-base", "k8s-app": "node-local-dns"}


def with_role(labels: dict[str, str], role: str) -> dict[str, str]:
    """``labels`` plus the role labels every construct writes on its object's own metadata."""
    return {**labels, "app.kubernetes.io/name": "node-local-dns", "app.kubernetes.io/component": role}


NODE_RELABEL = [{"action": "replace", "sourceLabels": ["__meta_kubernetes_pod_node_name"], "targetLabel": "node"}]


def _one(objects: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    found = [obj for obj in objects if obj["kind"] == kind and obj["metadata"]["name"] == name]
    assert len(found) == 1, f"expected one {kind} {name}, got {len(found)}"
    return found[0]


@pytest.fixture
def daemon_set(preview_objects: list[dict[str, Any]]) -> dict[str, Any]:
    return _one(preview_objects, "DaemonSet", "node-local-dns")


@pytest.fixture
def pod_spec(daemon_set: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = daemon_set["spec"]["template"]["spec"]
    return spec


@pytest.fixture
def container(pod_spec: dict[str, Any]) -> dict[str, Any]:
    (only,) = pod_spec["containers"]
    return dict(only)


@pytest.fixture
def pod_monitor(preview_objects: list[dict[str, Any]]) -> dict[str, Any]:
    return _one(preview_objects, "PodMonitor", "nodelocaldns")


# --- the whole synth -----------------------------------------------------------------------


def test_synth_holds_exactly_the_spec_objects(preview_objects: list[dict[str, Any]]) -> None:
    assert [
        (obj["apiVersion"], obj["kind"], obj["metadata"]["namespace"], obj["metadata"]["name"])
        for obj in preview_objects
    ] == [
        ("v1", "Service", "kube-system", "kube-dns-upstream"),
        ("v1", "Service", "kube-system", "node-local-dns-metrics"),
        ("v1", "ServiceAccount", "kube-system", "node-local-dns"),
        ("v1", "ConfigMap", "kube-system", "node-local-dns"),
        ("apps/v1", "DaemonSet", "kube-system", "node-local-dns"),
        ("monitoring.coreos.com/v1", "PodMonitor", "monitoring", "nodelocaldns"),
        ("monitoring.coreos.com/v1", "PrometheusRule", "monitoring", "nodelocaldns-alerts"),
    ]


def test_no_rbac_or_other_unrequested_kinds(preview_objects: list[dict[str, Any]]) -> None:
    kinds = {obj["kind"] for obj in preview_objects}

    assert kinds.isdisjoint(
        {
            "Role",
            "ClusterRole",
            "RoleBinding",
            "ClusterRoleBinding",
            "NetworkPolicy",
            "PodDisruptionBudget",
            "ServiceMonitor",
            "HorizontalPodAutoscaler",
        }
    )


def test_no_annotations_anywhere(preview_objects: list[dict[str, Any]], daemon_set: dict[str, Any]) -> None:
    annotated = [obj["kind"] for obj in preview_objects if "annotations" in obj["metadata"]]

    assert annotated == []
    assert "annotations" not in daemon_set["spec"]["template"]["metadata"]


def test_nld_objects_carry_k8s_app_and_managed_by(preview_objects: list[dict[str, Any]]) -> None:
    labels = {
        obj["metadata"]["name"] + "/" + obj["kind"]: obj["metadata"]["labels"]
        for obj in preview_objects
        if obj["metadata"]["namespace"] == "kube-system"
    }

    assert labels == {
        "kube-dns-upstream/Service": with_role(
            {"app.kubernetes.io/managed-by": "osdc-base", "k8s-app": "kube-dns"}, "upstream-service"
        ),
        "node-local-dns-metrics/Service": with_role(NODE_CACHE_LABELS, "metrics-service"),
        "node-local-dns/ServiceAccount": with_role(NODE_CACHE_LABELS, "service-account"),
        "node-local-dns/ConfigMap": with_role(NODE_CACHE_LABELS, "corefile"),
        "node-local-dns/DaemonSet": with_role(NODE_CACHE_LABELS, "node-cache"),
    }


# --- Services ------------------------------------------------------------------------------


def test_upstream_service(preview_objects: list[dict[str, Any]]) -> None:
    service = _one(preview_objects, "Service", "kube-dns-upstream")

    assert service["spec"] == {
        "ipFamilies": ["IPv6"],
        "ipFamilyPolicy": "SingleStack",
        "ports": [
            {"name": "dns", "port": 53, "protocol": "UDP", "targetPort": 53},
            {"name": "dns-tcp", "port": 53, "protocol": "TCP", "targetPort": 53},
        ],
        "selector": {"k8s-app": "kube-dns"},
    }


def test_metrics_service_is_headless(preview_objects: list[dict[str, Any]]) -> None:
    service = _one(preview_objects, "Service", "node-local-dns-metrics")

    assert service["spec"] == {
        "clusterIP": "None",
        "ipFamilies": ["IPv6"],
        "ipFamilyPolicy": "SingleStack",
        "ports": [
            {"name": "metrics", "port": 9253, "protocol": "TCP", "targetPort": 9253},
            {"name": "metrics-binary", "port": 9353, "protocol": "TCP", "targetPort": 9353},
        ],
        "selector": {"k8s-app": "node-local-dns"},
    }


# --- ServiceAccount and ConfigMap ----------------------------------------------------------


def test_service_account_mounts_no_token(preview_objects: list[dict[str, Any]]) -> None:
    account = _one(preview_objects, "ServiceAccount", "node-local-dns")

    assert account["automountServiceAccountToken"] is False
    assert set(account) == {"apiVersion", "kind", "metadata", "automountServiceAccountToken"}


def test_config_map_holds_only_the_corefile_key(preview_objects: list[dict[str, Any]]) -> None:
    config_map = _one(preview_objects, "ConfigMap", "node-local-dns")

    assert list(config_map["data"]) == ["Corefile"]
    assert config_map["data"]["Corefile"].startswith("cluster.local:53 {\n    errors\n")


# --- DaemonSet -----------------------------------------------------------------------------


def test_daemon_set_selector_and_rollout(daemon_set: dict[str, Any]) -> None:
    spec = daemon_set["spec"]

    assert spec["selector"] == {"matchLabels": {"k8s-app": "node-local-dns"}}
    assert spec["template"]["metadata"] == {"labels": NODE_CACHE_LABELS}
    assert spec["updateStrategy"] == {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "1%"}}
    assert set(spec) == {"selector", "template", "updateStrategy"}


def test_pod_spec(pod_spec: dict[str, Any]) -> None:
    assert pod_spec["priorityClassName"] == "system-node-critical"
    assert pod_spec["serviceAccountName"] == "node-local-dns"
    assert pod_spec["hostNetwork"] is True
    assert pod_spec["dnsPolicy"] == "Default"
    assert pod_spec["terminationGracePeriodSeconds"] == 30
    # enableServiceLinks: false would stop kubelet injecting KUBE_DNS_UPSTREAM_SERVICE_HOST.
    assert "enableServiceLinks" not in pod_spec
    assert "securityContext" not in pod_spec
    assert "initContainers" not in pod_spec
    # Pod-level, as admission and scanners read it (CKV_K8S_38), beside the ServiceAccount's own.
    assert pod_spec["automountServiceAccountToken"] is False
    assert set(pod_spec) == {
        "automountServiceAccountToken",
        "containers",
        "dnsPolicy",
        "hostNetwork",
        "priorityClassName",
        "serviceAccountName",
        "terminationGracePeriodSeconds",
        "tolerations",
        "volumes",
    }


def test_tolerations_are_the_spec_four_in_order(pod_spec: dict[str, Any]) -> None:
    assert pod_spec["tolerations"] == [
        {"key": "CriticalAddonsOnly", "operator": "Equal", "value": "true", "effect": "NoSchedule"},
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
        {"key": "node-fleet", "operator": "Exists", "effect": "NoSchedule"},
        {"key": "instance-type", "operator": "Exists", "effect": "NoSchedule"},
    ]


def test_container_image_and_privilege(container: dict[str, Any]) -> None:
    assert container["name"] == "node-cache"
    assert container["image"] == "registry.k8s.io/dns/k8s-dns-node-cache:1.26.8"
    assert container["imagePullPolicy"] == "IfNotPresent"
    assert container["securityContext"] == {"privileged": True}
    assert "lifecycle" not in container
    assert "readinessProbe" not in container


def test_container_requests_and_no_limits(container: dict[str, Any]) -> None:
    assert container["resources"] == {"requests": {"cpu": "25m", "memory": "100Mi"}}
    assert "limits" not in container["resources"]


def test_container_args(container: dict[str, Any]) -> None:
    assert container["args"] == [
        "-localip",
        "fd00::10,__KUBE_DNS_CLUSTER_IP__",
        "-conf",
        "/etc/Corefile",
        "-upstreamsvc",
        "kube-dns-upstream",
        "-pidfile",
        "/tmp/node-cache.pid",
    ]
    assert "command" not in container
    assert "env" not in container


def test_container_args_with_cluster_ip(deployable_objects: list[dict[str, Any]]) -> None:
    daemon_set = _one(deployable_objects, "DaemonSet", "node-local-dns")

    assert daemon_set["spec"]["template"]["spec"]["containers"][0]["args"][:2] == ["-localip", "fd00::10,fd00:ec2::a"]


def test_container_ports(container: dict[str, Any]) -> None:
    assert container["ports"] == [
        {"containerPort": 53, "name": "dns", "protocol": "UDP"},
        {"containerPort": 53, "name": "dns-tcp", "protocol": "TCP"},
        {"containerPort": 9253, "name": "metrics", "protocol": "TCP"},
        {"containerPort": 9353, "name": "metrics-binary", "protocol": "TCP"},
    ]


def test_liveness_probe(container: dict[str, Any]) -> None:
    assert container["livenessProbe"] == {
        "httpGet": {"host": "fd00::10", "path": "/health", "port": 8080},
        "initialDelaySeconds": 60,
        "periodSeconds": 15,
        "timeoutSeconds": 5,
        "failureThreshold": 5,
    }


def test_volumes_and_mounts(pod_spec: dict[str, Any], container: dict[str, Any]) -> None:
    assert pod_spec["volumes"] == [
        {"name": "xtables-lock", "hostPath": {"path": "/run/xtables.lock", "type": "FileOrCreate"}},
        {"name": "kube-dns-config", "configMap": {"name": "kube-dns", "optional": True}},
        {
            "name": "config-volume",
            "configMap": {"name": "node-local-dns", "items": [{"key": "Corefile", "path": "Corefile.base"}]},
        },
    ]
    assert container["volumeMounts"] == [
        {"name": "xtables-lock", "mountPath": "/run/xtables.lock", "readOnly": False},
        {"name": "config-volume", "mountPath": "/etc/coredns"},
        {"name": "kube-dns-config", "mountPath": "/etc/kube-dns"},
    ]


def test_container_has_only_the_fields_the_spec_asks_for(container: dict[str, Any]) -> None:
    assert set(container) == {
        "args",
        "image",
        "imagePullPolicy",
        "livenessProbe",
        "name",
        "ports",
        "resources",
        "securityContext",
        "volumeMounts",
    }


def test_custom_ports_add_node_cache_flags() -> None:
    props = NodeLocalDNSProps(ports=Ports(health=8081, metrics=9254, binary_metrics=9354))
    (daemon_set,) = [obj for chart in synthesize(props) for obj in chart.objects if obj["kind"] == "DaemonSet"]
    container = daemon_set["spec"]["template"]["spec"]["containers"][0]

    assert container["args"] == [
        "-localip",
        "fd00::10,__KUBE_DNS_CLUSTER_IP__",
        "-conf",
        "/etc/Corefile",
        "-upstreamsvc",
        "kube-dns-upstream",
        "-pidfile",
        "/tmp/node-cache.pid",
        "-health-port",
        "8081",
        "-metrics-listen-address",
        "[::]:9354",
    ]
    assert container["livenessProbe"]["httpGet"] == {"host": "fd00::10", "path": "/health", "port": 8081}
    assert [port["containerPort"] for port in container["ports"]] == [53, 53, 9254, 9354]


def test_custom_limit_other_than_cpu_and_memory_is_rendered() -> None:
    props = NodeLocalDNSProps(limits={"ephemeral-storage": "1Gi"})
    (daemon_set,) = [obj for chart in synthesize(props) for obj in chart.objects if obj["kind"] == "DaemonSet"]

    assert daemon_set["spec"]["template"]["spec"]["containers"][0]["resources"] == {
        "limits": {"ephemeral-storage": "1Gi"},
        "requests": {"cpu": "25m", "memory": "100Mi"},
    }


# --- monitoring ----------------------------------------------------------------------------


def test_pod_monitor(pod_monitor: dict[str, Any]) -> None:
    assert pod_monitor["metadata"] == {
        "name": "nodelocaldns",
        "namespace": "monitoring",
        "labels": with_role({"app.kubernetes.io/part-of": "osdc-monitoring"}, "pod-monitor"),
    }
    assert pod_monitor["spec"]["selector"] == {"matchLabels": {"k8s-app": "node-local-dns"}}
    assert pod_monitor["spec"]["namespaceSelector"] == {"matchNames": ["kube-system"]}


def test_pod_monitor_scrapes_both_ports_each_keeping_its_half(pod_monitor: dict[str, Any]) -> None:
    # node-cache serves one registry on both ports: 9353 keeps node-cache's own family, 9253 the rest.
    assert pod_monitor["spec"]["podMetricsEndpoints"] == [
        {
            "port": "metrics",
            "interval": "60s",
            "relabelings": NODE_RELABEL,
            "metricRelabelings": [
                {"action": "drop", "regex": "go_.*", "sourceLabels": ["__name__"]},
                {"action": "drop", "regex": "process_.*", "sourceLabels": ["__name__"]},
                {"action": "drop", "regex": "coredns_.*_request_duration_seconds_bucket", "sourceLabels": ["__name__"]},
                {"action": "drop", "regex": "coredns_nodecache_.*", "sourceLabels": ["__name__"]},
            ],
        },
        {
            "port": "metrics-binary",
            "interval": "60s",
            "relabelings": NODE_RELABEL,
            "metricRelabelings": [{"action": "keep", "regex": "coredns_nodecache_.*", "sourceLabels": ["__name__"]}],
        },
    ]


ROUTING = {"team": "pytorch-dev-infra", "priority": "P3"}


def test_prometheus_rule(preview_objects: list[dict[str, Any]]) -> None:
    rule = _one(preview_objects, "PrometheusRule", "nodelocaldns-alerts")

    assert rule["metadata"] == {
        "name": "nodelocaldns-alerts",
        "namespace": "monitoring",
        "labels": with_role({"app.kubernetes.io/part-of": "osdc-monitoring"}, "alert-rules"),
    }
    (group,) = rule["spec"]["groups"]
    assert group["name"] == "nodelocaldns"
    assert [(r["alert"], r["for"], r["labels"]) for r in group["rules"]] == [
        ("NodeLocalDNSSetupErrors", "5m", {"severity": "critical", **ROUTING}),
        ("NodeLocalDNSPodRestarting", "10m", {"severity": "warning", **ROUTING}),
        (
            "NodeLocalDNSDaemonSetDegraded",
            "15m",
            {"severity": "warning", "team": "pytorch-dev-infra", "priority": "P3"},
        ),
        ("NodeLocalDNSMetricsDown", "10m", {"severity": "warning", **ROUTING}),
    ]
    assert group["rules"][0]["expr"] == "increase(coredns_nodecache_setup_errors_total[5m]) > 0"
    assert set(group["rules"][0]) == {"alert", "annotations", "expr", "for", "labels"}
    assert set(group["rules"][0]["annotations"]) == {"summary", "description"}


def test_custom_monitoring_props() -> None:
    props = NodeLocalDNSProps(
        monitoring_namespace="observability", scrape_interval="30s", monitoring_labels={"team": "sre"}
    )
    objects = {obj["kind"]: obj for chart in synthesize(props) for obj in chart.objects}

    pod_monitor = objects["PodMonitor"]
    assert pod_monitor["metadata"] == {
        "name": "nodelocaldns",
        "namespace": "observability",
        "labels": with_role({"team": "sre"}, "pod-monitor"),
    }
    assert pod_monitor["spec"]["namespaceSelector"] == {"matchNames": ["kube-system"]}
    assert [endpoint["interval"] for endpoint in pod_monitor["spec"]["podMetricsEndpoints"]] == ["30s", "30s"]
    rules = objects["PrometheusRule"]["spec"]["groups"][0]["rules"]
    assert rules[3]["expr"] == (
        'up{job="observability/nodelocaldns"} == 0 or absent(up{job="observability/nodelocaldns"})'
    )


# --- composition ---------------------------------------------------------------------------


def test_without_monitoring_there_are_two_charts_and_no_monitoring_kinds() -> None:
    charts = synthesize(NodeLocalDNSProps(monitoring=False))

    assert [chart.phase for chart in charts] == ["services", "workload"]
    kinds = [obj["kind"] for chart in charts for obj in chart.objects]
    assert kinds == ["Service", "Service", "ServiceAccount", "ConfigMap", "DaemonSet"]


def test_without_monitoring_the_construct_has_no_monitoring_chart() -> None:
    component = NodeLocalDNS(cdk8s.App(), "nld", NodeLocalDNSProps(monitoring=False))

    assert component.monitoring_chart is None
    assert [role for role, _ in component.charts] == ["services", "workload"]


def test_chart_roles_in_apply_order() -> None:
    assert [chart.phase for chart in synthesize(NodeLocalDNSProps())] == ["services", "workload", "monitoring"]


def test_chart_dependencies_give_services_then_workload_then_monitoring() -> None:
    app = cdk8s.App()
    component = NodeLocalDNS(app, "nld")
    assert component.monitoring_chart is not None

    assert component.services_chart.node.dependencies == []
    assert [dep.node.path for dep in component.workload_chart.node.dependencies] == ["nld-services"]
    assert [dep.node.path for dep in component.monitoring_chart.node.dependencies] == ["nld-workload"]
    assert [chart.node.path for chart in app.charts] == ["nld-services", "nld-workload", "nld-monitoring"]


# --- chart ids and file names ----------------------------------------------------------------


def test_charts_sit_at_the_app_root_with_plain_ids() -> None:
    app = cdk8s.App()
    NodeLocalDNS(app, "nodelocaldns")

    assert [chart.node.id for chart in app.charts] == [
        "nodelocaldns-services",
        "nodelocaldns-workload",
        "nodelocaldns-monitoring",
    ]


def test_charts_of_a_component_in_a_user_chart_are_named_after_its_path() -> None:
    app = cdk8s.App()
    mine = cdk8s.Chart(app, "my-chart")
    component = NodeLocalDNS(mine, "NLD")

    assert [chart.node.path for _, chart in component.charts] == [
        "my-chart-nld-services",
        "my-chart-nld-workload",
        "my-chart-nld-monitoring",
    ]


@pytest.mark.parametrize(("id", "prefix"), [("Node Local DNS", "node-local-dns"), ("a" * 80, "a" * 52)])
def test_chart_ids_are_dns_labels_whatever_the_component_id(id: str, prefix: str) -> None:
    component = NodeLocalDNS(cdk8s.App(), id, NodeLocalDNSProps(monitoring=False))

    assert [chart.node.id for _, chart in component.charts] == [f"{prefix}-services", f"{prefix}-workload"]


def test_fails_when_the_component_id_has_no_letter_or_digit() -> None:
    with pytest.raises(ValueError, match=r"^id: must contain a letter or a digit, got '\+\+'"):
        NodeLocalDNS(cdk8s.App(), "++")


def test_synth_writes_plain_file_names_in_apply_order(tmp_path: Path) -> None:
    app = cdk8s.App(outdir=str(tmp_path))
    NodeLocalDNS(app, "nodelocaldns")
    cdk8s.Chart(app, "my-chart")

    app.synth()

    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "0000-nodelocaldns-services.k8s.yaml",
        "0001-nodelocaldns-workload.k8s.yaml",
        "0002-nodelocaldns-monitoring.k8s.yaml",
        "0003-my-chart.k8s.yaml",
    ]


# --- every construct checks its props --------------------------------------------------------


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: UpstreamServiceProps(dns_port=0), "dns_port: must be a port number 1-65535, got 0"),
        (lambda: UpstreamServiceProps(dns_port=70000), "dns_port: must be a port number 1-65535, got 70000"),
        (lambda: UpstreamServiceProps(dns_port="53"), "dns_port: must be an integer, got '53'"),  # type: ignore[arg-type]
        (lambda: UpstreamServiceProps(name="0-upstream"), "name: must start with a letter to name a Service"),
        (lambda: MetricsServiceProps(metrics_port=0), "metrics_port: must be a port number 1-65535, got 0"),
        (
            lambda: MetricsServiceProps(binary_metrics_port=70000),
            "binary_metrics_port: must be a port number 1-65535, got 70000",
        ),
        (lambda: MetricsServiceProps(name="9metrics"), "name: must start with a letter to name a Service"),
        (lambda: ServiceAccountProps(labels={"a b": "x"}), "labels: 'a b' is not a valid label key"),
        (lambda: CorefileConfigMapProps(corefile="errors"), "corefile: must be a Corefile, got 'errors'"),  # type: ignore[arg-type]
        (lambda: KeeperConfigMapProps(keeper="x"), "keeper: must be a Keeper, got 'x'"),  # type: ignore[arg-type]
        (lambda: KeeperConfigMapProps(name="Rules"), "name: must be a DNS label"),
        (lambda: PrometheusRuleProps(group=None), "group: must be an AlertGroup, got None"),  # type: ignore[arg-type]
        (lambda: PodMonitorProps(interval="5m\n"), "interval: must be a Prometheus duration"),
        (
            lambda: NodeCacheDaemonSetProps(upstream_service_name="1-upstream"),
            "upstream_service_name: must start with a letter to name a Service",
        ),
    ],
)
def test_fails_when_a_construct_props_value_is_bad(build: Callable[[], object], message: str) -> None:
    with pytest.raises(ValueError, match=rf"^{re.escape(message)}"):
        build()


@pytest.mark.parametrize(
    "construct",
    [
        UpstreamService,
        MetricsService,
        ServiceAccount,
        CorefileConfigMap,
        KeeperConfigMap,
        NodeCacheDaemonSet,
        PodMonitor,
        PrometheusRule,
    ],
)
def test_fails_when_a_construct_gets_something_else_than_its_props(construct: Callable[..., object]) -> None:
    chart = cdk8s.Chart(cdk8s.App(), "c")

    with pytest.raises(ValueError, match=r"^props: must be a \w+Props, got \{'name': 'x'\}$"):
        construct(chart, "c", {"name": "x"})


def test_fails_when_the_component_gets_something_else_than_its_props() -> None:
    with pytest.raises(ValueError, match=r"^props: must be a NodeLocalDNSProps, got UpstreamServiceProps"):
        NodeLocalDNS(cdk8s.App(), "nld", UpstreamServiceProps())  # type: ignore[arg-type]


# --- the fallthrough mode and least privilege ---------------------------------------------------

KEEPER_SCRIPT = "/etc/nodelocaldns-keeper/keeper.sh"
KEEPER_CONFIG_MAP = Keeper().config_map_name()
"""The keeper's ConfigMap, named by its content: the same for every ClusterIP of the default addresses and ports."""


def _workload(**kwargs: Any) -> list[dict[str, Any]]:
    props = NodeLocalDNSProps(kube_dns_cluster_ip="fd00:ec2::a", **kwargs)
    return [obj for chart in synthesize(props) for obj in chart.objects]


def test_fallthrough_adds_its_config_map_before_the_daemon_set_in_the_workload_chart() -> None:
    charts = synthesize(NodeLocalDNSProps(kube_dns_cluster_ip="fd00:ec2::a", interception="fallthrough"))
    workload = next(chart for chart in charts if chart.phase == "workload")

    assert [(o["kind"], o["metadata"]["name"]) for o in workload.objects] == [
        ("ServiceAccount", "node-local-dns"),
        ("ConfigMap", "node-local-dns"),
        ("ConfigMap", KEEPER_CONFIG_MAP),
        ("DaemonSet", "node-local-dns"),
    ]
    config_map = _one(list(workload.objects), "ConfigMap", KEEPER_CONFIG_MAP)
    assert config_map["metadata"]["labels"] == with_role(NODE_CACHE_LABELS, "keeper-config")
    assert set(config_map["data"]) == {"keeper.sh", "rules"}
    assert "-d fd00:ec2::a/128 -p udp -m udp --dport 53 -m socket" in config_map["data"]["rules"]


def test_fallthrough_node_cache_writes_no_rules_and_keeps_the_spec_privilege() -> None:
    pod = _one(_workload(interception="fallthrough"), "DaemonSet", "node-local-dns")["spec"]["template"]["spec"]
    node_cache, keeper = pod["containers"]

    assert node_cache["name"] == "node-cache"
    assert node_cache["args"][-1] == "-setupiptables=false"
    assert node_cache["args"].count("-setupiptables=false") == 1
    assert node_cache["securityContext"] == {"privileged": True}
    assert keeper["securityContext"] == {"privileged": True}


def test_fallthrough_keeper_container() -> None:
    pod = _one(_workload(interception="fallthrough"), "DaemonSet", "node-local-dns")["spec"]["template"]["spec"]
    keeper = pod["containers"][1]

    assert keeper == {
        "name": "keeper",
        "image": "registry.k8s.io/dns/k8s-dns-node-cache:1.26.8",
        "imagePullPolicy": "IfNotPresent",
        "command": ["/bin/sh", KEEPER_SCRIPT, "keep"],
        "readinessProbe": {
            "exec": {"command": ["/bin/sh", KEEPER_SCRIPT, "check"]},
            "periodSeconds": 15,
            "timeoutSeconds": 10,
        },
        "resources": {"requests": {"cpu": "5m", "memory": "20Mi"}},
        "securityContext": {"privileged": True},
        "volumeMounts": [
            {"name": "xtables-lock", "mountPath": "/run/xtables.lock", "readOnly": False},
            {"name": "keeper", "mountPath": "/etc/nodelocaldns-keeper", "readOnly": True},
        ],
    }
    assert pod["volumes"][-1] == {"name": "keeper", "configMap": {"name": KEEPER_CONFIG_MAP}}


def test_fallthrough_keeper_takes_the_node_cache_image_and_pull_policy() -> None:
    image = "registry.example.com/dns/k8s-dns-node-cache@sha256:" + "0" * 64
    pod = _one(
        _workload(interception="fallthrough", image=image, image_pull_policy="Always"), "DaemonSet", "node-local-dns"
    )["spec"]["template"]["spec"]

    assert {(c["image"], c["imagePullPolicy"]) for c in pod["containers"]} == {(image, "Always")}


def test_an_image_by_tag_and_digest_reaches_node_cache_as_given() -> None:
    image = "registry.k8s.io/dns/k8s-dns-node-cache:1.26.8@sha256:" + "0" * 64
    (container,) = _one(_workload(image=image), "DaemonSet", "node-local-dns")["spec"]["template"]["spec"]["containers"]

    assert container["image"] == image


def test_without_privilege_node_cache_writing_its_rules_gets_net_admin_bind_and_raw() -> None:
    (container,) = _one(_workload(privileged=False), "DaemonSet", "node-local-dns")["spec"]["template"]["spec"][
        "containers"
    ]

    assert container["securityContext"] == {
        "privileged": False,
        "allowPrivilegeEscalation": False,
        "capabilities": {"drop": ["ALL"], "add": ["NET_ADMIN", "NET_BIND_SERVICE", "NET_RAW"]},
        "seccompProfile": {"type": "RuntimeDefault"},
    }


def test_without_privilege_in_fallthrough_node_cache_needs_no_net_raw_and_the_keeper_no_bind() -> None:
    pod = _one(_workload(privileged=False, interception="fallthrough"), "DaemonSet", "node-local-dns")["spec"][
        "template"
    ]["spec"]
    node_cache, keeper = pod["containers"]

    assert node_cache["securityContext"] == {
        "privileged": False,
        "allowPrivilegeEscalation": False,
        "capabilities": {"drop": ["ALL"], "add": ["NET_ADMIN", "NET_BIND_SERVICE"]},
        "seccompProfile": {"type": "RuntimeDefault"},
    }
    assert keeper["securityContext"] == {
        "privileged": False,
        "allowPrivilegeEscalation": False,
        "capabilities": {"drop": ["ALL"], "add": ["NET_ADMIN", "NET_RAW"]},
        "seccompProfile": {"type": "RuntimeDefault"},
    }


def test_the_spec_mode_has_no_keeper_and_no_fallthrough_objects(preview_objects: list[dict[str, Any]]) -> None:
    assert not [o for o in preview_objects if o["metadata"]["name"].startswith("node-local-dns-keeper")]
    daemon_set = _one(preview_objects, "DaemonSet", "node-local-dns")
    assert "-setupiptables=false" not in daemon_set["spec"]["template"]["spec"]["containers"][0]["args"]


# --- portable output and GitOps ordering ------------------------------------------------------
def test_portable_output_takes_the_cluster_ip_from_kubelet_and_holds_no_placeholder_of_ours() -> None:
    objects = {obj["kind"]: obj for chart in synthesize(NodeLocalDNSProps(portable=True)) for obj in chart.objects}

    args = objects["DaemonSet"]["spec"]["template"]["spec"]["containers"][0]["args"]
    assert args[:2] == ["-localip", "fd00::10,$(KUBE_DNS_SERVICE_HOST)"]
    corefile = objects["ConfigMap"]["data"]["Corefile"]
    assert [line.strip() for line in corefile.splitlines() if line.strip().startswith("bind ")] == [
        "bind __PILLAR__LOCAL__DNS__"
    ] * 4
    assert "health [fd00::10]:8080" in corefile
    assert find_unresolved_placeholders(list(objects.values())) == []


def test_fails_when_portable_is_given_an_address() -> None:
    with pytest.raises(ValueError, match=r"^kube_dns_cluster_ip: must be unset with portable=True, got 'fd00:ec2::a'"):
        NodeLocalDNSProps(portable=True, kube_dns_cluster_ip="fd00:ec2::a")


def test_argocd_sync_waves_order_services_workload_monitoring() -> None:
    waves = {
        (chart.phase, obj["kind"]): obj["metadata"]["annotations"]["argocd.argoproj.io/sync-wave"]
        for chart in synthesize(NodeLocalDNSProps(argocd_sync_waves=True))
        for obj in chart.objects
    }

    assert waves == {
        ("services", "Service"): "0",
        ("workload", "ServiceAccount"): "1",
        ("workload", "ConfigMap"): "1",
        ("workload", "DaemonSet"): "1",
        ("monitoring", "PodMonitor"): "2",
        ("monitoring", "PrometheusRule"): "2",
    }


def test_no_sync_wave_annotation_by_default() -> None:
    for chart in synthesize(NodeLocalDNSProps()):
        for obj in chart.objects:
            assert "annotations" not in obj["metadata"], obj["kind"]


def test_the_keepers_config_map_is_immutable_and_named_by_its_content_but_the_cluster_ip() -> None:
    def keeper_config(**props: Any) -> dict[str, Any]:
        charts = synthesize(NodeLocalDNSProps(interception="fallthrough", **props))
        workload = next(chart for chart in charts if chart.phase == "workload")
        return next(o for o in workload.objects if o["metadata"]["name"].startswith("node-local-dns-keeper-"))

    preview, deployed = keeper_config(), keeper_config(kube_dns_cluster_ip="fd00:ec2::a")
    other_port = keeper_config(kube_dns_cluster_ip="fd00:ec2::a", ports=Ports(health=8081))

    assert preview["immutable"] is True
    assert re.fullmatch(r"node-local-dns-keeper-[0-9a-f]{10}", preview["metadata"]["name"])
    assert deployed["metadata"]["name"] == preview["metadata"]["name"] == KEEPER_CONFIG_MAP
    assert preview["data"] != deployed["data"]
    assert other_port["metadata"]["name"] != deployed["metadata"]["name"]
