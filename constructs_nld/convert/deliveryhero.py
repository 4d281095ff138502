"""The deliveryhero ``node-local-dns`` chart's values, converted into this library's values file.

A team leaving the chart brings its ``values.yaml``. :func:`convert` reads it as Helm does,
over the chart's own defaults (mappings merged, lists replaced, ``null`` removing a key),
and turns each of the chart's keys into the prop it becomes, or a :class:`Refusal` saying why
it cannot be carried. :data:`RULES` is that mapping, one row per key of the chart, in the
chart's order: the converter runs it, and docs/from-deliveryhero.md is generated from it
(``tools/readme.py``). A prop that comes out equal to the library's default is left out, so
the values file holds only what differs. A key the chart does not have is refused too: Helm
ignored it.

Read from the chart 2.9.2 (commit 0e42740 of deliveryhero/helm-charts, its newest, which
ships node-cache 1.26.7): its ``values.yaml`` and templates. Pure code: neither cdk8s nor a
cluster, so the command answers at once.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import yaml

from constructs_nld import defaults
from constructs_nld.convert.corefile_text import TextBlock, server_blocks
from constructs_nld.corefile import Directive
from constructs_nld.dns import REVERSE_ZONES, ForwardOptions, ForwardZone, Prefetch, ServeStale, upstream_address
from constructs_nld.durations import check_duration
from constructs_nld.props import Ports, Toleration, canonical_ipv6, check_labels

__all__ = [
    "CHART",
    "CHART_APP_VERSION",
    "RULES",
    "Conversion",
    "ConversionError",
    "Refusal",
    "Rule",
    "chart_defaults",
    "chart_value",
    "convert",
    "load",
]

CHART: Final = "deliveryhero node-local-dns 2.9.2"
"""The chart version whose keys and defaults :data:`RULES` holds."""

CHART_APP_VERSION: Final = "1.26.7"
"""The node-cache tag the chart runs when ``image.tag`` is empty (its ``appVersion``)."""

_UNSET: Final = object()
"""The default of a key the chart leaves unset (commented out in its ``values.yaml``)."""


class ConversionError(ValueError):
    """The values file cannot be read as the chart's: not YAML, not a mapping, or a key of the wrong type."""


@dataclass(frozen=True)
class Refusal:
    """A chart key, or an item of one, that the values file cannot carry, and why."""

    key: str
    """The chart key, e.g. ``resources.limits.memory`` or ``tolerations[1]``."""
    reason: str

    def line(self) -> str:
        """``KEY: REASON``, as the command lists it."""
        return f"{self.key}: {self.reason}"


@dataclass(frozen=True)
class Conversion:
    """What a chart values file becomes: this library's values, and every key that could not be carried."""

    values: Mapping[str, Any]
    """The values file: props by name, nested mappings for the props' own dataclasses."""
    refusals: tuple[Refusal, ...]

    def yaml(self) -> str:
        """The values file as YAML, in the order the keys were converted (``{}`` when every prop is the default)."""
        return yaml.safe_dump(dict(self.values), sort_keys=False, default_flow_style=False, allow_unicode=True)


class _Converting:
    """One conversion under way: the chart's values as Helm would see them, the props set, the refusals."""

    def __init__(self, chart: Mapping[str, Any]) -> None:
        self.chart = chart
        self.values: dict[str, Any] = {}
        self.refusals: list[Refusal] = []
        self.key = ""
        """The chart key whose rule runs now."""

    def get(self, key: str) -> Any:
        """The value of the chart key ``key`` (dotted), or ``_UNSET``."""
        node: Any = self.chart
        for part in key.split("."):
            if not isinstance(node, Mapping) or part not in node:
                return _UNSET
            node = node[part]
        return node

    def read(self, key: str, absent: Any = None) -> Any:
        """The value of the chart key ``key``, or ``absent`` when it is unset or null."""
        value = self.get(key)
        return absent if value is _UNSET or value is None else value

    def set(self, prop: str, value: Any, ours: Any) -> None:
        """Set ``prop`` (dotted for a field of a prop's dataclass) unless ``value`` is ``ours``, its default."""
        if value == ours:
            return
        *parents, name = prop.split(".")
        node = self.values
        for parent in parents:
            node = node.setdefault(parent, {})
        node[name] = value

    def refuse(self, key: str, reason: str) -> None:
        """List ``key`` as not carried, for ``reason``."""
        self.refusals.append(Refusal(key, reason))


Convert = Callable[[Any, _Converting], None]


@dataclass(frozen=True)
class Rule:
    """One key of the chart: its default, its type, the prop it becomes, and how."""

    key: str
    """The key's dotted path in the chart's ``values.yaml``; a mapping or list key covers everything under it."""
    default: Any
    """The chart's default (``_UNSET`` where the chart leaves the key unset)."""
    kind: str
    """What the value must be: ``str``, ``int``, ``bool``, ``map``, ``list``, ``map|list``, ``str|int``, ``scalar``."""
    props: str
    """The prop or props it becomes, for the docs; empty when none does."""
    how: str
    """What happens to it, for the docs: how it maps, or why it is refused."""
    convert: Convert = field(repr=False)


_KINDS: Final[Mapping[str, tuple[type, ...]]] = {
    "str": (str,),
    "int": (int,),
    "bool": (bool,),
    "map": (dict,),
    "list": (list,),
    "map|list": (dict, list),
    "str|int": (str, int),
    "scalar": (str, int, float),
}
_KIND_NAMES: Final = {
    "str": "a string",
    "int": "an integer",
    "bool": "true or false",
    "map": "a mapping",
    "list": "a list",
    "map|list": "a mapping or a list",
    "str|int": "a string or an integer",
    "scalar": "a string or a number",
}


def _of_kind(value: Any, kind: str) -> bool:
    if isinstance(value, bool) and kind != "bool":
        return False
    return isinstance(value, _KINDS[kind])


