"""What node-cache's caches may hold at worst, against the memory its pod requests.

Each server block's ``cache`` keeps up to its success capacity of answers and its denial
capacity of negative answers (NXDOMAIN, no data, SERVFAIL), 9,984 each unless set: the
plugin's 10,000 spread over 256 shards of ``capacity // 256`` entries, at least 4. The spec's
four blocks may so hold 79,872 entries, with no memory limit by design. Nothing refuses a
larger cache; but a user who raises a capacity or adds zones with caches of their own should
learn whether the memory request still covers the worst case, before the nodes do.
:func:`cache_budget` reads the blocks' capacities from a Corefile's text (the app's, or the
live ConfigMap's) and the request from the DaemonSet; the cost of an entry is measured on the
real node-cache (``defaults.CACHE_ENTRY_BYTES``, ``bench/cachememory.py``).

Pure code (no cdk8s, no cluster).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Final

from constructs_nld import defaults

__all__ = [
    "BlockCache",
    "CacheBudget",
    "block_caches",
    "cache_budget",
    "effective_capacity",
    "quantity_bytes",
]

_SHARDS: Final = 256
"""The cache plugin's shards; each holds ``capacity // 256`` entries, at least 4."""
_MIN_SHARD: Final = 4
_PLUGIN_CAPACITY: Final = 10_000
"""What the cache plugin takes when a block names no capacity."""
_TOKEN = re.compile(r'"[^"]*"|[{}]|[^\s{}"]+')
_SUFFIXES: Final = {
    "": 1, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18,
    "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60,
}  # fmt: skip
_QUANTITY = re.compile(r"(?P<number>[0-9]+(?:\.[0-9]+)?)(?P<suffix>m|k|Ki|M|Mi|G|Gi|T|Ti|P|Pi|E|Ei)?")


