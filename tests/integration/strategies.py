"""Hypothesis strategies for every props class: valid values, and values just past the edge.

Each value kind is a :class:`Kind`: a strategy of valid values and one of near-valid
ones (special address ranges, one character past a length limit, ``int32`` overflow, the
wrong type). A props strategy sets a random subset of the props; in half of the examples
every value is valid, in the other half one prop is near-valid. Each yields a
:class:`Make`, a recipe rather than a props object: building the props is what the
oracle tests, so it happens inside the test, where a ``ValueError`` is an outcome.

Every table (:func:`props`) and hand-drawn recipe (:func:`recipe`) records the fields it
sets in :data:`TABLES`; ``tests/unit/test_oracle_coverage.py`` checks that they name every
field of every props class, so a new field cannot go unchecked by the oracle.
"""

from __future__ import annotations

import dataclasses
import ipaddress
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from constructs_nld import (
    AlertGroup,
    AlertRule,
    AlertSettings,
    AQueryFilter,
    CacheSettings,
    Corefile,
    CorefileConfigMapProps,
    DeployerRBACProps,
    DeployerSubject,
    Directive,
    Dns64,
    ForwardOptions,
    ForwardZone,
    GrafanaDashboardProps,
    HostEntry,
    Keeper,
    KeeperConfigMapProps,
    LivenessProbe,
    MetricsServiceProps,
    NodeAffinity,
    NodeCacheDaemonSetProps,
    NodeLocalDNSAlerts,
    NodeLocalDNSProps,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PodMonitorProps,
    Ports,
    PreferredTerm,
    Prefetch,
    PrometheusRuleProps,
    ServerBlock,
    ServeStale,
    ServiceAccountProps,
    Toleration,
    UpstreamServiceProps,
    ZoneCache,
    defaults,
)
from constructs_nld.alerts import node_local_dns_alerts
from constructs_nld.corefile import PLUGIN_OPTIONS
from constructs_nld.dns import node_local_dns_corefile
from constructs_nld.permissions import RBAC_COMMANDS

INT32_MAX = 2**31 - 1
SAFE_INT_MAX = 2**53 - 1


@dataclass(frozen=True)
class Make:
    """A recipe for ``cls(*args, **kwargs)``; nested recipes are built first."""

    cls: Callable[..., Any]
    kwargs: dict[str, Any] = field(default_factory=dict)
    args: tuple[Any, ...] = ()
    of: type | None = None
    """The props class ``cls`` builds, when ``cls`` is a function that fills in other fields."""
    prefix: str | None = None
    """The name its messages start with, when the class serves under several props (``forward``)."""

    def build(self) -> Any:
        return self.cls(*(_build(a) for a in self.args), **{k: _build(v) for k, v in self.kwargs.items()})

    def prop_names(self) -> set[str]:
        """Every name a ``ValueError`` from this recipe may start with: its keys and its parts' fields."""
        names = set(self.kwargs) | ({self.prefix} if self.prefix else set())
        target = self.of or self.cls
        if isinstance(target, type) and dataclasses.is_dataclass(target):
            names |= {f.name for f in dataclasses.fields(target)}
        for value in (*self.args, *self.kwargs.values()):
            for part in _parts(value):
                names |= part.prop_names()
        return names

    def __repr__(self) -> str:
        inner = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return f"{(self.of or self.cls).__name__}({', '.join(inner)})"


def _build(value: Any) -> Any:
    if isinstance(value, Make):
        return value.build()
    if isinstance(value, tuple):
        return tuple(_build(v) for v in value)
    if isinstance(value, list):
        return [_build(v) for v in value]
    if isinstance(value, dict):
        return {k: _build(v) for k, v in value.items()}
    return value


def _parts(value: Any) -> list[Make]:
    if isinstance(value, Make):
        return [value]
    if isinstance(value, tuple | list):
        return [part for v in value for part in _parts(v)]
    if isinstance(value, dict):
        return [part for v in value.values() for part in _parts(v)]
    return []


@dataclass(frozen=True)
class Kind:
    """The valid values of one kind of prop, and the near-valid ones."""

    valid: st.SearchStrategy[Any]
    near: st.SearchStrategy[Any]

    def any(self) -> st.SearchStrategy[Any]:
        """Valid three times out of four."""
        return st.one_of(self.valid, self.valid, self.valid, self.near)


WRONG_TYPES: st.SearchStrategy[Any] = st.sampled_from([None, 0, 1.5, True, "no", b"x", ["x"], {"x": "y"}])
"""Values of a type no prop takes alone."""


TABLES: dict[type, set[str]] = {}
"""The fields of each class that some strategy here sets: every key of its ``props`` tables and recipes."""


def _record(cls: Callable[..., Any], names: Iterable[str]) -> None:
    if isinstance(cls, type):
        TABLES.setdefault(cls, set()).update(names)


@dataclass(frozen=True)
class Props(Kind):
    """A props class's kind; ``perturbed`` are its examples with exactly one near-valid prop."""

    perturbed: st.SearchStrategy[Make]
    target: Callable[..., Any]
    """The class the examples build."""


def recipe(cls: type, *names: str) -> Callable[..., Make]:
    """A function of ``names``' values, in order, that makes a recipe for ``cls``: for values drawn by hand."""
    _record(cls, names)

    def make(*values: Any) -> Make:
        return Make(cls, dict(zip(names, values, strict=True)))

    make.__name__ = make.__qualname__ = cls.__name__  # a failing example shows the class, as a call
    return make


def props(cls: Callable[..., Any], fields: dict[str, Kind], of: type | None = None, prefix: str | None = None) -> Props:
    """``cls`` with a random subset of ``fields`` set: all valid, or exactly one near-valid."""
    _record(of or cls, fields)

    @st.composite
    def build(draw: st.DrawFn, near: bool) -> Make:
        chosen = draw(st.lists(st.sampled_from(sorted(fields)), unique=True)) if fields else []
        if near and not chosen:
            chosen = [draw(st.sampled_from(sorted(fields)))]
        perturbed = draw(st.sampled_from(chosen)) if near else None
        kwargs = {name: draw(fields[name].near if name == perturbed else fields[name].valid) for name in chosen}
        return Make(cls, kwargs, of=of, prefix=prefix)

    return Props(build(False), st.one_of(build(True), WRONG_TYPES), build(True), of or cls)


def examples(kind: Props) -> st.SearchStrategy[Make]:
    """Half all-valid examples, half with one near-valid prop."""
    return st.one_of(kind.valid, kind.perturbed)


# --- addresses --------------------------------------------------------------------------------

_VALID_NETWORKS = ("fd00::/8", "fc00::/7", "2600::/12", "2001:db8::/32", "3fff::/20", "2002::/16", "100::/64")
_SPECIAL_NETWORKS = (
    "::1/128",
    "::/128",
    "::/96",
    "::ffff:0:0/96",
    "64:ff9b::/96",
    "64:ff9b:1::/48",
    "fe80::/10",
    "fec0::/10",
    "ff00::/8",
)


def _address_in(network: str) -> st.SearchStrategy[ipaddress.IPv6Address]:
    net = ipaddress.IPv6Network(network)
    return st.integers(int(net.network_address), int(net.broadcast_address)).map(ipaddress.IPv6Address)