# --- the conversions, one per key or group of keys ------------------------------------------


def _read_with_its_switch(value: Any, converting: _Converting) -> None:
    """A key read by the rule of the key that switches it on (``config.prefetch.enabled`` reads ``amount``)."""


def _image(repository: str, converting: _Converting) -> None:
    tag = converting.read("image.tag", "")
    default_repository = defaults.IMAGE.rpartition(":")[0]
    if tag == "":
        if repository == default_repository:
            return  # the chart's own image: the library runs the spec's tag of it
        tag = CHART_APP_VERSION
    converting.set("image", f"{repository}:{tag}", defaults.IMAGE)


def _cluster_domain(value: str, converting: _Converting) -> None:
    converting.set("cluster_domain", value.rstrip("."), defaults.CLUSTER_DOMAIN)


def _dns_server(value: str, converting: _Converting) -> None:
    try:
        address = ipaddress.ip_address(value)
    except ValueError:
        converting.refuse("config.dnsServer", f"{value!r} is not an IP address")
        return
    if address.version == 4:
        converting.refuse(
            "config.dnsServer",
            f"{value} is IPv4: this library serves IPv6-only clusters (the deploy reads the live kube-dns "
            "ClusterIP, and refuses an IPv4 one)",
        )


def _local_dns(value: str, converting: _Converting) -> None:
    try:
        converting.set("local_ip", canonical_ipv6("local_ip", value), defaults.LOCAL_IP)
    except ValueError as error:
        reason = str(error).removeprefix("local_ip: ")
        converting.refuse("config.localDns", f"{reason}; local_ip stays {defaults.LOCAL_IP}")


def _refuse_unless(default: Any, reason: str) -> Convert:
    """A conversion that refuses every value but ``default``, for ``reason``."""

    def refuse(value: Any, converting: _Converting) -> None:
        if value != default:
            converting.refuse(converting.key, reason)

    return refuse


def _nothing_either_way(value: Any, converting: _Converting) -> None:
    """A key whose every value the library's own behaviour already covers (the rule's ``how`` says which)."""


def _comm_protocol(value: str, converting: _Converting) -> None:
    if value not in ("force_tcp", "prefer_udp"):
        converting.refuse("config.commProtocol", f"must be force_tcp or prefer_udp, got {value!r}")
        return
    converting.set("cluster_forward.protocol", value, "force_tcp")


def _logging(value: bool, converting: _Converting) -> None:
    if value:
        converting.set("query_log", ["all"], [])


def _cache_ttl(value: int, converting: _Converting) -> None:
    if value < 1:
        converting.refuse("config.cacheTTL", f"must be a positive number of seconds, got {value}")
        return
    converting.set("cache.other_zones_ttl", value, defaults.OTHER_ZONES_CACHE_TTL)


def _prefetch(enabled: bool, converting: _Converting) -> None:
    if not enabled:
        return
    try:
        prefetch = Prefetch(
            amount=converting.read("config.prefetch.amount"),
            duration=converting.read("config.prefetch.duration"),
            percentage=converting.read("config.prefetch.percentage"),
        )
    except (TypeError, ValueError) as error:
        converting.refuse("config.prefetch", f"{error}".replace("prefetch.", "config.prefetch.", 1))
        return
    converting.set(
        "cache.prefetch",
        {"amount": prefetch.amount, "duration": prefetch.duration, "percentage": prefetch.percentage},
        None,
    )


def _serve_stale(enabled: bool, converting: _Converting) -> None:
    if not enabled:
        return
    duration, mode = converting.read("config.serveStale.duration"), converting.read("config.serveStale.mode")
    written: dict[str, Any] = {"mode": mode}
    if duration:  # empty: the chart writes the mode alone, and the cache plugin's default duration applies
        written = {"duration": duration, **written}
    try:
        ServeStale(**written)
    except (TypeError, ValueError) as error:
        converting.refuse("config.serveStale", f"{error}".replace("serve_stale.", "config.serveStale.", 1))
        return
    converting.set("cache.serve_stale", written, None)


def _health_port(value: int, converting: _Converting) -> None:
    try:
        Ports(health=value)
    except ValueError as error:
        converting.refuse("config.healthPort", str(error).removeprefix("ports.health: "))
        return
    converting.set("ports.health", value, defaults.HEALTH_PORT)


def _upstream_servers(value: str, converting: _Converting) -> None:
    servers = value.split()
    if servers in ([], ["__PILLAR__UPSTREAM__SERVERS__"], ["/etc/resolv.conf"]):
        return
    carried = []
    for server in servers:
        try:
            carried.append(upstream_address("upstream_servers", server))
        except ValueError as error:
            converting.refuse(f"config.upstreamServers {server}", str(error).removeprefix("upstream_servers: "))
    if carried:
        converting.set("upstream_servers", carried, [])


_FORWARD_NUMBERS: Final = ("max_fails", "max_concurrent", "max_connect_attempts")
_FORWARD_WORDS: Final = ("expire", "health_check", "policy")


def _forward_option(name: str, args: Sequence[str]) -> tuple[str, Any] | None:
    """The ``ForwardOptions`` field and value of one ``forward`` option line, or None if it has none."""
    if not args and name in ("force_tcp", "prefer_udp"):
        return "protocol", name
    if not args and name == "failfast_all_unhealthy_upstreams":
        return name, True
    if args and name == "failover":
        return name, [rcode.upper() for rcode in args]
    if len(args) == 1 and name in _FORWARD_NUMBERS:
        return name, int(args[0]) if args[0].isdigit() else args[0]
    if len(args) == 1 and name in _FORWARD_WORDS:
        return name, args[0]
    return None


