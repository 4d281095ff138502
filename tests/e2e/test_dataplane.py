"""Data-plane tests on a node in network namespaces: kube-proxy's path, and our Corefile on plain CoreDNS.

What runs here is real: CoreDNS v1.13.2 (the version node-cache 1.26.8 embeds), kube-proxy
v1.34.4 in iptables mode programming the bed's Services, ``dig`` in a pod namespace. These
tests need no node-cache binary: they prove the path without NodeLocal DNS (every pod's
fallthrough) and load the synthesized Corefile, rendered as node-cache renders it, on plain
CoreDNS. Nothing here installs node-cache's NOTRACK rules, so no test here claims
interception: ``test_nodecache.py`` runs the node-cache binary itself.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from constructs_nld import NodeLocalDNSProps
from tests.e2e import probes
from tests.e2e.netns import Testbed
from tests.e2e.nodecache import (
    NodeCacheInvocation,
    node_cache_invocation,
    render_runtime_corefile,
)
from tests.harness.coredns import CoreDNS

LOCAL_IP = "fd00::10"
NODE_IP = "fd01::1"
INTERNET_RESOLVERS = ("[fd03::53]:53", "[fd03::54]:53")
LOCAL_LISTENER = "dns://[fd00::10]:53"
NODE_METRICS_URL = f"http://[{NODE_IP}]:9253/metrics"
"""The ``prometheus :9253`` listener, at the node IP, as Prometheus scrapes a hostNetwork pod."""


# --------------------------------------------------------- kube-proxy's rules ---
def test_kube_proxy_names_kube_dns_chains_as_on_every_node(testbed: Testbed) -> None:
    """The names every kube-proxy in iptables mode gives kube-dns's two ports (sha256 of name and protocol)."""
    saved = testbed.node.run("ip6tables-save", "-t", "nat")
    for port_name, chain in (("dns", "KUBE-SVC-TCOU7JCQXEZGVUNU"), ("dns-tcp", "KUBE-SVC-ERIFXISQEP7F7OF4")):
        assert f'--comment "kube-system/kube-dns:{port_name} cluster IP"' in saved
        assert re.search(rf'--comment "kube-system/kube-dns:{port_name} cluster IP" .*-j {chain}$', saved, re.M), saved


def test_node_has_kube_proxys_dnat_rules_for_both_dns_services(testbed: Testbed) -> None:
    saved = testbed.node.run("ip6tables-save", "-t", "nat")
    for ip, service in ((testbed.ips.kube_dns, "kube-dns"), (testbed.ips.kube_dns_upstream, "kube-dns-upstream")):
        for proto, port_name in (("udp", "dns"), ("tcp", "dns-tcp")):
            assert (
                f'-A KUBE-SERVICES -d {ip}/128 -p {proto} -m comment --comment "kube-system/{service}:{port_name} '
                f'cluster IP" -m {proto} --dport 53 -j KUBE-SVC-'
            ) in saved
            chain = probes.endpoint_chain(testbed.node, f"kube-system/{service}:{port_name}")
            assert (
                f'-A {chain} -p {proto} -m comment --comment "kube-system/{service}:{port_name}" -m {proto} '
                "-j DNAT --to-destination [fd01::53]:53"
            ) in saved
    assert '-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES' in saved
    assert '-A OUTPUT -m comment --comment "kubernetes service portals" -j KUBE-SERVICES' in saved


# ------------------------------------ the path without NodeLocal DNS (fallthrough) ---
def test_pod_resolves_cluster_name_via_kube_dns_cluster_ip(testbed: Testbed) -> None:
    """The pod's resolv.conf names the kube-dns ClusterIP; kube-proxy's DNAT takes it to cluster CoreDNS."""
    port = "kube-system/kube-dns:dns"
    dnat_before = probes.dnat_packets(testbed.node, port)
    udp_before = probes.cluster_requests(testbed, proto="udp", zone="cluster.local.")

    result = probes.dig(testbed.pod, "kubernetes.default.svc.cluster.local", "AAAA")

    assert result.status == "NOERROR", result.output
    assert result.answers == ("fd00:ec2::1",), result.output
    assert result.server.startswith(f"{testbed.ips.kube_dns}#53"), result.output
    assert probes.dnat_packets(testbed.node, port) == dnat_before + 1
    assert probes.cluster_requests(testbed, proto="udp", zone="cluster.local.") == udp_before + 1


