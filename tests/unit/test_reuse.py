"""Every construct reused alone in someone else's chart: one object, its explicit name, their props."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cdk8s
import pytest
from cdk8s_plus_28 import k8s
from constructs import Construct

from constructs_nld import (
    AlertGroup,
    AlertRule,
    AlertSettings,
    Corefile,
    CorefileConfigMap,
    CorefileConfigMapProps,
    Directive,
    MetricsService,
    MetricsServiceProps,
    NodeCacheDaemonSet,
    NodeCacheDaemonSetProps,
    PodMonitor,
    PodMonitorProps,
    PrometheusRule,
    PrometheusRuleProps,
    ServerBlock,
    ServiceAccount,
    ServiceAccountProps,
    Toleration,
    UpstreamService,
    UpstreamServiceProps,
)

USER_CONFIG_MAP = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "user-settings", "namespace": "user-ns"},
    "data": {"owner": "someone else"},
}

Build = Callable[[Construct], Any]


def _synth_in_user_chart(build: Build) -> list[dict[str, Any]]:
    """Synthesize ``build`` in a user's chart of a fresh app, next to an object of the user's own."""
    app = cdk8s.App()
    chart = cdk8s.Chart(app, "user-chart")
    k8s.KubeConfigMap(
        chart,
        "user-settings",
        metadata=k8s.ObjectMeta(name="user-settings", namespace="user-ns"),
        data={"owner": "someone else"},
    )
    build(chart)
    objects: list[dict[str, Any]] = cdk8s.Testing.synth(chart)
    return objects


def _only_ours(objects: list[dict[str, Any]]) -> dict[str, Any]:
    """Check the user's object is intact and ours is the only other one; return ours."""
    assert USER_CONFIG_MAP in objects
    ours = [obj for obj in objects if obj != USER_CONFIG_MAP]
    assert len(ours) == 1, [obj["kind"] for obj in ours]
    return ours[0]


# --- defaults: each construct alone, with its explicit name -------------------------------


@pytest.mark.parametrize(
    ("build", "kind", "namespace", "name"),
    [
        (lambda scope: UpstreamService(scope, "upstream"), "Service", "kube-system", "kube-dns-upstream"),
        (lambda scope: MetricsService(scope, "metrics"), "Service", "kube-system", "node-local-dns-metrics"),
        (lambda scope: ServiceAccount(scope, "sa"), "ServiceAccount", "kube-system", "node-local-dns"),
        (lambda scope: CorefileConfigMap(scope, "corefile"), "ConfigMap", "kube-system", "node-local-dns"),
        (lambda scope: NodeCacheDaemonSet(scope, "ds"), "DaemonSet", "kube-system", "node-local-dns"),
        (lambda scope: PodMonitor(scope, "pm"), "PodMonitor", "monitoring", "nodelocaldns"),
        (lambda scope: PrometheusRule(scope, "rules"), "PrometheusRule", "monitoring", "nodelocaldns-alerts"),
    ],
    ids=[
        "UpstreamService",
        "MetricsService",
        "ServiceAccount",
        "CorefileConfigMap",
        "NodeCacheDaemonSet",
        "PodMonitor",
        "PrometheusRule",
    ],
)
def test_construct_alone_in_a_user_chart_keeps_its_explicit_name(
    build: Build, kind: str, namespace: str, name: str
) -> None:
    ours = _only_ours(_synth_in_user_chart(build))

    assert (ours["kind"], ours["metadata"]["namespace"], ours["metadata"]["name"]) == (kind, namespace, name)


# --- custom props are honoured -------------------------------------------------------------


def test_upstream_service_with_custom_props() -> None:
    props = UpstreamServiceProps(
        name="coredns-upstream", namespace="dns", labels={"team": "dns"}, selector={"app": "coredns"}, dns_port=5353
    )

    ours = _only_ours(_synth_in_user_chart(lambda scope: UpstreamService(scope, "upstream", props)))

    assert ours["metadata"] == {
        "name": "coredns-upstream",
        "namespace": "dns",
        "labels": {
            "team": "dns",
            "app.kubernetes.io/name": "node-local-dns",
            "app.kubernetes.io/component": "upstream-service",
        },
    }
    assert ours["spec"]["selector"] == {"app": "coredns"}
    assert ours["spec"]["ports"] == [
        {"name": "dns", "port": 5353, "protocol": "UDP", "targetPort": 5353},
        {"name": "dns-tcp", "port": 5353, "protocol": "TCP", "targetPort": 5353},
    ]