def _upstream_forward(value: Any, converting: _Converting) -> None:
    lines = list(value.values()) if isinstance(value, dict) else value
    options: dict[str, Any] = {}
    for line in lines:
        words = str(line).split()
        option = _forward_option(words[0], words[1:]) if words else None
        if option is not None:
            options[option[0]] = option[1]
        else:
            converting.refuse(
                f"config.upstreamForwardConfig {line!r}",
                "not an option upstream_forward has (force_tcp, prefer_udp, max_fails, expire, health_check, "
                "policy, max_concurrent, max_connect_attempts, failfast_all_unhealthy_upstreams, failover); put it "
                "in an extra_server_blocks block of your own",
            )
    if not options:
        return
    try:
        ForwardOptions(**options)
    except (TypeError, ValueError) as error:
        converting.refuse("config.upstreamForwardConfig", str(error).replace("forward.", "upstream_forward.", 1))
        return
    converting.set("upstream_forward", options, {})


_AS_BLOCK: Final = ": write it as an extra_server_blocks block"
_ZONE_PLUGINS: Final = frozenset({"errors", "cache", "reload", "loop", "bind", "forward", "prometheus"})
"""What a block of ``config.extraServerBlocks`` may hold to be a forward zone: the library writes the rest itself."""


def _extra_server_blocks(value: str, converting: _Converting) -> None:
    if not value.strip():
        return
    try:
        blocks = server_blocks(value)
    except ValueError as error:
        converting.refuse("config.extraServerBlocks", f"not a Corefile this converter reads ({error})")
        return
    zones = []
    for block in blocks:
        where = f"config.extraServerBlocks {' '.join(block.keys)}"
        zone, reason = _forward_zone(block, converting.read("config.dnsDomain", defaults.CLUSTER_DOMAIN))
        if zone is None:
            converting.refuse(where, reason)
        else:
            zones.append(zone)
    if zones:
        converting.set("zones", zones, [])


def _forward_zone(block: TextBlock, cluster_domain: str) -> tuple[dict[str, Any] | None, str]:
    """The ``zones`` entry a block of ``config.extraServerBlocks`` is, or None and why it is not one."""
    names = []
    for key in block.keys:
        name, _, port = key.removeprefix("dns://").partition(":")
        if port not in ("", "53"):
            return None, f"it listens on port {port}, and pods ask on 53"
        name = name.rstrip(".").lower()
        if not name or name == "." or "://" in key.removeprefix("dns://"):
            return None, f"{key} is not a zone a forward zone takes{_AS_BLOCK}"
        if any(name == zone or name.endswith(f".{zone}") for zone in (cluster_domain, *REVERSE_ZONES)):
            return None, f"{name} is the cluster's (a zones entry with overrides_cluster_zones takes it, if meant)"
        names.append(name)
    others = sorted({d.name for d in block.directives} - _ZONE_PLUGINS)
    if others:
        return None, f"it uses {', '.join(others)}, which a forward zone has not{_AS_BLOCK}"
    forwards = [d for d in block.directives if d.name == "forward"]
    if len(forwards) != 1 or not forwards[0].args or forwards[0].args[0] != ".":
        return None, f"it has no single 'forward .'{_AS_BLOCK}"
    upstreams = []
    for server in forwards[0].args[1:]:
        try:
            upstreams.append(upstream_address("upstreams", server))
        except ValueError as error:
            return None, str(error).removeprefix("upstreams: ")
    options, reason = _forward_options(forwards[0].block)
    if options is None:
        return None, reason
    zone: dict[str, Any] = {"names": names, "upstreams": upstreams}
    if options:
        zone["forward"] = options
    caches = [d for d in block.directives if d.name == "cache"]
    if caches and (caches[0].block or len(caches[0].args) > 1):
        return None, f"its cache has options a forward zone's cache has not{_AS_BLOCK}"
    if caches and caches[0].args and caches[0].args[0] != str(defaults.OTHER_ZONES_CACHE_TTL):
        if not caches[0].args[0].isdigit():
            return None, f"its cache TTL {caches[0].args[0]!r} is not a number of seconds"
        zone["cache"] = {"ttl": int(caches[0].args[0])}
    try:
        ForwardZone(names=tuple(names), upstreams=tuple(upstreams), forward=ForwardOptions(**options))
    except (TypeError, ValueError) as error:
        return None, str(error)
    return zone, ""


def _forward_options(lines: tuple[Directive, ...]) -> tuple[dict[str, Any] | None, str]:
    """The ``ForwardOptions`` fields of a ``forward`` block's lines, or None and why they are not."""
    options: dict[str, Any] = {}
    for line in lines:
        option = _forward_option(line.name, line.args)
        if option is None:
            return None, f"its forward has {line.name}, which ForwardOptions has not{_AS_BLOCK}"
        options[option[0]] = option[1]
    return options, ""


def _mapping_prop(prop: str, *, labels: bool) -> Convert:
    """A conversion that carries a mapping of annotations, or of ``labels`` (checked as such), to ``prop``."""

    def carry(value: dict[str, Any], converting: _Converting) -> None:
        mapping = {str(key): str(item) for key, item in value.items()}
        if labels:
            try:
                check_labels(prop, mapping)
            except ValueError as error:
                converting.refuse(converting.key, str(error).removeprefix(f"{prop}: "))
                return
        converting.set(prop, mapping, {})

    return carry


def _update_type(value: str, converting: _Converting) -> None:
    if value not in ("RollingUpdate", "OnDelete"):
        converting.refuse("updateStrategy.type", f"must be RollingUpdate or OnDelete, got {value!r}")
        return
    converting.set("update_strategy", value, "RollingUpdate")


