"""node-cache 1.26.8 itself on the test bed's node, started with exactly what the synthesized DaemonSet gives it.

Each scenario gets a fresh node (network namespaces, cluster CoreDNS, kube-proxy's rules)
and runs the real binary (:class:`tests.e2e.nodecache.NodeCache`): the synth's container
args, the ``KUBE_DNS_UPSTREAM_SERVICE_HOST`` kubelet injects, the ConfigMap's Corefile at
its mount, plus only ``-setupinterface=false`` and relocated file paths. Clients are ``dig``
and resolver-style lookups (a fresh source port each) from the pod, whose resolv.conf names
the kube-dns ClusterIP. Every test here needs the binary; without it they are skipped, as
one line of the summary naming ``NODE_CACHE_BIN``.
"""

from __future__ import annotations

import dataclasses
import math
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from constructs_nld import CacheSettings, NodeLocalDNSProps, Ports
from tests.e2e import probes
from tests.e2e.netns import Testbed, require_root
from tests.e2e.nodecache import NodeCache, node_cache_binary_or_skip
from tests.e2e.resolver import ResolverLoad

NODE_CACHE_BINARY = node_cache_binary_or_skip()

CLUSTER_IP = "fd00:ec2::a"
"""kube-dns, the tenth address of the service range, as the test bed (and AWS) allocate it."""
LOCAL_IP = "fd00::10"
NODE_IP = "fd01::1"
DEPLOYABLE = NodeLocalDNSProps(kube_dns_cluster_ip=CLUSTER_IP)
NODE_CACHE_METRICS = f"http://[{NODE_IP}]:9253/metrics"
"""CoreDNS's ``prometheus :9253`` in node-cache, at the node address (a hostNetwork pod's IP)."""
NODE_CACHE_BINARY_METRICS = f"http://[{NODE_IP}]:9353/metrics"
CLUSTER_IP_LISTENER = f"dns://[{CLUSTER_IP}]:53"
LOCAL_LISTENER = f"dns://[{LOCAL_IP}]:53"
RULES_BOUND_SECONDS = 10.0
"""How soon after start the NOTRACK rules must be in place with ``-pidfile`` (measured: about 1 s)."""
SETUP_ERROR_TYPES = {"iptables", "iptables_lock", "interface_add", "interface_check", "configmap"}


def expected_rules(health_port: int = 8080, dns_port: int = 53) -> set[str]:
    """node-cache 1.26.8's rules for ``fd00::10`` and ``fd00:ec2::a``, as ``ip6tables-save`` prints them.

    Per address (``initIptables`` in cmd/node-cache/app/cache_app.go): NOTRACK to the DNS
    port in raw PREROUTING and OUTPUT, from it in raw OUTPUT, ACCEPT in filter INPUT and
    OUTPUT, for udp and tcp; NOTRACK to and from the health port, tcp only.
    """
    skip = '-m comment --comment "NodeLocal DNS Cache: skip conntrack" -j NOTRACK'
    allow = '-m comment --comment "NodeLocal DNS Cache: allow DNS traffic" -j ACCEPT'
    rules = set()
    for ip in (LOCAL_IP, CLUSTER_IP):
        for proto in ("udp", "tcp"):
            rules |= {
                f"raw -A PREROUTING -d {ip}/128 -p {proto} -m {proto} --dport {dns_port} {skip}",
                f"raw -A OUTPUT -d {ip}/128 -p {proto} -m {proto} --dport {dns_port} {skip}",
                f"raw -A OUTPUT -s {ip}/128 -p {proto} -m {proto} --sport {dns_port} {skip}",
                f"filter -A INPUT -d {ip}/128 -p {proto} -m {proto} --dport {dns_port} {allow}",
                f"filter -A OUTPUT -s {ip}/128 -p {proto} -m {proto} --sport {dns_port} {allow}",
            }
        rules |= {
            f"raw -A OUTPUT -d {ip}/128 -p tcp -m tcp --dport {health_port} {skip}",
            f"raw -A OUTPUT -s {ip}/128 -p tcp -m tcp --sport {health_port} {skip}",
        }
    return rules


