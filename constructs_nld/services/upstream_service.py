"""The ``kube-dns-upstream`` Service: a second ClusterIP in front of cluster CoreDNS.

node-cache intercepts traffic to the kube-dns ClusterIP, so it cannot forward cache
misses there without looping back into itself. It forwards to this Service instead,
whose address kubelet hands it as ``KUBE_DNS_UPSTREAM_SERVICE_HOST`` (``-upstreamsvc``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from constructs_nld import defaults
from constructs_nld.metadata import object_meta
from constructs_nld.props import (
    ObjectProps,
    TrafficDistribution,
    check_port,
    check_selector,
    check_service_name,
    check_traffic_distribution,
    props_or_defaults,
)
from constructs_nld.roles import Role
from constructs_nld.runtime import Construct, k8s

__all__ = ["UpstreamService", "UpstreamServiceProps"]


@dataclass(frozen=True, kw_only=True)
class UpstreamServiceProps(ObjectProps):
    """Props of :class:`UpstreamService`."""

    name: str = defaults.UPSTREAM_SERVICE_NAME
    """Service name; node-cache's ``-upstreamsvc`` must name it. Default: kube-dns-upstream."""

    namespace: str = defaults.NAMESPACE
    """The node-cache pods' namespace: kubelet injects same-namespace Services only. Default: kube-system."""

    labels: Mapping[str, str] = field(
        default_factory=lambda: {**defaults.KUBE_DNS_SELECTOR, **defaults.MANAGED_BY_LABEL}
    )
    """Labels of the Service. Default: ``k8s-app: kube-dns``, ``app.kubernetes.io/managed-by: osdc-base``."""

    selector: Mapping[str, str] = field(default_factory=lambda: dict(defaults.KUBE_DNS_SELECTOR))
    """Pods of cluster CoreDNS. Default: ``k8s-app: kube-dns`` (the deploy refuses any other live selector)."""

    dns_port: int = defaults.DNS_PORT
    """Port of the Service and of cluster CoreDNS, UDP and TCP. Default: 53.

    ``NodeLocalDNS`` keeps 53: node-cache forwards to the bare ClusterIP, which CoreDNS's
    ``forward`` dials on 53, and cluster CoreDNS listens on 53.
    """

    traffic_distribution: TrafficDistribution | None = None
    """``spec.trafficDistribution``: kube-proxy sends each node-cache's misses to cluster CoreDNS in its own zone.

    kube-proxy follows the zone hints the EndpointSlice controller writes for it, where every
    ready endpoint has one and one names the node's zone; elsewhere it uses every endpoint,
    as without the field. Default: - none (the spec's: misses go to every CoreDNS pod, in
    every zone).
    """

    def __post_init__(self) -> None:
        """Validate the identity, the selector, the port and the traffic distribution."""
        super().__post_init__()
        check_service_name("name", self.name)
        check_selector("selector", self.selector, "the cluster CoreDNS pods")
        check_port("dns_port", self.dns_port)
        check_traffic_distribution("traffic_distribution", self.traffic_distribution)


class _Service(k8s.KubeService):
    """A Service with ``spec.trafficDistribution``, which the Kubernetes 1.28 types of cdk8s-plus-28 lack (1.31 on).

    The typed Service renders only the fields its types know, so the field joins the rendering.
    """

    def __init__(self, scope: Construct, id: str, *, traffic_distribution: str | None, **props: Any) -> None:
        super().__init__(scope, id, **props)
        self._traffic_distribution = traffic_distribution

    def to_json(self) -> Any:
        """The Service's manifest, with ``spec.trafficDistribution`` when one is set."""
        manifest = super().to_json()
        if self._traffic_distribution is not None:
            manifest["spec"]["trafficDistribution"] = self._traffic_distribution
        return manifest


class UpstreamService(Construct):
    """The ``kube-dns-upstream`` Service, IPv6 single-stack, selecting cluster CoreDNS (zone-local, if asked)."""

    def __init__(self, scope: Construct, id: str, props: UpstreamServiceProps | None = None) -> None:
        """Define the Service in ``scope``."""
        super().__init__(scope, id)
        self.props = props_or_defaults(props, UpstreamServiceProps)
        p = self.props
        self.api_object = _Service(
            self,
            "Resource",
            traffic_distribution=p.traffic_distribution,
            metadata=object_meta(p, Role.UPSTREAM_SERVICE),
            spec=k8s.ServiceSpec(
                # Single-stack IPv6, declared rather than inherited from the cluster default.
                ip_family_policy="SingleStack",
                ip_families=["IPv6"],
                ports=[
                    k8s.ServicePort(
                        name=name,
                        port=p.dns_port,
                        protocol=protocol,
                        target_port=k8s.IntOrString.from_number(p.dns_port),
                    )
                    for name, protocol in (
                        (defaults.DNS_UDP_PORT_NAME, "UDP"),
                        (defaults.DNS_TCP_PORT_NAME, "TCP"),
                    )
                ],
                selector=dict(p.selector),
            ),
        )