def _max_unavailable(value: str | int, converting: _Converting) -> None:
    if converting.read("updateStrategy.type") == "OnDelete":
        return  # OnDelete has no budget: a pod takes the new template once deleted
    percent = isinstance(value, str) and value.endswith("%")
    number = value.removesuffix("%") if isinstance(value, str) else str(value)
    if not number.isdigit() or int(number) < 1 or (percent and int(number) > 100):
        converting.refuse(
            "updateStrategy.rollingUpdate.maxUnavailable",
            f"must be a percentage 1%-100% or a number of pods from 1, got {value!r}",
        )
        return
    carried: str | int = value if isinstance(value, int) or percent else int(value)
    converting.set("max_unavailable", carried, defaults.MAX_UNAVAILABLE)


def _max_surge(value: str | int, converting: _Converting) -> None:
    if value in (0, "0", "0%"):
        return
    converting.refuse(
        "updateStrategy.rollingUpdate.maxSurge",
        "node-cache binds its ports on the node's network, so a second pod on a node cannot start beside the "
        "first: the library rolls by max_unavailable only",
    )


_LEAST_PRIVILEGE: Final = frozenset({"NET_ADMIN", "NET_BIND_SERVICE", "NET_RAW"})


def _security_context(value: dict[str, Any], converting: _Converting) -> None:
    if value.get("privileged") is True:
        return  # the spec's, the library's default
    capabilities = value.get("capabilities")
    added = capabilities.get("add") if isinstance(capabilities, dict) else None
    if (
        set(value) <= {"capabilities", "privileged"}
        and isinstance(capabilities, dict)
        and set(capabilities) == {"add"}
        and isinstance(added, list)
        and set(map(str, added)) <= _LEAST_PRIVILEGE
    ):
        converting.set("privileged", False, defaults.PRIVILEGED)
        return
    converting.refuse(
        "securityContext",
        "the library writes the containers' security context itself: privileged (the spec's), or with "
        "privileged: false only NET_ADMIN, NET_BIND_SERVICE and NET_RAW, without privilege escalation, under "
        "the RuntimeDefault seccomp profile",
    )


def _monitoring_enabled(value: bool, converting: _Converting) -> None:
    """``serviceMonitor.*``: read only while it is enabled, as in the chart."""
    if not value:
        return
    labels = converting.read("serviceMonitor.labels", {})
    if labels:
        converting.set("monitoring_labels", {str(k): str(v) for k, v in labels.items()}, defaults.MONITORING_LABELS)
    converting.set(
        "monitoring_namespace", converting.read("serviceMonitor.prometheusNamespace"), defaults.ALERTS_NAMESPACE
    )
    interval = converting.read("serviceMonitor.interval")
    if interval:
        try:
            check_duration("scrape_interval", str(interval), positive=True)
        except ValueError as error:
            converting.refuse("serviceMonitor.interval", str(error).removeprefix("scrape_interval: "))
        else:
            converting.set("scrape_interval", str(interval), defaults.SCRAPE_INTERVAL)
    unset = {"scrapeTimeout": _UNSET, "path": "/metrics", "honorLabels": False}
    for name, default in unset.items():
        given = converting.read(f"serviceMonitor.{name}", default)
        if given not in (default, ""):
            converting.refuse(
                f"serviceMonitor.{name}", f"the PodMonitor has no {name} prop: it keeps {_shown(default)}"
            )
    for name in ("metricRelabelings", "relabelings"):
        if converting.read(f"serviceMonitor.{name}"):
            converting.refuse(
                f"serviceMonitor.{name}",
                "the PodMonitor has no relabelling prop: relabel in your own chart, through the object's escape "
                "hatch (add_json_patch)",
            )
    if converting.read("serviceMonitor.namePrefix"):
        converting.refuse(
            "serviceMonitor.namePrefix", f"object names are fixed: the PodMonitor is {defaults.POD_MONITOR_NAME}"
        )


def _shown(default: Any) -> str:
    return "Prometheus' default" if default is _UNSET else str(default).lower()


def _dashboard(enabled: bool, converting: _Converting) -> None:
    """``dashboard.*``: read only while it is enabled, as in the chart; the dashboard joins the monitoring chart."""
    if not enabled:
        return
    converting.set("dashboard", True, False)
    namespace = converting.read("dashboard.namespace", defaults.ALERTS_NAMESPACE)
    if converting.read("serviceMonitor.enabled"):
        monitors_in = converting.read("serviceMonitor.prometheusNamespace")
        if namespace != monitors_in:
            converting.refuse(
                "dashboard.namespace",
                f"the dashboard goes to monitoring_namespace with the PodMonitor, here {monitors_in} "
                "(serviceMonitor.prometheusNamespace)",
            )
    else:
        converting.set("monitoring_namespace", namespace, defaults.ALERTS_NAMESPACE)
    label = converting.read("dashboard.label") or "grafana_dashboard"
    try:
        check_labels("dashboard_labels", {label: "1"})
    except ValueError as error:
        converting.refuse("dashboard.label", str(error).removeprefix("dashboard_labels: "))
    else:
        converting.set("dashboard_labels", {label: "1"}, defaults.DASHBOARD_LABELS)
    if converting.read("dashboard.annotations"):
        converting.refuse("dashboard.annotations", "the dashboard ConfigMap has no annotations prop")


def _requests(value: dict[str, Any], converting: _Converting) -> None:
    for resource, amount in value.items():
        prop = {"cpu": ("cpu_request", defaults.CPU_REQUEST), "memory": ("memory_request", defaults.MEMORY_REQUEST)}
        if resource in prop:
            converting.set(prop[resource][0], str(amount), prop[resource][1])
        else:
            converting.refuse(f"resources.requests.{resource}", "the library requests only cpu and memory")


_NO_LIMIT: Final = {
    "memory": "the spec sets no memory limit by design: an OOM kill leaves node-cache's rules behind and "
    "black-holes the node's DNS until it is back (memory_request is the headroom)",
    "cpu": "the spec sets no CPU limit by design: throttling node-cache is DNS latency on every pod of the node",
}