def test_pod_resolves_cluster_name_over_tcp_via_kube_dns_cluster_ip(testbed: Testbed) -> None:
    port = "kube-system/kube-dns:dns-tcp"
    before = probes.dnat_packets(testbed.node, port)

    result = probes.dig(testbed.pod, "kube-dns.kube-system.svc.cluster.local", "AAAA", tcp=True)

    assert result.status == "NOERROR", result.output
    assert result.answers == (testbed.ips.kube_dns,), result.output
    assert probes.dnat_packets(testbed.node, port) == before + 1


def test_pod_resolves_short_name_through_kubelets_search_path(testbed: Testbed) -> None:
    result = probes.dig(testbed.pod, "kubernetes", "AAAA", search=True)

    assert result.status == "NOERROR", result.output
    assert "kubernetes.default.svc.cluster.local." in result.output
    assert result.answers == ("fd00:ec2::1",), result.output


def test_pod_reverse_lookup_via_kube_dns_cluster_ip(testbed: Testbed) -> None:
    result = probes.dig(testbed.pod, "fd00:ec2::1", "PTR")

    assert result.status == "NOERROR", result.output
    assert result.answers == ("kubernetes.default.svc.cluster.local.",), result.output


def test_pod_gets_nxdomain_for_unknown_cluster_name(testbed: Testbed) -> None:
    result = probes.dig(testbed.pod, "no-such-service.default.svc.cluster.local", "AAAA")

    assert result.status == "NXDOMAIN", result.output
    assert result.answers == ()


def test_pod_resolves_external_name_via_cluster_coredns(testbed: Testbed) -> None:
    """Without NodeLocal DNS, external names too go through cluster CoreDNS (its ``forward .``)."""
    before = probes.cluster_requests(testbed, zone=".")

    result = probes.dig(testbed.pod, "www.example.org", "AAAA")

    assert result.status == "NOERROR", result.output
    assert result.answers == ("2001:db8::f1",), result.output
    assert probes.cluster_requests(testbed, zone=".") == before + 1


def test_node_resolves_external_name_via_its_resolv_conf(testbed: Testbed) -> None:
    """The node's /etc/resolv.conf (what ``__PILLAR__UPSTREAM__SERVERS__`` leads to) reaches the internet stub."""
    before = probes.cluster_requests(testbed)

    result = probes.dig(testbed.node, "example.com", "AAAA")

    assert result.status == "NOERROR", result.output
    assert result.answers == ("2001:db8::e1",), result.output
    assert result.server.startswith("fd03::53#53"), result.output
    assert probes.cluster_requests(testbed) == before


# ------------------------------------- node-cache's command line, from the synth ---
def test_node_cache_invocation_is_read_from_the_synth(testbed: Testbed) -> None:
    invocation = node_cache_invocation(NodeLocalDNSProps(kube_dns_cluster_ip=testbed.ips.kube_dns))

    assert invocation.argv == (
        "/node-cache",
        "-localip",
        f"fd00::10,{testbed.ips.kube_dns}",
        "-conf",
        "/etc/Corefile",
        "-upstreamsvc",
        "kube-dns-upstream",
        "-pidfile",
        "/tmp/node-cache.pid",
    )
    # The optional kube-dns ConfigMap is not shipped: kubelet mounts its volume empty.
    assert invocation.volumes == {"/etc/coredns": {"Corefile.base": invocation.corefile_base}, "/etc/kube-dns": {}}
    assert invocation.liveness_url == "http://[fd00::10]:8080/health"
    assert invocation.container_ports == {"dns": 53, "dns-tcp": 53, "metrics": 9253, "metrics-binary": 9353}
    assert invocation.grace_period == 30
    assert f"bind fd00::10 {testbed.ips.kube_dns}\n" in invocation.corefile_base
    # Ready for -setupinterface=false: both addresses are already on the node.
    on_lo = testbed.node.ip("-6", "addr", "show", "dev", "lo")
    for address in invocation.local_ips:
        assert f"inet6 {address}/128 " in on_lo


