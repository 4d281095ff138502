"""The Corefile as data: a model of server blocks, its lint, and its text.

Pure code (no cdk8s): the ConfigMap construct renders a :class:`Corefile`, the tests and
the data-plane suite read the same model. The lint encodes what node-cache 1.26.8 and
CoreDNS accept, so a Corefile that would crashloop the pods fails at synth time instead.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

from constructs_nld import placeholders
from constructs_nld.props import check_port, check_types

__all__ = ["DIAGNOSTIC_PLUGINS", "NODE_CACHE_PLUGINS", "PLUGIN_OPTIONS", "Corefile", "Directive", "ServerBlock"]

NODE_CACHE_PLUGINS = frozenset(
    {
        "bind",
        "bufsize",
        "cache",
        "debug",
        "dns64",
        "errors",
        "forward",
        "health",
        "hosts",
        "loadbalance",
        "log",
        "loop",
        "pprof",
        "prometheus",
        "reload",
        "rewrite",
        "template",
        "timeouts",
        "trace",
        "whoami",
    }
)
"""Directives of the CoreDNS plugins compiled into node-cache 1.26.8 (``prometheus`` is the metrics plugin).

Any other top-level directive stops CoreDNS at startup: the pods would crashloop.
"""

_NO_BLOCK: frozenset[str] = frozenset()
PLUGIN_OPTIONS: dict[str, frozenset[str]] = {
    "bind": frozenset({"except"}),
    "bufsize": _NO_BLOCK,
    "cache": frozenset({"denial", "disable", "keepttl", "prefetch", "serve_stale", "servfail", "success"}),
    "debug": _NO_BLOCK,
    "dns64": frozenset({"allow_ipv4", "prefix", "translate_all"}),
    "errors": frozenset({"consolidate", "stacktrace"}),
    "forward": frozenset(
        {
            "except",
            "expire",
            "failfast_all_unhealthy_upstreams",
            "failover",
            "force_tcp",
            "health_check",
            "max_concurrent",
            "max_connect_attempts",
            "max_fails",
            "next",
            "policy",
            "prefer_udp",
            "tls",
            "tls_servername",
        }
    ),
    "health": frozenset({"lameduck"}),
    "hosts": frozenset({"fallthrough", "no_reverse", "reload", "ttl"}),
    "loadbalance": frozenset({"prefer"}),
    "log": frozenset({"class"}),
    "loop": _NO_BLOCK,
    "pprof": frozenset({"block"}),
    "prometheus": _NO_BLOCK,
    "reload": _NO_BLOCK,
    "rewrite": frozenset({"answer", "class", "cname", "continue", "edns0", "name", "rcode", "stop", "ttl", "type"}),
    "template": frozenset(
        {"additional", "answer", "authority", "ederror", "fallthrough", "match", "rcode", "upstream"}
    ),
    "timeouts": frozenset({"idle", "read", "write"}),
    "trace": frozenset(
        {
            "client_server",
            "datadog_analytics_rate",
            "every",
            "service",
            "zipkin_max_backlog_size",
            "zipkin_max_batch_interval",
            "zipkin_max_batch_size",
        }
    ),
    "whoami": _NO_BLOCK,
}
"""The words each plugin of node-cache accepts inside its block, as CoreDNS 1.13.2's ``setup.go`` reads them.

An empty set: the plugin takes no block. ``hosts`` also takes address lines (``ADDRESS
NAME…``) before its ``fallthrough``; ``rewrite``'s block holds the words of one rule.
CoreDNS refuses any other word at startup (``trace`` ignores it, silently).
"""

DIAGNOSTIC_PLUGINS: dict[str, str] = {
    "debug": "it turns off the recovery from panics, so one bad query stops node-cache and the node's DNS with it",
    "pprof": "it serves the process's profiles on a listener of its own (localhost:6053 unless given an address), "
    "on the node's host network",
    "trace": "it sends a span of every query to a collector (zipkin on localhost:9411 unless given an endpoint)",
}
"""The plugins refused unless a Corefile allows them by name, and why: none is node-cache's own.