def _notations(address: ipaddress.IPv6Address) -> st.SearchStrategy[str]:
    """The address in each notation that ``ipaddress`` and Go both read."""
    hextets = address.exploded.split(":")
    v4 = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return st.sampled_from(
        [
            str(address),
            address.exploded,
            str(address).upper(),
            ":".join(h.lstrip("0") or "0" for h in hextets),
            ":".join(hextets[:6]) + f":{v4}",
        ]
    )


_USABLE = st.sampled_from(_VALID_NETWORKS).flatmap(_address_in).flatmap(_notations)
ADDRESSES = Kind(
    _USABLE,
    st.one_of(
        st.sampled_from(_SPECIAL_NETWORKS).flatmap(_address_in).flatmap(_notations),
        _USABLE.flatmap(lambda a: st.sampled_from([f"[{a}]", f"{a}%eth0", f" {a}", f"{a}\n", f"{a}/128"])),
        st.sampled_from(["10.100.0.10", "169.254.20.10", "", "fd00::zz", "localhost", "::1::", "fd00:::1"]),
        WRONG_TYPES,
    ),
)

# --- names, labels, keys --------------------------------------------------------------------------


def _dns_label(max_size: int) -> st.SearchStrategy[str]:
    return st.from_regex(rf"[a-z0-9]([-a-z0-9]{{0,{max_size - 2}}}[a-z0-9])?", fullmatch=True)


def _subdomain(length: int) -> str:
    """A DNS subdomain of exactly ``length`` characters, in labels of up to 63."""
    labels, left = [], length
    while left > 0:
        size = min(63, left)
        labels.append("a" * size)
        left -= size + 1
    return ".".join(labels)


NAMES = Kind(
    st.one_of(_dns_label(12), st.sampled_from(["a", "x" * 63, "kube-system", "monitoring", "0"])),
    st.one_of(
        st.sampled_from(["x" * 64, "", "-a", "a-", "A", "a_b", "a.b", "a b", "a\n", "ä", "kube-system\n"]),
        WRONG_TYPES,
    ),
)
SUBDOMAINS = Kind(
    st.one_of(st.sampled_from(["system-node-critical", "a.b", _subdomain(253)]), _dns_label(12)),
    st.one_of(st.sampled_from(["", "A", "a..b", _subdomain(254), "a_b", "a.b\n"]), WRONG_TYPES),
)

_LABEL_NAME = st.one_of(
    st.from_regex(r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,10}[A-Za-z0-9])?", fullmatch=True),
    st.sampled_from(["n" * 63, "team", "A.b_c-D"]),
)
_PREFIX = st.one_of(
    st.sampled_from(["example.com", "a", _subdomain(253), "b" * 63 + ".c"]),
    _dns_label(10),
)
LABEL_KEYS = Kind(
    st.one_of(_LABEL_NAME, st.tuples(_PREFIX, _LABEL_NAME).map("/".join)),
    st.one_of(
        st.sampled_from(
            [
                "",
                "n" * 64,
                "a b",
                "-a",
                "a-",
                "/a",
                "a/",
                "a/b/c",
                "Example.com/a",
                _subdomain(254) + "/a",
                "b" * 64 + ".c/a",
                "a\n",
                "ä",
            ]
        ),
        st.integers(),
    ),
)
LABEL_VALUES = Kind(
    st.one_of(
        st.from_regex(r"([A-Za-z0-9]([-A-Za-z0-9_.]{0,10}[A-Za-z0-9])?)?", fullmatch=True),
        st.sampled_from(["v" * 63, "", "true"]),
    ),
    st.one_of(st.sampled_from(["v" * 64, "a b", "-a", "a_", "a\n", "ä"]), WRONG_TYPES),
)
LABELS = Kind(
    st.dictionaries(LABEL_KEYS.valid, LABEL_VALUES.valid, max_size=3),
    st.one_of(
        st.builds(lambda k, v: {k: v}, LABEL_KEYS.near, LABEL_VALUES.any()),
        st.builds(lambda k, v: {k: v}, LABEL_KEYS.valid, LABEL_VALUES.near),
        WRONG_TYPES,
    ),
)
SELECTORS = Kind(
    st.dictionaries(LABEL_KEYS.valid, LABEL_VALUES.valid, min_size=1, max_size=2),
    st.one_of(st.just({}), LABELS.near),
)

# --- numbers and text with a grammar ------------------------------------------------------------


def ints(low: int, high: int) -> Kind:
    """Integers in [low, high] with both edges; just past them, far past them, and wrong types."""
    return Kind(
        st.one_of(st.integers(low, min(high, low + 100)), st.sampled_from([low, high])),
        st.one_of(st.sampled_from([low - 1, high + 1, -(2**63), 2**64]), WRONG_TYPES),
    )


PORTS = Kind(st.integers(1, 65535), st.sampled_from([0, 65536, -1, 53.0, "53", True]))
QUANTITIES = Kind(
    st.one_of(
        st.from_regex(r"[0-9]{1,4}(\.[0-9]{1,3})?(m|k|Ki|M|Mi|G|Gi|T|Ti|P|Pi|E|Ei)?", fullmatch=True),
        st.sampled_from(["0", "25m", "100Mi", "999999999999999999999", "8Ei", "0.001"]),
    ),
    st.one_of(st.sampled_from(["", "1 Gi", "-1", "1MB", "1.", ".5", "1m\n", "+1", "1e3", "1.5.5", "Gi"]), WRONG_TYPES),
)
DURATIONS = Kind(
    st.one_of(
        st.from_regex(r"[1-9][0-9]{0,2}(h|m|s|ms)([1-9][0-9]{0,2}ms)?", fullmatch=True),
        st.sampled_from(["5m", "1h30m", "0s", "1ms", "292y", "1y2w3d4h5m6s7ms"]),
    ),
    st.one_of(st.sampled_from(["", "5", "5M", "1.5m", "5m\n", "293y", "0", "m5", "-5m"]), WRONG_TYPES),
)
DOMAINS = Kind(
    st.one_of(
        st.lists(_dns_label(10), min_size=1, max_size=3).map(".".join),
        st.sampled_from(["cluster.local", "example.internal", _subdomain(253)]),
    ),
    st.one_of(
        st.sampled_from(["", "Cluster.Local", "cluster.local.", "a..b", "a b", _subdomain(254), "a" * 64 + ".b"]),
        WRONG_TYPES,
    ),
)
IMAGES = Kind(
    st.sampled_from(
        [
            "registry.k8s.io/dns/k8s-dns-node-cache:1.26.8",
            "node-cache:1.26.8",
            "localhost:5000/dns/node-cache:v1",
            "Registry.Example.com/dns/node-cache:v2",
            "dns/node-cache@sha256:" + "a" * 64,
            "dns/node-cache:1.26.8@sha512:" + "b" * 128,
            "a" * 200 + ":" + "t" * 128,
        ]
    ),
    st.one_of(
        st.sampled_from(["", "Upper/Case", "img:", "img: 1.0", "img@sha256:abc", " img", "img\n", ":tag", "a//b"]),
        st.sampled_from(["node-cache", "localhost:5000/dns/node-cache"]),
        st.sampled_from(["img@sha256:" + "A" * 64, "img@sha512:" + "a" * 64, "img@md5:" + "a" * 32, "img@"]),
        WRONG_TYPES,
    ),
)
PULL_POLICIES = Kind(st.sampled_from(["Always", "IfNotPresent", "Never"]), st.sampled_from(["always", "", None]))
LIMITS = Kind(
    st.one_of(
        st.just({}),
        st.builds(lambda q: {"ephemeral-storage": q}, QUANTITIES.valid),
        st.sampled_from([{"example.com/device": "1"}, {"example.com/device": "2k"}]),
    ),
    st.one_of(
        st.builds(
            lambda r, q: {r: q},
            st.sampled_from(["cpu", "memory", "hugepages-2Mi", "foo", "kubernetes.io/x", "a b", "example.com/device"]),
            QUANTITIES.any(),
        ),
        st.builds(lambda q: {"ephemeral-storage": q}, QUANTITIES.near),
        st.sampled_from([{"example.com/device": "1.5"}, {"example.com/device": "500m"}]),
        WRONG_TYPES,
    ),
)
MAX_UNAVAILABLE = Kind(
    st.one_of(st.integers(1, 100).map(lambda n: f"{n}%"), st.integers(1, 1000), st.just(INT32_MAX)),
    st.sampled_from(["0%", "101%", "01%", "5", "", 0, -1, INT32_MAX + 1, True, 1.5]),
)
BOOLEANS = Kind(st.booleans(), st.sampled_from(["no", "true", 0, 1, None]))
INTERCEPTIONS = Kind(
    st.sampled_from(["node-cache", "fallthrough"]),
    st.sampled_from(["iptables", "ipvs", "", "Fallthrough", "node-cache ", None, 1, True]),
)
TRAFFIC_DISTRIBUTIONS = Kind(
    st.sampled_from([None, "PreferClose", "PreferSameZone", "PreferSameNode"]),
    st.sampled_from(["preferClose", "PreferSameZone ", "", "Nearest", "PreferZone", 1, True]),
)
SEVERITIES = Kind(st.sampled_from(["warning", "critical", "page"]), st.sampled_from(["", 5, None]))

