"""The DNS options beyond the spec's four blocks, on node-cache 1.26.8 itself.

Each scenario gets a fresh node and runs the real binary with what the synth of its props
gives it (:class:`tests.e2e.nodecache.NodeCache`). The upstreams the props name are second
CoreDNS processes (1.13.2, node-cache's own CoreDNS) in the cluster-DNS namespace, each at an
address of its own and logging every query it gets, so a test can say who answered and who
was never asked. Every test here needs the node-cache binary; without it they are skipped,
as one line of the summary naming ``NODE_CACHE_BIN``.
"""

from __future__ import annotations

import dataclasses
import json
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

import pytest

from constructs_nld import (
    CacheSettings,
    Directive,
    Dns64,
    ForwardOptions,
    ForwardZone,
    HostEntry,
    NodeLocalDNSProps,
    Prefetch,
    ServerBlock,
    ServeStale,
    ZoneCache,
)
from constructs_nld import placeholders as ph
from tests.e2e import probes, zones
from tests.e2e.netns import CoreDNS, Testbed, require_root
from tests.e2e.nodecache import NodeCache, node_cache_binary_or_skip
from tests.e2e.resolver import ResolverLoad
from tests.harness.process import wait_until

NODE_CACHE_BINARY = node_cache_binary_or_skip()

CLUSTER_IP = "fd00:ec2::a"
LOCAL_IP = "fd00::10"
NODE_IP = "fd01::1"
NODE_CACHE_METRICS = f"http://[{NODE_IP}]:9253/metrics"
LOCAL_LISTENER = f"dns://[{LOCAL_IP}]:53"
NODE_RESOLVERS = ("[fd03::53]:53", "[fd03::54]:53")
"""The node's ``/etc/resolv.conf`` nameservers, as the forward plugin labels them in its metrics."""

CORP_UPSTREAM = "fd03::100"
"""The company's resolver for ``corp.example``: a CoreDNS of its own, on port 5353."""
PRIVATE_RESOLVER = "fd03::200"
"""A private resolver for every other name, in place of the node's resolvers."""
SLOW_UPSTREAM = "fd03::300"
"""An upstream that answers every query a second late."""


def props(**options: object) -> NodeLocalDNSProps:
    """Deployable props (the test bed's kube-dns ClusterIP) with ``options``."""
    return NodeLocalDNSProps(kube_dns_cluster_ip=CLUSTER_IP, **options)  # type: ignore[arg-type]


def record(name: str, address: str) -> zones.ExternalRecord:
    """An address record of ``name``: AAAA, or A for an IPv4 address."""
    return zones.ExternalRecord(name=name, address=address)


@dataclasses.dataclass
class Upstream:
    """A CoreDNS upstream in the cluster-DNS namespace, at its own address; it logs each query."""

    process: CoreDNS
    address: str

    def queries(self, name: str, rtype: str = "AAAA") -> list[str]:
        """The log lines of the queries it got for ``name`` (``rtype``), in order."""
        pattern = re.compile(rf'"{rtype} IN {re.escape(name)}\. (udp|tcp) ')
        return [line for line in self.process.log.splitlines() if pattern.search(line)]


def start_upstream(
    bed: Testbed,
    address: str,
    records: Mapping[str, Sequence[zones.ExternalRecord]],
    *,
    port: int = 53,
    ttl: int = 300,
    plugin: str | None = None,
) -> Upstream:
    """A CoreDNS at ``address``:``port`` serving a zone file per origin of ``records`` (or ``plugin`` for all)."""
    bed.cluster_dns.ip("addr", "add", f"{address}/128", "dev", "lo")
    directory = bed.workdir / f"upstream-{address.replace(':', '-')}"
    directory.mkdir()
    blocks = []
    for origin, rows in records.items():
        path = directory / f"db.{origin}"
        path.write_text(zones.external_zone(origin=origin, records=rows, ttl=ttl))
        answer = plugin or f"file {path}"
        blocks.append(f"{origin}:{port} {{\n    bind {address}\n    log\n    errors\n    {answer}\n}}\n")
    process = bed.start_coredns(bed.cluster_dns, "".join(blocks), directory.name)
    return Upstream(process, address)


