"""What node-cache serves beyond the spec's four blocks, and the Corefile they all make.

The spec's Corefile answers the cluster domain and the two reverse zones from cluster CoreDNS
and everything else from the node's ``/etc/resolv.conf``. A second cluster needs more: its own
forward zones (``corp.example`` to the company's resolvers), another upstream for ``.``,
bounded forwarding, cache behaviour while an upstream is down, static records, query
logging, dns64. Each is a typed value here, validated where it is built (the message names
the prop), and rendered through the Corefile model (:mod:`constructs_nld.corefile`), whose
lint then applies to all of it. The spec's configuration stays the default, byte for byte:
every option is off, or the spec's value, until set.

The blocks, in this order: the cluster domain, ``in-addr.arpa``, ``ip6.arpa`` (each left
out when a zone replaces it), the extra zones in the order given, the extra server blocks,
then ``.``. Every block of ours binds node-cache's addresses and carries the same
``errors``, ``cache``, ``reload``, ``loop``, ``forward`` and ``prometheus`` lines as the
spec's. A static record goes to the block that serves its name.

Pure code (no cdk8s).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

from constructs_nld import defaults, placeholders
from constructs_nld.corefile import DIAGNOSTIC_PLUGINS, Corefile, Directive, ServerBlock
from constructs_nld.durations import check_go_duration
from constructs_nld.props import INT32_MAX, Ports, check_positive, check_types

__all__ = [
    "REVERSE_ZONES",
    "AQueryFilter",
    "CacheSettings",
    "DiagnosticPlugin",
    "Dns64",
    "DnsOptions",
    "ForwardOptions",
    "ForwardZone",
    "HostEntry",
    "LogClass",
    "Prefetch",
    "ServeStale",
    "ZoneCache",
    "node_local_dns_corefile",
    "upstream_address",
]

REVERSE_ZONES: Final = ("in-addr.arpa", "ip6.arpa")
"""The spec's reverse zones, answered by cluster CoreDNS like the cluster domain."""

ForwardProtocol = Literal["plain", "force_tcp", "prefer_udp"]
ForwardPolicy = Literal["random", "round_robin", "sequential"]
LogClass = Literal["all", "denial", "error", "success"]
DiagnosticPlugin = Literal["debug", "pprof", "trace"]
StaleMode = Literal["immediate", "verify"]

_LABEL = r"[a-z0-9_](?:[-a-z0-9_]{0,61}[a-z0-9_])?"
_NAME = re.compile(rf"(?=.{{1,253}}\Z){_LABEL}(?:\.{_LABEL})*")
_DNS64_PREFIX_LENGTHS: Final = (32, 40, 48, 56, 64, 96)
UINT32_MAX: Final = 2**32 - 1
SERVFAIL_TTL_MAX: Final = 300
"""The longest a SERVFAIL may be cached, in seconds: RFC 2308's five minutes, which the cache plugin enforces."""
RCODES: Final = frozenset(
    {
        "FORMERR", "SERVFAIL", "NXDOMAIN", "NOTIMP", "NOTIMPL", "REFUSED", "YXDOMAIN", "YXRRSET", "NXRRSET",
        "NOTAUTH", "NOTZONE", "DSOTYPENI", "BADSIG", "BADKEY", "BADTIME", "BADMODE", "BADNAME", "BADALG",
        "BADTRUNC", "BADCOOKIE",
    }
)  # fmt: skip
"""The answer codes CoreDNS 1.13.2's DNS library names, but ``NOERROR``; ``failover`` refuses ``NXDOMAIN`` too."""


def _check_name(prop: str, value: str, what: str) -> str:
    """``value`` as a lower-case DNS name without the trailing dot; refuses anything else."""
    name = value[:-1] if isinstance(value, str) and value.endswith(".") and value != "." else value
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(f"{prop}: must be a lower-case DNS {what} such as 'corp.example', got {value!r}")
    return name


def _shadowed(name: str, cluster_domain: str) -> str | None:
    """The spec zone ``name`` equals or lies in (the cluster domain, a reverse zone), or None."""
    return next((z for z in (cluster_domain, *REVERSE_ZONES) if name == z or name.endswith(f".{z}")), None)


def upstream_address(prop: str, value: str) -> str:
    """An upstream server as ``forward`` takes it: an IPv6 address, bare for port 53, else ``[address]:port``.

    Accepted as ``fd03::53``, ``[fd03::53]`` or ``[fd03::53]:5353``; IPv4 is refused (the
    cluster is IPv6-only), and so are the addresses no server answers from (unspecified,
    multicast, link-local, which would need a zone).
    """
    if not isinstance(value, str):
        raise ValueError(f"{prop}: must be an IPv6 address, optionally '[address]:port', got {value!r}")
    host, port = value, 53
    bracketed = re.fullmatch(r"\[(?P<host>[^\]]+)\](?::(?P<port>[0-9]{1,5}))?", value)
    if bracketed:
        host = bracketed.group("host")
        port = int(bracketed.group("port") or 53)
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        raise ValueError(
            f"{prop}: must be an IPv6 address, optionally '[address]:port' such as '[fd03::53]:5353', got {value!r}"
        ) from None
    if address.version == 4:
        raise ValueError(f"{prop}: must be an IPv6 address (the cluster is IPv6-only), got IPv4 {value!r}")
    if address.is_unspecified or address.is_multicast or address.is_link_local:
        raise ValueError(f"{prop}: must be a unicast address a server answers from, got {value!r}")
    if isinstance(address, ipaddress.IPv6Address) and address.scope_id is not None:
        raise ValueError(f"{prop}: must not be zone-scoped, got {value!r} (CoreDNS refuses a zone-scoped address)")
    if not 1 <= port <= 65535:
        raise ValueError(f"{prop}: port must be 1-65535, got {value!r}")
    return str(address) if port == 53 else f"[{address}]:{port}"