``health`` and ``prometheus``, node-cache's own listeners, are linted on their own.
"""

_ONCE = frozenset({"cache", "errors", "hosts", "loop", "pprof", "prometheus"})
"""Plugins CoreDNS 1.13.2 takes once per server block ("this plugin can only be used once per Server Block")."""

_BIND_PLACEHOLDERS = frozenset({placeholders.KUBE_DNS_CLUSTER_IP, *placeholders.NODE_CACHE_RUNTIME_PLACEHOLDERS})
"""What ``bind`` may name besides an address: what node-cache fills in, and the preview's ClusterIP."""
_PILLAR = re.compile(r"__PILLAR__[A-Z0-9_]*?__(?![A-Z0-9_])")
_HEALTH_ADDRESS = re.compile(r"\[(?P<host>[^\]]+)\]:(?P<port>\d+)")
_HOST_PORT = re.compile(r"(?:\[(?P<bracketed>[^\]]*)\]|(?P<host>[^:\[\]]*)):(?P<port>[0-9]+)")
_FORWARD_PLACEHOLDERS = frozenset({placeholders.CLUSTER_DNS, placeholders.UPSTREAM_SERVERS})
"""What ``forward`` may send to besides addresses: kube-dns-upstream, the node's resolvers (``/etc/resolv.conf``)."""
_HOSTS_FILE = "/dev/null"
"""The only file ``hosts`` may read: none, its entries written in its block (``_hosts_directive`` in dns.py)."""
_ZONE_LABEL = r"[a-z0-9_](?:[-a-z0-9_]{0,61}[a-z0-9_])?"
_ZONE = re.compile(rf"(?=.{{1,254}}\Z){_ZONE_LABEL}(?:\.{_ZONE_LABEL})*\.?")


@dataclass(frozen=True)
class Directive:
    """One plugin line, with its arguments and an optional nested block."""

    name: str
    """Plugin or option name, e.g. ``forward`` or ``force_tcp``."""

    args: tuple[str, ...] = ()
    """Arguments on the same line. Default: - none."""

    block: tuple[Directive, ...] = ()
    """Lines inside ``{ }`` after the arguments. Default: - no block."""

    def render(self, indent: str) -> list[str]:
        """The directive's lines, indented by ``indent``."""
        head = " ".join((self.name, *self.args))
        if not self.block:
            return [f"{indent}{head}"]
        inner = [line for child in self.block for line in child.render(indent + "    ")]
        return [f"{indent}{head} {{", *inner, f"{indent}}}"]


@dataclass(frozen=True, kw_only=True)
class ServerBlock:
    """A CoreDNS server block: a zone, a port and its plugins."""

    zone: str
    """Zone served, e.g. ``cluster.local`` or ``.``."""

    port: int
    """Port of the server; node-cache's NOTRACK rules assume 53."""

    directives: tuple[Directive, ...]
    """Plugins, in the order written."""

    more_zones: tuple[str, ...] = ()
    """Further zones the same block serves, e.g. a company's second domain. Default: - none."""

    @property
    def zones(self) -> tuple[str, ...]:
        """Every zone the block serves, ``zone`` first."""
        return (self.zone, *self.more_zones)

    @property
    def key(self) -> str:
        """``zone:port`` for each zone, the block's header."""
        return " ".join(f"{zone}:{self.port}" for zone in self.zones)

    def find(self, name: str) -> tuple[Directive, ...]:
        """The top-level directives called ``name``."""
        return tuple(d for d in self.directives if d.name == name)


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _scoped(text: str) -> bool:
    """Whether ``text`` is a zone-scoped IPv6 address (``fd00::1%eth0``), which CoreDNS refuses wherever it is."""
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return False
    return isinstance(address, ipaddress.IPv6Address) and address.scope_id is not None


def _forward_target_problem(target: str) -> str | None:
    """Why ``forward`` would not send to ``target`` as one upstream address, or None.

    CoreDNS takes ``[dns://|tls://]ADDRESS[:PORT]`` (IPv6 with a port in brackets), and reads
    any other word as a file of nameservers: on the node, where node-cache runs.
    """
    if target in _FORWARD_PLACEHOLDERS:
        return None
    if "%" in target:
        return "a zone-scoped address, which CoreDNS refuses (it reads what follows '%' as a TLS server name)"
    scheme, separator, rest = target.partition("://")
    if not separator:
        rest = target
    elif scheme not in ("dns", "tls"):
        return f"{scheme}:// is not a transport forward takes (dns:// or tls://)"
    match = _HOST_PORT.fullmatch(rest)
    host = rest if match is None else match["host"] if match["bracketed"] is None else match["bracketed"]
    if match is not None and not 1 <= int(match["port"]) <= 65535:
        return "its port is out of range 1-65535"
    if not _is_ip(host):
        return (
            "it is no IP address: forward would read a file of that name on the node (node-cache's resolv.conf "
            f"comes only through its own {placeholders.UPSTREAM_SERVERS})"
        )
    return None


def _walk(directives: tuple[Directive, ...]) -> list[Directive]:
    """Every directive, nested ones too, in order."""
    return [d for directive in directives for d in (directive, *_walk(directive.block))]