def test_metrics_service_with_custom_props() -> None:
    props = MetricsServiceProps(
        name="nld-metrics", namespace="dns", labels={"team": "dns"}, metrics_port=9254, binary_metrics_port=9354
    )

    ours = _only_ours(_synth_in_user_chart(lambda scope: MetricsService(scope, "metrics", props)))

    assert ours["metadata"] == {
        "name": "nld-metrics",
        "namespace": "dns",
        "labels": {
            "team": "dns",
            "app.kubernetes.io/name": "node-local-dns",
            "app.kubernetes.io/component": "metrics-service",
        },
    }
    assert ours["spec"]["clusterIP"] == "None"
    assert [(port["name"], port["port"]) for port in ours["spec"]["ports"]] == [
        ("metrics", 9254),
        ("metrics-binary", 9354),
    ]


def test_service_account_with_custom_props() -> None:
    props = ServiceAccountProps(name="nld", namespace="dns", labels={"team": "dns"})

    ours = _only_ours(_synth_in_user_chart(lambda scope: ServiceAccount(scope, "sa", props)))

    assert ours == {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {
            "name": "nld",
            "namespace": "dns",
            "labels": {
                "team": "dns",
                "app.kubernetes.io/name": "node-local-dns",
                "app.kubernetes.io/component": "service-account",
            },
        },
        "automountServiceAccountToken": False,
    }


def test_config_map_with_a_custom_corefile() -> None:
    corefile = Corefile(
        cluster_domain="example.internal",
        blocks=(
            ServerBlock(
                zone="example.internal",
                port=53,
                directives=(Directive("bind", ("fd00::53",)), Directive("health", ("[fd00::53]:8081",))),
            ),
        ),
    )
    props = CorefileConfigMapProps(name="nld-config", namespace="dns", labels={"team": "dns"}, corefile=corefile)

    ours = _only_ours(_synth_in_user_chart(lambda scope: CorefileConfigMap(scope, "corefile", props)))

    assert ours["metadata"] == {
        "name": "nld-config",
        "namespace": "dns",
        "labels": {
            "team": "dns",
            "app.kubernetes.io/name": "node-local-dns",
            "app.kubernetes.io/component": "corefile",
        },
    }
    assert ours["data"] == {"Corefile": "example.internal:53 {\n    bind fd00::53\n    health [fd00::53]:8081\n}\n"}


def test_daemon_set_with_custom_props() -> None:
    props = NodeCacheDaemonSetProps(
        name="nld",
        namespace="dns",
        labels={"team": "dns"},
        selector={"app": "nld"},
        pod_labels={"app": "nld", "team": "dns"},
        local_ip="fd00::53",
        kube_dns_cluster_ip="fd00:ec2::a",
        tolerations=(Toleration(key="dedicated", operator="Equal", value="dns", effect="NoExecute"),),
        max_unavailable=2,
        service_account_name="nld",
        config_map_name="nld-config",
        upstream_service_name="coredns-upstream",
    )

    ours = _only_ours(_synth_in_user_chart(lambda scope: NodeCacheDaemonSet(scope, "ds", props)))

    assert ours["metadata"] == {
        "name": "nld",
        "namespace": "dns",
        "labels": {
            "team": "dns",
            "app.kubernetes.io/name": "node-local-dns",
            "app.kubernetes.io/component": "node-cache",
        },
    }
    spec = ours["spec"]
    assert spec["selector"] == {"matchLabels": {"app": "nld"}}
    assert spec["updateStrategy"]["rollingUpdate"] == {"maxUnavailable": 2}
    pod = spec["template"]["spec"]
    assert spec["template"]["metadata"] == {"labels": {"app": "nld", "team": "dns"}}
    assert pod["serviceAccountName"] == "nld"
    assert pod["tolerations"] == [{"key": "dedicated", "operator": "Equal", "value": "dns", "effect": "NoExecute"}]
    assert pod["volumes"][2]["configMap"]["name"] == "nld-config"
    container = pod["containers"][0]
    assert container["args"][:6] == [
        "-localip",
        "fd00::53,fd00:ec2::a",
        "-conf",
        "/etc/Corefile",
        "-upstreamsvc",
        "coredns-upstream",
    ]
    assert container["livenessProbe"]["httpGet"]["host"] == "fd00::53"


