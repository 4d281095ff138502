"""The DNS options beyond the spec's four blocks, on node-cache 1.26.8 in the synthesized pod on a real node.

Each scenario deploys its props to the module's real node (:mod:`tests.e2e.realnode`):
kubelet, containerd and kube-proxy run the pod the DaemonSet controller makes. The
upstreams the props name are second CoreDNS processes (1.13.2, node-cache's own CoreDNS) in
the cluster-DNS namespace, each at an address of its own and logging every query it gets,
so a test can say who answered and who was never asked. Every test here needs the
node-cache binary; without it they are skipped, as one line of the summary naming
``NODE_CACHE_BIN``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from constructs_nld import (
    AQueryFilter,
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
from constructs_nld.deploy.errors import PreconditionError
from tests.e2e import probes, zones
from tests.e2e.netns import Testbed
from tests.e2e.nodecache import node_cache_binary_or_skip
from tests.e2e.realnode import RealNodeBed, kubectl_objects
from tests.harness.coredns import CoreDNS
from tests.harness.process import wait_until
from tests.harness.resolver import ResolverLoad

node_cache_binary_or_skip()  # without the binary, the module is one line of the summary

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
    """The spec's props with ``options``."""
    return NodeLocalDNSProps(**options)  # type: ignore[arg-type]


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


Upstreams = Callable[..., Upstream]
"""Starts an upstream for one test (:func:`upstreams`): ``(address, records, *, port=53, ttl=300, plugin=None)``."""


@pytest.fixture
def upstreams(node: RealNodeBed, tmp_path: Path) -> Iterator[Upstreams]:
    """Start upstreams in the cluster-DNS namespace for one test; each stops, and its address goes, after it."""
    bed = node.bed
    with contextlib.ExitStack() as stack:

        def start(
            address: str,
            records: Mapping[str, Sequence[zones.ExternalRecord]],
            *,
            port: int = 53,
            ttl: int = 300,
            plugin: str | None = None,
        ) -> Upstream:
            """A CoreDNS at ``address``:``port`` serving a zone file per origin of ``records`` (or ``plugin``)."""
            bed.cluster_dns.ip("addr", "add", f"{address}/128", "dev", "lo")
            stack.callback(bed.cluster_dns.ip, "addr", "del", f"{address}/128", "dev", "lo")
            directory = tmp_path / f"upstream-{address.replace(':', '-')}"
            directory.mkdir()
            blocks = []
            for origin, rows in records.items():
                path = directory / f"db.{origin}"
                path.write_text(zones.external_zone(origin=origin, records=rows, ttl=ttl))
                answer = plugin or f"file {path}"
                blocks.append(f"{origin}:{port} {{\n    bind {address}\n    log\n    errors\n    {answer}\n}}\n")
            process = stack.enter_context(bed.coredns(bed.cluster_dns, "".join(blocks), str(directory)))
            return Upstream(process, address)

        yield start


def start_node_cache(node: RealNodeBed, options: NodeLocalDNSProps) -> dict[str, Any]:
    """Deploy ``options``; once node-cache intercepts, past its loop self-checks, its pod."""
    node.deploy(options, wait=True, stall_after=60)
    node.wait_intercepting()
    config_map = node.rest.get("/api/v1/namespaces/kube-system/configmaps/node-local-dns")
    assert config_map is not None
    blocks = config_map["data"]["Corefile"].count("\n    loop\n")
    probes.wait_for_loop_self_check(node.bed.node, NODE_CACHE_METRICS, listener=LOCAL_LISTENER, blocks=blocks)
    return node.node_cache_pod()


def rendered_corefile(node: RealNodeBed, pod: dict[str, Any]) -> str:
    """The Corefile node-cache rendered (the synth's ``-conf``), inside its container."""
    return Path(f"/proc/{node.container_pid(pod)}/root/etc/Corefile").read_text()


def node_cache_metric(bed: Testbed, name: str, **labels: str) -> float:
    """The sum of node-cache's ``name`` series with ``labels``."""
    return probes.scrape(bed.node, NODE_CACHE_METRICS).total(name, **labels)


def forwarded_to(bed: Testbed, *upstreams: str) -> float:
    """Queries node-cache's ``forward`` sent to ``upstreams`` (``[address]:port``)."""
    metrics = probes.scrape(bed.node, NODE_CACHE_METRICS)
    return sum(metrics.total("coredns_proxy_request_duration_seconds_count", to=to) for to in upstreams)