def _limits(value: dict[str, Any], converting: _Converting) -> None:
    carried = {}
    for resource, amount in value.items():
        if resource in _NO_LIMIT:
            converting.refuse(f"resources.limits.{resource}", _NO_LIMIT[resource])
        else:
            carried[str(resource)] = str(amount)
    converting.set("limits", carried, {})


def _affinity(value: dict[str, Any], converting: _Converting) -> None:
    for kind in value:
        if kind != "nodeAffinity":
            converting.refuse(f"affinity.{kind}", "a DaemonSet runs one pod per node: only node affinity applies")
    node = value.get("nodeAffinity") or {}
    required = (node.get("requiredDuringSchedulingIgnoredDuringExecution") or {}).get("nodeSelectorTerms") or []
    preferred = node.get("preferredDuringSchedulingIgnoredDuringExecution") or []
    affinity: dict[str, Any] = {}
    terms = [_term(term, f"affinity.nodeAffinity.required[{i}]", converting) for i, term in enumerate(required)]
    if any(term is not None for term in terms):
        affinity["required"] = [term for term in terms if term is not None]
    chosen = []
    for index, item in enumerate(preferred):
        term = _term(item.get("preference") or {}, f"affinity.nodeAffinity.preferred[{index}]", converting)
        if term is not None:
            chosen.append({"weight": item.get("weight"), "term": term})
    if chosen:
        affinity["preferred"] = chosen
    converting.set("affinity", affinity or None, None)


def _term(term: dict[str, Any], key: str, converting: _Converting) -> dict[str, Any] | None:
    if term.get("matchFields"):
        converting.refuse(f"{key}.matchFields", "node affinity matches node labels only (matchExpressions)")
    expressions = [
        {"key": item.get("key"), "operator": item.get("operator"), "values": list(item.get("values") or [])}
        for item in term.get("matchExpressions") or []
    ]
    for expression in expressions:
        if not expression["values"]:
            del expression["values"]
    return {"match_expressions": expressions} if expressions else None


def _pull_secrets(value: list[Any], converting: _Converting) -> None:
    names = [item.get("name") if isinstance(item, dict) else item for item in value]
    converting.set("image_pull_secrets", [str(name) for name in names], [])


_TOLERATION_FIELDS: Final = ("key", "operator", "value", "effect")


def _tolerations(value: list[Any], converting: _Converting) -> None:
    carried = []
    for index, item in enumerate(value):
        where = f"tolerations[{index}]"
        if not isinstance(item, dict):
            converting.refuse(where, f"must be a mapping, got {item!r}")
            continue
        if not item.get("key"):
            converting.refuse(
                where,
                f"{_shown_toleration(item)} has no key: it tolerates every taint (karpenter.sh/unschedulable and the "
                "not-ready taints among them); list your nodes' taint keys in tolerations",
            )
            continue
        if "tolerationSeconds" in item:
            converting.refuse(
                f"{where}.tolerationSeconds", "node-cache is never evicted on a timer: tolerated without it"
            )
        toleration = {name: item[name] for name in _TOLERATION_FIELDS if item.get(name) is not None}
        try:
            Toleration(**toleration)
        except (TypeError, ValueError) as error:
            converting.refuse(where, str(error).removeprefix("tolerations: ").removeprefix("tolerations."))
            continue
        carried.append(toleration)
    ours = [
        {name: item for name, item in zip(_TOLERATION_FIELDS, row, strict=True) if item is not None}
        for row in defaults.TOLERATIONS
    ]
    if carried:
        converting.set("tolerations", carried, ours)


def _shown_toleration(item: Mapping[str, Any]) -> str:
    return "{" + ", ".join(f"{name}: {item[name]}" for name in ("operator", "effect") if name in item) + "}"


# --- the table ---------------------------------------------------------------------------------

_NAMES_FIXED: Final = (
    f"object names are fixed (the DaemonSet, ConfigMap and ServiceAccount {defaults.DAEMON_SET_NAME}, the Services "
    f"{defaults.UPSTREAM_SERVICE_NAME} and {defaults.METRICS_SERVICE_NAME}): verify and the deploy find the "
    "objects by them"
)