def cluster_responses(bed: Testbed, **labels: str) -> float:
    """``coredns_dns_responses_total`` of cluster CoreDNS."""
    return probes.scrape(bed.node, bed.cluster_coredns_metrics_url()).total("coredns_dns_responses_total", **labels)


def node_cache_requests(bed: Testbed, **labels: str) -> float:
    """node-cache's own ``coredns_dns_requests_total``, scraped at the node address."""
    return probes.scrape(bed.node, NODE_CACHE_METRICS).total("coredns_dns_requests_total", **labels)


def dns_flows(bed: Testbed, dst: str) -> list[probes.ConntrackFlow]:
    """Conntrack entries of the node for DNS to ``dst`` from the pod."""
    return [f for f in probes.conntrack_flows(bed.node) if f.dst == dst and f.dport == 53 and f.src == "fd0b::2"]


@pytest.fixture
def bed(tmp_path: Path) -> Iterator[Testbed]:
    """A fresh node for one scenario."""
    require_root()
    with Testbed(workdir=tmp_path) as testbed:
        yield testbed


@pytest.fixture
def node_cache(bed: Testbed) -> NodeCache:
    """node-cache on the fresh node, as the synth of the deployable props runs it; not started."""
    return NodeCache(bed, DEPLOYABLE, binary=NODE_CACHE_BINARY)


@dataclasses.dataclass(frozen=True)
class Running:
    """A node where node-cache runs, intercepting, past the loop plugin's start-up queries."""

    bed: Testbed
    node_cache: NodeCache


@pytest.fixture(scope="class")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    """One node and one node-cache for a class of read-only scenarios."""
    require_root()
    with Testbed(workdir=tmp_path_factory.mktemp("node")) as testbed:
        process = NodeCache(testbed, DEPLOYABLE, binary=NODE_CACHE_BINARY)
        process.start()
        process.wait_ready()
        probes.wait_for_loop_self_check(testbed.node, NODE_CACHE_METRICS, listener=LOCAL_LISTENER, blocks=4)
        yield Running(testbed, process)
        assert process.stop() == 0, process.log
        assert probes.node_cache_rules(testbed.node) == ()