# ------------------------------------------------------------------ zones, upstreams ---
def test_stub_zone_is_answered_by_its_own_upstream_over_tcp_and_never_reaches_cluster_coredns(
    node: RealNodeBed, upstreams: Upstreams
) -> None:
    bed = node.bed
    corp = upstreams(
        CORP_UPSTREAM, {"corp.example": [record("git.corp.example", "2001:db8:c::1")]},
        port=5353,
    )  # fmt: skip
    zone = ForwardZone(
        names=("corp.example",), upstreams=(f"[{CORP_UPSTREAM}]:5353",), forward=ForwardOptions(protocol="force_tcp")
    )
    start_node_cache(node, props(zones=(zone,)))
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


def test_catch_all_is_answered_by_upstream_servers_not_the_nodes_resolvers(
    node: RealNodeBed, upstreams: Upstreams
) -> None:
    bed = node.bed
    private = upstreams(PRIVATE_RESOLVER, {"example.org": [record("www.example.org", "2001:db8::f2")]})
    start_node_cache(node, props(upstream_servers=(PRIVATE_RESOLVER,)))
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
def test_serve_stale_answers_an_expired_name_while_its_upstream_is_down(
    node: RealNodeBed, upstreams: Upstreams, serve_stale: bool
) -> None:
    bed = node.bed
    private = upstreams(PRIVATE_RESOLVER, {"stale.example": [record("api.stale.example", "2001:db8::5")]}, ttl=1)
    cache = CacheSettings(serve_stale=ServeStale(duration="1h") if serve_stale else None)
    start_node_cache(node, props(upstream_servers=(PRIVATE_RESOLVER,), cache=cache))
    assert probes.dig(bed.pod, "api.stale.example").answers == ("2001:db8::5",)

    private.process.stop()
    # The cache keeps an answer 5 s at least (its minimum TTL), whatever the record's 1 s says:
    # the pod asks until node-cache no longer answers from a fresh entry (a stale answer, or none).
    lookups: list[probes.DigResult] = []

    def expired() -> bool:
        lookups.append(probes.dig(bed.pod, "api.stale.example"))
        return node_cache_metric(bed, "coredns_cache_served_stale_total") > 0 or not lookups[-1].answers

    wait_until("the cached answer to expire", expired, 30, 0.2)
    result = lookups[-1]

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
    node: RealNodeBed, upstreams: Upstreams, prefetch: bool, measured: Callable[[str], None]
) -> None:
    bed = node.bed
    ttl = 8
    private = upstreams(PRIVATE_RESOLVER, {"hot.example": [record("api.hot.example", "2001:db8::7")]}, ttl=ttl)
    cache = CacheSettings(prefetch=Prefetch(amount=1, duration="1m", percentage=50) if prefetch else None)
    start_node_cache(node, props(upstream_servers=(PRIVATE_RESOLVER,), cache=cache))
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
    node: RealNodeBed, upstreams: Upstreams, cap: int | None, measured: Callable[[str], None]
) -> None:
    """A slow upstream under load: with a cap the excess is refused at once, and node-cache's memory stays low."""
    bed = node.bed
    delay, rate, seconds = 1.0, 800, 8
    erratic = f"erratic {{\n        delay 1 {delay:g}s\n    }}"
    slow = upstreams(SLOW_UPSTREAM, {"slow.example": []}, plugin=erratic)
    zone = ForwardZone(names=("slow.example",), upstreams=(SLOW_UPSTREAM,), forward=ForwardOptions(max_concurrent=cap))
    pid = node.container_pid(start_node_cache(node, props(zones=(zone,))))
    baseline = _peak_rss_kib(pid)

    names = [f"q{i}.slow.example" for i in range(rate * seconds)]
    load = ResolverLoad(bed.pod, CLUSTER_IP, names, rate=rate, count=len(names), timeout=4)
    result = load.result()

    peak = _peak_rss_kib(pid)
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