@dataclass(frozen=True, kw_only=True)
class Prefetch:
    """The ``cache`` plugin's ``prefetch``: refresh a popular answer before it expires.

    Replaces: deliveryhero ``config.prefetch``.
    """

    amount: int = 1
    """Lookups of a name within ``duration`` that make it popular. Default: 1."""

    duration: str = "1m"
    """The window the lookups are counted in (CoreDNS's own default). Default: 1m."""

    percentage: int | str = 10
    """Refresh when this share of the TTL is left, 10-90, as ``20`` or ``"20%"`` (CoreDNS's default). Default: 10."""

    def __post_init__(self) -> None:
        """Validate as the cache plugin parses it; a percentage written ``"20%"`` is kept as ``20``."""
        check_types(self, "prefetch.")
        percentage = self.percentage
        if isinstance(percentage, str):
            number = percentage.removesuffix("%")
            if not (percentage.endswith("%") and number.isdigit() and number.isascii()):
                raise ValueError(f"prefetch.percentage: must be a number or 'N%', got {percentage!r}")
            percentage = int(number)
            object.__setattr__(self, "percentage", percentage)
        check_positive("prefetch.amount", self.amount)
        check_go_duration("prefetch.duration", self.duration, positive=True)
        if not 10 <= percentage <= 90:
            raise ValueError(f"prefetch.percentage: must be 10-90 (the cache plugin's range), got {percentage}")

    def directive(self) -> Directive:
        """``prefetch AMOUNT DURATION PERCENTAGE%``."""
        return Directive("prefetch", (str(self.amount), self.duration, f"{self.percentage}%"))


@dataclass(frozen=True, kw_only=True)
class ServeStale:
    """The ``cache`` plugin's ``serve_stale``: answer from an expired entry while the upstream does not.

    Replaces: deliveryhero ``config.serveStale``; AKS LocalDNS ``serveStale``.
    """

    duration: str = "1h"
    """How long past its TTL an entry may still be served (CoreDNS's own default). Default: 1h."""

    mode: StaleMode = "immediate"
    """``immediate``: answer stale at once and refresh behind it; ``verify``: ask the upstream first.

    Default: immediate.
    """

    def __post_init__(self) -> None:
        """Validate as the cache plugin parses it."""
        check_types(self, "serve_stale.")
        check_go_duration("serve_stale.duration", self.duration, positive=True)
        if self.mode not in ("immediate", "verify"):
            raise ValueError(f"serve_stale.mode: must be 'immediate' or 'verify', got {self.mode!r}")

    def directive(self) -> Directive:
        """``serve_stale DURATION MODE``."""
        return Directive("serve_stale", (self.duration, self.mode))


def _cache_extras(
    prefetch: Prefetch | None, serve_stale: ServeStale | None, servfail_ttl: int | None
) -> tuple[Directive, ...]:
    extras = tuple(item.directive() for item in (prefetch, serve_stale) if item is not None)
    return (*extras, Directive("servfail", (f"{servfail_ttl}s",))) if servfail_ttl is not None else extras


def check_servfail_ttl(prop: str, seconds: int | None) -> None:
    """Raise unless ``seconds`` is unset or 0-300: the cache plugin refuses a SERVFAIL cached past 5 minutes."""
    if seconds is not None:
        check_positive(prop, seconds, allow_zero=True, maximum=SERVFAIL_TTL_MAX)


@dataclass(frozen=True, kw_only=True)
class CacheSettings:
    """CoreDNS ``cache`` settings of the spec's four server blocks."""

    success_capacity: int = defaults.CLUSTER_DOMAIN_CACHE_SUCCESS[0]
    """Positive answers kept for the cluster domain. Default: 9984.

    Replaces: lablabs ``config.zones.<zone>.plugins.cache.success``; fixed in the other deployers.
    """

    success_ttl: int = defaults.CLUSTER_DOMAIN_CACHE_SUCCESS[1]
    """Max seconds a positive cluster-domain answer is cached. Default: 30.

    Replaces: lablabs ``config.zones.<zone>.plugins.cache.success``; fixed in the other deployers.
    """

    denial_capacity: int = defaults.CLUSTER_DOMAIN_CACHE_DENIAL[0]
    """Negative answers kept for the cluster domain. Default: 9984.

    Replaces: lablabs ``config.zones.<zone>.plugins.cache.denial``; fixed in the other deployers.
    """

    denial_ttl: int = defaults.CLUSTER_DOMAIN_CACHE_DENIAL[1]
    """Max seconds a negative cluster-domain answer is cached. Default: 5.

    Replaces: lablabs ``config.zones.<zone>.plugins.cache.denial``; fixed in the other deployers.
    """

    other_zones_ttl: int = defaults.OTHER_ZONES_CACHE_TTL
    """Max seconds answers are cached in the reverse and catch-all blocks. Default: 30.

    Replaces: deliveryhero ``config.cacheTTL``.
    """

    prefetch: Prefetch | None = None
    """Refresh popular answers before they expire, in the four blocks. Default: - off (the spec's).

    Replaces: deliveryhero ``config.prefetch``; Deckhouse's fixed ``prefetch 10 1m 25%``.
    """

    serve_stale: ServeStale | None = None
    """Keep answering from expired entries while an upstream is down, in the four blocks.

    Default: - off (the spec's). Replaces: deliveryhero ``config.serveStale``; AKS ``serveStale``;
    Deckhouse's fixed ``serve_stale 1h``.
    """

    servfail_ttl: int | None = None
    """Seconds an upstream's SERVFAIL is cached, in the four blocks: 0 (never) to 300 (RFC 2308's bound).

    A flapping upstream's SERVFAILs are otherwise served to every client for the cache plugin's
    5 s; ``0`` sends each query on, a longer one shields the upstream while it recovers.
    node-cache's own SERVFAIL (no upstream answered) is never cached. Default: - the cache
    plugin's own, five seconds. Replaces: none offers this (Deckhouse fixes ``servfail 0``).
    """

    other_zones_denial_capacity: int | None = None
    """Negative answers kept in each of the reverse and catch-all blocks. Default: - the cache plugin's own capacity.

    Replaces: lablabs ``config.zones.<zone>.plugins.cache.denial``, per zone.
    """

    def __post_init__(self) -> None:
        """Capacities and TTLs are positive integers up to 2^31-1, the largest TTL DNS allows (RFC 2181)."""
        check_types(self, "cache.")
        for name in ("success_capacity", "success_ttl", "denial_capacity", "denial_ttl", "other_zones_ttl"):
            check_positive(f"cache.{name}", getattr(self, name))
        check_servfail_ttl("cache.servfail_ttl", self.servfail_ttl)
        if self.other_zones_denial_capacity is not None:
            check_positive("cache.other_zones_denial_capacity", self.other_zones_denial_capacity)

    def cluster_directive(self) -> Directive:
        """The cluster-domain block's ``cache``: success and denial capacities and TTLs."""
        return Directive(
            "cache",
            block=(
                Directive("success", (str(self.success_capacity), str(self.success_ttl))),
                Directive("denial", (str(self.denial_capacity), str(self.denial_ttl))),
                *_cache_extras(self.prefetch, self.serve_stale, self.servfail_ttl),
            ),
        )

    def other_directive(self) -> Directive:
        """The other blocks' ``cache TTL`` (with a block only when an option beyond the TTL is set)."""
        denial = (
            (Directive("denial", (str(self.other_zones_denial_capacity),)),)
            if self.other_zones_denial_capacity is not None
            else ()
        )
        extras = _cache_extras(self.prefetch, self.serve_stale, self.servfail_ttl)
        return Directive("cache", (str(self.other_zones_ttl),), (*denial, *extras))


