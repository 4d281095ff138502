"""The zone-local upstream on the real kube-proxy v1.34.4: node-cache's misses stay in the node's zone.

Two cluster CoreDNS, one a zone: ``fd01::53`` in zone-a and ``fd01::54`` in zone-b, each a
kube-dns pod on a node of its zone that kwok plays (:class:`~tests.e2e.realnode.ClusterDNSPod`);
the real EndpointSlice controller writes kube-dns-upstream's slices, with a zone hint per
endpoint when the Service asks for a ``trafficDistribution``. The real node is in zone-a, and its
kube-proxy (iptables mode, then nftables mode) reads that label and the hints.

node-cache sends the cluster domain's misses over TCP (``force_tcp``) to the kube-dns-upstream
ClusterIP, and kube-proxy picks an endpoint per connection. A ``cluster_forward`` ``expire`` of
1 ms gives each miss (5 ms apart) a connection of its own, as node-cache's
``coredns_proxy_conn_cache_misses_total`` counts them: without the prop, kube-proxy spreads the
connections over both zones at random, one chance in two each; with it, all go to zone-a. Each
CoreDNS counts the misses it got (its TCP AAAA queries in ``cluster.local.``), and the share of
each zone is reported. A node moved to zone-c, where no CoreDNS runs, falls back to both.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from constructs_nld import NodeLocalDNSProps, defaults
from constructs_nld.dns import ForwardOptions
from constructs_nld.props import TrafficDistribution
from tests.e2e import probes
from tests.e2e.netns import KUBE_DNS_ENDPOINT, NODE_UPLINK_IP, require_root
from tests.e2e.nodecache import node_cache_binary_or_skip
from tests.e2e.realnode import ClusterDNSPod, RealNodeBed, real_nodes
from tests.harness.images import ImageArchive
from tests.harness.node import PROXY_MODES, ProxyMode
from tests.harness.process import wait_until
from tests.harness.resolver import ResolverLoad

node_cache_binary_or_skip()  # without the binary, the module is one line of the summary

ZONE_A = ClusterDNSPod(KUBE_DNS_ENDPOINT, "zone-a")
"""The cluster CoreDNS in the real node's zone."""
ZONE_B = ClusterDNSPod("fd01::54", "zone-b")
"""The cluster CoreDNS in another zone."""
ZONES = (ZONE_A, ZONE_B)
MISSES = 400
"""Distinct cluster.local names asked, each a cache miss."""
RATE = 200
"""Lookups a second: 5 ms apart, well past the 1 ms ``expire``."""
MIN_CONNECTIONS = 50
"""Fewest new connections the proof needs: all of them in one zone by chance is 2 in 2^50 without the prop."""
_SLICES = f"/apis/discovery.k8s.io/v1/namespaces/{defaults.NAMESPACE}/endpointslices"
_NODE_CACHE_METRICS = f"http://[{NODE_UPLINK_IP}]:{defaults.METRICS_PORT}/metrics"


@pytest.fixture(scope="module", params=PROXY_MODES)
def real(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, images: list[ImageArchive]
) -> Iterator[RealNodeBed]:
    """A cluster with CoreDNS in zone-a and zone-b, and its real node in zone-a, kube-proxy in the parameter's mode."""
    require_root()
    mode: ProxyMode = request.param
    workdir = tmp_path_factory.mktemp(f"zonal-{mode}")
    with real_nodes(workdir, images, 1, proxy_mode=mode, zone=ZONE_A.zone, cluster_dns=ZONES) as (bed,):
        yield bed


def upstream_endpoints(node: RealNodeBed) -> list[dict[str, Any]]:
    """The ready endpoints of kube-dns-upstream's EndpointSlices, as the EndpointSlice controller wrote them."""
    selector = f"kubernetes.io/service-name={defaults.UPSTREAM_SERVICE_NAME}"
    return [
        endpoint
        for item in node.rest.items(_SLICES, labelSelector=selector)
        for endpoint in item.get("endpoints") or ()
        if (endpoint.get("conditions") or {}).get("ready")
    ]


def hinted(node: RealNodeBed) -> bool | None:
    """Whether both CoreDNS are ready endpoints of kube-dns-upstream with a zone hint each; None: not both ready yet."""
    endpoints = upstream_endpoints(node)
    if len(endpoints) != 2:
        return None
    return all((endpoint.get("hints") or {}).get("forZones") for endpoint in endpoints)


def proxied(node: RealNodeBed) -> set[str]:
    """The cluster CoreDNS addresses kube-proxy's rules send kube-dns-upstream's connections to.

    Its DNAT rules (iptables mode), or the endpoint chains its Service chains pick from
    (nftables mode, the address in the chain's name with dots for colons).
    """
    lines = [
        line
        for line in node.proxy.ruleset().splitlines()
        if defaults.UPSTREAM_SERVICE_NAME in line and ("-j DNAT" in line or "goto endpoint-" in line)
    ]
    named = {pod.address: (pod.address, pod.address.replace(":", ".")) for pod in ZONES}
    return {address for address, forms in named.items() if any(f in line for f in forms for line in lines)}


