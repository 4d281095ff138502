"""Zone files for the test bed's DNS servers: the cluster domain, its reverse zone, the "internet".

Pure code. The cluster zone answers what the CoreDNS ``kubernetes`` plugin would for the
Services listed (``<svc>.<ns>.svc.<domain>`` AAAA, SRV for named ports, ``ns.dns.<domain>``,
SOA with the plugin's 5 s TTLs), and NXDOMAIN for every other name in the domain.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "CLUSTER_TTL",
    "ExternalRecord",
    "ServiceRecord",
    "cluster_zone",
    "external_zone",
    "reverse_zone",
    "reverse_zone_origin",
    "root_zone",
]

CLUSTER_TTL = 5
"""TTL of every cluster answer and of the SOA minimum: the ``kubernetes`` plugin's default."""


@dataclass(frozen=True, kw_only=True)
class ServiceRecord:
    """A ClusterIP Service as DNS sees it."""

    namespace: str
    """Namespace of the Service."""

    name: str
    """Name of the Service."""

    cluster_ip: str
    """Its IPv6 ClusterIP."""

    tcp_ports: tuple[tuple[str, int], ...] = ()
    """Named TCP ports, published as SRV records. Default: - none."""

    def fqdn(self, domain: str) -> str:
        """``<name>.<namespace>.svc.<domain>.``."""
        return f"{self.name}.{self.namespace}.svc.{domain}."


@dataclass(frozen=True, kw_only=True)
class ExternalRecord:
    """An address record of a name outside the cluster: AAAA for an IPv6 address, A for IPv4."""

    name: str
    """Fully qualified name, without the trailing dot."""

    address: str
    """Its address; an IPv4 one makes an A record (an IPv4-only host, for dns64)."""

    def line(self) -> str:
        """The record's zone-file line."""
        rtype = "A" if ipaddress.ip_address(self.address).version == 4 else "AAAA"
        return f"{self.name}. IN {rtype} {self.address}"


def _soa(origin: str, domain: str, minimum: int) -> str:
    return f"{origin} IN SOA ns.dns.{domain}. hostmaster.{domain}. 1 7200 1800 86400 {minimum}"


def cluster_zone(*, domain: str, services: Iterable[ServiceRecord], dns_ip: str) -> str:
    """The cluster domain's zone file; ``dns_ip`` is the kube-dns ClusterIP (``ns.dns.<domain>``)."""
    lines = [
        f"$ORIGIN {domain}.",
        f"$TTL {CLUSTER_TTL}",
        _soa("@", domain, CLUSTER_TTL),
        f"@ IN NS ns.dns.{domain}.",
        f"ns.dns IN AAAA {dns_ip}",
    ]
    for service in services:
        lines.append(f"{service.fqdn(domain)} IN AAAA {service.cluster_ip}")
        for port_name, port in service.tcp_ports:
            lines.append(f"_{port_name}._tcp.{service.fqdn(domain)} IN SRV 0 100 {port} {service.fqdn(domain)}")
    return "\n".join(lines) + "\n"


def reverse_zone_origin(network: ipaddress.IPv6Network) -> str:
    """The ``ip6.arpa`` zone of a nibble-aligned network, without the trailing dot.

    >>> reverse_zone_origin(ipaddress.IPv6Network("fd00:ec2::/108"))
    '0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.2.c.e.0.0.0.d.f.ip6.arpa'
    """
    if network.prefixlen % 4:
        raise ValueError(f"network: must be nibble-aligned, got /{network.prefixlen}")
    nibbles = network.network_address.reverse_pointer.split(".")
    return ".".join(nibbles[(128 - network.prefixlen) // 4 :])


def reverse_zone(*, network: ipaddress.IPv6Network, domain: str, services: Iterable[ServiceRecord]) -> str:
    """PTR records of the Services' ClusterIPs in ``network``'s reverse zone."""
    lines = [
        f"$ORIGIN {reverse_zone_origin(network)}.",
        f"$TTL {CLUSTER_TTL}",
        _soa("@", domain, CLUSTER_TTL),
        f"@ IN NS ns.dns.{domain}.",
    ]
    for service in services:
        pointer = ipaddress.IPv6Address(service.cluster_ip).reverse_pointer
        lines.append(f"{pointer}. IN PTR {service.fqdn(domain)}")
    return "\n".join(lines) + "\n"


def external_zone(*, origin: str, records: Iterable[ExternalRecord], ttl: int = 300) -> str:
    """A public zone's file with the ``records`` under ``origin``."""
    lines = [
        f"$ORIGIN {origin}.",
        f"$TTL {ttl}",
        f"@ IN SOA ns.{origin}. hostmaster.{origin}. 1 7200 1800 86400 {ttl}",
        f"@ IN NS ns.{origin}.",
    ]
    lines += [record.line() for record in records]
    return "\n".join(lines) + "\n"


def root_zone() -> str:
    """A root zone with only SOA and NS: every name not served elsewhere is NXDOMAIN."""
    return "$ORIGIN .\n$TTL 300\n. IN SOA ns.root. hostmaster.root. 1 7200 1800 86400 300\n. IN NS ns.root.\n"