def start_node_cache(bed: Testbed, options: NodeLocalDNSProps, **kwargs: object) -> NodeCache:
    """node-cache as the synth of ``options`` runs it, intercepting, past its loop self-checks."""
    node_cache = NodeCache(bed, options, binary=NODE_CACHE_BINARY, **kwargs)  # type: ignore[arg-type]
    node_cache.start()
    node_cache.wait_ready()
    blocks = node_cache.invocation.corefile_base.count("\n    loop\n")
    probes.wait_for_loop_self_check(bed.node, NODE_CACHE_METRICS, listener=LOCAL_LISTENER, blocks=blocks)
    return node_cache


def node_cache_metric(bed: Testbed, name: str, **labels: str) -> float:
    """The sum of node-cache's ``name`` series with ``labels``."""
    return probes.scrape(bed.node, NODE_CACHE_METRICS).total(name, **labels)


def forwarded_to(bed: Testbed, *upstreams: str) -> float:
    """Queries node-cache's ``forward`` sent to ``upstreams`` (``[address]:port``)."""
    metrics = probes.scrape(bed.node, NODE_CACHE_METRICS)
    return sum(metrics.total("coredns_proxy_request_duration_seconds_count", to=to) for to in upstreams)


@pytest.fixture
def bed(tmp_path: Path) -> Iterator[Testbed]:
    """A fresh node for one scenario; every props of this module has the same kube-dns-upstream Service."""
    require_root()
    with Testbed(workdir=tmp_path) as testbed:
        yield testbed


# ------------------------------------------------------------------ zones, upstreams ---
def test_stub_zone_is_answered_by_its_own_upstream_over_tcp_and_never_reaches_cluster_coredns(bed: Testbed) -> None:
    corp = start_upstream(
        bed, CORP_UPSTREAM, {"corp.example": [record("git.corp.example", "2001:db8:c::1")]},
        port=5353,
    )  # fmt: skip
    zone = ForwardZone(
        names=("corp.example",), upstreams=(f"[{CORP_UPSTREAM}]:5353",), forward=ForwardOptions(protocol="force_tcp")
    )
    start_node_cache(bed, props(zones=(zone,)))
    cluster_before = probes.cluster_requests(bed)
    resolvers_before = forwarded_to(bed, *NODE_RESOLVERS)

    result = probes.dig(bed.pod, "git.corp.example", "AAAA")

    assert result.status == "NOERROR", result.output
    assert result.answers == ("2001:db8:c::1",), result.output
    (query,) = corp.queries("git.corp.example")
    assert '"AAAA IN git.corp.example. tcp ' in query, query
    assert node_cache_metric(bed, "coredns_dns_requests_total", zone="corp.example.", type="AAAA") == 1
    assert probes.cluster_requests(bed) == cluster_before
    assert forwarded_to(bed, *NODE_RESOLVERS) == resolvers_before


def test_catch_all_is_answered_by_upstream_servers_not_the_nodes_resolvers(bed: Testbed) -> None:
    private = start_upstream(bed, PRIVATE_RESOLVER, {"example.org": [record("www.example.org", "2001:db8::f2")]})
    start_node_cache(bed, props(upstream_servers=(PRIVATE_RESOLVER,)))
    private_before = forwarded_to(bed, f"[{PRIVATE_RESOLVER}]:53")

    result = probes.dig(bed.pod, "www.example.org", "AAAA")

    # The node's resolvers know www.example.org as 2001:db8::f1; the private resolver as ::f2.
    assert result.answers == ("2001:db8::f2",), result.output
    assert len(private.queries("www.example.org")) == 1
    assert forwarded_to(bed, f"[{PRIVATE_RESOLVER}]:53") == private_before + 1
    # Not even node-cache's start-up self-checks went to the node's resolvers.
    assert forwarded_to(bed, *NODE_RESOLVERS) == 0