@dataclass(frozen=True, kw_only=True)
class ZoneCache:
    """The ``cache`` of one extra zone's block.

    Replaces: kubespray ``nodelocaldns_external_zones[].cache``; AKS ``cacheDurationInSeconds``.
    """

    ttl: int = defaults.OTHER_ZONES_CACHE_TTL
    """Max seconds an answer is cached, as in the spec's reverse and catch-all blocks. Default: 30.

    Replaces: kubespray ``nodelocaldns_external_zones[].cache``; AKS ``cacheDurationInSeconds``.
    """

    success_capacity: int | None = None
    """Positive answers kept. Default: - the cache plugin's own.

    Replaces: lablabs ``config.zones.<zone>.plugins.cache.success``.
    """

    denial_capacity: int | None = None
    """Negative answers kept. Default: - the cache plugin's own.

    Replaces: lablabs ``config.zones.<zone>.plugins.cache.denial``.
    """

    denial_ttl: int | None = None
    """Max seconds a negative answer is cached. Default: - ``ttl``.

    Replaces: lablabs ``config.zones.<zone>.plugins.cache.denial``.
    """

    prefetch: Prefetch | None = None
    """Refresh popular answers before they expire. Default: - off.

    Replaces: lablabs ``config.zones.<zone>.plugins.cache.prefetch``.
    """

    serve_stale: ServeStale | None = None
    """Answer from expired entries while the zone's upstream is down. Default: - off.

    Replaces: lablabs ``config.zones.<zone>.plugins.cache.serve_stale``; AKS ``serveStale``.
    """

    servfail_ttl: int | None = None
    """Seconds the upstream's SERVFAIL is cached, 0 (never) to 300. Default: - the cache plugin's own, five seconds.

    Replaces: none offers this.
    """

    def __post_init__(self) -> None:
        """Every number is a positive ``int32``, but ``servfail_ttl``: 0-300."""
        check_types(self, "zones.cache.")
        check_positive("zones.cache.ttl", self.ttl)
        for name in ("success_capacity", "denial_capacity", "denial_ttl"):
            value = getattr(self, name)
            if value is not None:
                check_positive(f"zones.cache.{name}", value)
        check_servfail_ttl("zones.cache.servfail_ttl", self.servfail_ttl)

    def directive(self) -> Directive:
        """``cache TTL``, with a block for what is set beyond it."""
        lines: list[Directive] = []
        if self.success_capacity is not None:
            lines.append(Directive("success", (str(self.success_capacity),)))
        if self.denial_capacity is not None or self.denial_ttl is not None:
            capacity = self.denial_capacity if self.denial_capacity is not None else defaults.CACHE_PLUGIN_CAPACITY
            lines.append(Directive("denial", (str(capacity), str(self.denial_ttl or self.ttl))))
        extras = _cache_extras(self.prefetch, self.serve_stale, self.servfail_ttl)
        return Directive("cache", (str(self.ttl),), (*lines, *extras))