# --- tolerations ---------------------------------------------------------------------------------

_EFFECTS = Kind(
    st.sampled_from([None, "NoSchedule", "PreferNoSchedule", "NoExecute"]), st.sampled_from(["Never", "", 1])
)
# Toleration's key is a required argument: a recipe without one gets a valid key, so that a
# missing key is tested as the empty key it stands for, not as a TypeError of Python's.
_EQUAL = props(
    lambda **kw: Toleration(**{"key": "dedicated", "operator": "Equal", **kw}),
    {"key": LABEL_KEYS, "value": LABEL_VALUES, "effect": _EFFECTS},
    Toleration,
)
_EXISTS = props(
    lambda **kw: Toleration(**{"key": "dedicated", "operator": "Exists", **kw}),
    {"key": LABEL_KEYS, "effect": _EFFECTS},
    Toleration,
)


_toleration = recipe(Toleration, "key", "operator", "value")
_ONE_TOLERATION = Kind(
    st.one_of(_EQUAL.valid, _EXISTS.valid),
    st.one_of(
        _EQUAL.near,
        _EXISTS.near,
        st.builds(_toleration, st.sampled_from(["", "a"]), st.sampled_from(["Exists", "In", "equal"]), st.just(None)),
        st.builds(_toleration, st.just("a"), st.just("Exists"), st.just("x")),
    ),
)
TOLERATIONS = Kind(
    st.lists(_ONE_TOLERATION.valid, min_size=1, max_size=4).map(tuple),
    st.one_of(
        st.just(()),
        st.lists(_ONE_TOLERATION.valid, min_size=1, max_size=2),
        st.builds(lambda t: (t,), _ONE_TOLERATION.near),
        WRONG_TYPES,
    ),
)

# --- nested props --------------------------------------------------------------------------------

_INT32 = ints(1, INT32_MAX)
LIVENESS = props(
    LivenessProbe,
    {
        "initial_delay_seconds": ints(0, INT32_MAX),
        "period_seconds": _INT32,
        "timeout_seconds": _INT32,
        "failure_threshold": _INT32,
    },
)
NODE_CACHE_PORTS = props(
    Ports,
    {
        "dns": Kind(st.just(53), PORTS.any()),
        # Distinct ranges, so that valid ports never clash.
        "health": Kind(st.integers(1024, 9000), PORTS.near),
        "metrics": Kind(st.integers(9001, 20000), PORTS.near),
        "binary_metrics": Kind(st.integers(20001, 65535), PORTS.near),
    },
)
GO_DURATIONS = Kind(
    st.one_of(
        st.from_regex(r"[1-9][0-9]{0,2}(h|m|s|ms)", fullmatch=True),
        st.sampled_from(["1h30m", "500ms", "1m", "90s", "2h0m5s"]),
    ),
    st.one_of(st.sampled_from(["", "0s", "-1h", "5", "1d", "1.5s", "1h ", "h", "1H"]), WRONG_TYPES),
)
"""Durations as CoreDNS reads them (Go's), above zero."""


def optional(kind: Props) -> Kind:
    """A nested props value or None (off); near: one of its near-valid examples."""
    return Kind(st.one_of(st.none(), kind.valid), kind.perturbed)


PERCENTAGES = Kind(
    st.one_of(ints(10, 90).valid, st.integers(10, 90).map(lambda n: f"{n}%")),
    st.one_of(ints(10, 90).near, st.sampled_from(["9%", "91%", "20", "%", "x%", "20 %"])),
)
"""The prefetch share: a number, or the chart's ``"20%"``."""
PREFETCH = props(Prefetch, {"amount": ints(1, INT32_MAX), "duration": GO_DURATIONS, "percentage": PERCENTAGES})
SERVE_STALE = props(
    ServeStale,
    {
        "duration": GO_DURATIONS,
        "mode": Kind(st.sampled_from(["immediate", "verify"]), st.sampled_from(["Immediate", "", "stale", None])),
    },
)
CACHE = props(
    CacheSettings,
    {
        **{
            name: _INT32
            for name in ("success_capacity", "success_ttl", "denial_capacity", "denial_ttl", "other_zones_ttl")
        },
        "prefetch": optional(PREFETCH),
        "serve_stale": optional(SERVE_STALE),
        "servfail_ttl": ints(0, 300),
        "other_zones_denial_capacity": _INT32,
    },
)
_PROMETHEUS_LABEL_NAMES = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,10}", fullmatch=True).filter(
    lambda name: not name.startswith("__") and name != "severity"
)
_PROMETHEUS_TEXT = st.text(st.characters(codec="utf-8"), min_size=1, max_size=20)
ALERT_LABELS = Kind(
    st.dictionaries(_PROMETHEUS_LABEL_NAMES, _PROMETHEUS_TEXT, max_size=3),
    st.one_of(
        st.sampled_from(
            [{"severity": "page"}, {"__name__": "x"}, {"a-b": "x"}, {"1a": "x"}, {"": "x"}, {"team": ""}, {"team": 5}]
        ),
        WRONG_TYPES,
    ),
)
"""An alert's routing labels: Prometheus label names (never ``severity``, which has its own field) with values."""
_ALERT_SETTINGS = props(
    lambda **kw: AlertSettings(**{"for_": "5m", "severity": "warning", **kw}),
    {"for_": DURATIONS, "severity": SEVERITIES, "labels": ALERT_LABELS},
    AlertSettings,
)
ALERTS = props(
    NodeLocalDNSAlerts,
    {name: _ALERT_SETTINGS for name in ("setup_errors", "pod_restarting", "daemonset_degraded", "target_down")},
)