# ----------------------------------------------------- retries, failfast, failover ---
STALLED_UPSTREAM = "fd03::400"
"""An upstream that drops every query it gets."""
REFUSING_UPSTREAM = "fd03::401"
"""An address with nothing listening on port 53: every query gets ICMP port unreachable back."""
BACKUP_UPSTREAM = "fd03::402"
"""The second upstream of a zone, which answers what the first refuses."""
PROBE_LABEL = "nldprobe"
"""The label of the names the tests below look up; the loop plugin's start-up queries never carry it."""


def query_time_ms(result: probes.DigResult) -> str:
    """How long dig waited for the answer, as it reports it, or that none came."""
    match = re.search(r"^;; Query time: (\d+) msec", result.output, re.MULTILINE)
    return f"{match.group(1)} ms" if match else "no answer"


Packets = Callable[[str], Callable[[], int]]
"""Counts the DNS queries to an address that carry :data:`PROBE_LABEL` (:func:`packets_to`)."""


@pytest.fixture
def packets_to(node: RealNodeBed) -> Iterator[Packets]:
    """An ``ip6tables`` counter in the cluster-DNS namespace per address, of the UDP queries for a probe name.

    The rule matches :data:`PROBE_LABEL` in the packet, so node-cache's health checks (``. NS``)
    and the loop plugin's start-up queries stay out of the count; each rule goes after the test.
    """
    cluster_dns = node.bed.cluster_dns
    with contextlib.ExitStack() as stack:

        def watch(address: str) -> Callable[[], int]:
            rule = ["-d", f"{address}/128", "-p", "udp", "--dport", "53", "-m", "string", "--algo", "bm"]
            rule += ["--string", PROBE_LABEL, "-j", "ACCEPT"]
            cluster_dns.run("ip6tables", "-w", "-I", "INPUT", *rule)
            stack.callback(cluster_dns.run, "ip6tables", "-w", "-D", "INPUT", *rule)

            def count() -> int:
                listing = cluster_dns.run("ip6tables", "-w", "-n", "-v", "-x", "-L", "INPUT")
                pattern = rf"^\s*(\d+)\s+\d+\s+ACCEPT\s.*\s{re.escape(address)}\s.*\"{PROBE_LABEL}\""
                match = re.search(pattern, listing, re.MULTILINE)
                assert match, listing
                return int(match.group(1))

            return count

        yield watch


@pytest.mark.parametrize("attempts", [1, None], ids=["one-attempt", "unbounded"])
def test_max_connect_attempts_answers_servfail_before_the_client_gives_up_on_a_stalled_upstream(
    node: RealNodeBed, upstreams: Upstreams, packets_to: Packets, attempts: int | None, measured: Callable[[str], None]
) -> None:
    bed = node.bed
    upstreams(STALLED_UPSTREAM, {"stalled.example": []}, plugin="erratic {\n        drop 1\n    }")
    queries = packets_to(STALLED_UPSTREAM)
    forward = ForwardOptions(max_connect_attempts=attempts)
    zone = ForwardZone(names=("stalled.example",), upstreams=(STALLED_UPSTREAM,), forward=forward)
    start_node_cache(node, props(zones=(zone,)))

    # Each attempt waits 2 s for its answer; the client waits 4 s, as a resolver with its default 5 s would.
    result = probes.dig(bed.pod, f"{PROBE_LABEL}.stalled.example", wait=4)

    outcome = f"{result.status} in {query_time_ms(result)}" if result.status else "no answer in the client's 4 s"
    measured(f"max_connect_attempts {attempts}, stalled upstream: {outcome}")
    if attempts is None:
        # Still retrying when the client gave up: a resolver's whole timeout lost, per lookup.
        assert result.status == "", result.output
        assert queries() >= 2
    else:
        assert result.status == "SERVFAIL", result.output
        assert queries() == 1