# ------------------------------------------------------------------- cache behaviour ---
@pytest.mark.parametrize("serve_stale", [True, False], ids=["with-serve-stale", "without"])
def test_serve_stale_answers_an_expired_name_while_its_upstream_is_down(bed: Testbed, serve_stale: bool) -> None:
    private = start_upstream(
        bed, PRIVATE_RESOLVER, {"stale.example": [record("api.stale.example", "2001:db8::5")]}, ttl=1
    )
    cache = CacheSettings(serve_stale=ServeStale(duration="1h") if serve_stale else None)
    start_node_cache(bed, props(upstream_servers=(PRIVATE_RESOLVER,), cache=cache))
    assert probes.dig(bed.pod, "api.stale.example").answers == ("2001:db8::5",)

    private.process.stop()
    # The cache keeps an answer 5 s at least (its minimum TTL), whatever the record's 1 s says.
    time.sleep(6.5)
    result = probes.dig(bed.pod, "api.stale.example")

    if serve_stale:
        assert result.status == "NOERROR", result.output
        assert result.answers == ("2001:db8::5",), result.output
        assert node_cache_metric(bed, "coredns_cache_served_stale_total") >= 1
    else:
        # forward keeps trying the stopped upstream for 5 s: SERVFAIL then, past dig's 3 s.
        assert result.answers == (), result.output
        assert result.status in ("SERVFAIL", ""), result.output
        assert node_cache_metric(bed, "coredns_cache_served_stale_total") == 0


@pytest.mark.parametrize("prefetch", [True, False], ids=["with-prefetch", "without"])
def test_prefetch_refreshes_a_hot_name_before_it_expires_so_no_lookup_misses(
    bed: Testbed, prefetch: bool, measured: Callable[[str], None]
) -> None:
    ttl = 8
    private = start_upstream(
        bed, PRIVATE_RESOLVER, {"hot.example": [record("api.hot.example", "2001:db8::7")]}, ttl=ttl
    )
    cache = CacheSettings(prefetch=Prefetch(amount=1, duration="1m", percentage=50) if prefetch else None)
    start_node_cache(bed, props(upstream_servers=(PRIVATE_RESOLVER,), cache=cache))
    misses_before = node_cache_metric(bed, "coredns_cache_misses_total", server=f"dns://[{CLUSTER_IP}]:53")

    answers = []
    deadline = time.monotonic() + 1.6 * ttl
    while time.monotonic() < deadline:
        answers.append(probes.dig(bed.pod, "api.hot.example").answers)
        time.sleep(0.5)

    assert set(answers) == {("2001:db8::7",)}
    misses = node_cache_metric(bed, "coredns_cache_misses_total", server=f"dns://[{CLUSTER_IP}]:53") - misses_before
    refreshes = len(private.queries("api.hot.example"))
    if prefetch:
        # The first lookup missed; the upstream saw the refresh; no client lookup missed after it.
        assert misses == 1
        assert refreshes >= 2
        assert node_cache_metric(bed, "coredns_cache_prefetch_total") >= 1
    else:
        assert misses >= 2
        assert refreshes == misses
    measured(
        f"prefetch {'on' if prefetch else 'off'}: {len(answers)} lookups of a {ttl} s name over {1.6 * ttl:.0f} s, "
        f"{misses:.0f} cache misses, {refreshes} upstream queries"
    )


def _peak_rss_kib(pid: int) -> int:
    """``VmHWM`` of ``pid``: the most resident memory it has had, in KiB."""
    status = Path(f"/proc/{pid}/status").read_text()
    match = re.search(r"^VmHWM:\s+(\d+) kB", status, re.MULTILINE)
    assert match, status
    return int(match.group(1))