# --- what node-cache serves beyond the spec's blocks, and where it runs ---------------------------

ZONE_NAMES = Kind(
    st.one_of(
        st.lists(_dns_label(8), min_size=2, max_size=3).map(".".join),
        st.sampled_from(["corp.example", "example.internal", "10.in-addr.arpa", "svc.corp", "_tcp.example"]),
    ),
    st.one_of(st.sampled_from(["", ".", "Corp.Example", "a..b", "a b", "-a.b", _subdomain(254)]), WRONG_TYPES),
)
_UPSTREAM_PORTS = st.one_of(st.just(53), PORTS.valid)
UPSTREAMS = Kind(
    st.one_of(
        _USABLE,
        st.tuples(_USABLE, _UPSTREAM_PORTS).map(lambda pair: f"[{pair[0]}]:{pair[1]}"),
    ),
    st.one_of(
        st.sampled_from(
            ["10.0.0.53", "[10.0.0.53]:53", "fe80::53", "ff02::fb", "::", "[fd00::53]:0", "[fd00::53]:65536"]
        ),
        st.sampled_from(["fd00::53:", "[fd00::53", "fd00::53]:53", "dns.example", "", "fd00::53%eth0"]),
        WRONG_TYPES,
    ),
)


def _tuples(kind: Kind, *, min_size: int, max_size: int, unique: bool = False) -> Kind:
    """Tuples of ``kind``'s values; near: none when some are needed, or one near value among valid ones."""
    near = [
        st.lists(kind.valid, min_size=0, max_size=max_size).flatmap(
            lambda v: st.tuples(kind.near).map(lambda n: (*v, *n))
        )
    ]
    if min_size:
        near.append(st.just(()))
    near.append(WRONG_TYPES)
    return Kind(st.lists(kind.valid, min_size=min_size, max_size=max_size, unique=unique).map(tuple), st.one_of(*near))


FAILOVER_RCODES = Kind(
    st.lists(
        st.sampled_from(["SERVFAIL", "REFUSED", "FORMERR", "NOTIMP", "BADCOOKIE"]).flatmap(
            lambda rcode: st.sampled_from([rcode, rcode.lower(), rcode.capitalize()])
        ),
        min_size=1,
        max_size=3,
        unique_by=str.upper,
    ).map(tuple),
    st.one_of(
        st.sampled_from(
            [("NOERROR",), ("noerror", "REFUSED"), ("nxdomain",), ("bogus",), ("",), ("REFUSED", "refused"), "REFUSED"]
        ),
        WRONG_TYPES,
    ),
)
"""``failover``'s answer codes, in any case, as CoreDNS reads them; ``NOERROR``, ``NXDOMAIN`` and unknown codes near."""
FORWARD_OPTIONS = props(
    ForwardOptions,
    {
        "protocol": Kind(
            st.sampled_from(["plain", "force_tcp", "prefer_udp"]), st.sampled_from(["tcp", "", "FORCE_TCP", None])
        ),
        "max_fails": ints(0, INT32_MAX),
        "expire": GO_DURATIONS,
        "health_check": GO_DURATIONS,
        "policy": Kind(st.sampled_from(["random", "round_robin", "sequential"]), st.sampled_from(["rr", "", "Random"])),
        "max_concurrent": ints(1, INT32_MAX),
        "max_connect_attempts": ints(1, 2**32 - 1),
        "failfast_all_unhealthy_upstreams": BOOLEANS,
        "failover": FAILOVER_RCODES,
    },
    prefix="forward",
)
ZONE_CACHE = props(
    ZoneCache,
    {
        "ttl": _INT32,
        "success_capacity": _INT32,
        "denial_capacity": _INT32,
        "denial_ttl": _INT32,
        "prefetch": optional(PREFETCH),
        "serve_stale": optional(SERVE_STALE),
        "servfail_ttl": ints(0, 300),
    },
)
FORWARD_ZONES = props(
    lambda **kw: ForwardZone(**{"names": ("corp.example",), "upstreams": ("fd03::53",), **kw}),
    {
        "names": _tuples(ZONE_NAMES, min_size=1, max_size=2, unique=True),
        "upstreams": _tuples(UPSTREAMS, min_size=1, max_size=3),
        "forward": Kind(FORWARD_OPTIONS.valid, FORWARD_OPTIONS.perturbed),
        "cache": Kind(ZONE_CACHE.valid, ZONE_CACHE.perturbed),
        "overrides_cluster_zones": BOOLEANS,
    },
    ForwardZone,
)
HOST_ENTRIES = props(
    lambda **kw: HostEntry(**{"name": "registry.corp.example", "addresses": ("2001:db8::1",), **kw}),
    {
        "name": Kind(st.one_of(ZONE_NAMES.valid, _dns_label(8)), ZONE_NAMES.near),
        "addresses": _tuples(
            Kind(_USABLE, st.sampled_from(["10.0.0.1", "fd00::zz", "", "[fd00::1]"])), min_size=1, max_size=2
        ),
        "overrides_cluster_zones": BOOLEANS,
    },
    HostEntry,
)
DNS64 = props(
    Dns64,
    {
        "prefix": Kind(
            st.sampled_from(["64:ff9b::/96", "2001:db8::/32", "2001:db8:64::/96", "fd00:64::/64", "64:ff9b:1::/48"]),
            st.one_of(
                st.sampled_from(["64:ff9b::/95", "64:ff9b::/128", "10.0.0.0/8", "2001:db8::1/96", "", "64:ff9b::"]),
                WRONG_TYPES,
            ),
        ),
        "translate_all": BOOLEANS,
    },
)
A_FILTER = props(
    AQueryFilter,
    {
        "zones": _tuples(
            Kind(
                st.one_of(
                    st.sampled_from([".", "cluster.local", "svc.cluster.local", "in-addr.arpa"]), ZONE_NAMES.valid
                ),
                st.sampled_from(["", "Corp.Example", "a..b", "a b", "..", _subdomain(254)]),
            ),
            min_size=0,
            max_size=3,
            unique=True,
        ),
        "ttl": ints(1, INT32_MAX),
    },
)
QUERY_LOG = Kind(
    st.lists(st.sampled_from(["all", "denial", "error", "success"]), unique=True, max_size=3).map(tuple),
    st.one_of(st.sampled_from([("all", "all"), ("info",), ("",), ("Denial",)]), WRONG_TYPES),
)
_NODE_CACHE_LOCAL_IP = defaults.LOCAL_IP
"""node-cache's local IP when the props leave it, which pods reach in every mode."""


def _d(name: str, *args: str, block: tuple[Directive, ...] = ()) -> Directive:
    return Directive(name, args, block)


