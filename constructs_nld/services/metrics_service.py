"""The ``node-local-dns-metrics`` headless Service, for pod-level metrics discovery.

Headless (``clusterIP: None``) because the PodMonitor scrapes every pod, not one
load-balanced address. Both metrics ports are declared: the CoreDNS plugin's metrics and
node-cache's own (``coredns_nodecache_setup_errors_total``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from constructs_nld import defaults
from constructs_nld.metadata import object_meta
from constructs_nld.props import ObjectProps, check_port, check_selector, check_service_name, props_or_defaults
from constructs_nld.roles import Role
from constructs_nld.runtime import Construct, k8s

__all__ = ["MetricsService", "MetricsServiceProps"]


@dataclass(frozen=True, kw_only=True)
class MetricsServiceProps(ObjectProps):
    """Props of :class:`MetricsService`."""

    name: str = defaults.METRICS_SERVICE_NAME
    """Service name. Default: node-local-dns-metrics."""

    namespace: str = defaults.NAMESPACE
    """Namespace of the node-cache pods. Default: kube-system."""

    labels: Mapping[str, str] = field(
        default_factory=lambda: {**defaults.NODE_CACHE_APP_LABEL, **defaults.MANAGED_BY_LABEL}
    )
    """Labels of the Service. Default: ``k8s-app: node-local-dns``, ``app.kubernetes.io/managed-by: osdc-base``."""

    selector: Mapping[str, str] = field(default_factory=lambda: dict(defaults.NODE_CACHE_APP_LABEL))
    """The node-cache pods. Default: ``k8s-app: node-local-dns``."""

    metrics_port: int = defaults.METRICS_PORT
    """CoreDNS ``prometheus`` plugin port. Default: 9253."""

    binary_metrics_port: int = defaults.BINARY_METRICS_PORT
    """node-cache's own metrics port. Default: 9353."""

    def __post_init__(self) -> None:
        """Validate the identity, the selector and the ports."""
        super().__post_init__()
        check_service_name("name", self.name)
        check_selector("selector", self.selector, "the node-cache pods")
        check_port("metrics_port", self.metrics_port)
        check_port("binary_metrics_port", self.binary_metrics_port)
        if self.metrics_port == self.binary_metrics_port:
            raise ValueError(f"binary_metrics_port: {self.binary_metrics_port} clashes with metrics_port")


class MetricsService(Construct):
    """The headless metrics Service, IPv6 single-stack, with ports ``metrics`` and ``metrics-binary``."""

    def __init__(self, scope: Construct, id: str, props: MetricsServiceProps | None = None) -> None:
        """Define the Service in ``scope``."""
        super().__init__(scope, id)
        self.props = props_or_defaults(props, MetricsServiceProps)
        p = self.props
        self.api_object = k8s.KubeService(
            self,
            "Resource",
            metadata=object_meta(p, Role.METRICS_SERVICE),
            spec=k8s.ServiceSpec(
                cluster_ip="None",
                # clusterIP None does not exempt a Service from a family; declare IPv6.
                ip_family_policy="SingleStack",
                ip_families=["IPv6"],
                ports=[
                    k8s.ServicePort(
                        name=name,
                        port=port,
                        protocol="TCP",
                        target_port=k8s.IntOrString.from_number(port),
                    )
                    for name, port in (
                        (defaults.METRICS_PORT_NAME, p.metrics_port),
                        (defaults.BINARY_METRICS_PORT_NAME, p.binary_metrics_port),
                    )
                ],
                selector=dict(p.selector),
            ),
        )
