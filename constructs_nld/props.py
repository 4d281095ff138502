"""Typed, validated value types shared by the constructs, and their validators.

Every validator raises ``ValueError`` whose message starts with the prop name, shows the
value received and says what was expected, so a bad value fails at synth time and points
at the line that set it. The rules are the API server's (object names, label keys and
values, tolerations, integer widths) and node-cache's (addresses, ports), so that what
passes here is accepted by both.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import re
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeVar

from constructs_nld import defaults
from constructs_nld.roles import RESERVED_LABEL_PREFIXES

__all__ = [
    "INT32_MAX",
    "SAFE_INT_MAX",
    "Interception",
    "LivenessProbe",
    "ObjectProps",
    "Ports",
    "Toleration",
    "TrafficDistribution",
    "canonical_ipv6",
    "check_ipv6_address",
    "check_label_value",
    "check_labels",
    "check_dns_name",
    "check_dns_subdomain",
    "check_port",
    "check_positive",
    "check_qualified_name",
    "check_same_family",
    "check_service_name",
    "check_selector",
    "check_tolerations",
    "check_traffic_distribution",
    "check_types",
    "check_unreserved",
    "default_tolerations",
    "managed_by_labels",
    "props_or_defaults",
]

TaintEffect = Literal["NoSchedule", "PreferNoSchedule", "NoExecute"]

Interception = Literal["node-cache", "fallthrough"]
"""Who diverts the pods' queries to node-cache: node-cache's own rules (the spec's), or the fallthrough keeper's."""

TrafficDistribution = Literal["PreferClose", "PreferSameZone", "PreferSameNode"]
"""Where kube-proxy sends a Service's traffic first: endpoints in the client's zone, or on its node."""


def check_traffic_distribution(prop: str, value: str | None) -> None:
    """Raise unless ``value`` is None or a ``trafficDistribution`` Kubernetes defines (:data:`TrafficDistribution`)."""
    if value is not None and value not in defaults.TRAFFIC_DISTRIBUTION_SINCE:
        since = defaults.TRAFFIC_DISTRIBUTION_SINCE
        choices = ", ".join(f"{name} (Kubernetes {minor})" for name, minor in since.items())
        raise ValueError(f"{prop}: must be one of {choices}, or None, got {value!r}")


INT32_MAX: Final = 2**31 - 1
"""Largest value of a Kubernetes ``int32`` field (probe timings, ports, ``maxUnavailable``)."""

SAFE_INT_MAX: Final = 2**53 - 1
"""Largest integer that reaches a manifest intact: cdk8s runs on jsii, whose numbers are
JavaScript doubles, so a Kubernetes ``int64`` field (``terminationGracePeriodSeconds``)
above it would be rounded, and ``2**63 - 1`` rounded up past what the API server decodes."""

_DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_LABEL_NAME = re.compile(r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?")
_LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")

# Address ranges node-cache cannot serve pods on, with the reason given to the user. Every
# other unicast address is accepted, including ULAs (fd00::10, the default), global
# addresses and the documentation ranges 2001:db8::/32 and 3fff::/20: to the kernel and to
# node-cache those are ordinary unicast addresses, and lab clusters use them.
_REFUSED_RANGES: Final = (
    ("::/128", "the unspecified address", "it means every address; the kernel refuses to assign it"),
    ("::1/128", "the loopback address", "pods cannot reach a node's loopback"),
    (
        "::ffff:0:0/96",
        "IPv4-mapped",
        "node-cache reads it as IPv4 and exits on mixed -localip families; the kernel will not bind it",
    ),
    ("::/96", "IPv4-compatible", "deprecated by RFC 4291, and read as IPv4 by some tools"),
    (
        "64:ff9b::/96",
        "in the NAT64 prefix 64:ff9b::/96",
        "it stands for an IPv4 host: bound on every node, it cuts the cluster off from that host",
    ),
    (
        "64:ff9b:1::/48",
        "in the local NAT64 prefix 64:ff9b:1::/48",
        "it stands for an IPv4 host: bound on every node, it cuts the cluster off from that host",
    ),
    (
        "fe80::/10",
        "link-local",
        "binding fe80::/10 needs a zone, which CoreDNS does not support; use a ULA such as fd00::10",
    ),
    ("fec0::/10", "site-local", "deprecated by RFC 3879; use a ULA such as fd00::10"),
    ("ff00::/8", "multicast", "a DNS server listens on a unicast address"),
)


def check_types(props: object, prefix: str = "") -> None:
    """Raise unless every field of the dataclass ``props`` holds a value of its annotated type.

    Python does not check annotations at run time, and a value of the wrong type either
    crashes a later validator or slips through: ``monitoring="no"`` would count as true.
    Called first in every props ``__post_init__``; ``prefix`` names nested props
    (``ports.``). ``Literal`` fields are checked for their type here and for their
    value by the props' own validators, which say what the choices mean. A list where a
    tuple is expected is taken as that tuple, as values files and scripts write sequences.
    """
    hints = _type_hints(type(props))
    for field in dataclasses.fields(props):  # type: ignore[arg-type]
        if not field.init:
            continue
        value = getattr(props, field.name)
        hint = hints[field.name]
        if isinstance(value, list) and _takes_tuple(hint):
            value = tuple(value)
            object.__setattr__(props, field.name, value)
        if not _matches(value, hint):
            raise ValueError(f"{prefix}{field.name}: must be {_describe(hint)}, got {value!r}")


_HINTS: dict[type, dict[str, Any]] = {}


def _type_hints(cls: type) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def _takes_tuple(hint: Any) -> bool:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_takes_tuple(arg) for arg in typing.get_args(hint))
    return origin is tuple


def _matches(value: object, hint: Any) -> bool:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_matches(value, arg) for arg in args)
    if origin is Literal:
        return any(type(value) is type(choice) for choice in args)
    if origin is Mapping:
        return isinstance(value, Mapping) and all(
            _matches(key, args[0]) and _matches(item, args[1]) for key, item in value.items()
        )
    if origin is tuple:
        return isinstance(value, tuple) and all(_matches(item, args[0]) for item in value)
    if hint is type(None):
        return value is None
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


def _describe(hint: Any) -> str:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_describe(arg) for arg in args)
    if origin is Literal:
        return "one of " + ", ".join(repr(choice) for choice in args)
    if origin is Mapping:
        return "a mapping of strings to strings"
    if origin is tuple:
        return f"a tuple of {args[0].__name__}"
    names = {str: "a string", int: "an integer", bool: "True or False", type(None): "None"}
    if hint in names:
        return names[hint]
    article = "an" if hint.__name__[0] in "AEIOU" else "a"
    return f"{article} {hint.__name__}"


def check_ipv6_address(prop: str, value: str) -> ipaddress.IPv6Address:
    """Parse ``value`` as a bare IPv6 address node-cache can serve pods on, or raise.

    The component is IPv6-only (the spec's deploy refuses IPv4), CoreDNS cannot bind a
    zone-scoped address, the address goes bare into ``bind`` and ``-localip``, and the
    ranges in ``_REFUSED_RANGES`` cannot be served on (each with its reason).
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
    for network, what, why in _REFUSED_RANGES:
        if address in ipaddress.IPv6Network(network):
            raise ValueError(f"{prop}: must not be {what}, got {value!r} ({why})")
    return address


def canonical_ipv6(prop: str, value: str) -> str:
    """``value`` checked by :func:`check_ipv6_address`, in RFC 5952 form (lower case, compressed).

    One spelling everywhere (``bind``, ``-localip``, ``health``, the probe host) and a
    comparison by value: ``FD00::10`` and ``fd00:0:0:0:0:0:0:10`` are ``fd00::10``.
    """
    return str(check_ipv6_address(prop, value))


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
    if not isinstance(value, str) or len(value) > 63 or not _DNS_LABEL.fullmatch(value):
        raise ValueError(
            f"{prop}: must be a DNS label (lower-case alphanumerics and '-', at most 63 characters), got {value!r}"
        )


def check_service_name(prop: str, value: str) -> None:
    """Raise unless ``value`` can name a Service: an RFC 1035 label, which starts with a letter."""
    check_dns_name(prop, value)
    if not value[0].isalpha():
        raise ValueError(f"{prop}: must start with a letter to name a Service (an RFC 1035 label), got {value!r}")


def check_dns_subdomain(prop: str, value: str) -> None:
    """Raise unless ``value`` is an RFC 1123 DNS subdomain (names of PriorityClasses, among others)."""
    if not isinstance(value, str) or len(value) > 253 or not _DNS_SUBDOMAIN.fullmatch(value):
        raise ValueError(
            f"{prop}: must be a DNS subdomain (lower-case alphanumerics, '-' and '.', at most 253 characters), "
            f"got {value!r}"
        )


def check_positive(prop: str, value: int, *, allow_zero: bool = False, maximum: int = INT32_MAX) -> None:
    """Raise unless ``value`` is a positive int (or zero where allowed) no larger than ``maximum``.

    The default maximum is the API server's ``int32``: a larger number is refused when the
    object is decoded.
    """
    low = 0 if allow_zero else 1
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= maximum:
        expected = "a non-negative integer" if allow_zero else "a positive integer"
        raise ValueError(f"{prop}: must be {expected} (at most {maximum}), got {value!r}")


def check_port(prop: str, value: int) -> None:
    """Raise unless ``value`` is a port number 1-65535."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 65535:
        raise ValueError(f"{prop}: must be a port number 1-65535, got {value!r}")


def check_qualified_name(prop: str, key: str, what: str = "label key") -> None:
    """Raise unless ``key`` is a Kubernetes qualified name: ``[prefix/]name``.

    As the API server checks label keys and taint keys: the name is 1-63 alphanumerics,
    ``-``, ``_`` or ``.``, starting and ending with an alphanumeric; the optional prefix is
    a lower-case DNS subdomain of at most 253 characters. Stricter than the API server in
    one point: each DNS label of the prefix is at most 63 characters, as DNS requires.
    """
    if not isinstance(key, str):
        raise ValueError(f"{prop}: {what} must be a string, got {key!r}")
    prefix, slash, name = key.rpartition("/")
    if not name or len(name) > 63 or not _LABEL_NAME.fullmatch(name):
        reason = "the name part must be 1-63 alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric"
    elif slash and (not prefix or len(prefix) > 253 or not _DNS_SUBDOMAIN.fullmatch(prefix)):
        reason = "the prefix must be a lower-case DNS subdomain of at most 253 characters"
    elif any(len(label) > 63 for label in prefix.split(".")):
        reason = "each DNS label of the prefix must be at most 63 characters"
    else:
        return
    raise ValueError(f"{prop}: {key!r} is not a valid {what}: {reason}")


def check_label_value(prop: str, key: str, value: str, what: str = "label value") -> None:
    """Raise unless ``value`` is a valid Kubernetes label value (of ``key``, for the message)."""
    if not isinstance(value, str) or len(value) > 63 or not _LABEL_VALUE.fullmatch(value):
        raise ValueError(
            f"{prop}: value {value!r} of {key!r} is not a valid {what} (at most 63 alphanumerics, '-', '_' "
            "or '.', starting and ending with an alphanumeric)"
        )


def check_labels(prop: str, labels: Mapping[str, str]) -> None:
    """Raise unless ``labels`` is a mapping whose keys and values are valid Kubernetes label keys and values."""
    if not isinstance(labels, Mapping):
        raise ValueError(f"{prop}: must be a mapping of label keys to values, got {labels!r}")
    for key, value in labels.items():
        check_qualified_name(prop, key)
        check_label_value(prop, key, value)


@dataclass(frozen=True, kw_only=True)
class Toleration:
    """One taint the node-cache pods tolerate.

    The list is explicit on purpose: ``operator: Exists`` without a key would tolerate
    ``karpenter.sh/unschedulable`` and node-not-ready taints too.
    """

    key: str
    """Taint key, a qualified name like a label key. Required: a keyless toleration matches every taint."""

    operator: Literal["Equal", "Exists"] = "Equal"
    """``Equal`` matches ``value``; ``Exists`` matches any value of ``key``. Default: Equal."""

    value: str | None = None
    """Taint value for ``Equal``, a label value; must be unset for ``Exists``. Default: - none."""

    effect: TaintEffect | None = None
    """Taint effect to tolerate. Default: - every effect."""

    def __post_init__(self) -> None:
        """Validate like the API server, plus the spec's no-wildcard rule."""
        check_types(self, "tolerations.")
        if not self.key:
            if self.operator == "Exists":
                raise ValueError(
                    "tolerations: operator 'Exists' with no key tolerates every taint "
                    "(including karpenter.sh/unschedulable and not-ready taints); "
                    "list the taint keys explicitly"
                )
            raise ValueError(f"tolerations: a toleration needs a key, got {self.key!r}")
        check_qualified_name("tolerations", self.key, "taint key")
        if self.operator not in ("Equal", "Exists"):
            raise ValueError(f"tolerations: operator must be 'Equal' or 'Exists', got {self.operator!r}")
        if self.operator == "Exists" and self.value is not None:
            raise ValueError(f"tolerations: operator 'Exists' takes no value, got {self.value!r} for key {self.key!r}")
        if self.value is not None:
            check_label_value("tolerations", self.key, self.value, "taint value")
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
        """Every timing is a positive ``int32`` (the delay may be zero)."""
        check_types(self, "liveness.")
        check_positive("liveness.initial_delay_seconds", self.initial_delay_seconds, allow_zero=True)
        check_positive("liveness.period_seconds", self.period_seconds)
        check_positive("liveness.timeout_seconds", self.timeout_seconds)
        check_positive("liveness.failure_threshold", self.failure_threshold)


@dataclass(frozen=True, kw_only=True)
class Ports:
    """The ports node-cache listens on; they share the host network, so they must differ.

    Each reaches every place that must agree on it: ``dns`` the Corefile's server blocks
    and the container ports (node-cache's ``-dns.port`` for its NOTRACK rules is 53 by
    default); ``health`` the Corefile's ``health`` listener, node-cache's ``-health-port``
    (NOTRACK rules) and the liveness probe; ``metrics`` the ``prometheus`` plugin, the
    container port and the metrics Service; ``binary_metrics`` node-cache's
    ``-metrics-listen-address``, the container port and the metrics Service.
    """

    dns: int = defaults.DNS_PORT
    """DNS over UDP and TCP; must be 53. Default: 53.

    Pods ask the kube-dns ClusterIP on port 53 (``resolv.conf`` cannot name another
    port), and node-cache intercepts only the port it serves: on any other port it would
    cache nothing while every query went past it to cluster CoreDNS.
    """

    health: int = defaults.HEALTH_PORT
    """CoreDNS ``health`` listener on the local IP (node-cache ``-health-port``). Default: 8080."""

    metrics: int = defaults.METRICS_PORT
    """CoreDNS ``prometheus`` plugin. Default: 9253."""

    binary_metrics: int = defaults.BINARY_METRICS_PORT
    """node-cache's own metrics (``coredns_nodecache_*``). Default: 9353."""

    def __post_init__(self) -> None:
        """Each port is in range, DNS is on 53, and no two are equal."""
        check_types(self, "ports.")
        seen: dict[int, str] = {}
        for name in ("dns", "health", "metrics", "binary_metrics"):
            port = getattr(self, name)
            check_port(f"ports.{name}", port)
            if port in seen:
                raise ValueError(
                    f"ports.{name}: {port} clashes with ports.{seen[port]} "
                    "(all listeners share the node's network namespace)"
                )
            seen[port] = name
        if self.dns != defaults.DNS_PORT:
            raise ValueError(
                f"ports.dns: must be {defaults.DNS_PORT}, got {self.dns} (pods ask the kube-dns ClusterIP on port "
                f"{defaults.DNS_PORT}, which resolv.conf cannot change, and node-cache intercepts only the port it "
                "serves: on another port it would cache nothing)"
            )


def managed_by_labels() -> dict[str, str]:
    """A fresh copy of the managed-by label, the default extra label of every NLD object."""
    return dict(defaults.MANAGED_BY_LABEL)


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
    """``metadata.labels``; the construct adds only its role labels (:mod:`constructs_nld.roles`)."""

    def __post_init__(self) -> None:
        """Check the type of every field (of the subclass too), then the name, the namespace and the labels."""
        check_types(self)
        check_dns_name("name", self.name)
        check_dns_name("namespace", self.namespace)
        check_labels("labels", self.labels)
        check_unreserved("labels", self.labels)


def check_unreserved(prop: str, labels: Mapping[str, str]) -> None:
    """Raise when ``labels`` sets a key the constructs or the deploy write themselves.

    The role labels say what each object is, and the deploy and ``verify`` find the
    component by them; the ApplySet label says which deploy applied it. A value given here
    would be overwritten, or, worse, make an object claim another's role.
    """
    for key in labels:
        if key.startswith(RESERVED_LABEL_PREFIXES):
            raise ValueError(
                f"{prop}: must not set {key!r}, got {key}={labels[key]!r} (each construct labels its object with "
                "its role, app.kubernetes.io/name and app.kubernetes.io/component, which deploy and verify read; "
                "the deploy writes the applyset.kubernetes.io labels)"
            )


_Props = TypeVar("_Props")


def props_or_defaults(props: _Props | None, cls: type[_Props]) -> _Props:
    """A construct's ``props``: the defaults when None, else ``props`` itself if it is a ``cls``.

    The props validated themselves when built; this refuses anything that is not props
    (a dict, another construct's props) before a construct reads a field of it.
    """
    if props is None:
        return cls()
    if not isinstance(props, cls):
        raise ValueError(f"props: must be a {cls.__name__}, got {props!r}")
    return props


def check_selector(prop: str, selector: Mapping[str, str], what: str) -> None:
    """Raise unless ``selector`` is a non-empty, valid label selector of ``what``."""
    check_labels(prop, selector)
    if not selector:
        raise ValueError(f"{prop}: must select {what}, got an empty selector")