@dataclass(frozen=True, kw_only=True)
class ForwardOptions:
    """How a block forwards: the ``forward`` plugin's options, each left to CoreDNS's own default when unset.

    Replaces: deliveryhero ``config.upstreamForwardConfig`` and ``config.commProtocol``; kubespray
    ``dns_upstream_forward_extra_opts``; AKS ``protocol``, ``forwardPolicy``, ``maxConcurrent``.
    """

    protocol: ForwardProtocol = "plain"
    """``force_tcp``, ``prefer_udp``, or ``plain`` (the client's protocol). Default: plain.

    Replaces: deliveryhero ``config.commProtocol``; AKS ``protocol``; Gardener ``forceTCPToClusterDNS``.
    """

    max_fails: int | None = None
    """Failed health checks before an upstream is marked down (``0``: never). Default: - the plugin's own.

    Replaces: lablabs ``config.zones.<zone>.plugins.forward.max_fails``; a deliveryhero
    ``config.upstreamForwardConfig`` line.
    """

    expire: str | None = None
    """How long an idle connection to an upstream is kept. Default: - the plugin's own.

    Replaces: lablabs ``config.zones.<zone>.plugins.forward.expire``; a deliveryhero
    ``config.upstreamForwardConfig`` line.
    """

    health_check: str | None = None
    """How often a down upstream is checked. Default: - the plugin's own.

    Replaces: lablabs ``config.zones.<zone>.plugins.forward.health_check``; a deliveryhero
    ``config.upstreamForwardConfig`` line.
    """

    policy: ForwardPolicy | None = None
    """Which upstream a query goes to: random, round_robin or sequential. Default: - the plugin's own (random).

    Replaces: lablabs ``config.zones.<zone>.plugins.forward.policy``; AKS ``forwardPolicy``.
    """

    max_concurrent: int | None = None
    """Queries in flight to the upstreams at most; beyond it, REFUSED at once instead of waiting.

    Bounds node-cache's memory while an upstream stalls (each waiting query holds memory).
    Default: - no cap (the spec's). Replaces: AKS ``maxConcurrent``.
    """

    max_connect_attempts: int | None = None
    """Upstream attempts a query gets at most; past them, SERVFAIL at once.

    Without it a query that times out (2 s an attempt) or is refused is sent again, to the
    next upstream or the same one, until the plugin's 5 s deadline: a stalled upstream costs
    every client its whole timeout, and a refusing one sees a burst of retries per query
    (kubernetes-sigs/node-local-dns#12). Default: - no bound (the plugin's own). Replaces: none
    offers this as a setting (kubernetes-sigs/node-local-dns#12 asks for it, open); a
    deliveryhero ``config.upstreamForwardConfig`` line can carry it.
    """

    failfast_all_unhealthy_upstreams: bool = False
    """Answer SERVFAIL at once while every upstream has failed its health checks, instead of trying one anyway.

    Needs the health checks (``max_fails`` not 0), which mark an upstream down. Default:
    False (the plugin's own). Replaces: none offers this as a setting; a deliveryhero
    ``config.upstreamForwardConfig`` line can carry it.
    """

    failover: tuple[str, ...] = ()
    """Answer codes (``SERVFAIL``, ``REFUSED``…) on which the query goes to the next upstream instead.

    Needs two upstreams or more to move to. Written in upper case, as CoreDNS names them;
    ``NOERROR`` is refused, as CoreDNS refuses it, and ``NXDOMAIN``: CoreDNS goes round the
    upstreams while each answers a code listed, so every name that does not exist would wait
    out the 5 s deadline and get SERVFAIL. Default: - none (the plugin's own). Replaces: none
    offers this as a setting; a deliveryhero ``config.upstreamForwardConfig`` line can carry it.
    """

    def __post_init__(self) -> None:
        """Validate as the forward plugin parses it; a cap of 0 (no cap, to CoreDNS) is refused as confusing."""
        check_types(self, "forward.")
        if self.protocol not in ("plain", "force_tcp", "prefer_udp"):
            raise ValueError(f"forward.protocol: must be plain, force_tcp or prefer_udp, got {self.protocol!r}")
        if self.max_fails is not None:
            check_positive("forward.max_fails", self.max_fails, allow_zero=True, maximum=INT32_MAX)
        if self.expire is not None:
            check_go_duration("forward.expire", self.expire, positive=True)
        if self.health_check is not None:
            check_go_duration("forward.health_check", self.health_check, positive=True)
        if self.policy not in (None, "random", "round_robin", "sequential"):
            raise ValueError(f"forward.policy: must be random, round_robin or sequential, got {self.policy!r}")
        if self.max_concurrent is not None and (
            isinstance(self.max_concurrent, bool) or not 1 <= self.max_concurrent <= INT32_MAX
        ):
            raise ValueError(
                f"forward.max_concurrent: must be a positive integer, got {self.max_concurrent!r} "
                "(0 means no cap to CoreDNS: leave it None for that)"
            )
        if self.max_connect_attempts is not None:
            if self.max_connect_attempts == 0 and type(self.max_connect_attempts) is int:
                raise ValueError(
                    "forward.max_connect_attempts: must be a positive integer, got 0 "
                    "(0 means no bound to CoreDNS: leave it None for that)"
                )
            check_positive("forward.max_connect_attempts", self.max_connect_attempts, maximum=UINT32_MAX)
        if self.failfast_all_unhealthy_upstreams and self.max_fails == 0:
            raise ValueError(
                "forward.failfast_all_unhealthy_upstreams: needs health checks, but max_fails is 0, "
                "which never marks an upstream down"
            )
        object.__setattr__(self, "failover", _failover_rcodes(self.failover))

    def directive(self, to: Sequence[str]) -> Directive:
        """``forward . TO…``, with a block of the options that are set."""
        block: list[Directive] = []
        if self.protocol != "plain":
            block.append(Directive(self.protocol))
        for name in ("max_fails", "expire", "health_check", "policy", "max_concurrent", "max_connect_attempts"):
            value = getattr(self, name)
            if value is not None:
                block.append(Directive(name, (str(value),)))
        if self.failfast_all_unhealthy_upstreams:
            block.append(Directive("failfast_all_unhealthy_upstreams"))
        if self.failover:
            block.append(Directive("failover", self.failover))
        return Directive("forward", (".", *to), tuple(block))

    def check_upstreams(self, prop: str, count: int) -> None:
        """Refuse ``failover`` where the block forwards to one upstream: it has nowhere to go."""
        if self.failover and count < 2:
            raise ValueError(
                f"{prop}.failover: needs two upstreams or more to move to, but the block forwards to {count}"
            )


def _failover_rcodes(rcodes: tuple[str, ...]) -> tuple[str, ...]:
    """``rcodes`` in CoreDNS's upper case, each once; an unknown one, or ``NOERROR``, refused as CoreDNS does."""
    canonical: list[str] = []
    for rcode in rcodes:
        name = rcode.upper()
        if name == "NOERROR":
            raise ValueError("forward.failover: NOERROR is an answer, not a failure (CoreDNS refuses it)")
        if name == "NXDOMAIN":
            raise ValueError(
                "forward.failover: NXDOMAIN is an answer every upstream gives for a name that does not exist: "
                "CoreDNS would send such a lookup round the upstreams until its 5 s deadline, then answer SERVFAIL"
            )
        if name not in RCODES:
            raise ValueError(
                f"forward.failover: {rcode!r} is not an answer code CoreDNS knows; one of {', '.join(sorted(RCODES))}"
            )
        if name in canonical:
            raise ValueError(f"forward.failover: {name} is given twice")
        canonical.append(name)
    return tuple(canonical)


def _cluster_forward() -> ForwardOptions:
    return ForwardOptions(protocol="force_tcp")


@dataclass(frozen=True, kw_only=True)
class ForwardZone:
    """Names answered by upstreams of their own, in a server block of their own.

    Replaces: deliveryhero ``config.extraServerBlocks``; kubespray ``nodelocaldns_external_zones``;
    the kube-dns ConfigMap's ``stubDomains`` (typed and checked here; see ``read_kube_dns_config_map``).
    """

    names: tuple[str, ...]
    """The zones, e.g. ``("corp.example",)``; one block serves them all."""

    upstreams: tuple[str, ...]
    """Their servers: IPv6 addresses, each optionally ``[address]:port``."""

    forward: ForwardOptions = field(default_factory=ForwardOptions)
    """How the block forwards. Default: - plain, the plugin's own defaults."""

    cache: ZoneCache = field(default_factory=ZoneCache)
    """The block's cache. Default: - as the spec's catch-all block."""

    overrides_cluster_zones: bool = False
    """Whether the zone may take names of the cluster domain or the reverse zones.

    A subzone (``10.in-addr.arpa`` to a company's resolvers) takes precedence by CoreDNS's
    longest match; the zone itself (``ip6.arpa``) replaces the spec's block. Refused unless
    set, so no zone shadows cluster DNS by mistake. Default: False.
    """

    def __post_init__(self) -> None:
        """Names are DNS names (not ``.``), upstreams IPv6; each written in one form."""
        check_types(self, "zones.")
        if not self.names:
            raise ValueError("zones.names: a forward zone needs at least one name, got none")
        if "." in self.names:
            raise ValueError(
                "zones.names: '.' is the catch-all block's: set upstream_servers (and upstream_forward) instead"
            )
        object.__setattr__(self, "names", tuple(_check_name("zones.names", n, "zone") for n in self.names))
        if not self.upstreams:
            raise ValueError(f"zones.upstreams: zone {self.names[0]!r} needs at least one upstream server, got none")
        object.__setattr__(self, "upstreams", tuple(upstream_address("zones.upstreams", u) for u in self.upstreams))
        self.forward.check_upstreams("zones.forward", len(self.upstreams))


