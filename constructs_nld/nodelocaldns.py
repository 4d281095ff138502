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
from constructs_nld.fallthrough import FallthroughRules
from constructs_nld.monitoring import (
    AlertRules,
    AlertRulesProps,
    GrafanaDashboard,
    GrafanaDashboardProps,
    PodMonitor,
    PodMonitorProps,
)
from constructs_nld.placeholders import KUBE_DNS_CLUSTER_IP, LOCAL_DNS
from constructs_nld.props import (
    CacheSettings,
    LivenessProbe,
    Ports,
    Toleration,
    check_dns_name,
    check_labels,
    check_types,
    default_tolerations,
    managed_by_labels,
    props_or_defaults,
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
    FallthroughConfigMap,
    FallthroughConfigMapProps,
    NodeCacheDaemonSet,
    NodeCacheDaemonSetProps,
    ServiceAccount,
    ServiceAccountProps,
)

__all__ = ["ChartRole", "NodeLocalDNS", "NodeLocalDNSProps", "chart_prefix"]

ChartRole = Literal["services", "workload", "monitoring"]
"""What a chart holds, which is also its place in the apply order."""

_LABEL = r"[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?"
_DOMAIN = re.compile(rf"(?=.{{1,253}}\Z){_LABEL}(?:\.{_LABEL})*")
# A chart id is a plain file name only if it is a DNS label (at most 63 characters):
# room for the longest role suffix, "-monitoring".
_PREFIX_MAX = 63 - len("-monitoring")