# ----------------------------------------------------------------- a. interception ---
class TestInterception:
    """The pod's queries reach node-cache, not kube-proxy's DNAT, on every path a pod uses."""

    def test_query_to_kube_dns_cluster_ip_is_answered_by_node_cache_not_kube_proxy(self, running: Running) -> None:
        bed = running.bed
        dnat_before = probes.kube_dns_dnat(bed, "dns")
        served_before = node_cache_requests(bed, server=CLUSTER_IP_LISTENER, proto="udp", zone="cluster.local.")

        result = probes.dig(bed.pod, "kubernetes.default.svc.cluster.local", "AAAA")

        assert result.status == "NOERROR", result.output
        assert result.answers == ("fd00:ec2::1",), result.output
        assert result.server.startswith(f"{CLUSTER_IP}#53"), result.output
        served = node_cache_requests(bed, server=CLUSTER_IP_LISTENER, proto="udp", zone="cluster.local.")
        assert served == served_before + 1
        assert probes.kube_dns_dnat(bed, "dns") == dnat_before
        # NOTRACK: the lookup left no conntrack entry on the node.
        assert dns_flows(bed, CLUSTER_IP) == []

    def test_query_to_local_ip_is_answered_by_node_cache(self, running: Running) -> None:
        bed = running.bed
        dnat_before = probes.kube_dns_dnat(bed, "dns")
        served_before = node_cache_requests(bed, server=LOCAL_LISTENER, zone="cluster.local.")

        result = probes.dig(bed.pod, "web.shop.svc.cluster.local", "AAAA", server=LOCAL_IP)

        assert result.status == "NOERROR", result.output
        assert result.answers == (bed.ips.others[0].cluster_ip,), result.output
        assert node_cache_requests(bed, server=LOCAL_LISTENER, zone="cluster.local.") == served_before + 1
        assert probes.kube_dns_dnat(bed, "dns") == dnat_before
        assert dns_flows(bed, LOCAL_IP) == []

    def test_reverse_lookup_via_cluster_ip_is_answered_by_node_cache(self, running: Running) -> None:
        bed = running.bed
        dnat_before = probes.kube_dns_dnat(bed, "dns")
        served_before = node_cache_requests(bed, server=CLUSTER_IP_LISTENER, zone="ip6.arpa.")

        result = probes.dig(bed.pod, bed.ips.others[1].cluster_ip, "PTR")

        assert result.status == "NOERROR", result.output
        assert result.answers == ("db.shop.svc.cluster.local.",), result.output
        assert node_cache_requests(bed, server=CLUSTER_IP_LISTENER, zone="ip6.arpa.") == served_before + 1
        assert probes.kube_dns_dnat(bed, "dns") == dnat_before

    def test_external_name_via_cluster_ip_goes_to_the_nodes_resolvers_not_cluster_coredns(
        self, running: Running
    ) -> None:
        bed = running.bed
        dnat_before = probes.kube_dns_dnat(bed, "dns")
        served_before = node_cache_requests(bed, server=CLUSTER_IP_LISTENER, zone=".")
        cluster_before = probes.cluster_requests(bed)

        result = probes.dig(bed.pod, "www.example.org", "AAAA")

        assert result.status == "NOERROR", result.output
        assert result.answers == ("2001:db8::f1",), result.output
        assert node_cache_requests(bed, server=CLUSTER_IP_LISTENER, zone=".") == served_before + 1
        metrics = probes.scrape(bed.node, NODE_CACHE_METRICS)
        to_resolvers = sum(
            metrics.total("coredns_proxy_request_duration_seconds_count", to=to)
            for to in ("[fd03::53]:53", "[fd03::54]:53")
        )
        assert to_resolvers >= 1
        assert probes.cluster_requests(bed) == cluster_before
        assert probes.kube_dns_dnat(bed, "dns") == dnat_before

    def test_query_over_tcp_to_cluster_ip_is_answered_by_node_cache(self, running: Running) -> None:
        bed = running.bed
        dnat_before = probes.kube_dns_dnat(bed, "dns-tcp")
        served_before = node_cache_requests(bed, server=CLUSTER_IP_LISTENER, proto="tcp")

        result = probes.dig(bed.pod, "kube-dns.kube-system.svc.cluster.local", "AAAA", tcp=True)

        assert result.status == "NOERROR", result.output
        assert result.answers == (CLUSTER_IP,), result.output
        assert node_cache_requests(bed, server=CLUSTER_IP_LISTENER, proto="tcp") == served_before + 1
        assert probes.kube_dns_dnat(bed, "dns-tcp") == dnat_before
        assert dns_flows(bed, CLUSTER_IP) == []

    def test_cache_miss_goes_to_kube_dns_upstream_over_tcp(self, running: Running) -> None:
        """node-cache forwards to the kube-dns-upstream ClusterIP (not intercepted), over TCP."""
        bed = running.bed
        tcp_before = probes.cluster_requests(bed, proto="tcp", zone="cluster.local.")
        udp_before = probes.cluster_requests(bed, proto="udp", zone="cluster.local.")

        result = probes.dig(bed.pod, "metrics-server.kube-system.svc.cluster.local", "AAAA")

        assert result.answers == (bed.ips.others[2].cluster_ip,), result.output
        assert probes.cluster_requests(bed, proto="tcp", zone="cluster.local.") == tcp_before + 1
        assert probes.cluster_requests(bed, proto="udp", zone="cluster.local.") == udp_before


