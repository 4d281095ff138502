"""Typed, validated value types shared by the constructs, and their validators.

Every validator raises ``ValueError`` whose message starts with the prop name, shows the
value received and says what was expected, so a bad value fails at synth time and points
at the line that set it.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from cdk8s_plus_28 import k8s

from constructs_nld import defaults

__all__ = [
    "CacheSettings",
    "ObjectProps",
    "LivenessProbe",
    "Ports",
    "Toleration",
    "check_ipv6_address",
    "check_labels",
    "check_dns_name",
    "check_positive",
    "check_same_family",
    "check_selector",
    "check_tolerations",
    "default_tolerations",
    "empty_mapping",
    "managed_by_labels",
]

TaintEffect = Literal["NoSchedule", "PreferNoSchedule", "NoExecute"]

_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_LABEL_NAME = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)$")
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")


def check_ipv6_address(prop: str, value: str) -> ipaddress.IPv6Address:
    """Parse ``value`` as a bare IPv6 address that a DNS server can bind, or raise.

    The component is IPv6-only (the spec's deploy refuses IPv4), CoreDNS cannot bind a
    zone-scoped address, and the address goes bare into ``bind`` and ``-localip``.
    """
    if not isinstance(value, str) or not value:
        raise ValueError(f"{prop}: must be an IPv6 address, got {value!r}")
    if value.startswith("["):
        raise ValueError(f"{prop}: must be a bare IPv6 address without brackets, got {value!r}")
    try:
        address = ipaddress.ip_address(value)
    except ValueError:
        raise ValueError(f"{prop}: must be an IPv6 address, got {value!r} (not an IP address)") from None
    if address.version == 4:
        raise ValueError(f"{prop}: must be an IPv6 address, got IPv4 {value!r} (this component is IPv6-only)")
    assert isinstance(address, ipaddress.IPv6Address)
    if address.scope_id is not None:
        raise ValueError(f"{prop}: must not be zone-scoped, got {value!r} (CoreDNS cannot bind a zone-scoped address)")
    if address.is_link_local:
        raise ValueError(
            f"{prop}: must not be link-local, got {value!r} "
            "(binding fe80::/10 needs a zone, which CoreDNS does not support; "
            "use a ULA such as fd00::10)"
        )
    if address.is_unspecified or address.is_multicast or address.ipv4_mapped:
        raise ValueError(f"{prop}: must be a unicast IPv6 address, got {value!r}")
    return address


def check_same_family(prop: str, first: str, second: str) -> None:
    """Raise when two addresses are of different families.

    node-cache exits when the ``-localip`` values mix address families.
    """
    try:
        versions = {ipaddress.ip_address(first).version, ipaddress.ip_address(second).version}
    except ValueError:
        return
    if len(versions) > 1:
        raise ValueError(
            f"{prop}: {second!r} and {first!r} are of different address families "
            "(node-cache exits when -localip mixes IPv4 and IPv6)"
        )


def check_dns_name(prop: str, value: str) -> None:
    """Raise unless ``value`` is an RFC 1123 DNS label (Kubernetes object and namespace names)."""
    if not isinstance(value, str) or len(value) > 63 or not _DNS_LABEL.match(value):
        raise ValueError(
            f"{prop}: must be a DNS label (lower-case alphanumerics and '-', at most 63 characters), got {value!r}"
        )


def check_positive(prop: str, value: int, *, allow_zero: bool = False) -> None:
    """Raise unless ``value`` is a positive int (or zero where allowed)."""
    low = 0 if allow_zero else 1
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        expected = "a non-negative integer" if allow_zero else "a positive integer"
        raise ValueError(f"{prop}: must be {expected}, got {value!r}")


def check_labels(prop: str, labels: Mapping[str, str]) -> None:
    """Raise unless every key and value is a valid Kubernetes label key and value."""
    for key, value in labels.items():
        prefix, _, name = key.rpartition("/")
        if (
            not name
            or len(name) > 63
            or not _LABEL_NAME.match(name)
            or (prefix and not re.match(r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$", prefix))
        ):
            raise ValueError(f"{prop}: {key!r} is not a valid label key")
        if not isinstance(value, str) or len(value) > 63 or not _LABEL_VALUE.match(value):
            raise ValueError(f"{prop}: value {value!r} of {key!r} is not a valid label value")


@dataclass(frozen=True, kw_only=True)
class Toleration:
    """One taint the node-cache pods tolerate.

    The list is explicit on purpose: ``operator: Exists`` without a key would tolerate
    ``karpenter.sh/unschedulable`` and node-not-ready taints too.
    """

    key: str
    """Taint key. Required: a keyless toleration matches every taint."""

    operator: Literal["Equal", "Exists"] = "Equal"
    """``Equal`` matches ``value``; ``Exists`` matches any value of ``key``. Default: Equal."""

    value: str | None = None
    """Taint value for ``Equal``; must be unset for ``Exists``. Default: - none."""

    effect: TaintEffect | None = None
    """Taint effect to tolerate. Default: - every effect."""

    def __post_init__(self) -> None:
        """Validate like the API server, plus the spec's no-wildcard rule."""
        if not self.key:
            if self.operator == "Exists":
                raise ValueError(
                    "tolerations: operator 'Exists' with no key tolerates every taint "
                    "(including karpenter.sh/unschedulable and not-ready taints); "
                    "list the taint keys explicitly"
                )
            raise ValueError(f"tolerations: a toleration needs a key, got {self.key!r}")
        if self.operator not in ("Equal", "Exists"):
            raise ValueError(f"tolerations: operator must be 'Equal' or 'Exists', got {self.operator!r}")
        if self.operator == "Exists" and self.value is not None:
            raise ValueError(f"tolerations: operator 'Exists' takes no value, got {self.value!r} for key {self.key!r}")
        if self.effect not in (None, "NoSchedule", "PreferNoSchedule", "NoExecute"):
            raise ValueError(
                f"tolerations: effect must be NoSchedule, PreferNoSchedule or NoExecute, got {self.effect!r}"
            )


def default_tolerations() -> tuple[Toleration, ...]:
    """The spec's explicit toleration list (base nodes, GPU pools, Karpenter fleets, instance types)."""
    return tuple(
        Toleration(key=key, operator=operator, value=value, effect=effect)
        for key, operator, value, effect in defaults.TOLERATIONS
    )


def check_tolerations(prop: str, tolerations: tuple[Toleration, ...]) -> None:
    """Raise when the list is empty: the pods would not run on tainted base or GPU nodes."""
    if not tolerations:
        raise ValueError(
            f"{prop}: must list at least one toleration, got an empty list "
            "(node-cache must run on the tainted base, GPU and fleet nodes)"
        )


@dataclass(frozen=True, kw_only=True)
class LivenessProbe:
    """Timings of the ``/health`` liveness probe.

    Tuned for setup latency and ConfigMap reload windows: 5 failures x 15 s = 75 s of
    failed probes before kubelet restarts the pod (the kubelet default gives 30 s).
    """

    initial_delay_seconds: int = defaults.LIVENESS_INITIAL_DELAY_SECONDS
    """Seconds before the first probe. Default: 60."""

    period_seconds: int = defaults.LIVENESS_PERIOD_SECONDS
    """Seconds between probes. Default: 15."""

    timeout_seconds: int = defaults.LIVENESS_TIMEOUT_SECONDS
    """Seconds a probe may take. Default: 5."""

    failure_threshold: int = defaults.LIVENESS_FAILURE_THRESHOLD
    """Consecutive failures before a restart. Default: 5."""

    def __post_init__(self) -> None:
        """Every timing is a positive integer."""
        check_positive("liveness.initial_delay_seconds", self.initial_delay_seconds, allow_zero=True)
        check_positive("liveness.period_seconds", self.period_seconds)
        check_positive("liveness.timeout_seconds", self.timeout_seconds)
        check_positive("liveness.failure_threshold", self.failure_threshold)


@dataclass(frozen=True, kw_only=True)
class Ports:
    """The ports node-cache listens on; they share the host network, so they must differ."""

    dns: int = defaults.DNS_PORT
    """DNS over UDP and TCP. Default: 53."""

    health: int = defaults.HEALTH_PORT
    """CoreDNS ``health`` listener on the local IP (node-cache ``-health-port``). Default: 8080."""

    metrics: int = defaults.METRICS_PORT
    """CoreDNS ``prometheus`` plugin. Default: 9253."""

    binary_metrics: int = defaults.BINARY_METRICS_PORT
    """node-cache's own metrics (``coredns_nodecache_*``). Default: 9353."""

    def __post_init__(self) -> None:
        """Each port is in range and no two are equal."""
        seen: dict[int, str] = {}
        for name in ("dns", "health", "metrics", "binary_metrics"):
            port = getattr(self, name)
            if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
                raise ValueError(f"ports.{name}: must be a port number 1-65535, got {port!r}")
            if port in seen:
                raise ValueError(
                    f"ports.{name}: {port} clashes with ports.{seen[port]} "
                    "(all listeners share the node's network namespace)"
                )
            seen[port] = name


@dataclass(frozen=True, kw_only=True)
class CacheSettings:
    """CoreDNS ``cache`` settings of the four server blocks."""

    success_capacity: int = defaults.CLUSTER_DOMAIN_CACHE_SUCCESS[0]
    """Positive answers kept for the cluster domain. Default: 9984."""

    success_ttl: int = defaults.CLUSTER_DOMAIN_CACHE_SUCCESS[1]
    """Max seconds a positive cluster-domain answer is cached. Default: 30."""

    denial_capacity: int = defaults.CLUSTER_DOMAIN_CACHE_DENIAL[0]
    """Negative answers kept for the cluster domain. Default: 9984."""

    denial_ttl: int = defaults.CLUSTER_DOMAIN_CACHE_DENIAL[1]
    """Max seconds a negative cluster-domain answer is cached. Default: 5."""

    other_zones_ttl: int = defaults.OTHER_ZONES_CACHE_TTL
    """Max seconds answers are cached in the reverse and catch-all blocks. Default: 30."""

    def __post_init__(self) -> None:
        """Capacities and TTLs are positive integers."""
        for name in ("success_capacity", "success_ttl", "denial_capacity", "denial_ttl", "other_zones_ttl"):
            check_positive(f"cache.{name}", getattr(self, name))


def managed_by_labels() -> dict[str, str]:
    """A fresh copy of the managed-by label, the default extra label of every NLD object."""
    return dict(defaults.MANAGED_BY_LABEL)


def empty_mapping() -> dict[str, str]:
    """An empty mapping, for props whose default is 'none'."""
    return {}


@dataclass(frozen=True, kw_only=True)
class ObjectProps:
    """Identity of one Kubernetes object: name, namespace and labels.

    Object names are public API (the deploy, ``verify`` and the spec's smoke tests look
    objects up by name), so every construct writes an explicit name, never a hashed one.
    """

    name: str
    """``metadata.name``."""

    namespace: str
    """``metadata.namespace``."""

    labels: Mapping[str, str]
    """``metadata.labels``, complete: nothing else is added."""

    def __post_init__(self) -> None:
        """Validate the name, the namespace and the labels."""
        check_dns_name("name", self.name)
        check_dns_name("namespace", self.namespace)
        check_labels("labels", self.labels)

    def object_meta(self) -> k8s.ObjectMeta:
        """The typed ``metadata`` of the object."""
        return k8s.ObjectMeta(name=self.name, namespace=self.namespace, labels=dict(self.labels))


def check_selector(prop: str, selector: Mapping[str, str], what: str) -> None:
    """Raise unless ``selector`` is a non-empty, valid label selector of ``what``."""
    check_labels(prop, selector)
    if not selector:
        raise ValueError(f"{prop}: must select {what}, got an empty selector")