@dataclass(frozen=True, kw_only=True)
class HostEntry:
    """A name node-cache answers itself, from the ``hosts`` plugin, without asking an upstream.

    Replaces: kubespray ``dns_etchosts``; deliveryhero ``hosts`` in ``extraServerBlocks``.
    """

    name: str
    """The name, e.g. ``registry.corp.example``."""

    addresses: tuple[str, ...]
    """Its IPv6 addresses."""

    overrides_cluster_zones: bool = False
    """Whether the name may lie in the cluster domain or the reverse zones.

    An entry for ``db.svc.cluster.local`` answers in place of cluster CoreDNS, whatever the
    Service is; refused unless set, so no entry shadows cluster DNS by mistake, as for
    ``ForwardZone``. Default: False.
    """

    def __post_init__(self) -> None:
        """The name is a DNS name, the addresses IPv6 in RFC 5952 form."""
        check_types(self, "hosts.")
        object.__setattr__(self, "name", _check_name("hosts.name", self.name, "name"))
        if not self.addresses:
            raise ValueError(f"hosts.addresses: {self.name!r} needs at least one address, got none")
        canonical = []
        for text in self.addresses:
            try:
                address = ipaddress.ip_address(text)
            except ValueError:
                raise ValueError(f"hosts.addresses: must be IPv6 addresses, got {text!r} for {self.name!r}") from None
            if address.version == 4:
                raise ValueError(
                    f"hosts.addresses: must be IPv6 addresses (the cluster is IPv6-only), got IPv4 {text!r} "
                    f"for {self.name!r}"
                )
            if isinstance(address, ipaddress.IPv6Address) and address.scope_id is not None:
                raise ValueError(
                    f"hosts.addresses: must not be zone-scoped, got {text!r} for {self.name!r} (CoreDNS refuses it)"
                )
            canonical.append(str(address))
        object.__setattr__(self, "addresses", tuple(canonical))


@dataclass(frozen=True, kw_only=True)
class Dns64:
    """``dns64`` in the catch-all block: AAAA answers made from A records, for IPv4-only hosts behind NAT64.

    For IPv6-only clusters whose pods reach IPv4-only names through a NAT64 gateway (kops adds
    it on IPv6-only clusters).
    """

    prefix: str = "64:ff9b::/96"
    """The NAT64 prefix the synthesized addresses get (RFC 6052's well-known one). Default: 64:ff9b::/96."""

    translate_all: bool = False
    """Synthesize for every A answer, even for names with AAAA records of their own. Default: False."""

    def __post_init__(self) -> None:
        """The prefix is an IPv6 network of a length RFC 6052 allows."""
        check_types(self, "dns64.")
        try:
            network = ipaddress.ip_network(self.prefix)
        except ValueError:
            raise ValueError(
                f"dns64.prefix: must be an IPv6 prefix such as '64:ff9b::/96', got {self.prefix!r}"
            ) from None
        if isinstance(network, ipaddress.IPv6Network) and network.network_address.scope_id is not None:
            raise ValueError(f"dns64.prefix: must not be zone-scoped, got {self.prefix!r} (CoreDNS refuses it)")
        if network.version != 6 or network.prefixlen not in _DNS64_PREFIX_LENGTHS:
            raise ValueError(
                "dns64.prefix: must be an IPv6 prefix of length 32, 40, 48, 56, 64 or 96 (RFC 6052), "
                f"got {self.prefix!r}"
            )
        object.__setattr__(self, "prefix", str(network))

    def directive(self) -> Directive:
        """``dns64 PREFIX``, with ``translate_all`` when set."""
        return Directive("dns64", (self.prefix,), (Directive("translate_all"),) if self.translate_all else ())


@dataclass(frozen=True, kw_only=True)
class AQueryFilter:
    """node-cache answers A queries itself, NOERROR with no records, for IPv6-only clusters without NAT64.

    glibc asks A and AAAA together; on an IPv6-only cluster an IPv4 address is of no use to
    a pod, yet every A miss goes upstream. With the filter, the ``template`` plugin answers
    each A query in the chosen zones with an empty answer and an SOA, so the client, and
    node-cache's own denial cache, keep the negative answer for ``ttl`` seconds; no A query
    leaves the node. AAAA and every other type are served as before.

    Caveats: an A query for a name that does not exist gets NOERROR (no data) where the
    AAAA query gets NXDOMAIN; an ANY query in a filtered zone gets the same empty answer
    (the template plugin matches ANY for any type, which RFC 8482 allows). ``dns64`` makes
    its AAAA answers from A records, so the filter never goes where dns64 is on: with the
    default zones ``.`` is left out, and naming it is refused.
    Replaces: none offers this (deliveryhero's ``config.noIPv6Lookups`` is the opposite filter, for AAAA).
    """

    zones: tuple[str, ...] = ()
    """The zones whose A queries are answered: the cluster domain, ``.``, or a name any of our blocks serves.

    Each goes to the block that serves it by CoreDNS's longest match, as ``hosts`` entries
    do; a name in one of ``extra_server_blocks`` is refused (write a ``template`` there).
    Default: - the cluster domain and ``.`` (only the cluster domain when dns64 is on).
    """

    ttl: int = defaults.A_FILTER_TTL
    """Seconds the empty answer may be cached: the SOA's TTL and its minimum (RFC 2308). Default: 30."""

    def __post_init__(self) -> None:
        """Zones are DNS names or ``.``, each listed once; the TTL is 1 to 2^31-1 seconds (RFC 2181)."""
        check_types(self, "a_filter.")
        zones = tuple(z if z == "." else _check_name("a_filter.zones", z, "zone") for z in self.zones)
        for zone in zones:
            if zones.count(zone) > 1:
                raise ValueError(f"a_filter.zones: {zone!r} is listed twice")
        object.__setattr__(self, "zones", zones)
        check_positive("a_filter.ttl", self.ttl, maximum=INT32_MAX)

    def chosen(self, cluster_domain: str, *, dns64: bool) -> tuple[str, ...]:
        """The zones filtered: the given ones, else the cluster domain and ``.`` (without ``.`` under dns64)."""
        return self.zones or ((cluster_domain,) if dns64 else (cluster_domain, "."))

    def directive(self, zones: Sequence[str]) -> Directive:
        """``template IN A ZONE… { rcode NOERROR; authority "ZONE TTL IN SOA . . …" }`` for the zones of one block.

        The SOA names the root as its server and mailbox: it is made up, and a zone of any length
        keeps the record within DNS's 255 bytes (``ns.ZONE`` would not).
        """
        soa = f'"{{{{ .Zone }}}} {self.ttl} IN SOA . . 1 7200 1800 86400 {self.ttl}"'

        return Directive(
            "template",
            ("IN", "A", *(z if z == "." else f"{z}." for z in zones)),
            (Directive("rcode", ("NOERROR",)), Directive("authority", (soa,))),
        )