_HOSTS_LINES = st.tuples(_USABLE, ZONE_NAMES.valid).map(lambda pair: _d(str(ipaddress.ip_address(pair[0])), pair[1]))
LOADABLE_OPTIONS = {
    "cache": [
        _d("success", "1000", "30"),
        _d("denial", "1000", "5"),
        _d("prefetch", "2", "1m", "10%"),
        _d("serve_stale", "1h", "verify"),
        _d("servfail", "5s"),
        _d("keepttl"),
        _d("disable", "denial"),
    ],
    "errors": [_d("consolidate", "5m", ".*"), _d("stacktrace")],
    "forward": [
        _d("max_fails", "3"),
        _d("expire", "10s"),
        _d("policy", "sequential"),
        _d("health_check", "5s"),
        _d("max_concurrent", "100"),
        _d("max_connect_attempts", "2"),
        _d("next", "NXDOMAIN"),
        _d("failfast_all_unhealthy_upstreams"),
        _d("failover", "SERVFAIL", "REFUSED"),
        _d("tls"),
        _d("tls_servername", "dns.example"),
    ],
    "hosts": [_d("ttl", "60"), _d("no_reverse"), _d("reload", "0s")],
    "log": [_d("class", "denial", "error")],
    "loadbalance": [_d("prefer", "fd00::/8")],
    "template": [
        _d("rcode", "NXDOMAIN"),
        _d("ederror", "15"),
        _d("answer", '"{{ .Name }} 60 IN AAAA 2001:db8::1"'),
        _d("authority", '"{{ .Zone }} 60 IN SOA ns.{{ .Zone }} hostmaster.{{ .Zone }} 1 60 60 60 60"'),
    ],
    "timeouts": [_d("read", "10s"), _d("write", "20s"), _d("idle", "60s")],
    "pprof": [_d("block", "1")],
    "trace": [_d("every", "100"), _d("service", "nld")],
}
"""Option lines CoreDNS 1.13.2 starts with, each plugin's own (``PLUGIN_OPTIONS``), with arguments it accepts."""


def _options(name: str, *, min_size: int = 0) -> st.SearchStrategy[tuple[Directive, ...]]:
    lines = LOADABLE_OPTIONS[name]
    return st.lists(st.sampled_from(lines), min_size=min_size, max_size=3, unique=True).map(tuple)


_LOADABLE_DIRECTIVES = st.one_of(
    st.sampled_from(
        [_d("log"), _d("whoami"), _d("loadbalance"), _d("rewrite", "name", "exact", "a.b.example", "b.b.example")]
    ),
    st.builds(lambda block: _d("errors", block=block), _options("errors")),
    st.builds(lambda block: _d("cache", "30", block=block), _options("cache")),
    st.builds(lambda block: _d("log", block=block), _options("log", min_size=1)),
    st.builds(lambda block: _d("loadbalance", "round_robin", block=block), _options("loadbalance")),
    st.builds(lambda block: _d("template", "IN", "AAAA", block=block), _options("template")),
    st.builds(lambda block: _d("timeouts", block=block), _options("timeouts", min_size=1)),
    st.builds(
        lambda to, block: _d("forward", ".", *to, block=block),
        st.lists(UPSTREAMS.valid, min_size=1, max_size=2),
        _options("forward"),
    ),
    st.builds(
        lambda lines, options: _d("hosts", "/dev/null", block=(*lines, *options, _d("fallthrough"))),
        st.lists(_HOSTS_LINES, max_size=2).map(tuple),
        _options("hosts"),
    ),
    st.builds(lambda block: _d("pprof", f"[{_NODE_CACHE_LOCAL_IP}]:6053", block=block), _options("pprof")),
    st.builds(lambda block: _d("trace", block=block), _options("trace")),
    st.just(_d("debug")),
)
"""Plugins CoreDNS starts with as written, with options of their own: the escape hatch's own arguments are the
user's to get right. ``pprof``, ``trace`` and ``debug`` need ``diagnostic_plugins``; ``pprof`` listens on node-cache's
local IP, ``trace`` sends to localhost: neither leaves the test's network namespace."""
_BINDS = st.sampled_from([(), ("__PILLAR__LOCAL__DNS__",), (_NODE_CACHE_LOCAL_IP,), ("__KUBE_DNS_CLUSTER_IP__",)]).map(
    lambda args: (_d("bind", *args),) if args else ()
)
"""An extra block's bind: none (node-cache's), or one address pods reach."""
EXTRA_BLOCKS = Kind(
    st.lists(
        st.builds(
            lambda zone, bind, directives: ServerBlock(zone=zone, port=53, directives=(*bind, *directives)),
            ZONE_NAMES.valid,
            _BINDS,
            st.lists(_LOADABLE_DIRECTIVES, max_size=3, unique_by=lambda d: d.name).map(tuple),
        ),
        max_size=1,
    ).map(tuple),
    st.one_of(
        st.just((ServerBlock(zone="lab.example", port=53, directives=(_d("bind", "fd00::99"),)),)),
        st.just((ServerBlock(zone=".", port=53, directives=(_d("bind", "fd00::10"),)),)),
        st.just((ServerBlock(zone="lab.example", port=53, directives=(_d("bind", "fd00::10"), _d("file"))),)),
        st.just(
            (
                ServerBlock(
                    zone="lab.example", port=53, directives=(_d("forward", ".", "fd03::53", block=(_d("bogus"),)),)
                ),
            )
        ),
        st.just((ServerBlock(zone="lab.example", port=53, directives=(_d("hosts", "/etc/hosts"),)),)),
        WRONG_TYPES,
    ),
)
DIAGNOSTIC_PLUGINS = Kind(
    st.lists(st.sampled_from(["debug", "pprof", "trace"]), unique=True, max_size=3).map(tuple),
    st.one_of(st.sampled_from([("pprof", "pprof"), ("kubernetes",), ("",), ("PPROF",)]), WRONG_TYPES),
)
DNS_OPTIONS = {
    "zones": _tuples(Kind(FORWARD_ZONES.valid, FORWARD_ZONES.perturbed), min_size=0, max_size=2),
    "upstream_servers": _tuples(UPSTREAMS, min_size=0, max_size=2),
    "cluster_forward": Kind(FORWARD_OPTIONS.valid, FORWARD_OPTIONS.perturbed),
    "upstream_forward": Kind(FORWARD_OPTIONS.valid, FORWARD_OPTIONS.perturbed),
    "hosts": _tuples(Kind(HOST_ENTRIES.valid, HOST_ENTRIES.perturbed), min_size=0, max_size=2),
    "query_log": QUERY_LOG,
    "dns64": optional(DNS64),
    "a_filter": optional(A_FILTER),
    "extra_server_blocks": EXTRA_BLOCKS,
    "extra_server_blocks_override_cluster_zones": BOOLEANS,
    "diagnostic_plugins": DIAGNOSTIC_PLUGINS,
}
"""``DnsOptions``' fields, which ``NodeLocalDNSProps`` takes."""