# ------------------------------------------------------------------------- b. rules ---
def test_notrack_rules_for_both_addresses_are_in_place_within_the_bound_with_pidfile(
    bed: Testbed, node_cache: NodeCache, measured: Callable[[str], None]
) -> None:
    node_cache.start()

    seconds = node_cache.wait_rules(timeout=RULES_BOUND_SECONDS + 5)

    assert seconds <= RULES_BOUND_SECONDS
    rules = probes.node_cache_rules(bed.node)
    assert set(rules) == expected_rules()
    assert len(rules) == 24
    measured(
        f"NOTRACK rules with -pidfile: all 24 in place {seconds:.2f} s after start (bound {RULES_BOUND_SECONDS} s)"
    )


def test_without_pidfile_rules_wait_for_the_first_60s_sync_and_pods_fall_through_meanwhile(
    bed: Testbed, measured: Callable[[str], None]
) -> None:
    """Why the synth passes ``-pidfile``: without it, node-cache serves but intercepts nothing for a minute."""
    node_cache = NodeCache(bed, DEPLOYABLE, binary=NODE_CACHE_BINARY, pidfile=False)
    assert "-pidfile" not in node_cache.argv(bed.workdir)
    node_cache.start()
    serving = node_cache.wait_serving()
    time.sleep(max(0.0, node_cache.started_at + 5 - time.monotonic()))
    dnat_before = probes.kube_dns_dnat(bed, "dns")

    # Serving on its addresses, yet without rules kube-proxy's DNAT takes the pod's query.
    assert probes.node_cache_rules(bed.node) == ()
    result = probes.dig(bed.pod, "kubernetes.default.svc.cluster.local", "AAAA")
    assert result.answers == ("fd00:ec2::1",), result.output
    assert probes.kube_dns_dnat(bed, "dns") == dnat_before + 1
    assert probes.dig(bed.pod, "kubernetes.default.svc.cluster.local", server=LOCAL_IP).status == "NOERROR"

    seconds = node_cache.wait_rules(timeout=90, interval=0.25)

    assert 58 <= seconds <= 75
    assert set(probes.node_cache_rules(bed.node)) == expected_rules()
    measured(f"NOTRACK rules without -pidfile: in place {seconds:.1f} s after start (serving after {serving:.2f} s)")


# ------------------------------------------------------------- c. health, metrics ---
class TestHealthAndMetrics:
    """What kubelet's liveness probe and Prometheus see."""

    def test_liveness_probe_url_answers_ok(self, running: Running) -> None:
        # The synthesized probe, GET from the node as kubelet does.
        assert running.node_cache.invocation.liveness_url == "http://[fd00::10]:8080/health"

        assert probes.http_get(running.bed.node, "http://[fd00::10]:8080/health") == (200, "OK")

    def test_both_metrics_ports_answer_at_the_node_address_from_elsewhere_in_the_cluster(
        self, running: Running
    ) -> None:
        # From the cluster-dns namespace, as a Prometheus on another node scrapes the pod IP.
        plugin = probes.scrape(running.bed.cluster_dns, NODE_CACHE_METRICS)
        binary = probes.scrape(running.bed.cluster_dns, NODE_CACHE_BINARY_METRICS)

        assert plugin.total("coredns_dns_requests_total", server=LOCAL_LISTENER) > 0
        assert {s.name for s in binary.samples if s.name.startswith("coredns_nodecache_")} == {
            "coredns_nodecache_setup_errors_total"
        }
        # Unlike the spec says, the two ports are one registry (CoreDNS's prometheus plugin serves
        # Go's default registry, where node-cache registers its counter): the same series on both.
        assert {s.name for s in plugin.samples} == {s.name for s in binary.samples}
        assert len(plugin.series("coredns_nodecache_setup_errors_total")) == 5

    def test_setup_errors_are_exported_for_every_errortype_and_are_zero(self, running: Running) -> None:
        errors = probes.scrape(running.bed.cluster_dns, NODE_CACHE_BINARY_METRICS).series(
            "coredns_nodecache_setup_errors_total"
        )

        assert {s.labels["errortype"]: s.value for s in errors} == dict.fromkeys(SETUP_ERROR_TYPES, 0.0)


