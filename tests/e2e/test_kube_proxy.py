"""NodeLocal DNSCache beside the real kube-proxy v1.34.4, in its iptables and its nftables mode.

The answer to kubernetes/dns#682 ("does it work with kube-proxy in nftables mode?"), on one
real node per mode (:mod:`tests.e2e.realnode`): kubelet runs the synthesized DaemonSet's
pod, kube-proxy programs the kube-dns and kube-dns-upstream ClusterIPs from their real
Services and EndpointSlices, the pod's resolv.conf names the kube-dns ClusterIP. Whatever the
mode, node-cache's NOTRACK rules sit in the ``raw`` table at priority -300 (ip6tables, nft
backend), before conntrack (-200) and before kube-proxy's DNAT (``nat`` at -100 in iptables
mode, its own ``ip6 kube-proxy`` table's ``dstnat`` chain at -100 in nftables mode): an
untracked packet never reaches a NAT chain, so node-cache gets it. When node-cache removes
its rules (SIGTERM), or the keeper does (fallthrough mode), kube-proxy's DNAT takes the
packets to cluster CoreDNS again.

Each test deploys with ``deploy`` and the cluster is reset after it; cluster CoreDNS's
counters tell which path a lookup took: a pod's lookup through kube-proxy arrives over UDP,
node-cache's cache misses over TCP (``force_tcp``) through the kube-dns-upstream ClusterIP.
"""

from __future__ import annotations

import math
import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from constructs_nld import NodeLocalDNSProps
from tests.e2e import probes
from tests.e2e.netns import POD_IP, require_root
from tests.e2e.nodecache import node_cache_binary_or_skip
from tests.e2e.realnode import SERVED_NAMES, RealNodeBed, real_node
from tests.harness.images import ImageArchive
from tests.harness.node import PROXY_MODES, ProxyMode
from tests.harness.resolver import ResolverLoad

node_cache_binary_or_skip()  # without the binary, the module is one line of the summary
NAME = SERVED_NAMES[0]
FALLTHROUGH = NodeLocalDNSProps(interception="fallthrough")


@pytest.fixture(scope="module", params=PROXY_MODES)
def real(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, images: list[ImageArchive]
) -> Iterator[RealNodeBed]:
    """A cluster and its real node with kube-proxy in the parameter's mode, for the tests of that mode."""
    require_root()
    mode: ProxyMode = request.param
    with real_node(tmp_path_factory.mktemp(f"kube-proxy-{mode}"), images, proxy_mode=mode) as bed:
        yield bed


def tracked(node: RealNodeBed, sport: int | None = None) -> list[probes.ConntrackFlow]:
    """The node's conntrack entries of the pod's lookups to the kube-dns ClusterIP (from ``sport``)."""
    return [
        f
        for f in probes.conntrack_flows(node.bed.node)
        if f.src == POD_IP and f.dst == node.bed.ips.kube_dns and f.dport == 53 and sport in (None, f.sport)
    ]


def test_kube_proxy_alone_takes_the_pods_lookups_to_cluster_coredns(node: RealNodeBed) -> None:
    """Before NodeLocal DNSCache: the mode's own rules for both DNS Services, conntracked DNAT to CoreDNS."""
    assert node.proxy.programs(node.bed.ips.kube_dns), node.proxy.ruleset()
    udp = probes.cluster_requests(node.bed, proto="udp")

    result = probes.dig(node.bed.pod, NAME, "AAAA")

    assert result.status == "NOERROR", result.output
    assert result.server.startswith(node.bed.ips.kube_dns), result.output
    assert probes.cluster_requests(node.bed, proto="udp") == udp + 1
    assert tracked(node)


@pytest.mark.parametrize("props", [NodeLocalDNSProps(), FALLTHROUGH], ids=["spec", "fallthrough"])
def test_node_cache_takes_the_lookups_to_the_cluster_ip_before_kube_proxy_sees_them(
    node: RealNodeBed, props: NodeLocalDNSProps
) -> None:
    """node-cache's rules, or the keeper's (their ``-m socket`` match while node-cache listens), come first."""
    node.deploy(props, wait=True, stall_after=60)
    node.wait_intercepting()
    served, udp, tcp = (
        node.node_cache_requests(),
        probes.cluster_requests(node.bed, proto="udp"),
        probes.cluster_requests(node.bed, proto="tcp"),
    )
    flows = set(tracked(node))

    results = [probes.dig(node.bed.pod, name, "AAAA") for name in (NAME, "kube-dns.kube-system.svc.cluster.local")]
    results.append(probes.dig(node.bed.pod, NAME, "AAAA", tcp=True))

    assert all(r.status == "NOERROR" for r in results), [r.output for r in results]
    assert node.node_cache_requests() >= served + 3
    # The misses went on over TCP through kube-dns-upstream, which kube-proxy DNATs; no pod lookup reached CoreDNS.
    assert probes.cluster_requests(node.bed, proto="udp") == udp
    assert probes.cluster_requests(node.bed, proto="tcp") >= tcp + 1
    assert set(tracked(node)) <= flows, "an intercepted lookup was conntracked"