def effective_capacity(configured: int) -> int:
    """The entries a cache of ``configured`` capacity holds at most: 256 shards of ``configured // 256``, at least 4."""
    return max(configured // _SHARDS, _MIN_SHARD) * _SHARDS


def quantity_bytes(text: str) -> int:
    """A Kubernetes memory quantity (``100Mi``, ``128M``, ``1Gi``) in bytes; ``ValueError`` for anything else."""
    match = _QUANTITY.fullmatch(text.strip()) if isinstance(text, str) else None
    if match is None:
        raise ValueError(f"not a Kubernetes quantity such as '100Mi': {text!r}")
    number = Decimal(match["number"])
    suffix = match["suffix"] or ""
    return int(number / 1000) if suffix == "m" else int(number * _SUFFIXES[suffix])


@dataclass(frozen=True)
class BlockCache:
    """The worst case of one server block's cache: how many answers and negative answers it may hold."""

    key: str
    """The block's header, e.g. ``cluster.local:53``."""

    success: int
    """Answers it may hold (0: that cache is disabled)."""

    denial: int
    """Negative answers it may hold (NXDOMAIN, no data, SERVFAIL)."""

    @property
    def entries(self) -> int:
        """Both caches."""
        return self.success + self.denial


def _lines(corefile: str) -> list[list[str]]:
    """The Corefile's words, line by line, comments left out (a ``#`` outside a quoted string starts one)."""
    lines = []
    for line in corefile.splitlines():
        words = _TOKEN.findall(line)
        for index, word in enumerate(words):
            if word.startswith("#"):
                words = words[:index]
                break
        if words:
            lines.append(words)
    return lines


def _capacity(words: list[str]) -> int:
    """``success|denial CAPACITY …``: the capacity, or the plugin's when absent or unreadable (CoreDNS refuses it)."""
    return int(words[1]) if len(words) > 1 and words[1].isdigit() else _PLUGIN_CAPACITY


def block_caches(corefile: str) -> tuple[BlockCache, ...]:
    """The worst case of each server block with a ``cache``, in the order written.

    Reads the text as CoreDNS does, for what matters here: a block's header up to ``{``,
    ``cache``'s ``success CAPACITY``, ``denial CAPACITY`` and ``disable success|denial``.
    """
    caches: list[BlockCache] = []
    depth = 0
    key: list[str] = []
    plugin = ""
    options: dict[str, int] = {}
    for words in _lines(corefile):
        for index, word in enumerate(words):
            first = index == 0 or words[index - 1] == "{"
            if word == "{":
                if depth == 1:
                    plugin = words[0]
                depth += 1
            elif word == "}":
                depth -= 1
                if depth == 1 and plugin == "cache":
                    caches[-1] = BlockCache(caches[-1].key, options.get("success", 0), options.get("denial", 0))
                if depth == 0:
                    key = []
            elif depth == 0:
                key.append(word)
            elif first and depth == 1:
                plugin = word
                if word == "cache":
                    options = {"success": effective_capacity(_PLUGIN_CAPACITY)}
                    options["denial"] = options["success"]
                    caches.append(BlockCache(" ".join(key), options["success"], options["denial"]))
            elif first and depth == 2 and plugin == "cache":
                if word in ("success", "denial"):
                    options[word] = effective_capacity(_capacity(words))
                elif word == "disable" and len(words) > 1 and words[1] in ("success", "denial"):
                    options[words[1]] = 0
    return tuple(caches)


@dataclass(frozen=True)
class CacheBudget:
    """The caches' worst case against node-cache's memory request."""

    blocks: tuple[BlockCache, ...]
    """Each block with a cache."""

    request: str
    """The memory request as written, e.g. ``100Mi``."""

    request_bytes: int

    entry_bytes: int = defaults.CACHE_ENTRY_BYTES
    """What one cached entry costs node-cache's resident memory (measured: ``bench/cachememory.py``).

    Default: 1280.
    """

    idle_bytes: int = defaults.NODE_CACHE_IDLE_BYTES
    """node-cache's resident memory with empty caches (measured in the same bench).

    Default: 46137344 (44 MiB).
    """

    @property
    def entries(self) -> int:
        """Every block's entries at worst."""
        return sum(block.entries for block in self.blocks)

    @property
    def worst_bytes(self) -> int:
        """Idle memory plus every cache full."""
        return self.idle_bytes + self.entries * self.entry_bytes

    @property
    def fits(self) -> bool:
        """Whether the request covers the worst case."""
        return self.worst_bytes <= self.request_bytes

    def sizes(self) -> str:
        """Each block's capacities: ``cluster.local:53 9,984 + 9,984; …`` (success + denial)."""
        return "; ".join(f"{b.key} {b.success:,} + {b.denial:,}" for b in self.blocks)

    def summary(self) -> str:
        """The worst case and the request in one line, with the blocks and their sizes."""
        return (
            f"the caches' worst case is {_mib(self.worst_bytes)} ({self.entries:,} entries of {len(self.blocks)} "
            f"block(s), success + denial: {self.sizes()}; {self.entry_bytes:,} bytes an entry over "
            f"{_mib(self.idle_bytes)} idle), against a memory request of {self.request}"
        )

    @property
    def covering_request(self) -> str:
        """The smallest request in whole MiB that covers the worst case, e.g. ``130Mi``."""
        return f"{-(-self.worst_bytes // 2**20)}Mi"

    def warning(self) -> str | None:
        """One line when the worst case exceeds the request, saying the request that would cover it; else None."""
        if self.fits:
            return None
        return (
            f"{self.summary()}: full caches would take more than node-cache requests, and the node may evict it "
            f"under memory pressure; set memory_request to at least {self.covering_request}, or lower the "
            'capacities (docs/configuration.md, "Sizing the memory request")'
        )


def _mib(value: int) -> str:
    return f"{value / 2**20:.1f} MiB"


def _memory_request(daemon_set: Mapping[str, Any]) -> str | None:
    """The node-cache container's memory request in the DaemonSet, or None when it sets none."""
    containers = daemon_set.get("spec", {}).get("template", {}).get("spec", {}).get("containers", [])
    for container in containers if isinstance(containers, list) else []:
        if isinstance(container, Mapping) and container.get("name") == defaults.CONTAINER_NAME:
            requests = (container.get("resources") or {}).get("requests") or {}
            request = requests.get("memory") if isinstance(requests, Mapping) else None
            return request if isinstance(request, str) else None
    return None


def cache_budget(config_map: Mapping[str, Any], daemon_set: Mapping[str, Any]) -> CacheBudget | None:
    """The budget of the Corefile ConfigMap against the DaemonSet's request; None when either says nothing.

    ``ValueError`` names the field when the request is no quantity.
    """
    data = config_map.get("data")
    corefile = data.get(defaults.COREFILE_KEY) if isinstance(data, Mapping) else None
    request = _memory_request(daemon_set)
    if not isinstance(corefile, str) or request is None:
        return None
    try:
        request_bytes = quantity_bytes(request)
    except ValueError as error:
        raise ValueError(f"resources.requests.memory of {defaults.CONTAINER_NAME}: {error}") from None
    return CacheBudget(block_caches(corefile), request, request_bytes)