# ------------------------------------------------------------------ d. absorption ---
class TestAbsorption:
    def test_repeated_lookups_reach_cluster_coredns_at_most_once_per_ttl(
        self, running: Running, measured: Callable[[str], None]
    ) -> None:
        """Positive and negative answers are cached for the records' 5 s TTL (the ``kubernetes`` plugin's)."""
        bed = running.bed
        found, missing = "db.shop.svc.cluster.local", "absent.shop.svc.cluster.local"
        noerror_before = cluster_responses(bed, zone="cluster.local.", rcode="NOERROR")
        nxdomain_before = cluster_responses(bed, zone="cluster.local.", rcode="NXDOMAIN")
        first = time.monotonic()
        assert probes.dig(bed.pod, found).ttls == (5,)
        assert probes.dig(bed.pod, missing).status == "NXDOMAIN"

        result = ResolverLoad(bed.pod, CLUSTER_IP, (found, missing), rate=50, count=600).result()

        span = result.lookups[-1].sent - first
        at_most = math.floor(span / 5) + 1
        assert [lookup.outcome for lookup in result.lookups] == ["ok", "NXDOMAIN"] * 300
        noerror = cluster_responses(bed, zone="cluster.local.", rcode="NOERROR") - noerror_before
        nxdomain = cluster_responses(bed, zone="cluster.local.", rcode="NXDOMAIN") - nxdomain_before
        assert 2 <= noerror <= at_most
        assert 2 <= nxdomain <= at_most
        measured(
            f"absorption: 602 lookups of 2 names over {span:.1f} s reached cluster CoreDNS "
            f"{noerror:.0f} + {nxdomain:.0f} times (at most {at_most} each)"
        )


# ------------------------------------------------------------------------- e. stops ---
def test_sigterm_under_load_removes_the_rules_and_lookups_fall_through_to_cluster_coredns(
    bed: Testbed, node_cache: NodeCache, measured: Callable[[str], None]
) -> None:
    node_cache.start()
    node_cache.wait_ready()
    dnat_before = probes.kube_dns_dnat(bed, "dns")
    load = ResolverLoad(bed.pod, CLUSTER_IP, ("kubernetes.default.svc.cluster.local",), rate=200, count=800)
    time.sleep(1.5)

    sigterm = time.monotonic()
    node_cache.signal(signal.SIGTERM)
    exit_code = node_cache.wait_exit(timeout=node_cache.invocation.grace_period)
    exited = time.monotonic()
    result = load.result()

    assert exit_code == 0, node_cache.log
    assert probes.node_cache_rules(bed.node) == ()
    after = result.between(exited, math.inf)
    assert len(after) > 100
    assert all(lookup.ok for lookup in after), [lookup for lookup in after if not lookup.ok]
    # Every lookup after the stop went through kube-proxy to cluster CoreDNS.
    assert probes.kube_dns_dnat(bed, "dns") - dnat_before >= len(after)
    assert all(sigterm <= lookup.sent < exited for lookup in result.failed), result.failed
    assert len(result.failed) <= 5
    measured(
        f"SIGTERM under 200 lookups/s: exit {exited - sigterm:.2f} s after the signal, "
        f"{len(result.failed)} of {len(result.lookups)} lookups lost"
    )