@pytest.mark.parametrize("cap", [50, None], ids=["capped", "uncapped"])
def test_max_concurrent_caps_queries_in_flight_to_a_slow_upstream(
    bed: Testbed, cap: int | None, measured: Callable[[str], None]
) -> None:
    """A slow upstream under load: with a cap the excess is refused at once, and node-cache's memory stays low."""
    delay, rate, seconds = 1.0, 800, 8
    erratic = f"erratic {{\n        delay 1 {delay:g}s\n    }}"
    slow = start_upstream(bed, SLOW_UPSTREAM, {"slow.example": []}, plugin=erratic)
    zone = ForwardZone(names=("slow.example",), upstreams=(SLOW_UPSTREAM,), forward=ForwardOptions(max_concurrent=cap))
    node_cache = start_node_cache(bed, props(zones=(zone,)))
    assert node_cache.process is not None
    baseline = _peak_rss_kib(node_cache.process.pid)

    names = [f"q{i}.slow.example" for i in range(rate * seconds)]
    load = ResolverLoad(bed.pod, CLUSTER_IP, names, rate=rate, count=len(names), timeout=4)
    result = load.result()

    peak = _peak_rss_kib(node_cache.process.pid)
    outcomes = [lookup.outcome for lookup in result.lookups]
    query = re.compile(r'"AAAA IN q[0-9]+\.slow\.example\. ')
    received = sum(1 for line in slow.process.log.splitlines() if query.search(line))
    rejects = node_cache_metric(bed, "coredns_forward_max_concurrent_rejects_total")
    measured(
        f"max_concurrent {cap}: {len(names)} lookups at {rate}/s to an upstream {delay:g} s late: "
        f"{outcomes.count('ok')} answered, {outcomes.count('REFUSED')} refused, {received} reached the upstream; "
        f"node-cache peak RSS {peak / 1024:.1f} MiB (idle {baseline / 1024:.1f} MiB)"
    )
    if cap is None:
        assert rejects == 0
        assert outcomes.count("ok") == len(names)
        assert received == len(names)
    else:
        # At most `cap` in flight, each taking `delay`: the upstream gets cap per delay, the rest is refused.
        assert received <= cap * (seconds / delay + 2)
        assert rejects == outcomes.count("REFUSED") == len(names) - outcomes.count("ok") > 0
        assert outcomes.count("ok") == received


# ----------------------------------------------------------- records, logs, dns64 ---
def test_hosts_entry_is_answered_by_node_cache_with_no_upstream_query_and_other_names_fall_through(
    bed: Testbed,
) -> None:
    start_node_cache(bed, props(hosts=(HostEntry(name="registry.corp.example", addresses=("2001:db8:c::5",)),)))
    before = forwarded_to(bed, *NODE_RESOLVERS)

    result = probes.dig(bed.pod, "registry.corp.example")

    assert result.status == "NOERROR", result.output
    assert result.answers == ("2001:db8:c::5",), result.output
    assert forwarded_to(bed, *NODE_RESOLVERS) == before
    assert probes.dig(bed.pod, "www.example.org").answers == ("2001:db8::f1",)
    assert forwarded_to(bed, *NODE_RESOLVERS) == before + 1


def test_query_log_of_denials_logs_the_nxdomain_and_not_the_answer(bed: Testbed) -> None:
    node_cache = start_node_cache(bed, props(query_log=("denial",)))

    assert probes.dig(bed.pod, "nothere.example.org").status == "NXDOMAIN"
    assert probes.dig(bed.pod, "www.example.org").status == "NOERROR"

    wait_until("the query log line", lambda: '"AAAA IN nothere.example.org. udp' in node_cache.log, 5)
    logged = [line for line in node_cache.log.splitlines() if '"AAAA IN ' in line]
    assert any("nothere.example.org." in line and "NXDOMAIN" in line for line in logged), logged
    assert not any("www.example.org." in line for line in logged), logged


@pytest.mark.parametrize(
    ("dns64", "expected"),
    [(Dns64(), "64:ff9b::c000:20a"), (Dns64(prefix="2001:db8:64::/96"), "2001:db8:64::c000:20a")],
    ids=["well-known-prefix", "own-prefix"],
)
def test_dns64_answers_aaaa_of_an_ipv4_only_name_with_the_prefix_address(
    bed: Testbed, dns64: Dns64, expected: str
) -> None:
    start_upstream(bed, PRIVATE_RESOLVER, {"legacy.example": [record("v4.legacy.example", "192.0.2.10")]})
    start_node_cache(bed, props(upstream_servers=(PRIVATE_RESOLVER,), dns64=dns64))

    result = probes.dig(bed.pod, "v4.legacy.example", "AAAA")

    assert result.status == "NOERROR", result.output
    assert result.answers == (expected,), result.output