def test_pod_monitor_with_custom_props() -> None:
    props = PodMonitorProps(
        name="nld", namespace="observability", labels={"team": "sre"}, target_namespace="dns", interval="30s"
    )

    ours = _only_ours(_synth_in_user_chart(lambda scope: PodMonitor(scope, "pm", props)))

    assert ours["metadata"] == {
        "name": "nld",
        "namespace": "observability",
        "labels": {
            "team": "sre",
            "app.kubernetes.io/name": "node-local-dns",
            "app.kubernetes.io/component": "pod-monitor",
        },
    }
    assert ours["spec"]["namespaceSelector"] == {"matchNames": ["dns"]}
    assert [(endpoint["port"], endpoint["interval"]) for endpoint in ours["spec"]["podMetricsEndpoints"]] == [
        ("metrics", "30s"),
        ("metrics-binary", "30s"),
    ]
    assert props.job == "observability/nld"


def test_alert_rules_with_a_custom_group() -> None:
    group = AlertGroup(
        name="dns",
        rules=(
            AlertRule(
                alert="DNSDown",
                expr='up{job="observability/nld"} == 0',
                settings=AlertSettings(for_="2m", severity="page"),
                summary="dns down",
                description="{{ $labels.instance }} is down",
            ),
        ),
    )
    props = PrometheusRuleProps(name="dns-alerts", namespace="observability", labels={"team": "sre"}, group=group)

    ours = _only_ours(_synth_in_user_chart(lambda scope: PrometheusRule(scope, "rules", props)))

    assert ours["metadata"] == {
        "name": "dns-alerts",
        "namespace": "observability",
        "labels": {
            "team": "sre",
            "app.kubernetes.io/name": "node-local-dns",
            "app.kubernetes.io/component": "alert-rules",
        },
    }
    assert ours["spec"] == {
        "groups": [
            {
                "name": "dns",
                "rules": [
                    {
                        "alert": "DNSDown",
                        "expr": 'up{job="observability/nld"} == 0',
                        "for": "2m",
                        "labels": {"severity": "page", "team": "pytorch-dev-infra", "priority": "P3"},
                        "annotations": {"summary": "dns down", "description": "{{ $labels.instance }} is down"},
                    }
                ],
            }
        ]
    }


def test_two_constructs_of_one_kind_in_one_chart_need_distinct_names() -> None:
    def build(scope: Construct) -> None:
        ServiceAccount(scope, "a")
        ServiceAccount(scope, "b", ServiceAccountProps(name="node-local-dns-2"))

    objects = _synth_in_user_chart(build)

    assert sorted(obj["metadata"]["name"] for obj in objects if obj["kind"] == "ServiceAccount") == [
        "node-local-dns",
        "node-local-dns-2",
    ]


# --- construct props validate too ----------------------------------------------------------


def test_fails_when_upstream_selector_is_empty() -> None:
    with pytest.raises(ValueError, match=r"^selector: must select the cluster CoreDNS pods"):
        UpstreamServiceProps(selector={})


def test_fails_when_metrics_ports_clash() -> None:
    with pytest.raises(ValueError, match=r"^binary_metrics_port: 9253 clashes with metrics_port"):
        MetricsServiceProps(binary_metrics_port=9253)


def test_fails_when_object_name_is_not_a_dns_label() -> None:
    with pytest.raises(ValueError, match=r"^name: must be a DNS label"):
        ServiceAccountProps(name="Node_Local_DNS")


def test_fails_when_pod_labels_miss_the_selector() -> None:
    with pytest.raises(ValueError, match=r"^pod_labels: must include the selector"):
        NodeCacheDaemonSetProps(selector={"app": "nld"})


def test_fails_when_pod_monitor_interval_is_not_a_duration() -> None:
    with pytest.raises(ValueError, match=r"^interval: must be a Prometheus duration"):
        PodMonitorProps(interval="5x")


def test_fails_when_pod_monitor_target_namespace_is_invalid() -> None:
    with pytest.raises(ValueError, match=r"^target_namespace: must be a DNS label"):
        PodMonitorProps(target_namespace="Kube-System")