@dataclass(frozen=True, kw_only=True)
class DnsOptions:
    """What node-cache serves beyond the spec's four blocks, and how it forwards; all off, or the spec's, by default."""

    zones: tuple[ForwardZone, ...] = ()
    """Extra forward zones, each in a block of its own before the catch-all. Default: - none.

    Replaces: deliveryhero ``config.extraServerBlocks``; kubespray ``nodelocaldns_external_zones``; the kube-dns
    ConfigMap's ``stubDomains``.
    """

    upstream_servers: tuple[str, ...] = ()
    """Servers for every other name, instead of the node's ``/etc/resolv.conf``. Default: - the node's resolvers.

    Replaces: deliveryhero ``config.upstreamServers``; kubespray ``upstream_dns_servers``; the kube-dns ConfigMap's
    ``upstreamNameservers``.
    """

    cluster_forward: ForwardOptions = field(default_factory=_cluster_forward)
    """How the cluster domain and reverse zones forward to cluster CoreDNS. Default: - force_tcp (the spec's).

    Replaces: deliveryhero ``config.commProtocol``; Gardener ``forceTCPToClusterDNS``.
    """

    upstream_forward: ForwardOptions = field(default_factory=ForwardOptions)
    """How the catch-all block forwards to the upstream servers. Default: - plain (the spec's).

    Replaces: deliveryhero ``config.upstreamForwardConfig``; kubespray ``dns_upstream_forward_extra_opts``;
    Gardener ``forceTCPToUpstreamDNS``.
    """

    hosts: tuple[HostEntry, ...] = ()
    """Names node-cache answers itself, each in the block that serves it, falling through otherwise. Default: - none.

    Replaces: kubespray ``dns_etchosts``.
    """

    query_log: tuple[LogClass, ...] = ()
    """Log the queries of these classes (all, denial, error, success) in every block. Default: - none (off).

    Replaces: deliveryhero ``config.enableLogging``; AKS ``queryLogging``; kubespray's fixed ``log`` of its zones.
    """

    dns64: Dns64 | None = None
    """dns64 in the catch-all block, for IPv4-only names behind NAT64. Default: - off (the spec's).

    Replaces: kops' dns64 on IPv6-only clusters.
    """

    a_filter: AQueryFilter | None = None
    """Answer A queries in node-cache, with no records, in the chosen zones (IPv6-only clusters). Default: - off.

    Replaces: none offers this (deliveryhero's ``config.noIPv6Lookups`` filters AAAA, the opposite).
    """

    extra_server_blocks: tuple[ServerBlock, ...] = ()
    """Server blocks of your own, from the Corefile model, linted as the rest. Default: - none.

    A block without ``bind`` gets node-cache's, as every block of ours: its local IP and the
    kube-dns ClusterIP, the address pods query. A block with its own ``bind`` must name one
    of those, or pods never reach it: ``local_ip``, ``__PILLAR__LOCAL__DNS__`` (node-cache
    fills in both addresses at start), or for the ClusterIP, unknown when the app is
    synthesized, ``__KUBE_DNS_CLUSTER_IP__``: written as it is in a preview and replaced with
    ``kube_dns_cluster_ip`` when that is given, as in our blocks' ``bind`` (refused with
    ``portable``, which never fills it: bind ``__PILLAR__LOCAL__DNS__`` there). Zones in the
    cluster domain or the reverse zones need ``extra_server_blocks_override_cluster_zones``.
    Replaces: deliveryhero ``config.extraServerBlocks``, and ``config.customConfig`` beside the other Corefile
    props; kops ``additionalConfig`` and ``externalCoreFile``.
    """

    extra_server_blocks_override_cluster_zones: bool = False
    """Whether ``extra_server_blocks`` may serve zones inside the cluster domain or the reverse zones.

    Such a block answers in place of cluster CoreDNS, by CoreDNS's longest match; refused
    unless set, as for ``ForwardZone``. One switch for all the extra blocks, rather than a
    field of ``ServerBlock``: that class is the Corefile model, whose own blocks serve these
    zones by design, and an escape hatch taking the cluster's names is one decision about
    the configuration, not about one block. A block may never serve exactly a zone the
    Corefile already serves. Default: False.
    """

    diagnostic_plugins: tuple[DiagnosticPlugin, ...] = ()
    """The diagnostic plugins ``extra_server_blocks`` may use: ``debug``, ``pprof``, ``trace``. Default: - refused.

    None is node-cache's own: ``pprof`` serves the process's profiles on a listener of its own
    (``localhost:6053`` unless given an address, on the node's host network), ``debug`` turns
    off the recovery from panics (one bad query stops the node's DNS), ``trace`` sends a span
    of every query to a collector. Each is refused unless named here.
    """

    def check_dns_options(
        self,
        cluster_domain: str,
        *,
        local_ip: str = defaults.LOCAL_IP,
        kube_dns_cluster_ip: str | None = None,
        portable: bool = False,
    ) -> None:
        """Refuse what would shadow cluster DNS, repeat a zone, or serve where pods never ask.

        ``local_ip``, ``kube_dns_cluster_ip`` and ``portable`` are node-cache's (see
        ``NodeCacheOptions``): they say which addresses the pods' queries reach.
        """
        spec_zones = (cluster_domain, *REVERSE_ZONES)
        seen: dict[str, str] = {}
        for zone in self.zones:
            for name in zone.names:
                if name in seen:
                    raise ValueError(f"zones: {name!r} is listed twice (in {seen[name]!r})")
                seen[name] = zone.names[0]
                shadowed = _shadowed(name, cluster_domain)
                if shadowed is not None and not zone.overrides_cluster_zones:
                    raise ValueError(
                        f"zones: {name!r} shadows the spec's {shadowed!r}, which cluster CoreDNS answers; set "
                        "overrides_cluster_zones=True if the zone is meant to take those names"
                    )
        object.__setattr__(
            self, "upstream_servers", tuple(upstream_address("upstream_servers", a) for a in self.upstream_servers)
        )
        self.cluster_forward.check_upstreams("cluster_forward", 1)
        if self.upstream_servers:
            self.upstream_forward.check_upstreams("upstream_forward", len(self.upstream_servers))
        names = [entry.name for entry in self.hosts]
        for entry in self.hosts:
            if names.count(entry.name) > 1:
                raise ValueError(f"hosts: {entry.name!r} is listed twice; give one entry all its addresses")
            shadowed = _shadowed(entry.name, cluster_domain)
            if shadowed is not None and not entry.overrides_cluster_zones:
                raise ValueError(
                    f"hosts: {entry.name!r} shadows the spec's {shadowed!r}, which cluster CoreDNS answers; set "
                    "overrides_cluster_zones=True on the entry if it is meant to answer that name"
                )
        if len(set(self.query_log)) != len(self.query_log):
            raise ValueError(f"query_log: a class is listed twice, got {self.query_log!r}")
        for log_class in self.query_log:
            if log_class not in ("all", "denial", "error", "success"):
                raise ValueError(f"query_log: classes are all, denial, error and success, got {log_class!r}")
        for name in self.diagnostic_plugins:
            if name not in DIAGNOSTIC_PLUGINS or self.diagnostic_plugins.count(name) > 1:
                raise ValueError(
                    f"diagnostic_plugins: takes each of {', '.join(sorted(DIAGNOSTIC_PLUGINS))} at most once, "
                    f"got {self.diagnostic_plugins!r}"
                )
        if self.extra_server_blocks:
            try:
                Corefile(
                    cluster_domain=cluster_domain,
                    blocks=self.extra_server_blocks,
                    diagnostic_plugins=self.diagnostic_plugins,
                )
            except ValueError as error:
                message = str(error)
                if not message.startswith("blocks"):
                    raise
                raise ValueError(f"extra_server_blocks{message.removeprefix('blocks')}") from None
        for block in self.extra_server_blocks:
            for name in (block.zone, *block.more_zones):
                if name in seen or name in spec_zones or name == ".":
                    serves = (
                        "the catch-all block serves"
                        if name == "."
                        else f"zones serve (in {seen[name]!r})"
                        if name in seen
                        else "the spec's block serves"
                    )
                    raise ValueError(f"extra_server_blocks: {block.key!r} serves {name!r}, which {serves}")
                shadowed = _shadowed(name, cluster_domain)
                if shadowed is not None and not self.extra_server_blocks_override_cluster_zones:
                    raise ValueError(
                        f"extra_server_blocks: {block.key!r} serves {name!r}, which shadows the spec's {shadowed!r} "
                        "that cluster CoreDNS answers; set extra_server_blocks_override_cluster_zones=True if the "
                        "block is meant to take those names"
                    )
            _check_reachable(block, local_ip=local_ip, kube_dns_cluster_ip=kube_dns_cluster_ip, portable=portable)