# ------------------------------------ the synthesized Corefile on CoreDNS 1.13.2 ---
@dataclass(frozen=True)
class CorefileRun:
    """CoreDNS running the rendered synthesized Corefile on the node."""

    process: CoreDNS
    invocation: NodeCacheInvocation
    rendered: str
    started: float


@pytest.fixture(scope="class")
def run(testbed: Testbed) -> Iterator[CorefileRun]:
    """CoreDNS with the synthesized Corefile, rendered as node-cache renders it, in the node netns."""
    invocation = node_cache_invocation(NodeLocalDNSProps(kube_dns_cluster_ip=testbed.ips.kube_dns))
    rendered = render_runtime_corefile(
        invocation.corefile_base,
        # node-cache reads the -upstreamsvc ClusterIP from the variable kubelet injects (on a
        # real node: test_kubelet.py), KUBE_DNS_UPSTREAM_SERVICE_HOST: kube-dns-upstream's.
        cluster_dns_ip=testbed.ips.kube_dns_upstream,
        local_ips=invocation.local_ips,
    )
    started = time.monotonic()
    with testbed.coredns(testbed.node, rendered, "synthesized-corefile") as process:
        probes.wait_for_loop_self_check(testbed.node, NODE_METRICS_URL, listener=LOCAL_LISTENER, blocks=4)
        yield CorefileRun(process, invocation, rendered, started)


def node_metrics(testbed: Testbed) -> probes.Metrics:
    """The node CoreDNS's metrics, scraped at the node IP as Prometheus scrapes a hostNetwork pod."""
    return probes.scrape(testbed.node, NODE_METRICS_URL)


