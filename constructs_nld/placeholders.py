"""Placeholders in synthesized output, and the check that tells preview from deployable.

Two kinds of ``__NAME__`` tokens can appear in our manifests:

- ours, ``__KUBE_DNS_CLUSTER_IP__``: written only by a preview synth (no ClusterIP known).
  Output that still holds it must never reach a cluster: node-cache would fail to parse
  the Corefile and crashloop.
- node-cache's runtime placeholders, which the binary fills into ``Corefile.base`` when it
  starts. They are expected, but only inside the Corefile: nothing fills them elsewhere.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from constructs_nld import defaults

__all__ = [
    "CLUSTER_DNS",
    "KUBE_DNS_SERVICE_HOST",
    "KUBE_DNS_CLUSTER_IP",
    "LOCAL_DNS",
    "NODE_CACHE_RUNTIME_PLACEHOLDERS",
    "DNS_SERVER",
    "UPSTREAM_SERVERS",
    "NotDeployableError",
    "UnresolvedPlaceholder",
    "check_deployable",
    "find_unresolved_placeholders",
    "is_deployable",
]

KUBE_DNS_CLUSTER_IP: Final = "__KUBE_DNS_CLUSTER_IP__"
"""Stands for the live kube-dns ClusterIP in a preview synth."""

KUBE_DNS_SERVICE_HOST: Final = "$(KUBE_DNS_SERVICE_HOST)"
"""The kube-dns ClusterIP in portable output: kubelet expands ``$(VAR)`` in container args from
the container's environment, which holds the Service variables of the pod's namespace
(``KUBE_DNS_SERVICE_HOST`` for ``kube-system/kube-dns``). Not a placeholder of ours: the
manifests holding it are deployable as they are."""

CLUSTER_DNS: Final = "__PILLAR__CLUSTER__DNS__"
"""node-cache fills in the ClusterIP of the ``-upstreamsvc`` Service (kube-dns-upstream)."""

UPSTREAM_SERVERS: Final = "__PILLAR__UPSTREAM__SERVERS__"
"""node-cache fills in the nameservers of the node's ``/etc/resolv.conf``."""

LOCAL_DNS: Final = "__PILLAR__LOCAL__DNS__"
"""node-cache fills in every ``-localip`` value, space separated."""

DNS_SERVER: Final = "__PILLAR__DNS__SERVER__"
"""node-cache deletes this token."""

NODE_CACHE_RUNTIME_PLACEHOLDERS: Final = frozenset({CLUSTER_DNS, UPSTREAM_SERVERS, LOCAL_DNS, DNS_SERVER})
"""Every placeholder node-cache 1.26.8 fills; ``__PILLAR__DNS__DOMAIN__`` is not one of them."""

PLACEHOLDER_PATTERN: Final = re.compile(r"__[A-Z][A-Z0-9_]*?__(?![A-Z0-9_])")
"""A ``__NAME__`` token, including node-cache's ``__PILLAR__X__Y__`` form."""


@dataclass(frozen=True)
class UnresolvedPlaceholder:
    """One placeholder that keeps an object from being deployable."""

    kind: str
    """Kind of the object that holds it."""

    name: str
    """``namespace/name`` of the object."""

    path: str
    """Where in the object, e.g. ``spec.template.spec.containers[0].args[1]``."""

    token: str
    """The placeholder itself."""

    def __str__(self) -> str:
        """One line naming the object, the field and the token."""
        return f"{self.kind} {self.name}: {self.path} holds {self.token}"


class NotDeployableError(ValueError):
    """Synthesized output still holds placeholders that nothing will fill."""

    def __init__(self, unresolved: list[UnresolvedPlaceholder]) -> None:
        """Keep the findings and list them in the message."""
        self.unresolved = unresolved
        lines = "\n".join(f"  - {item}" for item in unresolved)
        super().__init__(
            "manifests are not deployable: they still hold placeholders "
            f"(synthesize with the live kube-dns ClusterIP):\n{lines}"
        )


def _walk(value: Any, path: str) -> Iterable[tuple[str, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _walk(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from _walk(item, f"{path}[{index}]")


def _is_corefile(obj: Mapping[str, Any], path: str) -> bool:
    return obj.get("kind") == "ConfigMap" and path == f"data.{defaults.COREFILE_KEY}"


def find_unresolved_placeholders(objects: Iterable[Mapping[str, Any]]) -> list[UnresolvedPlaceholder]:
    """Every placeholder in ``objects`` that nothing will fill at runtime.

    node-cache's own placeholders count as resolved inside a ConfigMap's ``Corefile``
    key (the binary fills them); anywhere else, and for any other token, they do not.
    """
    found: list[UnresolvedPlaceholder] = []
    for obj in objects:
        metadata = obj.get("metadata") or {}
        name = f"{metadata.get('namespace', '')}/{metadata.get('name', '')}"
        for path, text in _walk(obj, ""):
            for token in dict.fromkeys(PLACEHOLDER_PATTERN.findall(text)):
                if token in NODE_CACHE_RUNTIME_PLACEHOLDERS and _is_corefile(obj, path):
                    continue
                found.append(UnresolvedPlaceholder(str(obj.get("kind", "")), name, path, token))
    return found


def is_deployable(objects: Iterable[Mapping[str, Any]]) -> bool:
    """True when no placeholder of ours (or a misplaced one of node-cache's) is left."""
    return not find_unresolved_placeholders(objects)


def check_deployable(objects: Iterable[Mapping[str, Any]]) -> None:
    """Raise :class:`NotDeployableError` listing every unresolved placeholder."""
    unresolved = find_unresolved_placeholders(objects)
    if unresolved:
        raise NotDeployableError(unresolved)