def chart_prefix(component: Construct) -> str:
    """The DNS-label form of ``component``'s construct path, which starts its charts' ids.

    Lower case, each run of other characters than letters and digits turned into one
    ``-``, cut to leave room for the role: ``nodelocaldns`` stays ``nodelocaldns``,
    ``My Chart/NLD`` becomes ``my-chart-nld``.
    """
    label = re.sub(r"[^a-z0-9]+", "-", component.node.path.lower())[:_PREFIX_MAX].strip("-")
    if not label:
        raise ValueError(f"id: must contain a letter or a digit, got {component.node.id!r}")
    return label


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

    portable: bool = False
    """Manifests that hold no cluster value: kubelet gives node-cache the kube-dns ClusterIP.

    The DaemonSet passes ``-localip <local_ip>,$(KUBE_DNS_SERVICE_HOST)``, which kubelet
    expands from the Service variables of the pod's namespace, and the Corefile binds
    ``__PILLAR__LOCAL__DNS__``, which node-cache fills with every ``-localip`` value. The
    output is deployable as synthesized, so a GitOps controller can apply ``dist/``.
    ``kube_dns_cluster_ip`` (and ``$KUBE_DNS_CLUSTER_IP``) then stay unused. Default:
    False — the spec's form, the address pinned by the deploy, visible in review.
    """

    argocd_sync_waves: bool = False
    """Annotate every object with ``argocd.argoproj.io/sync-wave``: Services 0, workload 1, monitoring 2.

    For Argo CD applying the output: the Services exist before the DaemonSet's pods, as
    kubelet's Service variables need. Default: False (no annotation the spec does not have).
    """

    cluster_domain: str = defaults.CLUSTER_DOMAIN
    """Cluster DNS domain, written out: node-cache does not fill ``__PILLAR__DNS__DOMAIN__``. Default: cluster.local."""

    namespace: str = defaults.NAMESPACE
    """Namespace of the Services, ServiceAccount, ConfigMap and DaemonSet: kube-dns's, so only kube-system.

    node-cache learns the upstream address from the Service variables kubelet injects,
    which come only from Services in the pod's own namespace, and kube-dns-upstream
    selects kube-dns pods only in its own namespace: in any other namespace the DaemonSet
    would find no kube-dns-upstream, or kube-dns-upstream no endpoints. Default: kube-system.
    """

    monitoring_namespace: str = defaults.ALERTS_NAMESPACE
    """Namespace of the PodMonitor and PrometheusRule. Default: monitoring."""

    labels: Mapping[str, str] = field(default_factory=managed_by_labels)
    """Labels of every NLD object beside its own ``k8s-app``, which they may not set.

    Default: ``app.kubernetes.io/managed-by: osdc-base``.
    """

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

    interception: Literal["node-cache", "fallthrough"] = defaults.INTERCEPTION
    """Who diverts the pods' queries to node-cache. Default: node-cache (the spec's).

    ``fallthrough`` adds a keeper container and its ConfigMap: the pods' lookups fall
    through to cluster CoreDNS the moment node-cache dies, however it dies (README,
    "Interception modes").
    """

    privileged: bool = defaults.PRIVILEGED
    """Run the containers privileged (the spec's). Default: True; False grants only the capabilities measured."""

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
        """Validate every prop, then build the parts' props once; the first bad one raises, naming itself.

        Every prop is checked here or by the DaemonSet's props, which take the same names,
        so a part's props never fail on a name this class does not have.
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
        check_labels("monitoring_labels", self.monitoring_labels)
        check_labels("dashboard_labels", self.dashboard_labels)
        if self.dashboard and not self.monitoring:
            raise ValueError("dashboard: needs monitoring=True (the dashboard joins the monitoring chart), got False")
        check_duration("scrape_interval", self.scrape_interval, positive=True)
        # The DaemonSet first: it checks the addresses, which the Corefile lint assumes valid,
        # and writes them in RFC 5952 form, which every other part then takes from here.
        daemon_set = self.daemon_set_props()
        object.__setattr__(self, "local_ip", daemon_set.local_ip)
        object.__setattr__(self, "kube_dns_cluster_ip", daemon_set.kube_dns_cluster_ip)
        self.upstream_service_props()
        self.metrics_service_props()
        self.service_account_props()
        self.config_map_props()
        if self.interception == "fallthrough":
            self.fallthrough_config_map_props()
        if self.monitoring:
            self.alert_rules_props()

    def _labels(self, app: Mapping[str, str]) -> dict[str, str]:
        return {**app, **self.labels}

    def upstream_service_props(self) -> UpstreamServiceProps:
        """Props of the kube-dns-upstream Service."""
        return UpstreamServiceProps(
            namespace=self.namespace,
            labels=self._labels(defaults.KUBE_DNS_SELECTOR),
            # Cluster CoreDNS's port: node-cache's `forward . <kube-dns-upstream IP>` dials 53.
            dns_port=defaults.DNS_PORT,
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
                bind_addresses=(
                    (LOCAL_DNS,) if self.portable else (self.local_ip, self.kube_dns_cluster_ip or KUBE_DNS_CLUSTER_IP)
                ),
                health_address=self.local_ip,
                ports=self.ports,
                cache=self.cache,
            ),
        )

    def fallthrough_config_map_props(self) -> FallthroughConfigMapProps:
        """Props of the fallthrough keeper's ConfigMap: the rules for the DaemonSet's addresses and ports."""
        return FallthroughConfigMapProps(
            namespace=self.namespace,
            labels=self._labels(defaults.NODE_CACHE_APP_LABEL),
            rules=FallthroughRules(
                local_ip=self.local_ip, kube_dns_cluster_ip=self.kube_dns_cluster_ip, ports=self.ports
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
            portable=self.portable,
            tolerations=self.tolerations,
            cpu_request=self.cpu_request,
            memory_request=self.memory_request,
            limits=self.limits,
            liveness=self.liveness,
            ports=self.ports,
            max_unavailable=self.max_unavailable,
            termination_grace_period_seconds=self.termination_grace_period_seconds,
            interception=self.interception,
            privileged=self.privileged,
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
        p = self.props
        prefix = chart_prefix(self)
        app = cdk8s.App.of(self)

        self.services_chart = cdk8s.Chart(app, f"{prefix}-services")
        UpstreamService(self.services_chart, "upstream", p.upstream_service_props())
        MetricsService(self.services_chart, "metrics", p.metrics_service_props())

        self.workload_chart = cdk8s.Chart(app, f"{prefix}-workload")
        ServiceAccount(self.workload_chart, "service-account", p.service_account_props())
        CorefileConfigMap(self.workload_chart, "corefile", p.config_map_props())
        if p.interception == "fallthrough":
            FallthroughConfigMap(self.workload_chart, "fallthrough-rules", p.fallthrough_config_map_props())
        NodeCacheDaemonSet(self.workload_chart, "daemon-set", p.daemon_set_props())
        self.workload_chart.add_dependency(self.services_chart)

        self.monitoring_chart: cdk8s.Chart | None = None
        if p.monitoring:
            self.monitoring_chart = cdk8s.Chart(app, f"{prefix}-monitoring")
            PodMonitor(self.monitoring_chart, "pod-monitor", p.pod_monitor_props())
            AlertRules(self.monitoring_chart, "alert-rules", p.alert_rules_props())
            if p.dashboard:
                GrafanaDashboard(self.monitoring_chart, "dashboard", p.dashboard_props())
            self.monitoring_chart.add_dependency(self.workload_chart)

        if p.argocd_sync_waves:
            for wave, (_, chart) in enumerate(self.charts):
                for child in chart.node.find_all():
                    if isinstance(child, cdk8s.ApiObject):
                        child.metadata.add_annotation(defaults.ARGOCD_SYNC_WAVE_ANNOTATION, str(wave))

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