def _token_problem(token: str) -> str | None:
    """Why ``token`` would not be read back as the one word it is, or None.

    The Corefile lexer splits words at whitespace, starts a comment at ``#``, a quoted
    string at ``"`` (taken only in a ``template``'s records, see ``_words``), reads a lone
    brace as a block and replaces ``{$VAR}``/``{%VAR%}`` with the environment.
    """
    if not token:
        return "it is empty"
    if not token.isprintable() or any(c.isspace() for c in token):
        return "it holds whitespace or a control character"
    if "#" in token or '"' in token:
        return "it holds '#' (a comment) or '\"' (a quoted string)"
    if token in ("{", "}"):
        return "a lone brace opens or closes a block"
    if "{$" in token or "{%" in token:
        return "'{$…}' and '{%…%}' are replaced by environment variables"
    return None


_QUOTED_OPTIONS = frozenset({"additional", "answer", "authority"})
"""The lines of a ``template`` block that may hold a quoted string: a resource record, whose fields need spaces."""


def _quoted_problem(token: str) -> str | None:
    """Why the quoted string ``token`` would not be read back as the text between its quotes, or None."""
    inner = token[1:-1]
    if not inner:
        return "it is empty"
    if not inner.isprintable() or '"' in inner or "\\" in inner:
        return "a quoted string holds a '\"', a '\\' or a control character"
    if "{$" in inner or "{%" in inner:
        return "'{$…}' and '{%…%}' are replaced by environment variables"
    return None


def _words(directive: Directive, quoted: bool) -> list[tuple[str, str, str | None]]:
    """Each word of ``directive`` and its children: the word, its directive, why it would not render (or None).

    ``quoted``: the words are a ``template`` record's, where a quoted string is read as one word.
    """
    words = [(directive.name, directive.name, _token_problem(directive.name))]
    for arg in directive.args:
        is_quoted = quoted and len(arg) >= 2 and arg[0] == arg[-1] == '"'
        words.append((arg, directive.name, _quoted_problem(arg) if is_quoted else _token_problem(arg)))
    for child in directive.block:
        words += _words(child, directive.name == "template" and child.name in _QUOTED_OPTIONS)
    return words


def _arguments(directive: Directive) -> list[str]:
    return [*directive.args, *(arg for child in directive.block for arg in _arguments(child))]


