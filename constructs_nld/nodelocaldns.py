"""``NodeLocalDNS``: the whole component as ordered charts, from one typed props object."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from constructs_nld import defaults
from constructs_nld.alerts import NodeLocalDNSAlerts, check_routing_labels, node_local_dns_alerts
from constructs_nld.dns import CacheSettings, DnsOptions, node_local_dns_corefile
from constructs_nld.durations import check_duration
from constructs_nld.keeper import Keeper
from constructs_nld.monitoring import (
    GrafanaDashboard,
    GrafanaDashboardProps,
    PodMonitor,
    PodMonitorProps,
    PrometheusRule,
    PrometheusRuleProps,
)
from constructs_nld.placeholders import KUBE_DNS_CLUSTER_IP, LOCAL_DNS
from constructs_nld.props import (
    TrafficDistribution,
    check_dns_name,
    check_labels,
    check_traffic_distribution,
    check_types,
    check_unreserved,
    managed_by_labels,
    props_or_defaults,
)
from constructs_nld.roles import PHASES, Phase
from constructs_nld.runtime import Construct, cdk8s
from constructs_nld.services import (
    MetricsService,
    MetricsServiceProps,
    UpstreamService,
    UpstreamServiceProps,
)
from constructs_nld.workload import (
    CorefileConfigMap,
    CorefileConfigMapProps,
    KeeperConfigMap,
    KeeperConfigMapProps,
    NodeCacheDaemonSet,
    NodeCacheDaemonSetProps,
    NodeCacheOptions,
    ServiceAccount,
    ServiceAccountProps,
)
from constructs_nld.workload.node_cache_options import node_cache_options

__all__ = ["NodeLocalDNS", "NodeLocalDNSParts", "NodeLocalDNSProps", "chart_prefix"]

_LABEL = r"[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?"
_DOMAIN = re.compile(rf"(?=.{{1,253}}\Z){_LABEL}(?:\.{_LABEL})*")
# A chart id is a plain file name only if it is a DNS label (at most 63 characters):
# room for the longest phase suffix, "-monitoring".
_PREFIX_MAX = 63 - len("-monitoring")


def chart_prefix(component: Construct) -> str:
    """The DNS-label form of ``component``'s construct path, which starts its charts' ids.

    Lower case, each run of other characters than letters and digits turned into one
    ``-``, cut to leave room for the phase: ``nodelocaldns`` stays ``nodelocaldns``,
    ``My Chart/NLD`` becomes ``my-chart-nld``.
    """
    label = re.sub(r"[^a-z0-9]+", "-", component.node.path.lower())[:_PREFIX_MAX].strip("-")
    if not label:
        raise ValueError(f"id: must contain a letter or a digit, got {component.node.id!r}")
    return label


@dataclass(frozen=True)
class NodeLocalDNSParts:
    """The props of every part, built once from :class:`NodeLocalDNSProps` (which validates by building them)."""

    upstream_service: UpstreamServiceProps
    metrics_service: MetricsServiceProps
    service_account: ServiceAccountProps
    corefile: CorefileConfigMapProps
    keeper_config: KeeperConfigMapProps | None
    """In the fallthrough mode only."""
    daemon_set: NodeCacheDaemonSetProps
    pod_monitor: PodMonitorProps | None
    """With ``monitoring`` only, as the next two."""
    prometheus_rule: PrometheusRuleProps | None
    dashboard: GrafanaDashboardProps | None
    """With ``dashboard`` only."""


@dataclass(frozen=True, kw_only=True)
class NodeLocalDNSProps(DnsOptions, NodeCacheOptions):
    """Everything that shapes the component; every default is the spec's value.

    The node-cache options (image, addresses, interception, resources, probe, rollout,
    scheduling) are :class:`~constructs_nld.workload.NodeCacheOptions`, shared with the
    DaemonSet's props; what node-cache serves beyond the spec's blocks is
    :class:`~constructs_nld.dns.DnsOptions`; the fields below are the component's own.
    """

    argocd_sync_waves: bool = False
    """Annotate every object with ``argocd.argoproj.io/sync-wave``: Services 0, workload 1, monitoring 2.

    For Argo CD applying the output: the Services exist before the DaemonSet's pods, as
    kubelet's Service variables need. Default: False (no annotation the spec does not have).
    """

    cluster_domain: str = defaults.CLUSTER_DOMAIN
    """Cluster DNS domain, written out: node-cache does not fill ``__PILLAR__DNS__DOMAIN__``. Default: cluster.local.

    Replaces: deliveryhero ``config.dnsDomain``; kubespray ``dns_domain``; kops ``kubeDNS.domain``.
    """

    namespace: str = defaults.NAMESPACE
    """Namespace of the Services, ServiceAccount, ConfigMap and DaemonSet: kube-dns's, so only kube-system.

    node-cache learns the upstream address from the Service variables kubelet injects,
    which come only from Services in the pod's own namespace, and kube-dns-upstream
    selects kube-dns pods only in its own namespace: in any other namespace the DaemonSet
    would find no kube-dns-upstream, or kube-dns-upstream no endpoints. Default: kube-system.
    """

    monitoring_namespace: str = defaults.ALERTS_NAMESPACE
    """Namespace of the PodMonitor and PrometheusRule. Default: monitoring.

    Replaces: deliveryhero ``serviceMonitor.prometheusNamespace`` and ``dashboard.namespace``.
    """

    labels: Mapping[str, str] = field(default_factory=managed_by_labels)
    """Labels of every NLD object and its pods (a change rolls them) beside its own ``k8s-app``, which they may not set.

    They replace the default; they also go onto the node-cache pod template, so a change rolls
    every pod, ``max_unavailable`` at a time: labels meant for the objects alone are cheaper
    as a deploy of their own, and labels meant for the pods alone belong in ``pod_labels``.
    Default: ``app.kubernetes.io/managed-by: osdc-base``.
    """

    pod_labels: Mapping[str, str] = field(default_factory=dict)
    """Labels of the node-cache pods beside their selector's, which they may not override. Default: - none.

    Replaces: deliveryhero ``podLabels``; lablabs ``podLabels``.
    """

    monitoring_labels: Mapping[str, str] = field(default_factory=lambda: dict(defaults.MONITORING_LABELS))
    """Labels of the monitoring objects. Default: ``app.kubernetes.io/part-of: osdc-monitoring``.

    Replaces: deliveryhero ``serviceMonitor.labels``.
    """

    upstream_traffic_distribution: TrafficDistribution | None = None
    """``trafficDistribution`` of kube-dns-upstream: each node's cache misses go to cluster CoreDNS in its zone.

    ``PreferSameZone`` (Kubernetes 1.34 on; ``PreferClose`` is the same from 1.31 on) keeps
    the misses of a node in a zone that runs CoreDNS within that zone: no cross-zone
    traffic billed, one hop less. It needs the ``topology.kubernetes.io/zone`` label on the
    nodes (the EndpointSlice controller's zone hints come from it); ``verify`` says when the
    hints are missing, or when the API server dropped the field. ``deploy`` refuses a value
    the API server does not take. ``PreferSameNode`` prefers a CoreDNS pod on the same node.
    Default: - none (the spec's: every CoreDNS pod, in every zone).
    Replaces: none offers this (deliveryhero was asked for it, helm-charts#738, closed for inactivity).
    """

    cache: CacheSettings = field(default_factory=CacheSettings)
    """Corefile cache settings of the spec's blocks, and their prefetch and serve_stale (off).

    Default: - success 9984/30 s, denial 9984/5 s, other zones 30 s. Replaces: deliveryhero ``config.cacheTTL``,
    ``config.prefetch`` and ``config.serveStale``.
    """

    alerts: NodeLocalDNSAlerts = field(default_factory=NodeLocalDNSAlerts)
    """``for`` and severity of each alert. Default: - 5m critical, 10m, 15m and 10m warning."""

    alert_labels: Mapping[str, str] | None = None
    """Routing labels of every alert beside ``severity``, replacing the spec's (one place for your team's).

    An alert whose ``AlertSettings.labels`` you set yourself keeps those.
    Default: - the spec's, ``team: pytorch-dev-infra``, ``priority: P3``.
    Replaces: none of the other deployers ships alerts.
    """

    scrape_interval: str = defaults.SCRAPE_INTERVAL
    """Scrape interval of both metrics endpoints. Default: 60s.

    Replaces: deliveryhero ``serviceMonitor.interval``.
    """

    monitoring: bool = True
    """Whether to emit the monitoring chart (needs the prometheus-operator CRDs). Default: True.

    Replaces: deliveryhero ``serviceMonitor.enabled`` and ``prometheusScraping.enabled``.
    """

    dashboard: bool = False
    """Whether the monitoring chart also holds the Grafana dashboard ConfigMap (``monitoring_namespace``).

    Off by default: only a Grafana dashboard sidecar watching that namespace for
    ``dashboard_labels`` makes use of it, which is a cluster's choice; and unlike the
    prometheus-operator kinds, a ConfigMap is applied even by ``deploy.py --skip-monitoring``.
    Default: False. Replaces: deliveryhero ``dashboard.enabled``.
    """

    dashboard_labels: Mapping[str, str] = field(default_factory=lambda: dict(defaults.DASHBOARD_LABELS))
    """Labels of the dashboard ConfigMap: the sidecar's label. Default: ``grafana_dashboard: "1"``.

    Replaces: deliveryhero ``dashboard.label``.
    """

    parts: NodeLocalDNSParts = field(init=False, repr=False, compare=False)
    """The props of every part, built once when these props are (not a parameter)."""

    def __post_init__(self) -> None:
        """Validate every prop, then build the parts' props once; the first bad one raises, naming itself.

        Every prop is checked here, by the node-cache options or by a part's props, which take
        the same names, so a part's props never fail on a name this class does not have.
        """
        check_types(self)
        if not _DOMAIN.fullmatch(self.cluster_domain):
            raise ValueError(
                f"cluster_domain: must be a DNS domain such as 'cluster.local', got {self.cluster_domain!r}"
            )
        check_dns_name("namespace", self.namespace)
        if self.namespace != defaults.NAMESPACE:
            raise ValueError(
                f"namespace: must be {defaults.NAMESPACE!r}, the namespace of kube-dns, got {self.namespace!r} "
                "(node-cache finds kube-dns-upstream only through the Service variables kubelet injects from "
                "the pod's own namespace, and kube-dns-upstream selects kube-dns pods only in its own)"
            )
        check_dns_name("monitoring_namespace", self.monitoring_namespace)
        check_labels("labels", self.labels)
        for key in (*defaults.NODE_CACHE_APP_LABEL, *defaults.KUBE_DNS_SELECTOR):
            if key in self.labels:
                raise ValueError(
                    f"labels: must not set {key!r}, got {key}={self.labels[key]!r} (each object has its own "
                    f"{key} label, which selectors match: node-cache's pods, kube-dns's pods)"
                )
        check_unreserved("labels", self.labels)
        check_labels("pod_labels", self.pod_labels)
        for key in defaults.NODE_CACHE_APP_LABEL:
            if key in self.pod_labels:
                raise ValueError(
                    f"pod_labels: must not set {key!r}, got {key}={self.pod_labels[key]!r} (the DaemonSet's selector "
                    "matches the pods by it, and a selector is immutable)"
                )
        check_labels("monitoring_labels", self.monitoring_labels)
        if self.alert_labels is not None:
            check_routing_labels("alert_labels", self.alert_labels)
        check_unreserved("monitoring_labels", self.monitoring_labels)
        check_labels("dashboard_labels", self.dashboard_labels)
        check_unreserved("dashboard_labels", self.dashboard_labels)
        if self.dashboard and not self.monitoring:
            raise ValueError("dashboard: needs monitoring=True (the dashboard joins the monitoring chart), got False")
        check_duration("scrape_interval", self.scrape_interval, positive=True)
        check_traffic_distribution("upstream_traffic_distribution", self.upstream_traffic_distribution)
        # The options first: they check the addresses, which the Corefile lint assumes valid,
        # and write them in RFC 5952 form, which every part then takes from here.
        self.check_node_cache_options()
        self.check_dns_options(
            self.cluster_domain,
            local_ip=self.local_ip,
            kube_dns_cluster_ip=self.kube_dns_cluster_ip,
            portable=self.portable,
        )
        object.__setattr__(self, "parts", self._build_parts())

    def _labels(self, app: Mapping[str, str]) -> dict[str, str]:
        return {**app, **self.labels}

    def _build_parts(self) -> NodeLocalDNSParts:
        """Each part's props, from these: names stay the parts' defaults, which every part references."""
        node_cache_labels = self._labels(defaults.NODE_CACHE_APP_LABEL)
        keeper = Keeper(local_ip=self.local_ip, kube_dns_cluster_ip=self.kube_dns_cluster_ip, ports=self.ports)
        pod_monitor = (
            PodMonitorProps(
                namespace=self.monitoring_namespace,
                labels=dict(self.monitoring_labels),
                target_namespace=self.namespace,
                interval=self.scrape_interval,
            )
            if self.monitoring
            else None
        )
        return NodeLocalDNSParts(
            upstream_service=UpstreamServiceProps(
                namespace=self.namespace,
                labels=self._labels(defaults.KUBE_DNS_SELECTOR),
                # Cluster CoreDNS's port: node-cache's `forward . <kube-dns-upstream IP>` dials it.
                dns_port=defaults.DNS_PORT,
                traffic_distribution=self.upstream_traffic_distribution,
            ),
            metrics_service=MetricsServiceProps(
                namespace=self.namespace,
                labels=node_cache_labels,
                metrics_port=self.ports.metrics,
                binary_metrics_port=self.ports.binary_metrics,
            ),
            service_account=ServiceAccountProps(namespace=self.namespace, labels=node_cache_labels),
            corefile=CorefileConfigMapProps(
                namespace=self.namespace,
                labels=node_cache_labels,
                corefile=node_local_dns_corefile(
                    cluster_domain=self.cluster_domain,
                    bind_addresses=(
                        (LOCAL_DNS,)
                        if self.portable
                        else (self.local_ip, self.kube_dns_cluster_ip or KUBE_DNS_CLUSTER_IP)
                    ),
                    health_address=self.local_ip,
                    ports=self.ports,
                    cache=self.cache,
                    dns=self,
                    kube_dns_cluster_ip=self.kube_dns_cluster_ip,
                ),
            ),
            keeper_config=(
                KeeperConfigMapProps(
                    name=keeper.config_map_name(), namespace=self.namespace, labels=node_cache_labels, keeper=keeper
                )
                if self.interception == "fallthrough"
                else None
            ),
            daemon_set=NodeCacheDaemonSetProps(
                namespace=self.namespace,
                labels=node_cache_labels,
                pod_labels={**node_cache_labels, **self.pod_labels},
                keeper_config_map_name=keeper.config_map_name(),
                **node_cache_options(self),
            ),
            pod_monitor=pod_monitor,
            prometheus_rule=(
                PrometheusRuleProps(
                    namespace=self.monitoring_namespace,
                    labels=dict(self.monitoring_labels),
                    group=node_local_dns_alerts(
                        alerts=self.alerts,
                        namespace=self.namespace,
                        daemon_set=defaults.DAEMON_SET_NAME,
                        container=defaults.CONTAINER_NAME,
                        scrape_job=pod_monitor.job,
                        routing=self.alert_labels,
                    ),
                )
                if pod_monitor is not None
                else None
            ),
            dashboard=(
                GrafanaDashboardProps(
                    namespace=self.monitoring_namespace,
                    labels=dict(self.dashboard_labels),
                    job=pod_monitor.job,
                    target_namespace=self.namespace,
                )
                if pod_monitor is not None and self.dashboard
                else None
            ),
        )


class NodeLocalDNS(Construct):
    """NodeLocal DNSCache as ordered charts: services, then workload, then (optionally) monitoring.

    Each chart depends on the one before, so ``cdk8s synth`` numbers the files in apply
    order. Monitoring is a chart of its own because its kinds exist only where the
    prometheus-operator CRDs are installed: a deploy can apply it last, or skip it,
    without touching the rest.

    The charts sit at the root of the app, beside the user's own charts, with ids
    ``<prefix>-services``, ``<prefix>-workload`` and ``<prefix>-monitoring``: cdk8s names
    a chart's file after its construct path and adds a hash unless that path is a single
    DNS label, so only top-level charts get plain, stable file names
    (``0000-nodelocaldns-services.k8s.yaml``). The prefix is this construct's path as a
    DNS label (``nodelocaldns``; ``my-chart-nld`` when placed in a chart ``my-chart``).
    """

    def __init__(self, scope: Construct, id: str, props: NodeLocalDNSProps | None = None) -> None:
        """Define the component in ``scope`` (an App, or any construct under one) and its charts in the App."""
        super().__init__(scope, id)
        self.props = props_or_defaults(props, NodeLocalDNSProps)
        parts = self.props.parts
        prefix = chart_prefix(self)
        app = cdk8s.App.of(self)

        self.services_chart = cdk8s.Chart(app, f"{prefix}-services")
        UpstreamService(self.services_chart, "upstream", parts.upstream_service)
        MetricsService(self.services_chart, "metrics", parts.metrics_service)

        self.workload_chart = cdk8s.Chart(app, f"{prefix}-workload")
        ServiceAccount(self.workload_chart, "service-account", parts.service_account)
        CorefileConfigMap(self.workload_chart, "corefile", parts.corefile)
        if parts.keeper_config is not None:
            KeeperConfigMap(self.workload_chart, "keeper-config", parts.keeper_config)
        NodeCacheDaemonSet(self.workload_chart, "daemon-set", parts.daemon_set)
        self.workload_chart.add_dependency(self.services_chart)

        self.monitoring_chart: cdk8s.Chart | None = None
        if parts.pod_monitor is not None and parts.prometheus_rule is not None:
            self.monitoring_chart = cdk8s.Chart(app, f"{prefix}-monitoring")
            PodMonitor(self.monitoring_chart, "pod-monitor", parts.pod_monitor)
            PrometheusRule(self.monitoring_chart, "alert-rules", parts.prometheus_rule)
            if parts.dashboard is not None:
                GrafanaDashboard(self.monitoring_chart, "dashboard", parts.dashboard)
            self.monitoring_chart.add_dependency(self.workload_chart)

        if self.props.argocd_sync_waves:
            for phase, chart in self.charts:
                for child in chart.node.find_all():
                    if isinstance(child, cdk8s.ApiObject):
                        child.metadata.add_annotation(defaults.ARGOCD_SYNC_WAVE_ANNOTATION, str(PHASES.index(phase)))

    @property
    def charts(self) -> tuple[tuple[Phase, cdk8s.Chart], ...]:
        """The charts with their phases, in apply order."""
        ordered: list[tuple[Phase, cdk8s.Chart]] = [
            ("services", self.services_chart),
            ("workload", self.workload_chart),
        ]
        if self.monitoring_chart is not None:
            ordered.append(("monitoring", self.monitoring_chart))
        return tuple(ordered)
