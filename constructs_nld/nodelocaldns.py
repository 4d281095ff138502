"""``NodeLocalDNS``: the whole component as ordered charts, from one typed props object."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

import cdk8s
from constructs import Construct

from constructs_nld import defaults
from constructs_nld.corefile import node_local_dns_corefile
from constructs_nld.monitoring import (
    AlertRules,
    AlertRulesProps,
    GrafanaDashboard,
    GrafanaDashboardProps,
    PodMonitor,
    PodMonitorProps,
)
from constructs_nld.placeholders import KUBE_DNS_CLUSTER_IP
from constructs_nld.props import (
    CacheSettings,
    LivenessProbe,
    Ports,
    Toleration,
    check_dns_name,
    check_labels,
    default_tolerations,
    managed_by_labels,
)
from constructs_nld.rules import NodeLocalDNSAlerts, check_duration, node_local_dns_rules
from constructs_nld.services import (
    MetricsService,
    MetricsServiceProps,
    UpstreamService,
    UpstreamServiceProps,
)
from constructs_nld.workload import (
    CorefileConfigMap,
    CorefileConfigMapProps,
    NodeCacheDaemonSet,
    NodeCacheDaemonSetProps,
    ServiceAccount,
    ServiceAccountProps,
)

__all__ = ["ChartRole", "NodeLocalDNS", "NodeLocalDNSProps"]

ChartRole = Literal["services", "workload", "monitoring"]
"""What a chart holds, which is also its place in the apply order."""

_LABEL = r"[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?"
_DOMAIN = re.compile(rf"^(?=.{{1,253}}$){_LABEL}(?:\.{_LABEL})*$")


@dataclass(frozen=True, kw_only=True)
class NodeLocalDNSProps:
    """Everything that shapes the component; every default is the spec's value."""

    image: str = defaults.IMAGE
    """node-cache image. Default: registry.k8s.io/dns/k8s-dns-node-cache:1.26.8."""

    image_pull_policy: str = defaults.IMAGE_PULL_POLICY
    """Pull policy. Default: IfNotPresent."""

    local_ip: str = defaults.LOCAL_IP
    """Node-local address node-cache binds. Default: fd00::10 (ULA; link-local would need a zone)."""

    kube_dns_cluster_ip: str | None = None
    """The live kube-dns ClusterIP (IPv6). Default: - ``__KUBE_DNS_CLUSTER_IP__``, a preview that is not deployable."""

    cluster_domain: str = defaults.CLUSTER_DOMAIN
    """Cluster DNS domain, written out: node-cache does not fill ``__PILLAR__DNS__DOMAIN__``. Default: cluster.local."""

    namespace: str = defaults.NAMESPACE
    """Namespace of the Services, ServiceAccount, ConfigMap and DaemonSet. Default: kube-system."""

    monitoring_namespace: str = defaults.ALERTS_NAMESPACE
    """Namespace of the PodMonitor and PrometheusRule. Default: monitoring."""

    labels: Mapping[str, str] = field(default_factory=managed_by_labels)
    """Labels of every NLD object beside its ``k8s-app``. Default: ``app.kubernetes.io/managed-by: osdc-base``."""

    monitoring_labels: Mapping[str, str] = field(default_factory=lambda: dict(defaults.MONITORING_LABELS))
    """Labels of the monitoring objects. Default: ``app.kubernetes.io/part-of: osdc-monitoring``."""

    tolerations: tuple[Toleration, ...] = field(default_factory=default_tolerations)
    """Taints tolerated, listed explicitly. Default: - CriticalAddonsOnly, nvidia.com/gpu, node-fleet, instance-type."""

    cpu_request: str = defaults.CPU_REQUEST
    """CPU request. Default: 25m."""

    memory_request: str = defaults.MEMORY_REQUEST
    """Memory request. Default: 100Mi."""

    limits: Mapping[str, str] = field(default_factory=dict)
    """Limits other than CPU and memory (those are refused). Default: - none."""

    liveness: LivenessProbe = field(default_factory=LivenessProbe)
    """Liveness probe timings. Default: - 60 s delay, every 15 s, 5 s timeout, 5 failures."""

    ports: Ports = field(default_factory=Ports)
    """Listener ports. Default: - DNS 53, health 8080, metrics 9253, binary metrics 9353."""

    max_unavailable: str | int = defaults.MAX_UNAVAILABLE
    """DaemonSet rolling-update budget. Default: 1%."""

    termination_grace_period_seconds: int = defaults.TERMINATION_GRACE_PERIOD_SECONDS
    """Time for node-cache to remove its rules on SIGTERM. Default: 30."""

    cache: CacheSettings = field(default_factory=CacheSettings)
    """Corefile cache settings. Default: - success 9984/30 s, denial 9984/5 s, other zones 30 s."""

    alerts: NodeLocalDNSAlerts = field(default_factory=NodeLocalDNSAlerts)
    """``for`` and severity of each alert. Default: - 5m critical, 10m, 15m and 10m warning."""

    scrape_interval: str = defaults.SCRAPE_INTERVAL
    """Scrape interval of both metrics endpoints. Default: 60s."""

    monitoring: bool = True
    """Whether to emit the monitoring chart (needs the prometheus-operator CRDs). Default: True."""

    dashboard: bool = False
    """Whether the monitoring chart also holds the Grafana dashboard ConfigMap (``monitoring_namespace``).

    Off by default: only a Grafana dashboard sidecar watching that namespace for
    ``dashboard_labels`` makes use of it, which is a cluster's choice; and unlike the
    prometheus-operator kinds, a ConfigMap is applied even by ``deploy.py --skip-monitoring``.
    Default: False.
    """

    dashboard_labels: Mapping[str, str] = field(default_factory=lambda: dict(defaults.DASHBOARD_LABELS))
    """Labels of the dashboard ConfigMap: the sidecar's label. Default: ``grafana_dashboard: "1"``."""

    def __post_init__(self) -> None:
        """Validate every prop by building the parts' props once; the first bad one raises, naming itself."""
        if not _DOMAIN.match(self.cluster_domain):
            raise ValueError(
                f"cluster_domain: must be a DNS domain such as 'cluster.local', got {self.cluster_domain!r}"
            )
        check_dns_name("monitoring_namespace", self.monitoring_namespace)
        check_labels("labels", self.labels)
        check_labels("monitoring_labels", self.monitoring_labels)
        check_labels("dashboard_labels", self.dashboard_labels)
        if self.dashboard and not self.monitoring:
            raise ValueError("dashboard: needs monitoring=True (the dashboard joins the monitoring chart), got False")
        check_duration("scrape_interval", self.scrape_interval, positive=True)
        # The DaemonSet first: it checks the addresses, which the Corefile lint assumes valid.
        self.daemon_set_props()
        self.upstream_service_props()
        self.metrics_service_props()
        self.service_account_props()
        self.config_map_props()
        if self.monitoring:
            self.alert_rules_props()

    def _labels(self, app: Mapping[str, str]) -> dict[str, str]:
        return {**app, **self.labels}

    def upstream_service_props(self) -> UpstreamServiceProps:
        """Props of the kube-dns-upstream Service."""
        return UpstreamServiceProps(
            namespace=self.namespace,
            labels=self._labels(defaults.KUBE_DNS_SELECTOR),
            dns_port=self.ports.dns,
        )

    def metrics_service_props(self) -> MetricsServiceProps:
        """Props of the headless metrics Service."""
        return MetricsServiceProps(
            namespace=self.namespace,
            labels=self._labels(defaults.NODE_CACHE_APP_LABEL),
            metrics_port=self.ports.metrics,
            binary_metrics_port=self.ports.binary_metrics,
        )

    def service_account_props(self) -> ServiceAccountProps:
        """Props of the ServiceAccount."""
        return ServiceAccountProps(namespace=self.namespace, labels=self._labels(defaults.NODE_CACHE_APP_LABEL))

    def config_map_props(self) -> CorefileConfigMapProps:
        """Props of the Corefile ConfigMap."""
        return CorefileConfigMapProps(
            namespace=self.namespace,
            labels=self._labels(defaults.NODE_CACHE_APP_LABEL),
            corefile=node_local_dns_corefile(
                cluster_domain=self.cluster_domain,
                bind_addresses=(self.local_ip, self.kube_dns_cluster_ip or KUBE_DNS_CLUSTER_IP),
                health_address=self.local_ip,
                ports=self.ports,
                cache=self.cache,
            ),
        )

    def daemon_set_props(self) -> NodeCacheDaemonSetProps:
        """Props of the DaemonSet."""
        labels = self._labels(defaults.NODE_CACHE_APP_LABEL)
        return NodeCacheDaemonSetProps(
            namespace=self.namespace,
            labels=labels,
            pod_labels=labels,
            image=self.image,
            image_pull_policy=self.image_pull_policy,
            local_ip=self.local_ip,
            kube_dns_cluster_ip=self.kube_dns_cluster_ip,
            tolerations=self.tolerations,
            cpu_request=self.cpu_request,
            memory_request=self.memory_request,
            limits=self.limits,
            liveness=self.liveness,
            ports=self.ports,
            max_unavailable=self.max_unavailable,
            termination_grace_period_seconds=self.termination_grace_period_seconds,
        )

    def pod_monitor_props(self) -> PodMonitorProps:
        """Props of the PodMonitor."""
        return PodMonitorProps(
            namespace=self.monitoring_namespace,
            labels=dict(self.monitoring_labels),
            target_namespace=self.namespace,
            interval=self.scrape_interval,
        )

    def dashboard_props(self) -> GrafanaDashboardProps:
        """Props of the Grafana dashboard ConfigMap; its queries name the PodMonitor's job and this DaemonSet."""
        return GrafanaDashboardProps(
            namespace=self.monitoring_namespace,
            labels=dict(self.dashboard_labels),
            job=self.pod_monitor_props().job,
            target_namespace=self.namespace,
        )

    def alert_rules_props(self) -> AlertRulesProps:
        """Props of the PrometheusRule; its queries name this namespace and the PodMonitor's job."""
        return AlertRulesProps(
            namespace=self.monitoring_namespace,
            labels=dict(self.monitoring_labels),
            group=node_local_dns_rules(
                alerts=self.alerts,
                namespace=self.namespace,
                daemon_set=defaults.DAEMON_SET_NAME,
                container=defaults.CONTAINER_NAME,
                scrape_job=self.pod_monitor_props().job,
            ),
        )


