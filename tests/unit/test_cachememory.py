"""The caches' worst case against the memory request: capacities read from the Corefile, and the warning."""

from __future__ import annotations

from typing import Any

import pytest

from constructs_nld import CacheSettings, Directive, ForwardZone, NodeLocalDNSProps, ServerBlock, ZoneCache, defaults
from constructs_nld.cachememory import (
    BlockCache,
    CacheBudget,
    block_caches,
    cache_budget,
    effective_capacity,
    quantity_bytes,
)
from tests.e2e.nodecache import synthesized_objects

SPEC_BLOCKS = tuple(
    BlockCache(key, 9984, 9984) for key in ("cluster.local:53", "in-addr.arpa:53", "ip6.arpa:53", ".:53")
)


def objects(**props: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The Corefile ConfigMap and the DaemonSet of the synth of ``props``."""
    synthesized = synthesized_objects(NodeLocalDNSProps(**props))
    config_map = next(o for o in synthesized if o["kind"] == "ConfigMap" and "Corefile" in o.get("data", {}))
    return config_map, next(o for o in synthesized if o["kind"] == "DaemonSet")


def budget(**props: Any) -> CacheBudget:
    found = cache_budget(*objects(**props))
    assert found is not None
    return found


def test_the_specs_four_blocks_hold_9984_answers_and_9984_denials_each_at_worst() -> None:
    spec = budget()

    assert spec.blocks == SPEC_BLOCKS
    assert (spec.entries, spec.request, spec.request_bytes) == (79_872, "100Mi", 100 * 2**20)
    assert spec.worst_bytes == defaults.NODE_CACHE_IDLE_BYTES + 79_872 * defaults.CACHE_ENTRY_BYTES


def test_the_specs_worst_case_exceeds_its_request_and_the_warning_says_what_covers_it() -> None:
    spec = budget()
    covering = -(-spec.worst_bytes // 2**20)

    assert not spec.fits
    assert spec.warning() == (
        f"the caches' worst case is {spec.worst_bytes / 2**20:.1f} MiB (79,872 entries of 4 block(s), success + "
        "denial: cluster.local:53 9,984 + 9,984; in-addr.arpa:53 9,984 + 9,984; ip6.arpa:53 9,984 + 9,984; "
        f".:53 9,984 + 9,984; {defaults.CACHE_ENTRY_BYTES:,} bytes an entry over "
        f"{defaults.NODE_CACHE_IDLE_BYTES / 2**20:.1f} MiB idle), against a memory request of 100Mi: full caches "
        "would take more than node-cache requests, and the node may evict it under memory pressure; set "
        f'memory_request to at least {covering}Mi, or lower the capacities (docs/configuration.md, "Sizing the '
        'memory request")'
    )


def test_a_request_that_covers_the_worst_case_gives_no_warning() -> None:
    spec = budget()

    assert budget(memory_request=spec.covering_request).warning() is None
    assert budget(memory_request=f"{-(-spec.worst_bytes // 2**20) - 1}Mi").warning() is not None


def test_capacities_of_the_props_and_of_an_extra_block_are_read_as_the_plugin_rounds_them() -> None:
    zone = ForwardZone(
        names=("corp.example",), upstreams=("fd03::100",), cache=ZoneCache(success_capacity=50_000, denial_capacity=100)
    )
    lab = ServerBlock(
        zone="lab.example",
        port=53,
        directives=(Directive("cache", ("30",), (Directive("disable", ("denial",)),)), Directive("errors")),
    )

    found = budget(
        zones=(zone,), extra_server_blocks=(lab,), cache=CacheSettings(success_capacity=1000, denial_capacity=5000)
    )

    assert found.blocks == (
        BlockCache("cluster.local:53", 1024, 4864),
        BlockCache("in-addr.arpa:53", 9984, 9984),
        BlockCache("ip6.arpa:53", 9984, 9984),
        BlockCache("corp.example:53", 49_920, 1024),
        BlockCache("lab.example:53", 9984, 0),
        BlockCache(".:53", 9984, 9984),
    )


@pytest.mark.parametrize(
    ("configured", "held"), [(10_000, 9984), (50_000, 49_920), (2560, 2560), (1000, 1024), (0, 1024)]
)
def test_a_cache_holds_256_shards_of_its_capacity_over_256_and_at_least_4(configured: int, held: int) -> None:
    assert effective_capacity(configured) == held


def test_the_corefile_text_is_read_as_coredns_reads_it_comments_and_quotes_aside() -> None:
    text = (
        "# cache 1 { success 5 }\n"
        "a.example:53 b.example:53 {\n"
        '    template IN A { authority "a.example. 60 IN SOA . . 1 2 3 4 5 # not a comment" }\n'
        "    cache 30 a.example { # a comment\n"
        "        success 2560 10\n"
        "        disable success a.example\n"
        "    }\n"
        "}\n"
        ".:53 {\n    forward . fd03::53 {\n        max_fails 1\n    }\n}\n"
        "c.example:5300 { cache }\n"
    )

    assert block_caches(text) == (
        BlockCache("a.example:53 b.example:53", 0, 9984),
        BlockCache("c.example:5300", 9984, 9984),
    )


@pytest.mark.parametrize(
    ("text", "value"),
    [("100Mi", 100 * 2**20), ("128M", 128 * 10**6), ("1Gi", 2**30), ("0.5Gi", 2**29), ("1500m", 1), ("2048", 2048)],
)
def test_memory_quantities_in_bytes(text: str, value: int) -> None:
    assert quantity_bytes(text) == value


def test_a_live_request_that_is_no_quantity_is_named() -> None:
    config_map, daemon_set = objects()
    daemon_set["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["memory"] = "lots"

    with pytest.raises(
        ValueError,
        match=r"^resources.requests.memory of node-cache: not a Kubernetes quantity such "
        r"as '100Mi': 'lots'$",
    ):
        cache_budget(config_map, daemon_set)


def test_without_a_memory_request_or_a_corefile_there_is_nothing_to_judge() -> None:
    config_map, daemon_set = objects()
    del daemon_set["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["memory"]

    assert cache_budget(config_map, daemon_set) is None
    assert cache_budget({"data": {}}, objects()[1]) is None