_requirement = recipe(NodeSelectorRequirement, "key", "operator", "values")
_REQUIREMENTS = Kind(
    st.one_of(
        st.builds(
            _requirement,
            LABEL_KEYS.valid,
            st.sampled_from(["In", "NotIn"]),
            st.lists(LABEL_VALUES.valid, min_size=1, max_size=2).map(tuple),
        ),
        st.builds(_requirement, LABEL_KEYS.valid, st.sampled_from(["Exists", "DoesNotExist"]), st.just(())),
        st.builds(
            _requirement,
            LABEL_KEYS.valid,
            st.sampled_from(["Gt", "Lt"]),
            st.integers(0, 2**63 - 1).map(lambda n: (str(n),)),
        ),
    ),
    st.one_of(
        st.builds(_requirement, LABEL_KEYS.near, st.just("Exists"), st.just(())),
        st.builds(_requirement, LABEL_KEYS.valid, st.sampled_from(["In", "NotIn"]), st.just(())),
        st.builds(_requirement, LABEL_KEYS.valid, st.just("In"), st.tuples(LABEL_VALUES.near)),
        st.builds(_requirement, LABEL_KEYS.valid, st.just("Exists"), st.just(("a",))),
        st.builds(
            _requirement,
            LABEL_KEYS.valid,
            st.sampled_from(["Gt", "Lt"]),
            st.sampled_from([("a",), ("1", "2"), ("--1",), ("-1",), ("1.5",), (str(2**63),), ()]),
        ),
        st.builds(_requirement, LABEL_KEYS.valid, st.sampled_from(["Equals", "in", ""]), st.just(("a",))),
    ),
)
_term = recipe(NodeSelectorTerm, "match_expressions")
_TERMS = Kind(
    _tuples(_REQUIREMENTS, min_size=1, max_size=2).valid.map(_term),
    _tuples(_REQUIREMENTS, min_size=1, max_size=2).near.map(_term),
)
_preferred = recipe(PreferredTerm, "weight", "term")
_PREFERRED = Kind(
    st.builds(_preferred, st.integers(1, 100), _TERMS.valid),
    st.one_of(
        st.builds(_preferred, st.sampled_from([0, 101, -1, True]), _TERMS.valid),
        st.builds(_preferred, st.just(1), _TERMS.near),
    ),
)
AFFINITY = props(
    NodeAffinity,
    {
        "required": _tuples(_TERMS, min_size=0, max_size=2),
        "preferred": _tuples(_PREFERRED, min_size=0, max_size=2),
    },
)
_ANNOTATION_VALUES = st.text(st.characters(codec="utf-8"), max_size=20)
ANNOTATIONS = Kind(
    st.dictionaries(LABEL_KEYS.valid, _ANNOTATION_VALUES, max_size=3),
    st.one_of(
        st.builds(lambda k: {k: "v"}, LABEL_KEYS.near),
        st.builds(lambda k: {k: 5}, LABEL_KEYS.valid),
        st.just({"a": "x" * (256 * 1024)}),
        st.sampled_from([{"kubectl.kubernetes.io/restartedAt": "2026-12-03T00:00:00Z"}, {"nodelocaldns.osdc/x": "v"}]),
        WRONG_TYPES,
    ),
)
SCHEDULING = {
    "node_selector": LABELS,
    "affinity": optional(AFFINITY),
    "priority_class_name": SUBDOMAINS,
    "image_pull_secrets": _tuples(SUBDOMAINS, min_size=0, max_size=2, unique=True),
    "pod_annotations": ANNOTATIONS,
    "update_strategy": Kind(
        st.sampled_from(["RollingUpdate", "OnDelete"]), st.sampled_from(["Rolling", "ondelete", "", None])
    ),
    "read_kube_dns_config_map": BOOLEANS,
}
"""Where and how the pods run: the node-cache options both props classes take."""

# --- the props classes ---------------------------------------------------------------------------

# The DaemonSet's props that NodeLocalDNSProps takes under the same names, in the order both draw them.
_NODE_CACHE_IMAGE_AND_ADDRESSES = {
    "image": IMAGES,
    "image_pull_policy": PULL_POLICIES,
    "local_ip": ADDRESSES,
    "kube_dns_cluster_ip": Kind(st.one_of(st.none(), ADDRESSES.valid), ADDRESSES.near),
}
_NODE_CACHE_POD = {
    "tolerations": TOLERATIONS,
    "cpu_request": QUANTITIES,
    "memory_request": QUANTITIES,
    "limits": LIMITS,
    "liveness": LIVENESS,
    "ports": NODE_CACHE_PORTS,
    "max_unavailable": MAX_UNAVAILABLE,
    "termination_grace_period_seconds": ints(0, SAFE_INT_MAX),
}

NODE_LOCAL_DNS_PROPS = props(
    NodeLocalDNSProps,
    {
        **_NODE_CACHE_IMAGE_AND_ADDRESSES,
        "cluster_domain": DOMAINS,
        "namespace": Kind(st.just("kube-system"), st.one_of(NAMES.valid, NAMES.near)),
        "monitoring_namespace": NAMES,
        "labels": LABELS,
        "monitoring_labels": LABELS,
        **_NODE_CACHE_POD,
        "cache": CACHE,
        "alerts": ALERTS,
        "alert_labels": Kind(st.one_of(st.none(), ALERT_LABELS.valid), ALERT_LABELS.near),
        "scrape_interval": DURATIONS,
        "monitoring": BOOLEANS,
        "interception": INTERCEPTIONS,
        "privileged": BOOLEANS,
        "portable": BOOLEANS,
        "argocd_sync_waves": BOOLEANS,
        **DNS_OPTIONS,
        **SCHEDULING,
        "pod_labels": LABELS,
        "dashboard": BOOLEANS,
        "dashboard_labels": LABELS,
        "upstream_traffic_distribution": TRAFFIC_DISTRIBUTIONS,
    },
)

_IDENTITY = {"name": NAMES, "namespace": NAMES, "labels": LABELS}

UPSTREAM_SERVICE_PROPS = props(
    UpstreamServiceProps,
    {**_IDENTITY, "selector": SELECTORS, "dns_port": PORTS, "traffic_distribution": TRAFFIC_DISTRIBUTIONS},
)
METRICS_SERVICE_PROPS = props(
    MetricsServiceProps,
    {
        **_IDENTITY,
        "selector": SELECTORS,
        "metrics_port": Kind(st.integers(1, 30000), PORTS.near),
        "binary_metrics_port": Kind(st.integers(30001, 65535), PORTS.near),
    },
)
SERVICE_ACCOUNT_PROPS = props(ServiceAccountProps, _IDENTITY)

_TOKENS = Kind(
    st.one_of(
        st.from_regex(r"[A-Za-z0-9._:/\[\]-]{1,12}", fullmatch=True),
        st.sampled_from([".", "__PILLAR__CLUSTER__DNS__", "fd00::10", "(.*)\\.example", "{1}"]),
    ),
    st.one_of(
        st.sampled_from(["", "a b", "#x", '"x', "{", "}", "{$HOME}", "{%PATH%}", "a\nb", "x\t", "__PILLAR__X__"]),
        st.integers(),
    ),
)
_PLUGINS = ["errors", "cache", "reload", "loop", "log", "whoami", "loadbalance"]