class NodeLocalDNS(Construct):
    """NodeLocal DNSCache as ordered charts: services, then workload, then (optionally) monitoring.

    Each chart depends on the one before, so ``cdk8s synth`` numbers the files in apply
    order (``0000-…``, ``0001-…``, ``0002-…``). Monitoring is a chart of its own because
    its kinds exist only where the prometheus-operator CRDs are installed: a deploy can
    apply it last, or skip it, without touching the rest.
    """

    def __init__(self, scope: Construct, id: str, props: NodeLocalDNSProps | None = None) -> None:
        """Define the charts in ``scope`` (an App, or any construct under one)."""
        super().__init__(scope, id)
        self.props = props or NodeLocalDNSProps()
        p = self.props

        self.services_chart = cdk8s.Chart(self, "services")
        UpstreamService(self.services_chart, "upstream", p.upstream_service_props())
        MetricsService(self.services_chart, "metrics", p.metrics_service_props())

        self.workload_chart = cdk8s.Chart(self, "workload")
        ServiceAccount(self.workload_chart, "service-account", p.service_account_props())
        CorefileConfigMap(self.workload_chart, "corefile", p.config_map_props())
        NodeCacheDaemonSet(self.workload_chart, "daemon-set", p.daemon_set_props())
        self.workload_chart.add_dependency(self.services_chart)

        self.monitoring_chart: cdk8s.Chart | None = None
        if p.monitoring:
            self.monitoring_chart = cdk8s.Chart(self, "monitoring")
            PodMonitor(self.monitoring_chart, "pod-monitor", p.pod_monitor_props())
            AlertRules(self.monitoring_chart, "alert-rules", p.alert_rules_props())
            if p.dashboard:
                GrafanaDashboard(self.monitoring_chart, "dashboard", p.dashboard_props())
            self.monitoring_chart.add_dependency(self.workload_chart)

    @property
    def charts(self) -> tuple[tuple[ChartRole, cdk8s.Chart], ...]:
        """The charts with their roles, in apply order."""
        ordered: list[tuple[ChartRole, cdk8s.Chart]] = [
            ("services", self.services_chart),
            ("workload", self.workload_chart),
        ]
        if self.monitoring_chart is not None:
            ordered.append(("monitoring", self.monitoring_chart))
        return tuple(ordered)