@pytest.mark.parametrize("attempts", [3, None], ids=["three-attempts", "unbounded"])
def test_max_connect_attempts_bounds_the_retries_a_refusing_upstream_gets_per_query(
    node: RealNodeBed, packets_to: Packets, attempts: int | None, measured: Callable[[str], None]
) -> None:
    bed = node.bed
    bed.cluster_dns.ip("addr", "add", f"{REFUSING_UPSTREAM}/128", "dev", "lo")
    # Every refusal answered, at once: the kernel's ICMPv6 rate limit would turn some into 2 s timeouts.
    ratelimit = bed.cluster_dns.run("sysctl", "-n", "net.ipv6.icmp.ratelimit").strip()
    bed.cluster_dns.sysctl("net.ipv6.icmp.ratelimit", "0")
    try:
        queries = packets_to(REFUSING_UPSTREAM)
        # Without health checks, which would mark the upstream down and cut the retries short themselves.
        forward = ForwardOptions(max_fails=0, max_connect_attempts=attempts)
        zone = ForwardZone(names=("refusing.example",), upstreams=(REFUSING_UPSTREAM,), forward=forward)
        start_node_cache(node, props(zones=(zone,)))

        result = probes.dig(bed.pod, f"{PROBE_LABEL}.refusing.example", wait=8)

        assert result.status == "SERVFAIL", result.output
        sent = queries()
        measured(f"max_connect_attempts {attempts}: one lookup to a refusing upstream sent it {sent} queries")
        if attempts is None:
            # Refused at once, sent again at once, until the plugin's 5 s deadline.
            assert sent > 10 * 3
        else:
            assert sent == attempts
    finally:
        bed.cluster_dns.sysctl("net.ipv6.icmp.ratelimit", ratelimit)
        bed.cluster_dns.ip("addr", "del", f"{REFUSING_UPSTREAM}/128", "dev", "lo")


@pytest.mark.parametrize("failfast", [True, False], ids=["failfast", "without"])
def test_failfast_answers_servfail_without_asking_an_upstream_its_health_checks_marked_down(
    node: RealNodeBed, upstreams: Upstreams, packets_to: Packets, failfast: bool, measured: Callable[[str], None]
) -> None:
    bed = node.bed
    # It drops every name, the health checks' ``. NS`` too.
    upstreams(STALLED_UPSTREAM, {".": []}, plugin="erratic {\n        drop 1\n    }")
    queries = packets_to(STALLED_UPSTREAM)
    forward = ForwardOptions(max_fails=1, failfast_all_unhealthy_upstreams=failfast)
    zone = ForwardZone(names=("stalled.example",), upstreams=(STALLED_UPSTREAM,), forward=forward)
    start_node_cache(node, props(zones=(zone,)))
    # The loop plugin's start-up query failed and set off the health checks; two failed ones mark it down.
    wait_until(
        "two failed health checks of the stalled upstream",
        lambda: node_cache_metric(bed, "coredns_proxy_healthcheck_failures_total", to=f"[{STALLED_UPSTREAM}]:53") >= 2,
        timeout=30,
        interval=0.2,
    )

    result = probes.dig(bed.pod, f"{PROBE_LABEL}.stalled.example", wait=4)

    measured(f"failfast {'on' if failfast else 'off'}, upstream down: {result.status} in {query_time_ms(result)}")
    assert result.status == "SERVFAIL", result.output
    assert node_cache_metric(bed, "coredns_forward_healthcheck_broken_total") >= 1
    # Without failfast, all down is taken as broken health checks: one upstream is tried anyway,
    # and the client waits out its 2 s for the SERVFAIL.
    assert queries() == (0 if failfast else 1)


@pytest.mark.parametrize("failover", [("REFUSED",), ()], ids=["failover", "without"])
def test_failover_sends_a_refused_query_on_to_the_next_upstream(
    node: RealNodeBed, upstreams: Upstreams, failover: tuple[str, ...]
) -> None:
    bed = node.bed
    refusing = upstreams(CORP_UPSTREAM, {"corp.example": []}, plugin="acl {\n        block\n    }")
    backup = upstreams(BACKUP_UPSTREAM, {"corp.example": [record("git.corp.example", "2001:db8:c::1")]})
    forward = ForwardOptions(policy="sequential", failover=failover)
    zone = ForwardZone(names=("corp.example",), upstreams=(CORP_UPSTREAM, BACKUP_UPSTREAM), forward=forward)
    start_node_cache(node, props(zones=(zone,)))

    result = probes.dig(bed.pod, "git.corp.example")

    assert len(refusing.queries("git.corp.example")) == 1
    if failover:
        assert result.status == "NOERROR", result.output
        assert result.answers == ("2001:db8:c::1",), result.output
        assert len(backup.queries("git.corp.example")) == 1
    else:
        assert result.status == "REFUSED", result.output
        assert backup.queries("git.corp.example") == []