def test_sigkill_leaves_the_rules_and_black_holes_lookups_until_a_restart(bed: Testbed, node_cache: NodeCache) -> None:
    """What an OOM kill does: the spec's fallthrough does not happen."""
    node_cache.start()
    node_cache.wait_ready()
    dnat_before = probes.kube_dns_dnat(bed, "dns")

    node_cache.kill()

    assert set(probes.node_cache_rules(bed.node)) == expected_rules()
    for tcp in (False, True):
        result = probes.dig(bed.pod, "kubernetes.default.svc.cluster.local", "AAAA", tcp=tcp)
        assert result.status == "", result.output
        assert "connection refused" in result.output.lower(), result.output
    assert probes.dig(bed.pod, "kubernetes.default.svc.cluster.local", server=LOCAL_IP).status == ""
    # The queries never reached kube-proxy's rules: NOTRACK delivered them to the node, where nothing listens.
    assert probes.kube_dns_dnat(bed, "dns") == dnat_before

    node_cache.start()
    node_cache.wait_ready()

    result = probes.dig(bed.pod, "kubernetes.default.svc.cluster.local", "AAAA")
    assert result.answers == ("fd00:ec2::1",), result.output
    rules = probes.node_cache_rules(bed.node)
    assert len(rules) == 24  # the leftovers were reused, not duplicated
    assert node_cache.stop() == 0
    assert probes.node_cache_rules(bed.node) == ()


# ---------------------------------------------------------------- f. failure modes ---
def test_without_the_upstream_service_variable_node_cache_exits_and_leaves_no_rules(bed: Testbed) -> None:
    """A pod created before kube-dns-upstream existed: kubelet injected no ``KUBE_DNS_UPSTREAM_*``."""
    env = {"KUBERNETES_SERVICE_HOST": bed.ips.kubernetes}
    node_cache = NodeCache(bed, DEPLOYABLE, binary=NODE_CACHE_BINARY, env=env)
    node_cache.start()

    exit_code = node_cache.wait_exit()

    assert exit_code == 1
    assert (
        "[WARNING] Unable to lookup IP address of Upstream service kube-dns-upstream, "
        "env $KUBE_DNS_UPSTREAM_SERVICE_HOST ``"
    ) in node_cache.log
    assert "forward . <nil> {" in node_cache.log
    assert 'plugin/forward: not an IP address or file: "<nil>"' in node_cache.log
    assert probes.node_cache_rules(bed.node) == ()
    # No rules, so the pod still resolves through kube-proxy and cluster CoreDNS.
    assert probes.dig(bed.pod, "kubernetes.default.svc.cluster.local").answers == ("fd00:ec2::1",)


def test_preview_synth_fails_on_its_placeholder_in_localip(bed: Testbed) -> None:
    node_cache = NodeCache(bed, NodeLocalDNSProps(), binary=NODE_CACHE_BINARY)
    node_cache.start()

    exit_code = node_cache.wait_exit()

    assert exit_code == 1
    assert (
        '[FATAL] Error parsing flags - invalid localip specified - "__KUBE_DNS_CLUSTER_IP__", Exiting'
    ) in node_cache.log
    assert probes.node_cache_rules(bed.node) == ()


def test_preview_configmap_under_deployable_args_fails_on_its_bind_placeholder(
    bed: Testbed, node_cache: NodeCache
) -> None:
    preview = NodeCache(bed, NodeLocalDNSProps(), binary=NODE_CACHE_BINARY).invocation
    node_cache.write_config_map("/etc/coredns", {"Corefile.base": preview.corefile_base})
    node_cache.start()

    exit_code = node_cache.wait_exit()

    assert exit_code == 1
    assert 'plugin/bind: not a valid IP address or interface name: "__KUBE_DNS_CLUSTER_IP__"' in node_cache.log
    assert probes.node_cache_rules(bed.node) == ()