def test_extra_server_block_of_the_model_is_loaded_and_served(bed: Testbed) -> None:
    block = ServerBlock(
        zone="lab.example",
        port=53,
        directives=(
            Directive("bind", (ph.LOCAL_DNS,)),
            Directive("errors"),
            Directive("hosts", ("/dev/null",), (Directive("2001:db8::1ab", ("box.lab.example",)),)),
        ),
    )
    start_node_cache(bed, props(extra_server_blocks=(block,)))

    result = probes.dig(bed.pod, "box.lab.example")

    assert result.answers == ("2001:db8::1ab",), result.output


def test_zone_with_its_own_cache_keeps_answers_as_long_as_its_ttl(bed: Testbed) -> None:
    corp = start_upstream(
        bed, CORP_UPSTREAM, {"corp.example": [record("git.corp.example", "2001:db8:c::1")]},
        ttl=3600,
    )  # fmt: skip
    zone = ForwardZone(names=("corp.example",), upstreams=(CORP_UPSTREAM,), cache=ZoneCache(ttl=2))
    start_node_cache(bed, props(zones=(zone,)))

    first = probes.dig(bed.pod, "git.corp.example")
    cached = probes.dig(bed.pod, "git.corp.example")

    assert first.answers == cached.answers == ("2001:db8:c::1",)
    assert max(cached.ttls) <= 2, cached.output
    assert len(corp.queries("git.corp.example")) == 1


# ------------------------------------------------------------ the kube-dns ConfigMap ---
KUBE_DNS_STUB = {"stubDomains": json.dumps({"corp.example": [CORP_UPSTREAM]})}
"""A kube-dns ConfigMap sending ``corp.example`` to the company's resolver, as kube-dns users write it."""


def test_node_cache_reads_stub_domains_of_the_mounted_kube_dns_config_map(bed: Testbed) -> None:
    """The spec's mount makes ``/etc/kube-dns`` exist, and node-cache reads it even without ``-kubednscm``."""
    corp = start_upstream(bed, CORP_UPSTREAM, {"corp.example": [record("git.corp.example", "2001:db8:c::1")]})
    node_cache = NodeCache(bed, props(), binary=NODE_CACHE_BINARY)
    assert "-kubednscm" not in node_cache.invocation.argv
    node_cache.write_config_map("/etc/kube-dns", KUBE_DNS_STUB)
    node_cache.start()
    node_cache.wait_ready()

    result = probes.dig(bed.pod, "git.corp.example")

    assert result.answers == ("2001:db8:c::1",), result.output
    assert len(corp.queries("git.corp.example")) == 1
    assert "corp.example:53 {" in node_cache.rendered_corefile_path.read_text()


def test_without_the_kube_dns_mount_its_stub_domains_are_not_read(bed: Testbed) -> None:
    corp = start_upstream(bed, CORP_UPSTREAM, {"corp.example": [record("git.corp.example", "2001:db8:c::1")]})
    node_cache = NodeCache(bed, props(read_kube_dns_config_map=False), binary=NODE_CACHE_BINARY)
    assert "/etc/kube-dns" not in node_cache.invocation.volumes
    node_cache.start()
    node_cache.wait_ready()

    result = probes.dig(bed.pod, "git.corp.example")

    # The node's resolvers answer corp.example: nothing there.
    assert result.status == "NXDOMAIN", result.output
    assert corp.queries("git.corp.example") == []
    assert "corp.example" not in node_cache.rendered_corefile_path.read_text()


def test_a_stub_domain_the_apps_zones_serve_too_stops_node_cache(bed: Testbed) -> None:
    """Why deploy refuses such a ConfigMap and verify fails on it: CoreDNS will not serve a zone twice."""
    zone = ForwardZone(names=("corp.example",), upstreams=(CORP_UPSTREAM,))
    node_cache = NodeCache(bed, props(zones=(zone,)), binary=NODE_CACHE_BINARY)
    node_cache.write_config_map("/etc/kube-dns", KUBE_DNS_STUB)
    node_cache.start()

    code = node_cache.wait_exit(20)

    assert code != 0
    assert "cannot serve dns://corp.example.:53 on fd00::10 - it is already defined" in node_cache.log