def _rules() -> tuple[Rule, ...]:
    """Every key of the chart's ``values.yaml``, in its order."""
    no_prop = "the library writes no such field"
    return (
        Rule(
            "image.repository", "registry.k8s.io/dns/k8s-dns-node-cache", "str", "`image`",
            "`image` is `REPOSITORY:TAG`; with `image.tag` empty, the chart's own repository becomes the library's "
            f"image (node-cache 1.26.8), another repository is taken at the chart's tag {CHART_APP_VERSION}",
            _image,
        ),
        Rule("image.tag", "", "scalar", "`image`", "read with `image.repository`", _read_with_its_switch),
        Rule("config.dnsDomain", "cluster.local", "str", "`cluster_domain`", "carried", _cluster_domain),
        Rule(
            "config.dnsServer", "172.20.0.10", "str", "",
            "not needed: the deploy reads the live kube-dns ClusterIP; refused when IPv4 (this library serves "
            "IPv6-only clusters)",
            _dns_server,
        ),
        Rule(
            "config.localDns", "169.254.20.25", "str", "`local_ip`",
            "carried when an IPv6 address node-cache can serve on; an IPv4 or link-local one is refused",
            _local_dns,
        ),
        Rule(
            "config.customUpstreamsvc", "", "str", "",
            "refused when set: the library creates kube-dns-upstream itself and points node-cache at it",
            _refuse_unless(
                "", "the library creates kube-dns-upstream itself and points node-cache at it (its name is fixed)"
            ),
        ),
        Rule(
            "config.upstreamServiceSelector", dict(defaults.KUBE_DNS_SELECTOR), "map", "",
            "refused unless `k8s-app: kube-dns`: kube-dns-upstream selects the kube-dns pods",
            _refuse_unless(
                dict(defaults.KUBE_DNS_SELECTOR),
                "kube-dns-upstream selects the kube-dns pods by k8s-app: kube-dns, as kube-dns itself does",
            ),
        ),
        Rule(
            "config.bindIp", False, "bool", "",
            "not needed: the library binds node-cache's two addresses, `local_ip` and the kube-dns ClusterIP "
            "(`bindIp: true`'s form), which are what pods query",
            _nothing_either_way,
        ),
        Rule(
            "config.commProtocol", "force_tcp", "str", "`cluster_forward.protocol`",
            "carried: the chart writes it in the cluster domain and reverse blocks, as `cluster_forward` is",
            _comm_protocol,
        ),
        Rule("config.enableLogging", False, "bool", "`query_log`", "`true` becomes `query_log: [all]`", _logging),
        Rule(
            "config.noIPv6Lookups", False, "bool", "",
            "refused when true: on an IPv6-only cluster an empty answer to every AAAA query leaves pods no address",
            _refuse_unless(
                False,
                "on an IPv6-only cluster an empty answer to every AAAA query leaves pods no address to reach",
            ),
        ),
        Rule("config.cacheTTL", 30, "int", "`cache.other_zones_ttl`", "carried", _cache_ttl),
        Rule(
            "config.prefetch.enabled", False, "bool", "`cache.prefetch`",
            "`true` carries `amount`, `duration` and `percentage` to `cache.prefetch`", _prefetch,
        ),
        Rule("config.prefetch.amount", 3, "int", "`cache.prefetch.amount`", "with `enabled`", _read_with_its_switch),
        Rule(
            "config.prefetch.duration", "30s", "str", "`cache.prefetch.duration`", "with `enabled`",
            _read_with_its_switch,
        ),
        Rule(
            "config.prefetch.percentage", "20%", "str|int", "`cache.prefetch.percentage`", "with `enabled`",
            _read_with_its_switch,
        ),
        Rule(
            "config.serveStale.enabled", False, "bool", "`cache.serve_stale`",
            "`true` carries `duration` and `mode` to `cache.serve_stale`", _serve_stale,
        ),
        Rule(
            "config.serveStale.duration", "1h", "str", "`cache.serve_stale.duration`", "with `enabled`",
            _read_with_its_switch,
        ),
        Rule("config.serveStale.mode", "verify", "str", "`cache.serve_stale.mode`", "with `enabled`",
             _read_with_its_switch),
        Rule("config.healthPort", 8080, "int", "`ports.health`", "carried", _health_port),
        Rule(
            "config.setupInterface", True, "bool", "",
            "refused when false: node-cache creates its interface for `local_ip` itself",
            _refuse_unless(True, "node-cache creates the interface that holds local_ip itself"),
        ),
        Rule(
            "config.setupIptables", True, "bool", "`interception`",
            "refused when false (the chart's IPVS mode, where kubelet's clusterDNS names `localDns`): the library "
            "intercepts the kube-dns ClusterIP, with node-cache's rules or the fallthrough keeper's",
            _refuse_unless(
                True,
                "the chart's IPVS mode (kubelet's clusterDNS naming localDns) is not offered: the library "
                "intercepts the kube-dns ClusterIP, with node-cache's rules or interception: fallthrough",
            ),
        ),
        Rule(
            "config.skipTeardown", False, "bool", "",
            "refused when true: node-cache removes its rules and interface on SIGTERM, so a stopped pod leaves "
            "the node's DNS working",
            _refuse_unless(
                False,
                "node-cache removes its rules and interface on SIGTERM, so a stopped pod leaves the node's DNS working",
            ),
        ),
        Rule(
            "config.extraServerBlocks", "", "str", "`zones`",
            "a block that only forwards a zone (`errors`, `cache [TTL]`, `reload`, `loop`, `bind`, `forward .` with "
            "IPv6 servers and its options, `prometheus`) becomes a `zones` entry; another block is refused: write it "
            "as an `extra_server_blocks` block",
            _extra_server_blocks,
        ),
        Rule(
            "config.customConfig", "", "str", "the props that make the Corefile",
            "refused when set (a whole Corefile): its usual cases are `zones`, `upstream_servers`, "
            "`upstream_forward`, `cluster_forward`, `cache`, `hosts`, `query_log`, `dns64` and "
            "`extra_server_blocks`",
            _refuse_unless(
                "",
                "a whole Corefile: the library writes it from props; its usual cases are zones, upstream_servers, "
                "upstream_forward, cluster_forward, cache, hosts, query_log, dns64 and extra_server_blocks",
            ),
        ),
        Rule(
            "config.port.number", 53, "int", "`ports.dns`",
            "refused unless 53: pods ask the kube-dns ClusterIP on port 53",
            _refuse_unless(53, "pods ask the kube-dns ClusterIP on port 53, which resolv.conf cannot change"),
        ),
        Rule(
            "config.port.tcp", defaults.DNS_TCP_PORT_NAME, "str", "",
            f"refused unless `{defaults.DNS_TCP_PORT_NAME}`: the port names are fixed",
            _refuse_unless(defaults.DNS_TCP_PORT_NAME, "the container's port names are fixed"),
        ),
        Rule(
            "config.port.udp", defaults.DNS_UDP_PORT_NAME, "str", "",
            f"refused unless `{defaults.DNS_UDP_PORT_NAME}`: the port names are fixed",
            _refuse_unless(defaults.DNS_UDP_PORT_NAME, "the container's port names are fixed"),
        ),
        Rule(
            "config.upstreamServers", "__PILLAR__UPSTREAM__SERVERS__", "str", "`upstream_servers`",
            "each IPv6 server carried; an IPv4 one refused; the placeholder and `/etc/resolv.conf` are the default",
            _upstream_servers,
        ),
        Rule(
            "config.upstreamForwardConfig", {}, "map|list", "`upstream_forward`",
            "each line carried as its option (`force_tcp`, `prefer_udp`, `max_fails`, `expire`, `health_check`, "
            "`policy`, `max_concurrent`, `max_connect_attempts`, `failfast_all_unhealthy_upstreams`, `failover`); "
            "another line refused",
            _upstream_forward,
        ),
        Rule("nameOverride", "", "str", "", f"refused when set: {_NAMES_FIXED}", _refuse_unless("", _NAMES_FIXED)),
        Rule(
            "fullnameOverride", "", "str", "", f"refused when set: {_NAMES_FIXED}", _refuse_unless("", _NAMES_FIXED)
        ),
        Rule(
            "serviceAccount.create", True, "bool", "",
            "refused when false: the library always creates its ServiceAccount",
            _refuse_unless(True, "the library always creates its ServiceAccount, node-local-dns"),
        ),
        Rule(
            "serviceAccount.annotations", {}, "map", "", f"refused when set: {no_prop}",
            _refuse_unless({}, "the ServiceAccount has no annotations prop"),
        ),
        Rule(
            "serviceAccount.name", "", "str", "", f"refused when set: {_NAMES_FIXED}", _refuse_unless("", _NAMES_FIXED)
        ),
        Rule(
            "service.annotations", {}, "map", "", f"refused when set: {no_prop}",
            _refuse_unless({}, "the metrics Service has no annotations prop"),
        ),
        Rule(
            "podAnnotations", {}, "map", "`pod_annotations`", "carried",
            _mapping_prop("pod_annotations", labels=False),
        ),
        Rule("podLabels", {}, "map", "`pod_labels`", "carried", _mapping_prop("pod_labels", labels=True)),
        Rule(
            "configMapAnnotations", {}, "map", "", f"refused when set: {no_prop}",
            _refuse_unless({}, "the ConfigMap has no annotations prop"),
        ),
        Rule(
            "configMapLabels", {}, "map", "`labels`",
            "refused when set: `labels` labels every object and the pods (and rolls them), not the ConfigMap alone",
            _refuse_unless({}, "labels labels every object and the pods (and rolls them), not the ConfigMap alone"),
        ),
        Rule(
            "daemonsetAnnotations", {}, "map", "", f"refused when set: {no_prop}",
            _refuse_unless({}, "the DaemonSet has no annotations prop"),
        ),
        Rule(
            "daemonsetLabels", {}, "map", "`labels`",
            "refused when set: `labels` labels every object and the pods (and rolls them), not the DaemonSet alone",
            _refuse_unless({}, "labels labels every object and the pods (and rolls them), not the DaemonSet alone"),
        ),
        Rule("updateStrategy.type", "RollingUpdate", "str", "`update_strategy`", "carried", _update_type),
        Rule(
            "updateStrategy.rollingUpdate.maxUnavailable", "10%", "str|int", "`max_unavailable`",
            "carried (the library's default is the spec's 1%)", _max_unavailable,
        ),
        Rule(
            "updateStrategy.rollingUpdate.maxSurge", _UNSET, "str|int", "",
            "refused unless 0: node-cache binds its ports on the node's network, so no second pod starts beside it",
            _max_surge,
        ),
        Rule(
            "initContainers", [], "list", "", f"refused when set: {no_prop}",
            _refuse_unless([], "the pods have no init containers prop"),
        ),
        Rule(
            "securityContext", {"capabilities": {"add": ["NET_ADMIN"]}}, "map", "`privileged`",
            "`privileged: true` is the default; capabilities alone (the chart's NET_ADMIN) become `privileged: "
            "false`, the library's least privilege; anything else is refused",
            _security_context,
        ),
        Rule(
            "serviceMonitor.enabled", False, "bool", "`monitoring`",
            "the library's PodMonitor is on by default (`monitoring`); when true, the keys below are read",
            _monitoring_enabled,
        ),
        Rule("serviceMonitor.labels", {}, "map", "`monitoring_labels`", "with `enabled`", _read_with_its_switch),
        Rule(
            "serviceMonitor.path", "/metrics", "str", "",
            "with `enabled`: refused unless /metrics", _read_with_its_switch,
        ),
        Rule(
            "serviceMonitor.honorLabels", False, "bool", "", "with `enabled`: refused when true", _read_with_its_switch
        ),
        Rule("serviceMonitor.interval", _UNSET, "str", "`scrape_interval`", "with `enabled`", _read_with_its_switch),
        Rule(
            "serviceMonitor.scrapeTimeout", _UNSET, "str", "", "with `enabled`: refused when set",
            _read_with_its_switch,
        ),
        Rule(
            "serviceMonitor.metricRelabelings", [], "list", "", "with `enabled`: refused when set",
            _read_with_its_switch,
        ),
        Rule(
            "serviceMonitor.relabelings", [], "list", "", "with `enabled`: refused when set", _read_with_its_switch
        ),
        Rule(
            "serviceMonitor.namePrefix", "", "str", "", f"with `enabled`: refused when set: {_NAMES_FIXED}",
            _read_with_its_switch,
        ),
        Rule(
            "serviceMonitor.prometheusNamespace", "kube-system", "str", "`monitoring_namespace`", "with `enabled`",
            _read_with_its_switch,
        ),
        Rule(
            "dashboard.enabled", False, "bool", "`dashboard`",
            "carried; the dashboard joins the monitoring chart, so it needs `monitoring`", _dashboard,
        ),
        Rule(
            "dashboard.namespace", "kube-system", "str", "`monitoring_namespace`",
            "with `enabled`: the dashboard lives beside the PodMonitor, so it is refused when `serviceMonitor` "
            "names another namespace",
            _read_with_its_switch,
        ),
        Rule(
            "dashboard.label", "grafana_dashboard", "str", "`dashboard_labels`", "with `enabled`",
            _read_with_its_switch,
        ),
        Rule(
            "dashboard.annotations", {}, "map", "", "with `enabled`: refused when set", _read_with_its_switch
        ),
        Rule(
            "resources.requests", {"cpu": "25m", "memory": "128Mi"}, "map", "`cpu_request`, `memory_request`",
            "cpu and memory carried; another request refused", _requests,
        ),
        Rule(
            "resources.limits", {"memory": "128Mi"}, "map", "`limits`",
            "memory and cpu refused (the spec sets no memory or CPU limit by design); any other carried",
            _limits,
        ),
        Rule(
            "lifecycle", {}, "map", "`termination_grace_period_seconds`",
            "refused when set: node-cache cleans up on SIGTERM within `termination_grace_period_seconds`",
            _refuse_unless(
                {},
                "the container has no lifecycle prop: node-cache cleans up on SIGTERM within "
                "termination_grace_period_seconds",
            ),
        ),
        Rule(
            "resizePolicy", [], "list", "", f"refused when set: {no_prop}",
            _refuse_unless([], "the container has no resize policy prop"),
        ),
        Rule(
            "affinity", {}, "map", "`affinity`",
            "node affinity carried (required and preferred terms); pod affinity refused", _affinity,
        ),
        Rule("imagePullSecrets", [], "list", "`image_pull_secrets`", "the names carried", _pull_secrets),
        Rule(
            "prometheusScraping.enabled", True, "bool", "`monitoring`",
            "not needed: the library's PodMonitor scrapes both metrics ports (add `prometheus.io/*` annotations "
            "through `pod_annotations` if a Prometheus scrapes by annotation)",
            _nothing_either_way,
        ),
        Rule(
            "tolerations",
            [
                {"key": "CriticalAddonsOnly", "operator": "Exists"},
                {"effect": "NoExecute", "operator": "Exists"},
                {"effect": "NoSchedule", "operator": "Exists"},
            ],
            "list", "`tolerations`",
            "each toleration with a key carried; a keyless `Exists` refused (it tolerates every taint)",
            _tolerations,
        ),
    )  # fmt: skip