@pytest.mark.parametrize("seconds", [300, 0], ids=["five-minutes", "never"])
def test_servfail_ttl_decides_whether_an_upstreams_servfail_is_served_again_from_cache(
    node: RealNodeBed, upstreams: Upstreams, seconds: int
) -> None:
    bed = node.bed
    servfail = "template ANY ANY {\n        rcode SERVFAIL\n    }"
    failing = upstreams(PRIVATE_RESOLVER, {"broken.example": []}, plugin=servfail)
    cache = CacheSettings(servfail_ttl=seconds)
    start_node_cache(node, props(upstream_servers=(PRIVATE_RESOLVER,), cache=cache))

    first = probes.dig(bed.pod, "api.broken.example")
    second = probes.dig(bed.pod, "api.broken.example")

    assert first.status == second.status == "SERVFAIL", (first.output, second.output)
    assert len(failing.queries("api.broken.example")) == (1 if seconds else 2)


# ----------------------------------------------------------- records, logs, dns64 ---
def test_hosts_entry_is_answered_by_node_cache_with_no_upstream_query_and_other_names_fall_through(
    node: RealNodeBed,
) -> None:
    bed = node.bed
    start_node_cache(node, props(hosts=(HostEntry(name="registry.corp.example", addresses=("2001:db8:c::5",)),)))
    before = forwarded_to(bed, *NODE_RESOLVERS)

    result = probes.dig(bed.pod, "registry.corp.example")

    assert result.status == "NOERROR", result.output
    assert result.answers == ("2001:db8:c::5",), result.output
    assert forwarded_to(bed, *NODE_RESOLVERS) == before
    assert probes.dig(bed.pod, "www.example.org").answers == ("2001:db8::f1",)
    assert forwarded_to(bed, *NODE_RESOLVERS) == before + 1


def test_query_log_of_denials_logs_the_nxdomain_and_not_the_answer(node: RealNodeBed) -> None:
    bed = node.bed
    uid = start_node_cache(node, props(query_log=("denial",)))["metadata"]["uid"]

    assert probes.dig(bed.pod, "nothere.example.org").status == "NXDOMAIN"
    assert probes.dig(bed.pod, "www.example.org").status == "NOERROR"

    node.wait_for("the query log line", lambda: '"AAAA IN nothere.example.org. udp' in node.container_log(uid), 10)
    logged = [line for line in node.container_log(uid).splitlines() if '"AAAA IN ' in line]
    assert any("nothere.example.org." in line and "NXDOMAIN" in line for line in logged), logged
    assert not any("www.example.org." in line for line in logged), logged


@pytest.mark.parametrize(
    ("dns64", "expected"),
    [(Dns64(), "64:ff9b::c000:20a"), (Dns64(prefix="2001:db8:64::/96"), "2001:db8:64::c000:20a")],
    ids=["well-known-prefix", "own-prefix"],
)
def test_dns64_answers_aaaa_of_an_ipv4_only_name_with_the_prefix_address(
    node: RealNodeBed, upstreams: Upstreams, dns64: Dns64, expected: str
) -> None:
    bed = node.bed
    upstreams(PRIVATE_RESOLVER, {"legacy.example": [record("v4.legacy.example", "192.0.2.10")]})
    start_node_cache(node, props(upstream_servers=(PRIVATE_RESOLVER,), dns64=dns64))

    result = probes.dig(bed.pod, "v4.legacy.example", "AAAA")

    assert result.status == "NOERROR", result.output
    assert result.answers == (expected,), result.output


DUAL_STACK = (
    'template IN AAAA dual.example {\n        answer "{{ .Name }} 60 IN AAAA 2001:db8::d"\n    }\n'
    '    template IN A dual.example {\n        answer "{{ .Name }} 60 IN A 192.0.2.13"\n    }'
)
"""An upstream answering an AAAA and an A record for every name of ``dual.example``."""


def _asked(upstream: Upstream, rtype: str) -> list[str]:
    """The first label of each name of ``dual.example`` the upstream was asked for ``rtype`` records, in order."""
    pattern = re.compile(rf'"{rtype} IN ([^ .]+)\.dual\.example\. (?:udp|tcp) ')
    return [m.group(1) for line in upstream.process.log.splitlines() if (m := pattern.search(line))]