def misses(node: RealNodeBed, pod: ClusterDNSPod) -> float:
    """The TCP AAAA queries in cluster.local that the cluster CoreDNS of ``pod`` received."""
    return probes.cluster_requests(node.bed, pod.address, proto="tcp", type="AAAA", zone="cluster.local.")


def ask_misses(node: RealNodeBed, tag: str) -> tuple[float, float]:
    """Ask :data:`MISSES` distinct names from the pod, each answered; the misses zone-a's and zone-b's CoreDNS got."""
    before = {pod.address: misses(node, pod) for pod in ZONES}
    names = [f"miss-{i}.{tag}-{os.getpid()}.svc.cluster.local" for i in range(MISSES)]

    lookups = ResolverLoad(node.bed.pod, node.bed.ips.kube_dns, names, rate=RATE, count=MISSES).result().lookups

    assert {lookup.outcome for lookup in lookups} == {"NXDOMAIN"}
    return misses(node, ZONE_A) - before[ZONE_A.address], misses(node, ZONE_B) - before[ZONE_B.address]


def zonal_props(distribution: TrafficDistribution | None) -> NodeLocalDNSProps:
    """The spec's props with ``distribution``, and a 1 ms ``expire``: a connection per miss."""
    return NodeLocalDNSProps(
        upstream_traffic_distribution=distribution,
        cluster_forward=ForwardOptions(protocol="force_tcp", expire="1ms"),
    )


def new_connections(node: RealNodeBed) -> float:
    """The TCP connections node-cache's forward opened to the kube-dns-upstream ClusterIP."""
    service = node.rest.get(f"/api/v1/namespaces/{defaults.NAMESPACE}/services/{defaults.UPSTREAM_SERVICE_NAME}")
    assert service is not None
    to = f"[{service['spec']['clusterIP']}]:53"
    metrics = probes.scrape(node.bed.node, _NODE_CACHE_METRICS)
    return metrics.total("coredns_proxy_conn_cache_misses_total", proto="tcp", to=to)


@pytest.mark.parametrize(
    "distribution", [None, "PreferClose", "PreferSameZone"], ids=["unset", "PreferClose", "PreferSameZone"]
)
def test_a_zone_a_nodes_misses_reach_only_zone_a_coredns_with_the_prop_and_both_zones_without(
    node: RealNodeBed, distribution: TrafficDistribution | None, measured: Callable[[str], None]
) -> None:
    props = zonal_props(distribution)
    node.deploy(props, wait=True, stall_after=60)
    node.wait_intercepting()

    wait_until(
        "the EndpointSlice controller's endpoints of kube-dns-upstream",
        lambda: hinted(node) == (distribution is not None),
        60,
        0.2,
    )
    expected = {ZONE_A.address} if distribution else {ZONE_A.address, ZONE_B.address}
    node.wait_for(f"kube-proxy to send kube-dns-upstream to {sorted(expected)}", lambda: proxied(node) == expected)
    if distribution is not None:
        (check,) = [r for r in node.verify(props) if r.name == "upstream-traffic-distribution"]
        assert (check.status, check.detail) == ("pass", f"{distribution}: all 2 ready endpoint(s) have a zone hint")
    connections = new_connections(node)

    a, b = ask_misses(node, f"zonal-{distribution}")

    connections = new_connections(node) - connections
    measured(
        f"{node.proxy_mode}, trafficDistribution {distribution or 'unset'}: {MISSES} misses from a zone-a node "
        f"over {connections:.0f} TCP connections: zone-a CoreDNS {a:.0f} ({a / MISSES:.0%}), "
        f"zone-b {b:.0f} ({b / MISSES:.0%})"
    )
    assert a + b == MISSES, (a, b)
    assert connections >= MIN_CONNECTIONS, f"only {connections:.0f} new connections for {MISSES} misses"
    if distribution is None:
        assert a > 0 and b > 0, (a, b)
    else:
        assert b == 0, (a, b)


@pytest.fixture
def in_zone_c(node: RealNodeBed) -> Iterator[RealNodeBed]:
    """The real node moved to zone-c, where no CoreDNS runs; back in zone-a after the test."""

    node.label_zone("zone-c")
    try:
        yield node
    finally:
        node.label_zone(ZONE_A.zone)


def test_a_node_in_a_zone_without_coredns_falls_back_to_every_zone(
    in_zone_c: RealNodeBed, measured: Callable[[str], None]
) -> None:
    node = in_zone_c
    node.deploy(zonal_props("PreferSameZone"), wait=True, stall_after=60)
    node.wait_intercepting()
    wait_until("the zone hints of kube-dns-upstream", lambda: hinted(node) is True, 60, 0.2)
    node.wait_for("kube-proxy to fall back to both zones", lambda: proxied(node) == {ZONE_A.address, ZONE_B.address})

    a, b = ask_misses(node, "fallback")

    measured(
        f"{node.proxy_mode}, PreferSameZone, the node in zone-c (no CoreDNS): {MISSES} misses: "
        f"zone-a CoreDNS {a:.0f} ({a / MISSES:.0%}), zone-b {b:.0f} ({b / MISSES:.0%})"
    )
    assert a + b == MISSES, (a, b)
    assert a > 0 and b > 0, (a, b)