class TestSynthesizedCorefileOnCoreDNS:
    """Our Corefile, rendered as node-cache renders it, loaded by CoreDNS v1.13.2 in the node netns.

    This tests the Corefile on the CoreDNS that node-cache embeds, not node-cache: no NOTRACK
    rules exist, so clients reach it at ``fd00::10`` directly, and queries to the kube-dns
    ClusterIP still go where kube-proxy sends them.
    """

    def test_rendered_corefile_forwards_to_upstream_service_and_resolv_conf(
        self, run: CorefileRun, testbed: Testbed
    ) -> None:
        assert "__" not in run.rendered
        assert run.rendered.count(f"forward . {testbed.ips.kube_dns_upstream} {{\n        force_tcp\n") == 3
        assert run.rendered.count("forward . /etc/resolv.conf\n") == 1

    def test_cluster_name_on_local_ip_is_forwarded_over_tcp_to_kube_dns_upstream(
        self, run: CorefileRun, testbed: Testbed
    ) -> None:
        to_upstream = f"[{testbed.ips.kube_dns_upstream}]:53"
        forwarded_before = node_metrics(testbed).total("coredns_proxy_request_duration_seconds_count", to=to_upstream)
        tcp_before = probes.cluster_requests(testbed, proto="tcp", zone="cluster.local.")
        udp_before = probes.cluster_requests(testbed, proto="udp", zone="cluster.local.")

        result = probes.dig(testbed.pod, "web.shop.svc.cluster.local", "AAAA", server=LOCAL_IP)

        assert result.status == "NOERROR", result.output
        assert result.answers == (testbed.ips.others[0].cluster_ip,), result.output
        forwarded = node_metrics(testbed).total("coredns_proxy_request_duration_seconds_count", to=to_upstream)
        assert forwarded == forwarded_before + 1
        assert probes.cluster_requests(testbed, proto="tcp", zone="cluster.local.") == tcp_before + 1
        assert probes.cluster_requests(testbed, proto="udp", zone="cluster.local.") == udp_before
        # The kube-dns-upstream ClusterIP reached cluster CoreDNS through kube-proxy's OUTPUT DNAT.
        assert probes.dnat_packets(testbed.node, "kube-system/kube-dns-upstream:dns-tcp") >= 1

    def test_external_name_on_local_ip_goes_to_the_nodes_resolvers_not_cluster_coredns(
        self, run: CorefileRun, testbed: Testbed
    ) -> None:
        def to_resolvers() -> float:
            metrics = node_metrics(testbed)
            return sum(
                metrics.total("coredns_proxy_request_duration_seconds_count", to=to) for to in INTERNET_RESOLVERS
            )

        forwarded_before = to_resolvers()
        cluster_before = probes.cluster_requests(testbed)

        result = probes.dig(testbed.pod, "www.example.com", "AAAA", server=LOCAL_IP)

        assert result.status == "NOERROR", result.output
        assert result.answers == ("2001:db8::e2",), result.output
        assert to_resolvers() == forwarded_before + 1
        assert probes.cluster_requests(testbed) == cluster_before

    def test_reverse_lookup_on_local_ip(self, run: CorefileRun, testbed: Testbed) -> None:
        result = probes.dig(testbed.pod, testbed.ips.others[1].cluster_ip, "PTR", server=LOCAL_IP)

        assert result.status == "NOERROR", result.output
        assert result.answers == ("db.shop.svc.cluster.local.",), result.output

    def test_unknown_cluster_name_on_local_ip_is_nxdomain(self, run: CorefileRun, testbed: Testbed) -> None:
        result = probes.dig(testbed.pod, "no-such-service.shop.svc.cluster.local", "AAAA", server=LOCAL_IP)

        assert result.status == "NXDOMAIN", result.output

    def test_health_answers_ok_on_local_ip(self, run: CorefileRun, testbed: Testbed) -> None:
        # From the node, as kubelet's liveness probe (httpGet host fd00::10, port 8080).
        assert probes.http_get(testbed.node, "http://[fd00::10]:8080/health") == (200, "OK")

    def test_requests_are_counted_per_listener_and_zone(self, run: CorefileRun, testbed: Testbed) -> None:
        queries = (
            ("metrics-server.kube-system.svc.cluster.local", "AAAA", "cluster.local."),
            ("example.com", "AAAA", "."),
            (testbed.ips.kube_dns, "PTR", "ip6.arpa."),
        )

        def counts() -> list[float]:
            metrics = node_metrics(testbed)
            return [
                metrics.total("coredns_dns_requests_total", server=LOCAL_LISTENER, proto="udp", zone=zone, type=rtype)
                for _, rtype, zone in queries
            ]

        before = counts()
        cluster_ip_listener = f"dns://[{testbed.ips.kube_dns}]:53"
        on_cluster_ip_before = node_metrics(testbed).total("coredns_dns_requests_total", server=cluster_ip_listener)
        for name, rtype, _ in queries:
            assert probes.dig(testbed.pod, name, rtype, server=LOCAL_IP).status == "NOERROR"

        assert counts() == [count + 1 for count in before]
        on_cluster_ip = node_metrics(testbed).total("coredns_dns_requests_total", server=cluster_ip_listener)
        assert on_cluster_ip == on_cluster_ip_before

    def test_repeated_query_is_a_cache_hit_and_reaches_cluster_coredns_once(
        self, run: CorefileRun, testbed: Testbed
    ) -> None:
        def hits() -> float:
            return node_metrics(testbed).total(
                "coredns_cache_hits_total", server=LOCAL_LISTENER, zones="cluster.local.", type="success"
            )

        hits_before = hits()
        cluster_before = probes.cluster_requests(testbed, zone="cluster.local.")

        for _ in range(2):
            result = probes.dig(testbed.pod, "kube-dns-upstream.kube-system.svc.cluster.local", server=LOCAL_IP)
            assert result.answers == (testbed.ips.kube_dns_upstream,), result.output

        assert hits() == hits_before + 1
        assert probes.cluster_requests(testbed, zone="cluster.local.") == cluster_before + 1

    def test_without_notrack_rules_kube_proxy_dnat_wins_over_the_bound_cluster_ip(
        self, run: CorefileRun, testbed: Testbed
    ) -> None:
        """CoreDNS binds the kube-dns ClusterIP, yet the pod's query goes to cluster CoreDNS.

        The spec's startup race: until node-cache's NOTRACK rules exist, pods keep resolving
        through the unchanged kube-dns Service.
        """
        listener = f"dns://[{testbed.ips.kube_dns}]:53"
        local_before = node_metrics(testbed).total("coredns_dns_requests_total", server=listener)
        port = "kube-system/kube-dns:dns"
        dnat_before = probes.dnat_packets(testbed.node, port)
        cluster_before = probes.cluster_requests(testbed, proto="udp", zone="cluster.local.")

        result = probes.dig(testbed.pod, "db.shop.svc.cluster.local", "AAAA")

        assert result.status == "NOERROR", result.output
        assert node_metrics(testbed).total("coredns_dns_requests_total", server=listener) == local_before
        assert probes.dnat_packets(testbed.node, port) == dnat_before + 1
        assert probes.cluster_requests(testbed, proto="udp", zone="cluster.local.") == cluster_before + 1

    def test_coredns_stayed_up_without_errors(self, run: CorefileRun) -> None:
        # Past the loop plugin's self-check; nothing logged at ERROR or FATAL.
        time.sleep(max(0.0, run.started + 3 - time.monotonic()))
        assert run.process.alive(), run.process.log
        assert "[ERROR]" not in run.process.log
        assert "[FATAL]" not in run.process.log