@pytest.mark.parametrize("a_filter", [None, AQueryFilter()], ids=["without-filter", "with-filter"])
def test_the_a_filter_halves_the_upstream_queries_of_a_and_aaaa_lookups_and_loses_no_aaaa_answer(
    node: RealNodeBed, upstreams: Upstreams, a_filter: AQueryFilter | None, measured: Callable[[str], None]
) -> None:
    """10,000 names, each asked A then AAAA as glibc asks: without the filter both go upstream, with it only AAAA."""
    bed = node.bed
    upstream = upstreams(PRIVATE_RESOLVER, {"dual.example": []}, plugin=DUAL_STACK)
    count, rate = 10_000, 1000
    start_node_cache(node, props(upstream_servers=(PRIVATE_RESOLVER,), a_filter=a_filter))
    names = [f"n{i}.dual.example" for i in range(count)]

    load = ResolverLoad(bed.pod, CLUSTER_IP, names, rate=rate, count=2 * count, timeout=4, qtypes=("A", "AAAA"))
    lookups = load.result().lookups

    a_outcomes, aaaa_outcomes = [x.outcome for x in lookups[0::2]], [x.outcome for x in lookups[1::2]]
    asked = {rtype: _asked(upstream, rtype) for rtype in ("A", "AAAA")}
    measured(
        f"A filter {'on' if a_filter else 'off'}: {count} names asked A and AAAA at {rate}/s: "
        f"{len(asked['A']) + len(asked['AAAA'])} queries upstream ({len(asked['A'])} A, {len(asked['AAAA'])} AAAA); "
        f"AAAA answered {aaaa_outcomes.count('ok')}, A answered {a_outcomes.count('ok')} with a record and "
        f"{a_outcomes.count('NOERROR-empty')} empty"
    )
    every = {f"n{i}" for i in range(count)}
    assert aaaa_outcomes.count("ok") == count
    assert set(asked["AAAA"]) == every
    if a_filter is None:
        assert a_outcomes.count("ok") == count
        assert set(asked["A"]) == every
    else:
        assert a_outcomes.count("NOERROR-empty") == count
        assert asked["A"] == []


def test_the_a_filter_answers_with_an_soa_for_negative_caching_and_leaves_the_catch_all_to_dns64(
    node: RealNodeBed, upstreams: Upstreams
) -> None:
    bed = node.bed
    upstreams(PRIVATE_RESOLVER, {"legacy.example": [record("v4.legacy.example", "192.0.2.10")]})
    start_node_cache(node, props(upstream_servers=(PRIVATE_RESOLVER,), dns64=Dns64(), a_filter=AQueryFilter(ttl=20)))
    cluster_before = probes.cluster_requests(bed)

    filtered = probes.dig(bed.pod, "kubernetes.default.svc.cluster.local", "A")
    synthesized = probes.dig(bed.pod, "v4.legacy.example", "AAAA")

    assert (filtered.status, filtered.answers) == ("NOERROR", ()), filtered.output
    soa = re.search(r"^cluster\.local\.\s+(\d+)\s+IN\s+SOA\s+\. \. 1 7200 1800 86400 20$", filtered.output, re.M)
    assert soa is not None and int(soa.group(1)) <= 20, filtered.output
    assert probes.cluster_requests(bed) == cluster_before
    assert synthesized.answers == ("64:ff9b::c000:20a",), synthesized.output
    assert probes.dig(bed.pod, "kubernetes.default.svc.cluster.local", "AAAA").answers, "AAAA still answered"


def test_extra_server_block_of_the_model_is_loaded_and_served(node: RealNodeBed) -> None:
    bed = node.bed
    block = ServerBlock(
        zone="lab.example",
        port=53,
        directives=(
            Directive("bind", (ph.LOCAL_DNS,)),
            Directive("errors"),
            Directive("hosts", ("/dev/null",), (Directive("2001:db8::1ab", ("box.lab.example",)),)),
        ),
    )
    start_node_cache(node, props(extra_server_blocks=(block,)))

    result = probes.dig(bed.pod, "box.lab.example")

    assert result.answers == ("2001:db8::1ab",), result.output