_directive = recipe(Directive, "name", "args", "block")
_ARGS = st.lists(_TOKENS.valid, max_size=2).map(tuple)
_OPTIONS = Kind(
    st.lists(st.builds(_directive, _TOKENS.valid, _ARGS, st.just(())), max_size=2).map(tuple),
    st.one_of(
        st.builds(lambda d: (d,), st.builds(_directive, _TOKENS.near, _ARGS, st.just(()))),
        st.builds(lambda d: (d,), st.builds(_directive, _TOKENS.valid, st.tuples(_TOKENS.near), st.just(()))),
    ),
)
"""A plugin's block: option lines, each a word and its arguments (``force_tcp``, ``max_fails 3``)."""
_OWN_OPTIONS = Kind(
    st.sampled_from(_PLUGINS).flatmap(
        lambda name: st.tuples(
            st.just(name),
            st.lists(
                st.builds(_directive, st.sampled_from(sorted(PLUGIN_OPTIONS[name])), _ARGS, st.just(())), max_size=2
            ).map(tuple)
            if PLUGIN_OPTIONS[name]
            else st.just(()),
        )
    ),
    st.tuples(st.sampled_from(_PLUGINS), _OPTIONS.valid.filter(bool)),
)
"""A plugin of ``_PLUGINS`` and its block: its own option words (none for a plugin that takes no block)."""
_DIRECTIVES = Kind(
    _OWN_OPTIONS.valid.flatmap(lambda pair: st.builds(_directive, st.just(pair[0]), _ARGS, st.just(pair[1]))),
    st.one_of(
        st.builds(
            _directive,
            st.one_of(_TOKENS.near, st.sampled_from(["kubernetes", "import", "Errors"])),
            st.just(()),
            st.just(()),
        ),
        st.builds(_directive, st.sampled_from(_PLUGINS), st.tuples(_TOKENS.near), st.just(())),
        st.builds(_directive, st.sampled_from(_PLUGINS), _ARGS, _OPTIONS.near),
        _OWN_OPTIONS.near.flatmap(lambda pair: st.builds(_directive, st.just(pair[0]), _ARGS, st.just(pair[1]))),
    ),
)
_BLOCKS = props(
    lambda **kw: ServerBlock(**{"zone": ".", "port": 53, "directives": (Directive("errors"),), **kw}),
    {
        "zone": Kind(st.one_of(st.sampled_from([".", "in-addr.arpa", "_tcp.example"]), DOMAINS.valid), DOMAINS.near),
        "port": PORTS,
        "directives": Kind(
            st.lists(_DIRECTIVES.valid, min_size=1, max_size=3).map(tuple),
            st.builds(lambda d: (d,), _DIRECTIVES.near),
        ),
        "more_zones": _tuples(ZONE_NAMES, min_size=0, max_size=2, unique=True),
    },
    ServerBlock,
)
_BUILT_COREFILES = props(
    lambda **kw: node_local_dns_corefile(
        **{
            "cluster_domain": "cluster.local",
            "bind_addresses": ("fd00::10", "fd00:ec2::a"),
            "health_address": "fd00::10",
            "ports": Ports(),
            "cache": CacheSettings(),
            **kw,
        }
    ),
    # A typed function, not props: its parts come as their own classes, valid or perturbed.
    {
        "cluster_domain": DOMAINS,
        "ports": Kind(NODE_CACHE_PORTS.valid, NODE_CACHE_PORTS.perturbed),
        "cache": Kind(CACHE.valid, CACHE.perturbed),
    },
    Corefile,
)
_ONE_BLOCK = (ServerBlock(zone=".", port=53, directives=(Directive("errors"),)),)
_HAND_MADE_COREFILES = props(
    lambda **kw: Corefile(**{"cluster_domain": "cluster.local", "blocks": _ONE_BLOCK, **kw}),
    {
        "cluster_domain": DOMAINS,
        "diagnostic_plugins": DIAGNOSTIC_PLUGINS,
        "blocks": Kind(
            st.lists(_BLOCKS.valid, min_size=1, max_size=1).map(tuple),
            st.one_of(st.just(()), st.builds(lambda b: (b,), _BLOCKS.near)),
        ),
    },
    Corefile,
)
COREFILES = Kind(
    st.one_of(_BUILT_COREFILES.valid, _HAND_MADE_COREFILES.valid),
    st.one_of(_BUILT_COREFILES.near, _HAND_MADE_COREFILES.near, WRONG_TYPES),
)
CONFIG_MAP_PROPS = props(CorefileConfigMapProps, {**_IDENTITY, "corefile": COREFILES})


KEEPERS = props(
    Keeper,
    {
        "local_ip": ADDRESSES,
        "kube_dns_cluster_ip": Kind(st.one_of(st.none(), ADDRESSES.valid), ADDRESSES.near),
        "ports": Kind(NODE_CACHE_PORTS.valid, NODE_CACHE_PORTS.perturbed),
    },
)
KEEPER_CONFIG_MAP_PROPS = props(
    KeeperConfigMapProps,
    {**_IDENTITY, "keeper": Kind(KEEPERS.valid, st.one_of(KEEPERS.perturbed, WRONG_TYPES))},
)


def _daemon_set(**kwargs: Any) -> NodeCacheDaemonSetProps:
    """Valid pod labels always carry the selector; a missing one is tested on its own."""
    selector = kwargs.get("selector", {"k8s-app": "node-local-dns"})
    if isinstance(selector, dict) and isinstance(kwargs.get("pod_labels", {}), dict):
        kwargs["pod_labels"] = {**kwargs.get("pod_labels", {}), **selector}
    return NodeCacheDaemonSetProps(**kwargs)


DAEMON_SET_PROPS = props(
    _daemon_set,
    {
        **_IDENTITY,
        "selector": SELECTORS,
        "pod_labels": LABELS,
        **_NODE_CACHE_IMAGE_AND_ADDRESSES,
        "portable": BOOLEANS,
        **_NODE_CACHE_POD,
        **SCHEDULING,
        "service_account_name": NAMES,
        "config_map_name": NAMES,
        "upstream_service_name": NAMES,
        "interception": INTERCEPTIONS,
        "privileged": BOOLEANS,
        "keeper_config_map_name": NAMES,
    },
    NodeCacheDaemonSetProps,
)
POD_MONITOR_PROPS = props(
    PodMonitorProps, {**_IDENTITY, "target_namespace": NAMES, "selector": SELECTORS, "interval": DURATIONS}
)