# ----------------------------------------- the spec's failure modes, on CoreDNS ---
def test_preview_corefile_with_unsubstituted_cluster_ip_fails_to_start_on_coredns(testbed: Testbed) -> None:
    """The spec's "Corefile parse error": ``__KUBE_DNS_CLUSTER_IP__`` left in the ``bind`` lines."""
    preview = node_cache_invocation(NodeLocalDNSProps())
    assert preview.local_ips == ("fd00::10", "__KUBE_DNS_CLUSTER_IP__")
    assert "bind fd00::10 __KUBE_DNS_CLUSTER_IP__\n" in preview.corefile_base
    rendered = render_runtime_corefile(
        preview.corefile_base,
        cluster_dns_ip=testbed.ips.kube_dns_upstream,
        local_ips=preview.local_ips,
    )

    process = testbed.start_coredns(testbed.node, rendered, "preview-corefile", wait=False)

    assert process.wait_exit(timeout=20) != 0
    assert 'plugin/bind: not a valid IP address or interface name: "__KUBE_DNS_CLUSTER_IP__"' in process.log


def test_corefile_without_upstream_service_variable_fails_to_start_on_coredns(testbed: Testbed) -> None:
    """DECISIONS.md: without ``KUBE_DNS_UPSTREAM_SERVICE_HOST`` node-cache writes ``forward . <nil>``."""
    invocation = node_cache_invocation(NodeLocalDNSProps(kube_dns_cluster_ip=testbed.ips.kube_dns))
    rendered = render_runtime_corefile(invocation.corefile_base, cluster_dns_ip=None, local_ips=invocation.local_ips)

    process = testbed.start_coredns(testbed.node, rendered, "no-upstream-variable", wait=False)

    assert process.wait_exit(timeout=20) != 0
    assert 'plugin/forward: not an IP address or file: "<nil>"' in process.log
