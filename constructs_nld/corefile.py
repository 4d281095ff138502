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

__all__ = ["NODE_CACHE_PLUGINS", "Corefile", "Directive", "ServerBlock"]

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

_BIND_PLACEHOLDERS = frozenset({placeholders.KUBE_DNS_CLUSTER_IP, *placeholders.NODE_CACHE_RUNTIME_PLACEHOLDERS})
"""What ``bind`` may name besides an address: what node-cache fills in, and the preview's ClusterIP."""
_PILLAR = re.compile(r"__PILLAR__[A-Z0-9_]*?__(?![A-Z0-9_])")
_HEALTH_ADDRESS = re.compile(r"\[(?P<host>[^\]]+)\]:(?P<port>\d+)")
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


def _walk(directives: tuple[Directive, ...]) -> list[Directive]:
    """Every directive, nested ones too, in order."""
    return [d for directive in directives for d in (directive, *_walk(directive.block))]


def _token_problem(token: str) -> str | None:
    """Why ``token`` would not be read back as the one word it is, or None.

    The Corefile lexer splits words at whitespace, starts a comment at ``#``, a quoted
    string at ``"``, reads a lone brace as a block and replaces ``{$VAR}``/``{%VAR%}``
    with the environment.
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


def _arguments(directive: Directive) -> list[str]:
    return [*directive.args, *(arg for child in directive.block for arg in _arguments(child))]


@dataclass(frozen=True, kw_only=True)
class Corefile:
    """A linted Corefile: construction fails with a ``blocks:`` error if node-cache would reject it."""

    cluster_domain: str
    """The cluster domain; its block is the only one allowed a ``health`` listener."""

    blocks: tuple[ServerBlock, ...]
    """Server blocks, in the order written."""

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
            self._lint_bind(block)

    @staticmethod
    def _lint_text(block: ServerBlock) -> None:
        """Refuse what would render into text CoreDNS reads differently, or not at all."""
        for zone in block.zones:
            if zone != "." and not _ZONE.fullmatch(zone):
                raise ValueError(
                    f"blocks: zone must be '.' or a lower-case DNS domain such as 'cluster.local', got {zone!r}"
                )
        check_port("blocks.port", block.port)
        for directive in _walk(block.directives):
            for token in (directive.name, *directive.args):
                problem = _token_problem(token)
                if problem:
                    raise ValueError(
                        f"blocks: {token!r} in {directive.name!r} of {block.key!r} would not render as one word: "
                        f"{problem}"
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

    @staticmethod
    def _lint_bind(block: ServerBlock) -> None:
        for bind in block.find("bind"):
            for arg in bind.args:
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