def _check_reachable(block: ServerBlock, *, local_ip: str, kube_dns_cluster_ip: str | None, portable: bool) -> None:
    """Refuse an extra block whose own ``bind`` names no address pods query.

    Pods query the kube-dns ClusterIP (kubelet's ``clusterDNS``, unchanged in every mode),
    which node-cache's rules (or the keeper's, in the fallthrough mode) divert to node-cache,
    and may name node-cache's local IP, whose traffic both modes accept as well. Any other
    address of the node is not diverted: a block bound only there serves no pod.
    """
    binds = [arg for bind in block.find("bind") for arg in bind.args]
    if not binds:
        return
    if portable and placeholders.KUBE_DNS_CLUSTER_IP in binds:
        raise ValueError(
            f"extra_server_blocks: {block.key!r} binds {placeholders.KUBE_DNS_CLUSTER_IP}, which portable manifests "
            f"never fill; bind {placeholders.LOCAL_DNS} (node-cache fills in its local IP and the ClusterIP kubelet "
            "gives it), or leave bind out to get node-cache's"
        )
    reachable = {local_ip, placeholders.LOCAL_DNS}
    if not portable:
        reachable |= {placeholders.KUBE_DNS_CLUSTER_IP, *([kube_dns_cluster_ip] if kube_dns_cluster_ip else [])}
    canonical = set()
    for arg in binds:
        try:
            canonical.add(str(ipaddress.ip_address(arg)))
        except ValueError:
            canonical.add(arg)
    if not canonical & reachable:
        cluster_ip = placeholders.LOCAL_DNS if portable else kube_dns_cluster_ip or placeholders.KUBE_DNS_CLUSTER_IP
        raise ValueError(
            f"extra_server_blocks: {block.key!r} binds only {' '.join(binds)}, which no pod queries: pods query the "
            f"kube-dns ClusterIP ({cluster_ip}), which node-cache intercepts, or its local IP {local_ip}; bind one "
            "of those, or leave bind out to get node-cache's"
        )


def _hosts_directive(entries: Sequence[HostEntry]) -> Directive:
    """``hosts /dev/null { ADDRESS NAME… fallthrough }``: the entries alone, never the node's ``/etc/hosts``."""
    lines = [Directive(address, (entry.name,)) for entry in entries for address in entry.addresses]
    return Directive("hosts", ("/dev/null",), (*lines, Directive("fallthrough")))