@dataclass(frozen=True, kw_only=True)
class Corefile:
    """A linted Corefile: construction fails with a ``blocks:`` error if node-cache would reject it."""

    cluster_domain: str
    """The cluster domain; its block is the only one allowed a ``health`` listener."""

    blocks: tuple[ServerBlock, ...]
    """Server blocks, in the order written."""

    diagnostic_plugins: tuple[str, ...] = ()
    """The plugins of :data:`DIAGNOSTIC_PLUGINS` the blocks may use (``debug``, ``pprof``, ``trace``).

    None of them is node-cache's own, and each changes what node-cache exposes or how it fails,
    so each is refused unless named here. Default: - none (each refused).
    """

    def __post_init__(self) -> None:
        """Lint the model: its types, then the text it would render, then what node-cache accepts."""
        check_types(self)
        for block in self.blocks:
            check_types(block, "blocks.")
            for directive in _walk(block.directives):
                check_types(directive, "blocks.")
        if not _ZONE.fullmatch(self.cluster_domain) or self.cluster_domain.endswith("."):
            raise ValueError(
                f"cluster_domain: must be a lower-case DNS domain such as 'cluster.local', got {self.cluster_domain!r}"
            )
        for name in self.diagnostic_plugins:
            if name not in DIAGNOSTIC_PLUGINS or self.diagnostic_plugins.count(name) > 1:
                raise ValueError(
                    f"diagnostic_plugins: takes each of {', '.join(sorted(DIAGNOSTIC_PLUGINS))} at most once, "
                    f"got {self.diagnostic_plugins!r}"
                )
        if not self.blocks:
            raise ValueError("blocks: a Corefile needs at least one server block, got none")
        for block in self.blocks:
            self._lint_placeholders(block)
            self._lint_text(block)
        served = [f"{zone}:{block.port}" for block in self.blocks for zone in block.zones]
        for key in served:
            if served.count(key) > 1:
                raise ValueError(f"blocks: server block {key!r} is declared twice")
        self._lint_health()
        for block in self.blocks:
            self._lint_options(block)
            self._lint_bind(block)
            self._lint_files(block)
            self._lint_listeners(block)
            self._lint_diagnostics(block)

    @staticmethod
    def _lint_text(block: ServerBlock) -> None:
        """Refuse what would render into text CoreDNS reads differently, or not at all."""
        for zone in block.zones:
            if zone != "." and not _ZONE.fullmatch(zone):
                raise ValueError(
                    f"blocks: zone must be '.' or a lower-case DNS domain such as 'cluster.local', got {zone!r}"
                )
        check_port("blocks.port", block.port)
        for top in block.directives:
            for token, name, problem in _words(top, quoted=False):
                if problem:
                    raise ValueError(
                        f"blocks: {token!r} in {name!r} of {block.key!r} would not render as one word: {problem}"
                    )
        for directive in block.directives:
            if directive.name not in NODE_CACHE_PLUGINS:
                raise ValueError(
                    f"blocks: directive {directive.name!r} in {block.key!r} is not a plugin of node-cache 1.26.8 "
                    f"(one of {', '.join(sorted(NODE_CACHE_PLUGINS))})"
                )
        for directive in _walk(block.directives):
            if directive.name == "import":
                raise ValueError(
                    f"blocks: 'import' in {block.key!r} is refused at any depth: CoreDNS expands it wherever it "
                    "stands, from a file on the node (a missing one stops CoreDNS at its next start)"
                )

    def _lint_health(self) -> None:
        seen: list[str] = []
        for block in self.blocks:
            for health in block.find("health"):
                where = block.key
                if self.cluster_domain not in block.zones:
                    raise ValueError(
                        f"blocks: health {' '.join(health.args)} is declared in {where!r}; it "
                        f"belongs only in the cluster-domain block {self.cluster_domain!r} "
                        "(the health listener is a singleton: a second one fails with "
                        "'address already in use')"
                    )
                if seen:
                    raise ValueError(
                        f"blocks: health is declared twice (in {seen[0]!r} and {where!r}); "
                        "declare it once, in the cluster-domain block"
                    )
                seen.append(where)
                address = _HEALTH_ADDRESS.fullmatch(health.args[0]) if len(health.args) == 1 else None
                if address is None or not _is_ip(address.group("host")):
                    raise ValueError(
                        f"blocks: health in {where!r} must be '[IPv6]:port' with brackets, "
                        f"got {' '.join(health.args)!r}"
                    )
                if _scoped(address.group("host")):
                    raise ValueError(
                        f"blocks: health in {where!r} must not be zone-scoped, got {health.args[0]!r} "
                        "(CoreDNS refuses it)"
                    )

    @staticmethod
    def _lint_options(block: ServerBlock) -> None:
        """Refuse a word inside a plugin's block that the plugin does not read, and a block inside an option."""
        names = [directive.name for directive in block.directives]
        for name in sorted(_ONCE):
            if names.count(name) > 1:
                raise ValueError(f"blocks: {name!r} is declared twice in {block.key!r}; CoreDNS takes it once a block")
        for directive in block.directives:
            options = PLUGIN_OPTIONS[directive.name]
            where = f"{directive.name!r} of {block.key!r}"
            if directive.block and not options:
                raise ValueError(f"blocks: {where} takes no block (CoreDNS 1.13.2 refuses one)")
            if directive.block and directive.name == "rewrite" and len(directive.args) > 1:
                raise ValueError(
                    f"blocks: {where} takes a block only with at most one argument ('stop' or 'continue'): "
                    "the rule is written either on its line or in the block"
                )
            fallthrough = False
            for option in directive.block:
                if directive.name == "hosts" and _is_ip(option.name):
                    if fallthrough:
                        raise ValueError(
                            f"blocks: address line {option.name!r} in {where} follows 'fallthrough'; "
                            "CoreDNS reads address lines only before it"
                        )
                    if _scoped(option.name) or not option.args:
                        raise ValueError(
                            f"blocks: address line {option.name!r} in {where} must be 'ADDRESS NAME…', the address "
                            f"not zone-scoped (CoreDNS refuses it), got {' '.join((option.name, *option.args))!r}"
                        )
                elif option.name not in options:
                    lines = " or an address line 'ADDRESS NAME…'" if directive.name == "hosts" else ""
                    raise ValueError(
                        f"blocks: {option.name!r} in {where} is not an option of {directive.name} in CoreDNS 1.13.2 "
                        f"(one of {', '.join(sorted(options))}{lines})"
                    )
                fallthrough = fallthrough or option.name == "fallthrough"
                if option.block:
                    raise ValueError(f"blocks: option {option.name!r} in {where} takes no block")

    @staticmethod
    def _lint_files(block: ServerBlock) -> None:
        """Refuse a file on the node, except what node-cache itself reads: ``hosts /dev/null``, its placeholders."""
        for directive in block.directives:
            where = f"{directive.name} in {block.key!r}"
            if directive.name == "hosts" and directive.args[:1] != (_HOSTS_FILE,):
                raise ValueError(
                    f"blocks: {where} must read {_HOSTS_FILE}, its entries written in its block, got "
                    f"{' '.join(directive.args) or 'no file (/etc/hosts)'!r}: node-cache runs on the host network, "
                    "and any other file is the node's"
                )
            if directive.name == "loadbalance" and directive.args[:1] == ("weighted",):
                raise ValueError(f"blocks: {where} must not be 'weighted': its weight file is read on the node")
            if directive.name == "forward":
                if len(directive.args) < 2:
                    raise ValueError(f"blocks: {where} takes a zone and at least one upstream, got {directive.args!r}")
                for target in directive.args[1:]:
                    problem = _forward_target_problem(target)
                    if problem:
                        raise ValueError(f"blocks: {where} sends to {target!r}: {problem}")
                for option in directive.block:
                    if option.name == "tls" and option.args:
                        raise ValueError(
                            f"blocks: tls of {where} must name no file, got {' '.join(option.args)!r}: the "
                            "certificate, key and CA would be read on the node (without any, the image's CAs verify)"
                        )

    @staticmethod
    def _lint_listeners(block: ServerBlock) -> None:
        """Refuse a zone-scoped address in a listener's ``HOST:PORT`` (``prometheus``, ``pprof``)."""
        for directive in block.directives:
            if directive.name not in ("prometheus", "pprof"):
                continue
            for arg in directive.args:
                if "%" in arg:
                    raise ValueError(
                        f"blocks: {directive.name} in {block.key!r} must not listen on a zone-scoped address, "
                        f"got {arg!r} (CoreDNS refuses it)"
                    )

    def _lint_diagnostics(self, block: ServerBlock) -> None:
        for directive in block.directives:
            reason = DIAGNOSTIC_PLUGINS.get(directive.name)
            if reason is not None and directive.name not in self.diagnostic_plugins:
                raise ValueError(
                    f"blocks: {directive.name!r} in {block.key!r} is refused unless diagnostic_plugins names it: "
                    f"{reason}"
                )

    @staticmethod
    def _lint_bind(block: ServerBlock) -> None:
        for bind in block.find("bind"):
            for arg in (*bind.args, *(a for option in bind.block for a in option.args)):
                if arg.startswith("["):
                    raise ValueError(
                        f"blocks: bind in {block.key!r} takes bare addresses without brackets, got {arg!r}"
                    )
                if arg.startswith("__") and arg.endswith("__"):
                    if arg not in _BIND_PLACEHOLDERS:
                        raise ValueError(
                            f"blocks: bind in {block.key!r} takes IP addresses or one of "
                            f"{', '.join(sorted(_BIND_PLACEHOLDERS))}, got {arg!r}"
                        )
                    continue
                try:
                    address = ipaddress.ip_address(arg)
                except ValueError:
                    raise ValueError(f"blocks: bind in {block.key!r} takes IP addresses, got {arg!r}") from None
                if address.is_unspecified:
                    raise ValueError(
                        f"blocks: bind in {block.key!r} must name an address, got {arg!r} (every address of the node, "
                        "on the host network)"
                    )
                if isinstance(address, ipaddress.IPv6Address) and address.scope_id is not None:
                    raise ValueError(
                        f"blocks: bind in {block.key!r} must not be zone-scoped, got {arg!r} (CoreDNS refuses it)"
                    )

    @staticmethod
    def _lint_placeholders(block: ServerBlock) -> None:
        places = [("zone", zone) for zone in block.zones]
        places += [(d.name, arg) for d in block.directives for arg in _arguments(d)]
        for where, text in places:
            for token in _PILLAR.findall(text):
                if token not in placeholders.NODE_CACHE_RUNTIME_PLACEHOLDERS:
                    known = ", ".join(sorted(placeholders.NODE_CACHE_RUNTIME_PLACEHOLDERS))
                    raise ValueError(
                        f"blocks: unknown placeholder {token} in {block.key!r} "
                        f"({where}); node-cache 1.26.8 fills only {known}"
                    )

    def block(self, zone: str) -> ServerBlock:
        """The block serving ``zone``."""
        for block in self.blocks:
            if zone in block.zones:
                return block
        raise KeyError(zone)

    def render(self) -> str:
        """The Corefile text, as node-cache reads it from ``Corefile.base``."""
        chunks = []
        for block in self.blocks:
            lines = [f"{block.key} {{"]
            lines += [line for d in block.directives for line in d.render("    ")]
            lines.append("}")
            chunks.append("\n".join(lines))
        return "\n".join(chunks) + "\n"
