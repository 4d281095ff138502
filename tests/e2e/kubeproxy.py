"""kube-proxy's part of a node, in iptables mode: the ``nat`` rules for ClusterIP Services.

Pure code: :func:`nat_rules` returns ``ip6tables-restore --noflush`` input with the chains
kube-proxy's iptables proxier writes for a ClusterIP Service port — ``KUBE-SERVICES``
(entered from ``PREROUTING`` for pod traffic and ``OUTPUT`` for the node's own), one
``KUBE-SVC-*`` per Service port and protocol, one ``KUBE-SEP-*`` per endpoint doing the
``DNAT`` — with kube-proxy's chain names (sha256 + base32 of the port name and protocol) and
comments, so ``ip6tables-save`` on the test node reads like a real node's.

Left out, because no flow in the test bed needs them: ``KUBE-NODEPORTS``, the ``filter``
table chains (``KUBE-FORWARD``, ``KUBE-SERVICES`` rejects; every policy here is ACCEPT) and the
``! -s <cluster CIDR> -j KUBE-MARK-MASQ`` rule, which kube-proxy writes only with
``--cluster-cidr`` (unset on EKS).
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

__all__ = ["ServicePort", "endpoint_chain", "nat_rules", "service_chain"]

MASQUERADE_MARK = "0x4000"
"""kube-proxy's default ``--iptables-masquerade-bit`` 14."""


@dataclass(frozen=True, kw_only=True)
class ServicePort:
    """One port of a ClusterIP Service and the endpoints behind it."""

    namespace: str
    """Namespace of the Service."""

    service: str
    """Name of the Service."""

    port_name: str
    """Name of the port in the Service spec, e.g. ``dns`` or ``dns-tcp``."""

    protocol: Literal["udp", "tcp"]
    """Protocol, lower case as kube-proxy hashes it."""

    cluster_ip: str
    """The Service's IPv6 ClusterIP."""

    port: int
    """The Service port."""

    endpoints: tuple[tuple[str, int], ...]
    """``(pod IP, target port)`` of each ready endpoint."""

    @property
    def name(self) -> str:
        """kube-proxy's ``ServicePortName.String()``: ``namespace/service:port``."""
        return f"{self.namespace}/{self.service}:{self.port_name}"


def _hash16(text: str) -> str:
    return base64.b32encode(hashlib.sha256(text.encode()).digest()).decode()[:16]


def _host_port(ip: str, port: int) -> str:
    """Go's ``net.JoinHostPort``: IPv6 literals in brackets."""
    return f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}"


def service_chain(port: ServicePort) -> str:
    """kube-proxy's ``servicePortChainName``: ``KUBE-SVC-`` + 16 base32 chars of sha256(name + protocol)."""
    return "KUBE-SVC-" + _hash16(port.name + port.protocol)


def endpoint_chain(port: ServicePort, ip: str, target_port: int) -> str:
    """kube-proxy's ``servicePortEndpointChainName``: as the service chain, with ``[ip]:port`` appended."""
    return "KUBE-SEP-" + _hash16(port.name + port.protocol + _host_port(ip, target_port))


def _cidr(ip: str) -> str:
    return f"{ipaddress.IPv6Address(ip)}/128"


def nat_rules(ports: Iterable[ServicePort]) -> str:
    """``ip6tables-restore --noflush`` input installing kube-proxy's ``nat`` rules for ``ports``.

    With one endpoint per port, the ``KUBE-SVC-*`` chain jumps straight to its only
    ``KUBE-SEP-*`` (kube-proxy adds ``-m statistic --mode random`` rules only from two).
    """
    ports = tuple(ports)
    chains = ["KUBE-SERVICES", "KUBE-POSTROUTING", "KUBE-MARK-MASQ"]
    rules = [
        '-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES',
        '-A OUTPUT -m comment --comment "kubernetes service portals" -j KUBE-SERVICES',
        '-A POSTROUTING -m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING',
        f"-A KUBE-MARK-MASQ -j MARK --or-mark {MASQUERADE_MARK}",
        f"-A KUBE-POSTROUTING -m mark ! --mark {MASQUERADE_MARK}/{MASQUERADE_MARK} -j RETURN",
        f"-A KUBE-POSTROUTING -j MARK --xor-mark {MASQUERADE_MARK}",
        '-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" '
        "-j MASQUERADE --random-fully",
    ]
    for port in ports:
        if len(port.endpoints) != 1:
            raise ValueError(f"endpoints: {port.name} needs exactly one endpoint here, got {len(port.endpoints)}")
        svc = service_chain(port)
        proto = port.protocol
        chains.append(svc)
        rules.append(
            f"-A KUBE-SERVICES -d {_cidr(port.cluster_ip)} -p {proto} "
            f'-m comment --comment "{port.name} cluster IP" -m {proto} --dport {port.port} -j {svc}'
        )
        for ip, target_port in port.endpoints:
            sep = endpoint_chain(port, ip, target_port)
            chains.append(sep)
            rules += [
                f'-A {svc} -m comment --comment "{port.name} -> {_host_port(ip, target_port)}" -j {sep}',
                f'-A {sep} -s {_cidr(ip)} -m comment --comment "{port.name}" -j KUBE-MARK-MASQ',
                f'-A {sep} -p {proto} -m comment --comment "{port.name}" -m {proto} '
                f"-j DNAT --to-destination {_host_port(ip, target_port)}",
            ]
    lines = ["*nat", *(f":{chain} - [0:0]" for chain in chains), *rules, "COMMIT"]
    return "\n".join(lines) + "\n"