def test_an_existing_conntrack_entry_does_not_keep_a_flow_on_kube_proxys_path(node: RealNodeBed) -> None:
    """A pod's UDP flow DNATed before node-cache started is intercepted on its next packet: NOTRACK comes first."""
    sport = 40053
    assert probes.dig(node.bed.pod, NAME, "AAAA", source=f"{POD_IP}#{sport}").status == "NOERROR"
    assert tracked(node, sport), "kube-proxy's path left no conntrack entry"
    node.deploy(wait=True, stall_after=60)
    node.wait_intercepting()
    assert tracked(node, sport), "the entry expired before node-cache ran: the test proves nothing"
    served, udp = node.node_cache_requests(), probes.cluster_requests(node.bed, proto="udp")

    result = probes.dig(node.bed.pod, NAME, "AAAA", source=f"{POD_IP}#{sport}")

    assert result.status == "NOERROR", result.output
    assert node.node_cache_requests() > served
    assert probes.cluster_requests(node.bed, proto="udp") == udp


def test_a_sigterm_hands_the_lookups_to_kube_proxy_and_kubelets_restart_takes_them_back(
    node: RealNodeBed, measured: Callable[[str], None]
) -> None:
    node.deploy(wait=True, stall_after=60)
    node.wait_intercepting()
    pid = node.container_pid(node.node_cache_pod())
    udp = probes.cluster_requests(node.bed, proto="udp")
    load = ResolverLoad(node.bed.pod, node.bed.ips.kube_dns, (NAME,), rate=200, count=2400)
    load.wait_answered(400)

    sigterm = time.monotonic()
    os.kill(pid, signal.SIGTERM)
    node.wait_for("node-cache to exit", lambda: not Path(f"/proc/{pid}").exists(), 30)
    exited = time.monotonic()
    result = load.result()

    assert result.between(exited, math.inf), f"exit {exited - sigterm:.2f} s after the signal: the load ended first"
    assert len(result.failed) <= 5, result.failed
    # From the rules' removal to kubelet's restart, lookups went through kube-proxy's DNAT to CoreDNS over UDP.
    fell_through = probes.cluster_requests(node.bed, proto="udp") - udp
    assert fell_through > 50
    node.wait_for("kubelet to restart node-cache", lambda: _restarts(node) >= 1, 60)
    node.wait_intercepting()
    served, udp = node.node_cache_requests(), probes.cluster_requests(node.bed, proto="udp")
    assert probes.dig(node.bed.pod, NAME, "AAAA").status == "NOERROR"
    assert node.node_cache_requests() > served
    assert probes.cluster_requests(node.bed, proto="udp") == udp
    measured(
        f"kube-proxy {node.proxy_mode}, SIGTERM under 200 lookups/s: exit {exited - sigterm:.2f} s after the "
        f"signal, {len(result.failed)} of {len(result.lookups)} lookups lost, "
        f"{fell_through:.0f} through kube-proxy to CoreDNS, then kubelet restarted node-cache"
    )


def _restarts(node: RealNodeBed) -> int:
    pod = node.node_cache_pod()
    return sum(s["restartCount"] for s in pod["status"]["containerStatuses"] if s["name"] == "node-cache")


@pytest.mark.parametrize("props", [NodeLocalDNSProps(), FALLTHROUGH], ids=["spec", "fallthrough"])
def test_a_sigkill_black_holes_the_spec_mode_until_kubelet_restarts_it_and_falls_through_in_fallthrough_mode(
    node: RealNodeBed, props: NodeLocalDNSProps, measured: Callable[[str], None]
) -> None:
    """What an OOM kill does, beside the real kube-proxy: the spec mode's rules stay, the keeper's go."""
    node.deploy(props, wait=True, stall_after=60)
    node.wait_intercepting()
    pid = node.container_pid(node.node_cache_pod())
    load = ResolverLoad(node.bed.pod, node.bed.ips.kube_dns, (NAME,), rate=200, count=1600)
    load.wait_answered(200)

    os.kill(pid, signal.SIGKILL)
    node.wait_for("kubelet to restart node-cache", lambda: _restarts(node) >= 1, 60)
    node.wait_intercepting()
    result = load.result()

    outage = result.longest_outage()
    refused = [lookup for lookup in result.failed if lookup.outcome == "refused"]
    if props.interception == "node-cache":
        # The rules stayed: lookups were delivered to the node, where nothing listened, until the restart.
        assert refused, f"no lookup refused: {result.failed}"
    else:
        # At most the lookups in flight at the kill: one the socket match had sent to node-cache just
        # before its socket closed is refused; none after it, as the outage stays at a lookup or two.
        assert len(refused) <= 1 and len(result.failed) <= 5 and outage < 0.5, result.failed
    if props.interception == "node-cache":
        assert len(probes.node_cache_rules(node.bed.node)) == 24  # the leftovers were reused, not duplicated
    measured(
        f"kube-proxy {node.proxy_mode}, {props.interception} mode, SIGKILL under 200 lookups/s: "
        f"{len(result.failed)} of {len(result.lookups)} lost, longest outage {outage:.2f} s until kubelet's restart"
    )