def _bound(block: ServerBlock, bind: Directive, kube_dns_cluster_ip: str | None) -> ServerBlock:
    """``block`` with node-cache's ``bind`` first when it has none, else its own with the ClusterIP filled in."""
    if not block.find("bind"):
        directives = (bind, *block.directives)
    elif kube_dns_cluster_ip is not None:
        directives = tuple(
            Directive(
                d.name,
                tuple(kube_dns_cluster_ip if a == placeholders.KUBE_DNS_CLUSTER_IP else a for a in d.args),
                d.block,
            )
            if d.name == "bind"
            else d
            for d in block.directives
        )
    else:
        return block
    return ServerBlock(zone=block.zone, more_zones=block.more_zones, port=block.port, directives=directives)


def _serves(block: ServerBlock, name: str) -> int:
    """How specifically ``block`` serves ``name``: the length of its longest zone containing it, or -1."""
    zones = (block.zone, *block.more_zones)
    lengths = [len(z) for z in zones if z == "." or name == z or name.endswith(f".{z}")]
    return max(lengths, default=-1)


def _filter_block(blocks: Sequence[ServerBlock], zone: str, extra: range) -> int:
    """The index of the block that serves ``zone`` by longest match; refuses one of ``extra_server_blocks``."""
    best = max(range(len(blocks)), key=lambda i: _serves(blocks[i], zone))
    if best in extra:
        raise ValueError(
            f"a_filter.zones: {zone!r} falls in the extra server block {blocks[best].key!r}, which is yours: write a "
            "template there"
        )
    return best


def _place_a_filter(
    blocks: list[ServerBlock], a_filter: AQueryFilter, cluster_domain: str, *, dns64: bool, ours: int
) -> None:
    """Add the A-query filter's ``template`` to each block serving a chosen zone; refuses ``.`` under dns64.

    ``ours`` is the index of the first extra server block: those before it and the last (``.``) are ours.
    """
    if dns64 and "." in a_filter.zones:
        raise ValueError(
            "a_filter.zones: '.' is refused with dns64, which makes its AAAA answers from the A records the filter "
            "would answer empty; leave '.' out"
        )
    extra = range(ours, len(blocks) - 1)
    by_block: dict[int, list[str]] = {}
    for zone in a_filter.chosen(cluster_domain, dns64=dns64):
        by_block.setdefault(_filter_block(blocks, zone, extra), []).append(zone)
    for index, zones in by_block.items():
        target = blocks[index]
        blocks[index] = ServerBlock(
            zone=target.zone,
            more_zones=target.more_zones,
            port=target.port,
            directives=(*target.directives, a_filter.directive(zones)),
        )


def node_local_dns_corefile(
    *,
    cluster_domain: str,
    bind_addresses: tuple[str, ...],
    health_address: str,
    ports: Ports,
    cache: CacheSettings,
    dns: DnsOptions | None = None,
    kube_dns_cluster_ip: str | None = None,
) -> Corefile:
    """The NodeLocal DNSCache Corefile: the spec's four blocks, in the upstream reference's order, and ``dns``'s.

    ``cluster.local``, ``in-addr.arpa`` and ``ip6.arpa`` forward (over TCP, by default) to the
    kube-dns-upstream ClusterIP, a persistent connection per node that cuts conntrack churn;
    ``.`` forwards to the node's resolvers, or to ``upstream_servers``. Only the
    cluster-domain block carries the health listener. An extra server block without ``bind``
    gets ``bind_addresses``; ``__KUBE_DNS_CLUSTER_IP__`` in its own becomes
    ``kube_dns_cluster_ip`` when given.
    """
    options = dns or DnsOptions()
    bind = Directive("bind", bind_addresses)
    prometheus = Directive("prometheus", (f":{ports.metrics}",))
    log = (Directive("log", block=(Directive("class", options.query_log),)),) if options.query_log else ()
    to_cluster = options.cluster_forward.directive((placeholders.CLUSTER_DNS,))

    def block(zones: Sequence[str], cache_line: Directive, forward: Directive, *extra: Directive) -> ServerBlock:
        return ServerBlock(
            zone=zones[0],
            more_zones=tuple(zones[1:]),
            port=ports.dns,
            directives=(
                Directive("errors"),
                cache_line,
                Directive("reload"),
                Directive("loop"),
                bind,
                forward,
                prometheus,
                *extra,
                *log,
            ),
        )

    replaced = {name for zone in options.zones for name in zone.names}
    health = Directive("health", (f"[{health_address}]:{ports.health}",))
    blocks: list[ServerBlock] = []
    if cluster_domain not in replaced:
        blocks.append(block((cluster_domain,), cache.cluster_directive(), to_cluster, health))
    blocks += [block((z,), cache.other_directive(), to_cluster) for z in REVERSE_ZONES if z not in replaced]
    for zone in options.zones:
        extra = (health,) if cluster_domain in zone.names else ()
        blocks.append(block(zone.names, zone.cache.directive(), zone.forward.directive(zone.upstreams), *extra))
    blocks += [_bound(extra, bind, kube_dns_cluster_ip) for extra in options.extra_server_blocks]
    upstream = options.upstream_servers or (placeholders.UPSTREAM_SERVERS,)
    dns64 = (options.dns64.directive(),) if options.dns64 is not None else ()
    blocks.append(block((".",), cache.other_directive(), options.upstream_forward.directive(upstream), *dns64))
    if options.a_filter is not None:
        ours = len(blocks) - len(options.extra_server_blocks) - 1
        _place_a_filter(blocks, options.a_filter, cluster_domain, dns64=options.dns64 is not None, ours=ours)
    if options.hosts:
        by_block: dict[int, list[HostEntry]] = {}
        for entry in options.hosts:
            best = max(range(len(blocks)), key=lambda i: _serves(blocks[i], entry.name))
            by_block.setdefault(best, []).append(entry)
        for index, entries in by_block.items():
            target = blocks[index]
            if target.find("hosts"):
                raise ValueError(
                    f"hosts: {entries[0].name!r} falls in the extra server block {target.key!r}, which has a hosts of "
                    "its own (CoreDNS takes one a block): write the entry there"
                )
            blocks[index] = ServerBlock(
                zone=target.zone,
                more_zones=target.more_zones,
                port=target.port,
                directives=(*target.directives, _hosts_directive(entries)),
            )
    return Corefile(cluster_domain=cluster_domain, blocks=tuple(blocks), diagnostic_plugins=options.diagnostic_plugins)