def test_configmap_change_is_rendered_and_reloaded_while_running(
    bed: Testbed, node_cache: NodeCache, measured: Callable[[str], None]
) -> None:
    """node-cache re-reads Corefile.base every 10 s and re-renders; CoreDNS's ``reload`` picks it up (30 s ± 15 s)."""
    node_cache.start()
    node_cache.wait_ready()
    assert probes.dig(bed.pod, "web.shop.svc.cluster.local").ttls == (5,)
    assert "success 9984 30\n" in node_cache.rendered_corefile_path.read_text()
    process = node_cache.process
    changed = NodeLocalDNSProps(kube_dns_cluster_ip=CLUSTER_IP, cache=CacheSettings(success_ttl=2))
    new = NodeCache(bed, changed, binary=NODE_CACHE_BINARY).invocation.volumes["/etc/coredns"]

    pushed = time.monotonic()
    node_cache.write_config_map("/etc/coredns", new)
    rendered = wait_for(lambda: "success 9984 2\n" in node_cache.rendered_corefile_path.read_text(), timeout=20)
    reloaded = wait_for(lambda: "[INFO] Reloading complete" in node_cache.log, timeout=60)

    assert rendered - pushed <= 12
    assert reloaded - pushed <= 60
    assert node_cache.process is process and node_cache.alive()
    # A name not cached before: its answer now carries the new 2 s cap.
    assert probes.dig(bed.pod, "db.shop.svc.cluster.local").ttls == (2,)
    assert set(probes.node_cache_rules(bed.node)) == expected_rules()
    measured(
        f"ConfigMap change: re-rendered after {rendered - pushed:.1f} s, "
        f"reloaded by CoreDNS after {reloaded - pushed:.1f} s, no restart"
    )


def wait_for(condition: Callable[[], bool], *, timeout: float) -> float:
    """Poll ``condition`` every 0.2 s; return the ``time.monotonic()`` at which it held."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"not within {timeout}s")
        time.sleep(0.2)
    return time.monotonic()


# ---------------------------------------------------------------- g. other ports ---
@pytest.mark.parametrize(
    ("ports", "health", "metrics", "binary_metrics", "unused"),
    [
        (Ports(health=8081), 8081, 9253, 9353, (8080,)),
        (Ports(metrics=9254), 8080, 9254, 9353, (9253,)),
        (Ports(binary_metrics=9354), 8080, 9253, 9354, (9353,)),
        # Each moved onto another's default.
        (Ports(health=9353, metrics=8080, binary_metrics=9253), 9353, 8080, 9253, ()),
    ],
    ids=["health", "metrics", "binary-metrics", "swapped"],
)
def test_non_default_health_and_metrics_ports_work_on_the_binary(
    tmp_path: Path,
    ports: Ports,
    health: int,
    metrics: int,
    binary_metrics: int,
    unused: tuple[int, ...],
) -> None:
    require_root()
    props = NodeLocalDNSProps(kube_dns_cluster_ip=CLUSTER_IP, ports=ports)
    with Testbed(workdir=tmp_path) as bed:
        node_cache = NodeCache(bed, props, binary=NODE_CACHE_BINARY)
        assert node_cache.invocation.liveness_url == f"http://[fd00::10]:{health}/health"
        assert node_cache.invocation.container_ports["metrics"] == metrics
        assert node_cache.invocation.container_ports["metrics-binary"] == binary_metrics
        node_cache.start()
        node_cache.wait_ready()

        assert probes.dig(bed.pod, "kubernetes.default.svc.cluster.local").answers == ("fd00:ec2::1",)

        assert set(probes.node_cache_rules(bed.node)) == expected_rules(health_port=health)
        assert probes.http_get(bed.node, f"http://[fd00::10]:{health}/health") == (200, "OK")
        plugin = probes.scrape(bed.cluster_dns, f"http://[{NODE_IP}]:{metrics}/metrics")
        assert plugin.total("coredns_dns_requests_total", server=CLUSTER_IP_LISTENER) == 1
        errors = probes.scrape(bed.cluster_dns, f"http://[{NODE_IP}]:{binary_metrics}/metrics").series(
            "coredns_nodecache_setup_errors_total"
        )
        assert {s.labels["errortype"]: s.value for s in errors} == dict.fromkeys(SETUP_ERROR_TYPES, 0.0)
        for port in unused:
            with pytest.raises(RuntimeError, match="Connection refused"):
                probes.http_get(bed.cluster_dns, f"http://[{NODE_IP}]:{port}/")