_DEFAULT_RULES = node_local_dns_alerts(
    alerts=NodeLocalDNSAlerts(),
    namespace="kube-system",
    daemon_set="node-local-dns",
    container="node-cache",
    scrape_job="monitoring/nodelocaldns",
)
_BUILT_GROUPS = props(
    lambda **kw: node_local_dns_alerts(
        **{
            "alerts": NodeLocalDNSAlerts(),
            "namespace": "kube-system",
            "daemon_set": "node-local-dns",
            "container": "node-cache",
            "scrape_job": "monitoring/nodelocaldns",
            **kw,
        }
    ),
    # A typed function, not props: its alerts come as NodeLocalDNSAlerts, valid or perturbed.
    {"alerts": Kind(ALERTS.valid, ALERTS.perturbed)},
    AlertGroup,
)
_ALERT_RULES = props(
    lambda **kw: AlertRule(
        **{
            "alert": "NodeLocalDNSCheck",
            "expr": "vector(1)",
            "settings": AlertSettings(for_="5m", severity="warning"),
            "summary": "NodeLocal DNS",
            "description": "NodeLocal DNS",
            **kw,
        }
    ),
    {
        "alert": Kind(
            st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,20}", fullmatch=True),
            st.one_of(st.sampled_from(["", "1Alert", "Node-Local", "a b", "a:b", "Alert\n"]), WRONG_TYPES),
        ),
        "expr": Kind(
            st.sampled_from(
                [
                    "vector(1)",
                    "up == 0",
                    "increase(coredns_nodecache_setup_errors_total[5m]) > 0",
                    'sum by (instance) (rate(coredns_dns_requests_total{job="a/b"}[5m])) > 100',
                ]
            ),
            st.one_of(
                st.sampled_from(["nodelocaldns_setup_errors_total > 0", "rate(nodelocaldns_requests_total[5m])"]),
                WRONG_TYPES,
            ),
        ),
        "settings": Kind(_ALERT_SETTINGS.valid, _ALERT_SETTINGS.perturbed),
        "summary": Kind(_PROMETHEUS_TEXT, WRONG_TYPES),
        "description": Kind(st.text(st.characters(codec="utf-8"), max_size=40), WRONG_TYPES),
    },
    AlertRule,
)
_GROUP_NAMES = Kind(st.sampled_from(["nodelocaldns", "a b", "x" * 300]), st.sampled_from(["", 5]))
_group = recipe(AlertGroup, "name", "rules")
_RULES = Kind(
    st.one_of(
        st.just(_DEFAULT_RULES.rules),
        st.lists(_ALERT_RULES.valid, min_size=1, max_size=3).map(tuple),
    ),
    st.one_of(
        st.builds(lambda rule: (rule,), _ALERT_RULES.perturbed),
        st.just((*_DEFAULT_RULES.rules, _DEFAULT_RULES.rules[0])),
        WRONG_TYPES,
    ),
)
"""A group's rules: the app's, or rules of one's own; near: a near-valid rule, or an alert declared twice."""
RULE_GROUPS = Kind(
    st.one_of(_BUILT_GROUPS.valid, st.builds(_group, _GROUP_NAMES.valid, _RULES.valid)),
    st.one_of(
        _BUILT_GROUPS.near,
        st.builds(_group, _GROUP_NAMES.near, st.just(_DEFAULT_RULES.rules)),
        st.builds(_group, _GROUP_NAMES.valid, _RULES.near),
        WRONG_TYPES,
    ),
)
ALERT_RULES_PROPS = props(PrometheusRuleProps, {**_IDENTITY, "group": RULE_GROUPS})

DASHBOARD_PROPS = props(
    GrafanaDashboardProps,
    {
        **_IDENTITY,
        "job": Kind(
            st.tuples(NAMES.valid, NAMES.valid).map("/".join),
            st.one_of(st.sampled_from(["", "monitoring", "monitoring/", "a b"]), WRONG_TYPES),
        ),
        "target_namespace": NAMES,
        "daemon_set": NAMES,
        "container": NAMES,
        "uid": Kind(
            st.one_of(st.from_regex(r"[A-Za-z0-9_-]{1,40}", fullmatch=True), st.just("u" * 40)),
            st.one_of(st.sampled_from(["", "u" * 41, "a b", "a.b", "a/b", "a\n"]), WRONG_TYPES),
        ),
        "title": Kind(_PROMETHEUS_TEXT.filter(str.strip), st.one_of(st.sampled_from(["", "  ", "\n"]), WRONG_TYPES)),
    },
)

_SERVICE_ACCOUNT_SUBJECTS = props(
    lambda **kw: DeployerSubject(**{"name": "ci", "namespace": "ci", **kw}),
    {
        "name": NAMES,
        "kind": Kind(st.just("ServiceAccount"), st.sampled_from(["serviceaccount", "", "Role"])),
        "namespace": Kind(NAMES.valid, st.one_of(st.none(), NAMES.near)),
    },
    DeployerSubject,
)
_PEOPLE_SUBJECTS = props(
    lambda **kw: DeployerSubject(**{"name": "alice", "kind": "User", **kw}),
    {
        "name": Kind(_PROMETHEUS_TEXT, st.one_of(st.just(""), WRONG_TYPES)),
        "kind": Kind(st.sampled_from(["User", "Group"]), st.sampled_from(["user", "", None, 1])),
        "namespace": Kind(st.none(), NAMES.valid),
    },
    DeployerSubject,
)
SUBJECTS = Kind(
    st.one_of(_SERVICE_ACCOUNT_SUBJECTS.valid, _PEOPLE_SUBJECTS.valid),
    st.one_of(_SERVICE_ACCOUNT_SUBJECTS.perturbed, _PEOPLE_SUBJECTS.perturbed),
)
_LONGEST_COMMAND = max(RBAC_COMMANDS, key=len)
DEPLOYER_RBAC_PROPS = props(
    DeployerRBACProps,
    {
        "component": Kind(NODE_LOCAL_DNS_PROPS.valid, NODE_LOCAL_DNS_PROPS.perturbed),
        "commands": Kind(
            st.lists(st.sampled_from(RBAC_COMMANDS), min_size=1, unique=True).map(tuple),
            st.one_of(st.sampled_from([(), ("soak",), ("deploy", "deploy"), ("Deploy",), ("",)]), WRONG_TYPES),
        ),
        "subjects": _tuples(SUBJECTS, min_size=0, max_size=2),
        # Every object is named <name>-<command>: the name leaves room for the longest command.
        "name": Kind(
            st.one_of(_dns_label(12), st.just("n" * (62 - len(_LONGEST_COMMAND)))),
            st.one_of(st.just("n" * (63 - len(_LONGEST_COMMAND))), NAMES.near),
        ),
        "labels": LABELS,
        "retired": _tuples(Kind(NODE_LOCAL_DNS_PROPS.valid, NODE_LOCAL_DNS_PROPS.perturbed), min_size=0, max_size=1),
        "helm_handover": Kind(
            st.sampled_from([None, "secret", "configmap"]),
            st.one_of(st.sampled_from(["Secret", "sql", ""]), WRONG_TYPES),
        ),
    },
)

CONSTRUCT_PROPS = {
    "UpstreamService": UPSTREAM_SERVICE_PROPS,
    "MetricsService": METRICS_SERVICE_PROPS,
    "ServiceAccount": SERVICE_ACCOUNT_PROPS,
    "CorefileConfigMap": CONFIG_MAP_PROPS,
    "KeeperConfigMap": KEEPER_CONFIG_MAP_PROPS,
    "NodeCacheDaemonSet": DAEMON_SET_PROPS,
    "PodMonitor": POD_MONITOR_PROPS,
    "PrometheusRule": ALERT_RULES_PROPS,
    "GrafanaDashboard": DASHBOARD_PROPS,
    "DeployerRBAC": DEPLOYER_RBAC_PROPS,
}
"""The props of each construct, by the construct's name."""