RULES: Final[tuple[Rule, ...]] = _rules()
"""Every key of the chart, in the order of its ``values.yaml``: its default, the prop it becomes, how."""


def chart_defaults() -> dict[str, Any]:
    """The chart's ``values.yaml`` as :data:`RULES` hold it: every default, nested."""
    tree: dict[str, Any] = {}
    for rule in RULES:
        if rule.default is _UNSET:
            continue
        *parents, name = rule.key.split(".")
        node = tree
        for parent in parents:
            node = node.setdefault(parent, {})
        node[name] = _copy(rule.default)
    return tree


def chart_value(value: Any) -> str:
    """A chart default as the docs show it: its YAML flow form in a code span, or ``unset``."""
    if value is _UNSET:
        return "unset"
    if value == "":
        return '`""`'
    text = yaml.safe_dump(value, default_flow_style=True, width=10**6).strip().removesuffix("...").strip()
    return f"`{text}`"


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy(item) for item in value]
    return value


def _merge(base: dict[str, Any], given: Mapping[str, Any]) -> dict[str, Any]:
    """``given`` over ``base`` as Helm merges a values file: mappings merged, anything else replaced, null removes."""
    merged = dict(base)
    for key, value in given.items():
        if value is None:
            merged.pop(key, None)
        elif isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _unknown(given: Mapping[str, Any], prefix: str = "") -> list[str]:
    """The keys of ``given`` that no rule covers, as dotted paths."""
    found = []
    for key, value in given.items():
        path = f"{prefix}{key}"
        if any(rule.key == path for rule in RULES):
            continue
        if isinstance(value, dict) and any(rule.key.startswith(f"{path}.") for rule in RULES):
            found += _unknown(value, f"{path}.")
        else:
            found.append(path)
    return found


