"""What the live ``kube-dns`` ConfigMap makes node-cache do, beside the app's Corefile.

node-cache 1.26.8 reads ``/etc/kube-dns`` whenever that directory exists, ``-kubednscm`` or
not (``initDNSConfigSync`` in ``cmd/node-cache/app/configmap.go``), and the spec's DaemonSet
mounts the optional ``kube-dns`` ConfigMap there. The ConfigMap's ``stubDomains`` become
server blocks appended to the Corefile; its ``upstreamNameservers`` take the place of
``__PILLAR__UPSTREAM__SERVERS__``, which the app's Corefile holds only while
``upstream_servers`` is unset. A stub domain the Corefile serves already is fatal: CoreDNS
refuses the Corefile (``cannot serve dns://corp.example.:53 on fd00::10 - it is already
defined``) and node-cache exits, on every node.

Pure code: :class:`KubeDnsConfig` is read from the live object; ``deploy`` refuses a
collision before it writes, and ``verify`` reports the rest.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from constructs_nld import defaults, placeholders
from constructs_nld.deploy.component import Component
from constructs_nld.deploy.errors import PreconditionError

__all__ = ["KubeDnsConfig", "collisions", "refuse_collisions", "served_zones", "upstreams_ignored"]

_HEADER = re.compile(r"^(?P<keys>\S+:[0-9]+(?: \S+:[0-9]+)*) \{$", re.MULTILINE)


def _zone(name: str) -> str:
    return name.lower().rstrip(".") or "."


@dataclass(frozen=True)
class KubeDnsConfig:
    """The node-cache settings of a ``kube-dns`` ConfigMap: its stub domains and upstream nameservers."""

    stub_domains: Mapping[str, tuple[str, ...]]
    """Zone (lower case, no trailing dot) → its nameservers."""

    upstream_nameservers: tuple[str, ...]
    """Nameservers for every other name."""

    unreadable: tuple[str, ...]
    """Keys whose JSON does not parse: node-cache skips the whole ConfigMap then."""

    @staticmethod
    def of(live: Mapping[str, Any] | None) -> KubeDnsConfig:
        """Read the live ConfigMap (None: it does not exist, so it says nothing)."""
        data = (live or {}).get("data") or {}
        stubs: dict[str, tuple[str, ...]] = {}
        upstreams: tuple[str, ...] = ()
        unreadable: list[str] = []
        for key in ("stubDomains", "upstreamNameservers"):
            text = data.get(key)
            if not text or not str(text).strip():
                continue
            try:
                value = json.loads(text)
            except ValueError:
                unreadable.append(key)
                continue
            if key == "stubDomains" and isinstance(value, dict):
                stubs = {_zone(str(zone)): tuple(str(s) for s in servers or ()) for zone, servers in value.items()}
            elif key == "upstreamNameservers" and isinstance(value, list):
                upstreams = tuple(str(server) for server in value)
            else:
                unreadable.append(key)
        return KubeDnsConfig(stubs, upstreams, tuple(unreadable))

    @property
    def empty(self) -> bool:
        """True when it sets nothing node-cache would act on, nor anything it fails to read."""
        return not (self.stub_domains or self.upstream_nameservers or self.unreadable)

    def describe(self) -> str:
        """``stubDomains: corp.example → fd03::100; upstreamNameservers: …`` for a report line."""
        parts = []
        if self.stub_domains:
            stubs = ", ".join(f"{zone} → {' '.join(servers)}" for zone, servers in self.stub_domains.items())
            parts.append(f"stubDomains: {stubs}")
        if self.upstream_nameservers:
            parts.append(f"upstreamNameservers: {' '.join(self.upstream_nameservers)}")
        parts += [f"{key}: not JSON of the expected shape" for key in self.unreadable]
        return "; ".join(parts)


def served_zones(corefile: str) -> frozenset[str]:
    """The zones of the server blocks of a Corefile's text, from their headers."""
    return frozenset(_zone(key.rpartition(":")[0]) for m in _HEADER.finditer(corefile) for key in m["keys"].split())


def _corefile_text(component: Component) -> str:
    corefile = component.corefile
    return str(((corefile or {}).get("data") or {}).get(defaults.COREFILE_KEY, ""))


def collisions(component: Component, config: KubeDnsConfig) -> tuple[str, ...]:
    """Stub domains the app's Corefile serves already, when node-cache reads the ConfigMap: it would exit."""
    if not component.reads_kube_dns_config:
        return ()
    served = served_zones(_corefile_text(component))
    return tuple(zone for zone in config.stub_domains if zone in served)


def upstreams_ignored(component: Component, config: KubeDnsConfig) -> bool:
    """True when the ConfigMap names upstream nameservers that the app's own ``upstream_servers`` override."""
    return bool(config.upstream_nameservers) and placeholders.UPSTREAM_SERVERS not in _corefile_text(component)


def refuse_collisions(component: Component, live: Mapping[str, Any] | None) -> None:
    """Raise :class:`PreconditionError` when node-cache would read a stub domain its Corefile serves already."""
    clashing = collisions(component, KubeDnsConfig.of(live))
    if clashing:
        name = f"configmap/{component.namespace}/{defaults.KUBE_DNS_CONFIG_MAP_NAME}"
        raise PreconditionError(
            f"{name} has stubDomains {', '.join(clashing)}, which the app's Corefile serves too: node-cache reads "
            "both and CoreDNS refuses a zone served twice, so node-cache would exit on every node. Remove them from "
            "the ConfigMap (the app's zones serve them), or set read_kube_dns_config_map=False"
        )