def test_zone_with_its_own_cache_keeps_answers_as_long_as_its_ttl(node: RealNodeBed, upstreams: Upstreams) -> None:
    bed = node.bed
    corp = upstreams(
        CORP_UPSTREAM, {"corp.example": [record("git.corp.example", "2001:db8:c::1")]},
        ttl=3600,
    )  # fmt: skip
    zone = ForwardZone(names=("corp.example",), upstreams=(CORP_UPSTREAM,), cache=ZoneCache(ttl=2))
    start_node_cache(node, props(zones=(zone,)))

    first = probes.dig(bed.pod, "git.corp.example")
    cached = probes.dig(bed.pod, "git.corp.example")

    assert first.answers == cached.answers == ("2001:db8:c::1",)
    assert max(cached.ttls) <= 2, cached.output
    assert len(corp.queries("git.corp.example")) == 1


# ------------------------------------------------------------ the kube-dns ConfigMap ---
KUBE_DNS_STUB = {"stubDomains": json.dumps({"corp.example": [CORP_UPSTREAM]})}
"""A kube-dns ConfigMap sending ``corp.example`` to the company's resolver, as kube-dns users write it."""


KUBE_DNS_CONFIG_MAP = "/api/v1/namespaces/kube-system/configmaps"


@pytest.fixture
def kube_dns_config_map(node: RealNodeBed) -> Iterator[None]:
    """``kube-system/kube-dns`` holding :data:`KUBE_DNS_STUB` for one test (the cluster's, not the app's)."""
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "kube-dns"}, "data": KUBE_DNS_STUB}
    node.rest.request("POST", KUBE_DNS_CONFIG_MAP, body=body)
    yield
    node.rest.request("DELETE", f"{KUBE_DNS_CONFIG_MAP}/kube-dns", ok=(200, 404))


@pytest.mark.usefixtures("kube_dns_config_map")
def test_node_cache_reads_stub_domains_of_the_mounted_kube_dns_config_map(
    node: RealNodeBed, upstreams: Upstreams
) -> None:
    """The spec's mount makes ``/etc/kube-dns`` exist, and node-cache reads it even without ``-kubednscm``."""
    corp = upstreams(CORP_UPSTREAM, {"corp.example": [record("git.corp.example", "2001:db8:c::1")]})
    pod = start_node_cache(node, props())
    assert "-kubednscm" not in pod["spec"]["containers"][0]["args"]

    result = probes.dig(node.bed.pod, "git.corp.example")

    assert result.answers == ("2001:db8:c::1",), result.output
    assert len(corp.queries("git.corp.example")) == 1
    assert "corp.example:53 {" in rendered_corefile(node, pod)


@pytest.mark.usefixtures("kube_dns_config_map")
def test_without_the_kube_dns_mount_its_stub_domains_are_not_read(node: RealNodeBed, upstreams: Upstreams) -> None:
    corp = upstreams(CORP_UPSTREAM, {"corp.example": [record("git.corp.example", "2001:db8:c::1")]})
    pod = start_node_cache(node, props(read_kube_dns_config_map=False))
    assert "/etc/kube-dns" not in {m["mountPath"] for m in pod["spec"]["containers"][0]["volumeMounts"]}

    result = probes.dig(node.bed.pod, "git.corp.example")

    # The node's resolvers answer corp.example: nothing there.
    assert result.status == "NXDOMAIN", result.output
    assert corp.queries("git.corp.example") == []
    assert "corp.example" not in rendered_corefile(node, pod)


@pytest.mark.usefixtures("kube_dns_config_map")
def test_a_stub_domain_the_apps_zones_serve_too_stops_node_cache(node: RealNodeBed) -> None:
    """Why deploy refuses such a ConfigMap (applying nothing) and verify fails on it: CoreDNS serves no zone twice."""
    options = props(zones=(ForwardZone(names=("corp.example",), upstreams=(CORP_UPSTREAM,)),))
    with pytest.raises(PreconditionError, match="stubDomains corp.example, which the app.s Corefile serves too"):
        node.deploy(options)
    assert node.rest.items("/apis/apps/v1/namespaces/kube-system/daemonsets") == []
    node.apply(kubectl_objects(replace(options, kube_dns_cluster_ip=CLUSTER_IP)))

    pod, ended = node.wait_crash()

    assert ended["exitCode"] != 0
    assert "cannot serve dns://corp.example.:53 on fd00::10 - it is already defined" in node.container_log(
        pod["metadata"]["uid"]
    )