def _check_kinds(chart: Mapping[str, Any], given: Mapping[str, Any]) -> None:
    """Refuse a key of the wrong type, or a mapping the chart reads as one given as something else."""
    for rule in RULES:
        parts = rule.key.split(".")
        node: Any = given
        for depth, part in enumerate(parts[:-1]):
            node = node.get(part) if isinstance(node, dict) else None
            if node is not None and not isinstance(node, dict):
                where = ".".join(parts[: depth + 1])
                raise ConversionError(f"{where}: must be a mapping, got {node!r}")
    converting = _Converting(chart)
    for rule in RULES:
        value = converting.get(rule.key)
        if value is _UNSET or value is None:
            continue
        if not _of_kind(value, rule.kind):
            raise ConversionError(f"{rule.key}: must be {_KIND_NAMES[rule.kind]}, got {value!r}")


def convert(given: Mapping[str, Any]) -> Conversion:
    """This library's values for the chart values ``given`` (a parsed ``values.yaml``).

    Raises:
        ConversionError: a key of the chart holds a value of the wrong type.
    """
    given = {str(key): value for key, value in given.items()}
    chart = _merge(chart_defaults(), given)
    _check_kinds(chart, given)
    converting = _Converting(chart)
    for rule in RULES:
        value = converting.get(rule.key)
        if value is _UNSET or value is None:
            continue
        converting.key = rule.key
        rule.convert(value, converting)
    for key in _unknown(given):
        converting.refuse(key, f"not a key of the chart ({CHART}): Helm ignored it")
    return Conversion(converting.values, tuple(converting.refusals))


def load(text: str, source: str) -> dict[str, Any]:
    """The mapping a values file holds; ``source`` names it in the error.

    Raises:
        ConversionError: the text is not YAML, or not a mapping.
    """
    try:
        loaded = yaml.safe_load(text)
    except yaml.YAMLError as error:
        where = getattr(error, "problem_mark", None)
        at = f" (line {where.line + 1})" if where is not None else ""
        raise ConversionError(f"{source}: not YAML{at}") from None
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise ConversionError(f"{source}: must be a mapping of the chart's keys, got {type(loaded).__name__}")
    return loaded
