"""Snapshots: the full synth (preview and deployable) and a defaults and a custom-props object per construct.

Update with ``pytest tests/snapshot --snapshot-update`` and review the diff like code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cdk8s
import pytest
import yaml
from constructs import Construct
from syrupy.assertion import SnapshotAssertion

from constructs_nld import (
    AlertGroup,
    AlertRule,
    AlertSettings,
    CacheSettings,
    Corefile,
    CorefileConfigMap,
    CorefileConfigMapProps,
    Directive,
    Dns64,
    ForwardOptions,
    ForwardZone,
    GrafanaDashboard,
    GrafanaDashboardProps,
    HostEntry,
    Keeper,
    KeeperConfigMap,
    KeeperConfigMapProps,
    LivenessProbe,
    MetricsService,
    MetricsServiceProps,
    NodeAffinity,
    NodeCacheDaemonSet,
    NodeCacheDaemonSetProps,
    NodeLocalDNSAlerts,
    NodeLocalDNSProps,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PodMonitor,
    PodMonitorProps,
    Ports,
    PreferredTerm,
    Prefetch,
    PrometheusRule,
    PrometheusRuleProps,
    ServerBlock,
    ServeStale,
    ServiceAccount,
    ServiceAccountProps,
    Toleration,
    UpstreamService,
    UpstreamServiceProps,
    ZoneCache,
    synthesize,
)

Build = Callable[[Construct], Any]


class _ReadableDumper(yaml.SafeDumper):
    """Multi-line strings (the Corefile) as ``|`` blocks, as a reviewer reads them in dist/."""


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style="|" if "\n" in data else None)


_ReadableDumper.add_representer(str, _represent_str)


def _yaml_by_chart(props: NodeLocalDNSProps) -> dict[str, str]:
    """Each chart's objects as the YAML a reviewer reads in dist/, keyed by the chart's role."""
    return {
        chart.phase: yaml.dump_all(chart.objects, Dumper=_ReadableDumper, sort_keys=False, width=1000)
        for chart in synthesize(props)
    }


def _synth_alone(build: Build) -> dict[str, Any]:
    chart = cdk8s.Chart(cdk8s.App(), "snapshot")
    build(chart)
    (only,) = cdk8s.Testing.synth(chart)
    return dict(only)


# --- the whole component -------------------------------------------------------------------


def test_full_synth_preview(snapshot: SnapshotAssertion) -> None:
    assert _yaml_by_chart(NodeLocalDNSProps()) == snapshot


def test_full_synth_with_cluster_ip(snapshot: SnapshotAssertion) -> None:
    assert _yaml_by_chart(NodeLocalDNSProps(kube_dns_cluster_ip="fd00:ec2::a")) == snapshot


def test_full_synth_custom_props(snapshot: SnapshotAssertion) -> None:
    props = NodeLocalDNSProps(
        kube_dns_cluster_ip="fd00:ec2::a",
        local_ip="fd00::53",
        cluster_domain="example.internal",
        monitoring_namespace="observability",
        labels={"app.kubernetes.io/managed-by": "platform", "team": "dns"},
        monitoring_labels={"team": "sre"},
        tolerations=(Toleration(key="dedicated", operator="Equal", value="dns", effect="NoExecute"),),
        cpu_request="50m",
        memory_request="200Mi",
        limits={"ephemeral-storage": "1Gi"},
        liveness=LivenessProbe(initial_delay_seconds=30, period_seconds=10, timeout_seconds=3, failure_threshold=6),
        ports=Ports(health=8081, metrics=9254, binary_metrics=9354),
        max_unavailable=3,
        termination_grace_period_seconds=60,
        cache=CacheSettings(
            success_capacity=1000, success_ttl=60, denial_capacity=500, denial_ttl=10, other_zones_ttl=15
        ),
        alerts=NodeLocalDNSAlerts(setup_errors=AlertSettings(for_="2m", severity="page")),
        scrape_interval="30s",
    )

    assert _yaml_by_chart(props) == snapshot


def test_full_synth_portable_with_argocd_sync_waves(snapshot: SnapshotAssertion) -> None:
    assert _yaml_by_chart(NodeLocalDNSProps(portable=True, argocd_sync_waves=True)) == snapshot


def test_full_synth_without_monitoring(snapshot: SnapshotAssertion) -> None:
    assert _yaml_by_chart(NodeLocalDNSProps(monitoring=False)) == snapshot


def test_full_synth_fallthrough(snapshot: SnapshotAssertion) -> None:
    assert _yaml_by_chart(NodeLocalDNSProps(kube_dns_cluster_ip="fd00:ec2::a", interception="fallthrough")) == snapshot


def test_full_synth_fallthrough_without_privilege(snapshot: SnapshotAssertion) -> None:
    props = NodeLocalDNSProps(kube_dns_cluster_ip="fd00:ec2::a", interception="fallthrough", privileged=False)

    assert _yaml_by_chart(props) == snapshot


def test_full_synth_without_privilege(snapshot: SnapshotAssertion) -> None:
    assert _yaml_by_chart(NodeLocalDNSProps(kube_dns_cluster_ip="fd00:ec2::a", privileged=False)) == snapshot


def test_full_synth_with_dashboard(snapshot: SnapshotAssertion) -> None:
    props = NodeLocalDNSProps(dashboard=True, dashboard_labels={"grafana_dashboard": "1", "team": "dns"})
    assert _yaml_by_chart(props)["monitoring"] == snapshot


# --- the knob groups beyond the spec (issue 19): the workload chart each one changes ------------

_CORP = ForwardZone(
    names=("corp.example", "corp.internal"),
    upstreams=("fd03::100", "[fd03::101]:5353"),
    forward=ForwardOptions(protocol="prefer_udp", max_fails=3, policy="sequential", max_concurrent=100),
    cache=ZoneCache(ttl=60, denial_ttl=5, serve_stale=ServeStale(duration="30m")),
)

KNOB_GROUPS = {
    "zones": NodeLocalDNSProps(zones=(_CORP,)),
    "upstreams-and-forwarding": NodeLocalDNSProps(
        upstream_servers=("fd03::200", "[fd03::201]:5353"),
        upstream_forward=ForwardOptions(protocol="force_tcp", max_concurrent=1000),
        cluster_forward=ForwardOptions(protocol="force_tcp", expire="30s", health_check="1s"),
    ),
    "cache-behaviour": NodeLocalDNSProps(
        cache=CacheSettings(prefetch=Prefetch(amount=10, percentage=20), serve_stale=ServeStale(mode="verify"))
    ),
    "static-records": NodeLocalDNSProps(
        zones=(_CORP,),
        hosts=(
            HostEntry(name="registry.corp.example", addresses=("fd03::a1",)),
            HostEntry(name="mirror.example.net", addresses=("2001:db8::1",)),
        ),
    ),
    "query-log-and-dns64": NodeLocalDNSProps(query_log=("denial", "error"), dns64=Dns64()),
    "extra-server-blocks": NodeLocalDNSProps(
        extra_server_blocks=(
            ServerBlock(
                zone="lab.example",
                port=53,
                directives=(
                    Directive("bind", ("fd00::10",)),
                    Directive("template", ("IN", "AAAA", "lab.example"), (Directive("rcode", ("NXDOMAIN",)),)),
                ),
            ),
        )
    ),
    "scheduling": NodeLocalDNSProps(
        node_selector={"node-fleet": "cpu"},
        affinity=NodeAffinity(
            required=(
                NodeSelectorTerm(
                    match_expressions=(NodeSelectorRequirement(key="instance-type", operator="NotIn", values=("t3",)),)
                ),
            ),
            preferred=(
                PreferredTerm(
                    weight=50,
                    term=NodeSelectorTerm(
                        match_expressions=(NodeSelectorRequirement(key="karpenter.sh/nodepool", operator="Exists"),)
                    ),
                ),
            ),
        ),
        priority_class_name="dns-critical",
        image_pull_secrets=("registry-creds",),
        pod_annotations={"team.example/owner": "dns"},
        pod_labels={"tier": "node"},
        update_strategy="OnDelete",
    ),
    "kube-dns-configmap-not-mounted": NodeLocalDNSProps(read_kube_dns_config_map=False),
}


@pytest.mark.parametrize("group", list(KNOB_GROUPS))
def test_knob_group(group: str, snapshot: SnapshotAssertion) -> None:
    assert _yaml_by_chart(KNOB_GROUPS[group])["workload"] == snapshot


# --- each construct: defaults --------------------------------------------------------------


@pytest.mark.parametrize(
    "build",
    [
        pytest.param(lambda scope: UpstreamService(scope, "c"), id="UpstreamService"),
        pytest.param(lambda scope: MetricsService(scope, "c"), id="MetricsService"),
        pytest.param(lambda scope: ServiceAccount(scope, "c"), id="ServiceAccount"),
        pytest.param(lambda scope: CorefileConfigMap(scope, "c"), id="CorefileConfigMap"),
        pytest.param(lambda scope: KeeperConfigMap(scope, "c"), id="KeeperConfigMap"),
        pytest.param(lambda scope: NodeCacheDaemonSet(scope, "c"), id="NodeCacheDaemonSet"),
        pytest.param(lambda scope: PodMonitor(scope, "c"), id="PodMonitor"),
        pytest.param(lambda scope: PrometheusRule(scope, "c"), id="PrometheusRule"),
        pytest.param(lambda scope: GrafanaDashboard(scope, "c"), id="GrafanaDashboard"),
    ],
)
def test_defaults(build: Build, snapshot: SnapshotAssertion) -> None:
    assert _synth_alone(build) == snapshot


# --- each construct: custom props ----------------------------------------------------------

CUSTOM_COREFILE = Corefile(
    cluster_domain="example.internal",
    blocks=(
        ServerBlock(
            zone="example.internal",
            port=53,
            directives=(
                Directive("errors"),
                Directive("bind", ("fd00::53",)),
                Directive("forward", (".", "__PILLAR__CLUSTER__DNS__"), (Directive("force_tcp"),)),
                Directive("health", ("[fd00::53]:8081",)),
            ),
        ),
        ServerBlock(
            zone=".",
            port=53,
            directives=(Directive("bind", ("fd00::53",)), Directive("forward", (".", "__PILLAR__UPSTREAM__SERVERS__"))),
        ),
    ),
)

CUSTOM_GROUP = AlertGroup(
    name="dns",
    rules=(
        AlertRule(
            alert="DNSCacheDown",
            expr='up{job="observability/nld"} == 0',
            settings=AlertSettings(for_="2m", severity="page"),
            summary="a node-cache target is down",
            description="{{ $labels.node }} is not scraped",
        ),
    ),
)


@pytest.mark.parametrize(
    "build",
    [
        pytest.param(
            lambda scope: UpstreamService(
                scope,
                "c",
                UpstreamServiceProps(
                    name="coredns-upstream",
                    namespace="dns",
                    labels={"team": "dns"},
                    selector={"app": "coredns"},
                    dns_port=5353,
                ),
            ),
            id="UpstreamService",
        ),
        pytest.param(
            lambda scope: MetricsService(
                scope,
                "c",
                MetricsServiceProps(
                    name="nld-metrics",
                    namespace="dns",
                    labels={"team": "dns"},
                    selector={"app": "nld"},
                    metrics_port=9254,
                    binary_metrics_port=9354,
                ),
            ),
            id="MetricsService",
        ),
        pytest.param(
            lambda scope: ServiceAccount(scope, "c", ServiceAccountProps(name="nld", namespace="dns", labels={})),
            id="ServiceAccount",
        ),
        pytest.param(
            lambda scope: CorefileConfigMap(
                scope,
                "c",
                CorefileConfigMapProps(
                    name="nld-config", namespace="dns", labels={"team": "dns"}, corefile=CUSTOM_COREFILE
                ),
            ),
            id="CorefileConfigMap",
        ),
        pytest.param(
            lambda scope: NodeCacheDaemonSet(
                scope,
                "c",
                NodeCacheDaemonSetProps(
                    name="nld",
                    namespace="dns",
                    labels={"team": "dns"},
                    selector={"app": "nld"},
                    pod_labels={"app": "nld", "team": "dns"},
                    image="registry.example.com/dns/k8s-dns-node-cache:1.26.8",
                    image_pull_policy="Always",
                    local_ip="fd00::53",
                    kube_dns_cluster_ip="fd00:ec2::a",
                    tolerations=(Toleration(key="dedicated", operator="Equal", value="dns", effect="NoExecute"),),
                    cpu_request="50m",
                    memory_request="200Mi",
                    limits={"ephemeral-storage": "1Gi"},
                    liveness=LivenessProbe(initial_delay_seconds=30, period_seconds=10),
                    ports=Ports(health=8081, binary_metrics=9354),
                    max_unavailable="10%",
                    termination_grace_period_seconds=45,
                    priority_class_name="system-cluster-critical",
                    service_account_name="nld",
                    config_map_name="nld-config",
                    upstream_service_name="coredns-upstream",
                ),
            ),
            id="NodeCacheDaemonSet",
        ),
        pytest.param(
            lambda scope: KeeperConfigMap(
                scope,
                "c",
                KeeperConfigMapProps(
                    name="nld-fallthrough",
                    namespace="dns",
                    labels={"team": "dns"},
                    keeper=Keeper(local_ip="fd00::53", kube_dns_cluster_ip="fd00:ec2::a", ports=Ports(health=8081)),
                ),
            ),
            id="KeeperConfigMap",
        ),
        pytest.param(
            lambda scope: NodeCacheDaemonSet(
                scope,
                "c",
                NodeCacheDaemonSetProps(
                    name="nld",
                    namespace="dns",
                    kube_dns_cluster_ip="fd00:ec2::a",
                    interception="fallthrough",
                    privileged=False,
                    keeper_config_map_name="nld-fallthrough",
                ),
            ),
            id="NodeCacheDaemonSet-fallthrough",
        ),
        pytest.param(
            lambda scope: PodMonitor(
                scope,
                "c",
                PodMonitorProps(
                    name="nld",
                    namespace="observability",
                    labels={"team": "sre"},
                    target_namespace="dns",
                    selector={"app": "nld"},
                    interval="30s",
                ),
            ),
            id="PodMonitor",
        ),
        pytest.param(
            lambda scope: PrometheusRule(
                scope,
                "c",
                PrometheusRuleProps(
                    name="dns-alerts", namespace="observability", labels={"team": "sre"}, group=CUSTOM_GROUP
                ),
            ),
            id="PrometheusRule",
        ),
        pytest.param(
            lambda scope: GrafanaDashboard(
                scope,
                "c",
                GrafanaDashboardProps(
                    name="dns-dashboard",
                    namespace="grafana",
                    labels={"grafana_dashboard": "dns"},
                    job="observability/nld",
                    target_namespace="dns",
                    daemon_set="nld",
                    container="cache",
                    uid="dns-cache",
                    title="DNS cache",
                ),
            ),
            id="GrafanaDashboard",
        ),
    ],
)
def test_custom_props(build: Build, snapshot: SnapshotAssertion) -> None:
    assert _synth_alone(build) == snapshot
