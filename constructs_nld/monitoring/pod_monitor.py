"""The ``nodelocaldns`` PodMonitor: scrapes both metrics ports of every node-cache pod.

Two endpoints, as the spec requires: ``metrics-binary`` is node-cache's own metrics server,
which answers even when CoreDNS's ``prometheus`` plugin on ``metrics`` does not (a Corefile
that fails to load).
node-cache 1.26.8 serves one Prometheus registry on both ports, though: every series,
``coredns_nodecache_setup_errors_total`` included, is on each. Scraped as is, every series
would be ingested twice and every alert would fire twice per node. So each endpoint keeps
its half: ``metrics-binary`` only node-cache's own ``coredns_nodecache_*`` family,
``metrics`` everything else (minus the families production drops).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from constructs_nld import defaults
from constructs_nld.durations import check_duration
from constructs_nld.metadata import api_object_metadata
from constructs_nld.props import ObjectProps, check_dns_name, check_selector, props_or_defaults
from constructs_nld.roles import Role
from constructs_nld.runtime import Construct
from constructs_nld_imports.nld_podmonitor.com.coreos.monitoring import (
    PodMonitor as PodMonitorObject,
)
from constructs_nld_imports.nld_podmonitor.com.coreos.monitoring import (
    PodMonitorSpec,
    PodMonitorSpecNamespaceSelector,
    PodMonitorSpecPodMetricsEndpoints,
    PodMonitorSpecPodMetricsEndpointsMetricRelabelings,
    PodMonitorSpecPodMetricsEndpointsMetricRelabelingsAction,
    PodMonitorSpecPodMetricsEndpointsRelabelings,
    PodMonitorSpecPodMetricsEndpointsRelabelingsAction,
    PodMonitorSpecSelector,
)

__all__ = ["DROPPED_ON_PLUGIN", "NODE_CACHE_FAMILY", "PodMonitor", "PodMonitorProps"]

NODE_CACHE_FAMILY = "coredns_nodecache_.*"
"""node-cache's own metrics: scraped from ``metrics-binary`` only."""

DROPPED_ON_PLUGIN = ("go_.*", "process_.*", "coredns_.*_request_duration_seconds_bucket", NODE_CACHE_FAMILY)
"""Dropped on ``metrics``: production's drops (runtime families, latency buckets) and node-cache's family."""

_DROP = PodMonitorSpecPodMetricsEndpointsMetricRelabelingsAction.DROP
_KEEP = PodMonitorSpecPodMetricsEndpointsMetricRelabelingsAction.KEEP


@dataclass(frozen=True, kw_only=True)
class PodMonitorProps(ObjectProps):
    """Props of :class:`PodMonitor`."""

    name: str = defaults.POD_MONITOR_NAME
    """PodMonitor name; its targets get ``job="<namespace>/<name>"``. Default: nodelocaldns."""

    namespace: str = defaults.ALERTS_NAMESPACE
    """Namespace watched by Prometheus. Default: monitoring."""

    labels: Mapping[str, str] = field(default_factory=lambda: dict(defaults.MONITORING_LABELS))
    """Labels. Default: ``app.kubernetes.io/part-of: osdc-monitoring``."""

    target_namespace: str = defaults.NAMESPACE
    """Namespace of the node-cache pods. Default: kube-system."""

    selector: Mapping[str, str] = field(default_factory=lambda: dict(defaults.NODE_CACHE_APP_LABEL))
    """The node-cache pods. Default: ``k8s-app: node-local-dns``."""

    interval: str = defaults.SCRAPE_INTERVAL
    """Scrape interval of both endpoints. Default: 60s."""

    def __post_init__(self) -> None:
        """Validate the identity, the target and the interval."""
        super().__post_init__()
        check_dns_name("target_namespace", self.target_namespace)
        check_selector("selector", self.selector, "the node-cache pods")
        check_duration("interval", self.interval, positive=True)

    @property
    def job(self) -> str:
        """The ``job`` label prometheus-operator gives this PodMonitor's targets."""
        return f"{self.namespace}/{self.name}"


def _endpoint(
    port: str, interval: str, action: PodMonitorSpecPodMetricsEndpointsMetricRelabelingsAction, regexes: tuple[str, ...]
) -> PodMonitorSpecPodMetricsEndpoints:
    return PodMonitorSpecPodMetricsEndpoints(
        port=port,
        interval=interval,
        # Alerts name the node: no scraped series carries it unless relabeled from the pod.
        relabelings=[
            PodMonitorSpecPodMetricsEndpointsRelabelings(
                action=PodMonitorSpecPodMetricsEndpointsRelabelingsAction.REPLACE,
                source_labels=["__meta_kubernetes_pod_node_name"],
                target_label="node",
            )
        ],
        metric_relabelings=[
            PodMonitorSpecPodMetricsEndpointsMetricRelabelings(action=action, source_labels=["__name__"], regex=regex)
            for regex in regexes
        ],
    )


class PodMonitor(Construct):
    """The PodMonitor with endpoints ``metrics`` (the CoreDNS plugin's) and ``metrics-binary`` (node-cache's own)."""

    def __init__(self, scope: Construct, id: str, props: PodMonitorProps | None = None) -> None:
        """Define the PodMonitor in ``scope``."""
        super().__init__(scope, id)
        self.props = props_or_defaults(props, PodMonitorProps)
        p = self.props
        self.api_object = PodMonitorObject(
            self,
            "Resource",
            metadata=api_object_metadata(p, Role.POD_MONITOR),
            spec=PodMonitorSpec(
                selector=PodMonitorSpecSelector(match_labels=dict(p.selector)),
                namespace_selector=PodMonitorSpecNamespaceSelector(match_names=[p.target_namespace]),
                pod_metrics_endpoints=[
                    _endpoint(defaults.METRICS_PORT_NAME, p.interval, _DROP, DROPPED_ON_PLUGIN),
                    _endpoint(defaults.BINARY_METRICS_PORT_NAME, p.interval, _KEEP, (NODE_CACHE_FAMILY,)),
                ],
            ),
        )
