"""node-cache 1.26.8 in the synthesized DaemonSet's pod, on a real node: kubelet, containerd and kube-proxy.

One real node (:mod:`tests.e2e.realnode`) for the module: kubelet v1.34.4 and containerd run
the pod the real DaemonSet controller makes from the deploy of the spec's props, with only
``-setupinterface=false`` added; the real kube-proxy (iptables mode) programs kube-dns
(pinned at the tenth address of the service range, as AWS allocates it) and
kube-dns-upstream. Clients are ``dig`` and resolver-style lookups (a fresh source port
each) from the bed's pod namespace, whose resolv.conf names the kube-dns ClusterIP. The
read-only scenarios share one pod per class; every other scenario deploys its own and the
cluster is reset after it.

node-cache's stops under the real kube-proxy (SIGTERM falling through, SIGKILL's black hole
until kubelet restarts it, the rules reused) are in ``test_kube_proxy.py``, in both of its
modes; the pod created before kube-dns-upstream is in ``test_kubelet.py``. Every test here
needs the node-cache binary; without it they are skipped, as one line of the summary naming
``NODE_CACHE_BIN``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from constructs_nld import CacheSettings, NodeLocalDNSProps, Ports
from tests.e2e import probes
from tests.e2e.nodecache import node_cache_binary_or_skip
from tests.e2e.realnode import RealNodeBed, kubectl_objects
from tests.harness.resolver import ResolverLoad

node_cache_binary_or_skip()  # without the binary, the module is one line of the summary

CLUSTER_IP = "fd00:ec2::a"
"""kube-dns, the tenth address of the service range, as the bed pins it (and AWS allocates it)."""
LOCAL_IP = "fd00::10"
NODE_IP = "fd01::1"
NODE_CACHE_METRICS = f"http://[{NODE_IP}]:9253/metrics"
"""CoreDNS's ``prometheus :9253`` in node-cache, at the node address (a hostNetwork pod's IP)."""
NODE_CACHE_BINARY_METRICS = f"http://[{NODE_IP}]:9353/metrics"
CLUSTER_IP_LISTENER = f"dns://[{CLUSTER_IP}]:53"
LOCAL_LISTENER = f"dns://[{LOCAL_IP}]:53"
RULES_BOUND_SECONDS = 10.0
"""How soon after its container starts node-cache's rules must be in place with ``-pidfile`` (measured: about 1 s)."""
SETUP_ERROR_TYPES = {"iptables", "iptables_lock", "interface_add", "interface_check", "configmap"}
RENDERED_COREFILE = "etc/Corefile"
"""The synth's ``-conf``, inside the container's root."""


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


def cluster_responses(node: RealNodeBed, **labels: str) -> float:
    """``coredns_dns_responses_total`` of cluster CoreDNS."""
    bed = node.bed
    return probes.scrape(bed.node, bed.cluster_coredns_metrics_url()).total("coredns_dns_responses_total", **labels)


def node_cache_requests(node: RealNodeBed, **labels: str) -> float:
    """node-cache's own ``coredns_dns_requests_total``, scraped at the node address."""
    return probes.scrape(node.bed.node, NODE_CACHE_METRICS).total("coredns_dns_requests_total", **labels)


def container_root(node: RealNodeBed, pod: dict[str, Any]) -> Path:
    """node-cache's root file system, as its process sees it."""
    return Path(f"/proc/{node.container_pid(pod)}/root")


def started_at(pod: dict[str, Any], container: str = "node-cache") -> float:
    """When ``container`` of ``pod`` started running, as kubelet reports it (whole seconds since the epoch)."""
    (status,) = [s for s in pod["status"]["containerStatuses"] if s["name"] == container]
    return datetime.fromisoformat(status["state"]["running"]["startedAt"]).timestamp()


def wait_for(node: RealNodeBed, what: str, condition: Callable[[], bool], *, timeout: float) -> float:
    """Poll ``condition`` while the node runs; the ``time.monotonic()`` at which it held."""
    node.wait_for(what, condition, timeout)
    return time.monotonic()


@pytest.fixture(scope="class")
def running(real: RealNodeBed) -> Iterator[RealNodeBed]:
    """The spec's pod on the node for a class of read-only scenarios, intercepting, past the loop plugin's queries."""
    real.deploy(wait=True, stall_after=60)
    real.wait_intercepting()
    probes.wait_for_loop_self_check(real.bed.node, NODE_CACHE_METRICS, listener=LOCAL_LISTENER, blocks=4)
    yield real
    real.reset()


# ----------------------------------------------------------------- a. interception ---
class TestInterception:
    """The pod's queries reach node-cache, not kube-proxy's DNAT, on every path a pod uses."""

    def test_query_to_kube_dns_cluster_ip_is_answered_by_node_cache_not_kube_proxy(self, running: RealNodeBed) -> None:
        bed = running.bed
        flows_before = probes.pod_dns_flows(running.bed.node, CLUSTER_IP)
        dnat_before = probes.kube_dns_dnat(bed, "dns")
        served_before = node_cache_requests(running, server=CLUSTER_IP_LISTENER, proto="udp", zone="cluster.local.")

        result = probes.dig(bed.pod, "kubernetes.default.svc.cluster.local", "AAAA")

        assert result.status == "NOERROR", result.output
        assert result.answers == ("fd00:ec2::1",), result.output
        assert result.server.startswith(f"{CLUSTER_IP}#53"), result.output
        served = node_cache_requests(running, server=CLUSTER_IP_LISTENER, proto="udp", zone="cluster.local.")
        assert served == served_before + 1
        assert probes.kube_dns_dnat(bed, "dns") == dnat_before
        # NOTRACK: the lookup left no conntrack entry on the node.
        assert probes.pod_dns_flows(running.bed.node, CLUSTER_IP) - flows_before == set()

    def test_query_to_local_ip_is_answered_by_node_cache(self, running: RealNodeBed) -> None:
        bed = running.bed
        flows_before = probes.pod_dns_flows(running.bed.node, LOCAL_IP)
        dnat_before = probes.kube_dns_dnat(bed, "dns")
        served_before = node_cache_requests(running, server=LOCAL_LISTENER, zone="cluster.local.")

        result = probes.dig(bed.pod, "web.shop.svc.cluster.local", "AAAA", server=LOCAL_IP)

        assert result.status == "NOERROR", result.output
        assert result.answers == (bed.ips.others[0].cluster_ip,), result.output
        assert node_cache_requests(running, server=LOCAL_LISTENER, zone="cluster.local.") == served_before + 1
        assert probes.kube_dns_dnat(bed, "dns") == dnat_before
        assert probes.pod_dns_flows(running.bed.node, LOCAL_IP) - flows_before == set()

    def test_reverse_lookup_via_cluster_ip_is_answered_by_node_cache(self, running: RealNodeBed) -> None:
        bed = running.bed
        dnat_before = probes.kube_dns_dnat(bed, "dns")
        served_before = node_cache_requests(running, server=CLUSTER_IP_LISTENER, zone="ip6.arpa.")

        result = probes.dig(bed.pod, bed.ips.others[1].cluster_ip, "PTR")

        assert result.status == "NOERROR", result.output
        assert result.answers == ("db.shop.svc.cluster.local.",), result.output
        assert node_cache_requests(running, server=CLUSTER_IP_LISTENER, zone="ip6.arpa.") == served_before + 1
        assert probes.kube_dns_dnat(bed, "dns") == dnat_before

    def test_external_name_via_cluster_ip_goes_to_the_nodes_resolvers_not_cluster_coredns(
        self, running: RealNodeBed
    ) -> None:
        bed = running.bed
        dnat_before = probes.kube_dns_dnat(bed, "dns")
        served_before = node_cache_requests(running, server=CLUSTER_IP_LISTENER, zone=".")
        cluster_before = probes.cluster_requests(bed)

        result = probes.dig(bed.pod, "www.example.org", "AAAA")

        assert result.status == "NOERROR", result.output
        assert result.answers == ("2001:db8::f1",), result.output
        assert node_cache_requests(running, server=CLUSTER_IP_LISTENER, zone=".") == served_before + 1
        metrics = probes.scrape(bed.node, NODE_CACHE_METRICS)
        to_resolvers = sum(
            metrics.total("coredns_proxy_request_duration_seconds_count", to=to)
            for to in ("[fd03::53]:53", "[fd03::54]:53")
        )
        assert to_resolvers >= 1
        assert probes.cluster_requests(bed) == cluster_before
        assert probes.kube_dns_dnat(bed, "dns") == dnat_before

    def test_query_over_tcp_to_cluster_ip_is_answered_by_node_cache(self, running: RealNodeBed) -> None:
        bed = running.bed
        flows_before = probes.pod_dns_flows(running.bed.node, CLUSTER_IP)
        dnat_before = probes.kube_dns_dnat(bed, "dns-tcp")
        served_before = node_cache_requests(running, server=CLUSTER_IP_LISTENER, proto="tcp")

        result = probes.dig(bed.pod, "kube-dns.kube-system.svc.cluster.local", "AAAA", tcp=True)

        assert result.status == "NOERROR", result.output
        assert result.answers == (CLUSTER_IP,), result.output
        assert node_cache_requests(running, server=CLUSTER_IP_LISTENER, proto="tcp") == served_before + 1
        assert probes.kube_dns_dnat(bed, "dns-tcp") == dnat_before
        assert probes.pod_dns_flows(running.bed.node, CLUSTER_IP) - flows_before == set()

    def test_cache_miss_goes_to_kube_dns_upstream_over_tcp(self, running: RealNodeBed) -> None:
        """node-cache forwards to the kube-dns-upstream ClusterIP (not intercepted), over TCP."""
        bed = running.bed
        tcp_before = probes.cluster_requests(bed, proto="tcp", zone="cluster.local.")
        udp_before = probes.cluster_requests(bed, proto="udp", zone="cluster.local.")

        result = probes.dig(bed.pod, "metrics-server.kube-system.svc.cluster.local", "AAAA")

        assert result.answers == (bed.ips.others[2].cluster_ip,), result.output
        assert probes.cluster_requests(bed, proto="tcp", zone="cluster.local.") == tcp_before + 1
        assert probes.cluster_requests(bed, proto="udp", zone="cluster.local.") == udp_before


# ------------------------------------------------------------- b. health, metrics ---
class TestHealthAndMetrics:
    """What kubelet's liveness probe and Prometheus see."""

    def test_liveness_probe_url_answers_ok(self, running: RealNodeBed) -> None:
        probe = running.node_cache_pod()["spec"]["containers"][0]["livenessProbe"]["httpGet"]
        assert (probe["host"], probe["port"], probe["path"]) == (LOCAL_IP, 8080, "/health")

        # GET from the node, as kubelet does.
        assert probes.http_get(running.bed.node, "http://[fd00::10]:8080/health") == (200, "OK")

    def test_both_metrics_ports_answer_at_the_node_address_from_elsewhere_in_the_cluster(
        self, running: RealNodeBed
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

    def test_setup_errors_are_exported_for_every_errortype_and_are_zero(self, running: RealNodeBed) -> None:
        errors = probes.scrape(running.bed.cluster_dns, NODE_CACHE_BINARY_METRICS).series(
            "coredns_nodecache_setup_errors_total"
        )

        assert {s.labels["errortype"]: s.value for s in errors} == dict.fromkeys(SETUP_ERROR_TYPES, 0.0)


# ------------------------------------------------------------------ c. absorption ---
class TestAbsorption:
    def test_repeated_lookups_reach_cluster_coredns_at_most_once_per_ttl(
        self, running: RealNodeBed, measured: Callable[[str], None]
    ) -> None:
        """Positive and negative answers are cached for the records' 5 s TTL (the ``kubernetes`` plugin's)."""
        bed = running.bed
        found, missing = "db.shop.svc.cluster.local", "absent.shop.svc.cluster.local"
        noerror_before = cluster_responses(running, zone="cluster.local.", rcode="NOERROR")
        nxdomain_before = cluster_responses(running, zone="cluster.local.", rcode="NXDOMAIN")
        first = time.monotonic()
        assert probes.dig(bed.pod, found).ttls == (5,)
        assert probes.dig(bed.pod, missing).status == "NXDOMAIN"

        result = ResolverLoad(bed.pod, CLUSTER_IP, (found, missing), rate=50, count=600).result()

        span = result.lookups[-1].sent - first
        at_most = math.floor(span / 5) + 1
        assert [lookup.outcome for lookup in result.lookups] == ["ok", "NXDOMAIN"] * 300
        noerror = cluster_responses(running, zone="cluster.local.", rcode="NOERROR") - noerror_before
        nxdomain = cluster_responses(running, zone="cluster.local.", rcode="NXDOMAIN") - nxdomain_before
        assert 2 <= noerror <= at_most
        assert 2 <= nxdomain <= at_most
        measured(
            f"absorption: 602 lookups of 2 names over {span:.1f} s reached cluster CoreDNS "
            f"{noerror:.0f} + {nxdomain:.0f} times (at most {at_most} each)"
        )


# ------------------------------------------------------------------------- d. rules ---
def test_notrack_rules_for_both_addresses_are_in_place_within_the_bound_with_pidfile(
    node: RealNodeBed, measured: Callable[[str], None]
) -> None:
    node.deploy()
    wait_for(node, "node-cache's 24 rules", lambda: len(probes.node_cache_rules(node.bed.node)) == 24, timeout=60)
    in_place = time.time()

    seconds = in_place - started_at(node.node_cache_pod())
    assert seconds <= RULES_BOUND_SECONDS
    assert set(probes.node_cache_rules(node.bed.node)) == expected_rules()
    measured(
        f"NOTRACK rules with -pidfile: all 24 in place {seconds:.0f} s after the container started "
        f"(kubelet's whole seconds; bound {RULES_BOUND_SECONDS} s)"
    )


def _without_pidfile(spec: dict[str, Any]) -> None:
    """The pod without node-cache's ``-pidfile`` (this test's own change: why the synth passes it)."""
    args = spec["containers"][0]["args"]
    at = args.index("-pidfile")
    del args[at : at + 2]


def test_without_pidfile_rules_wait_for_the_first_60s_sync_and_pods_fall_through_meanwhile(
    node: RealNodeBed, measured: Callable[[str], None]
) -> None:
    """Why the synth passes ``-pidfile``: without it, node-cache serves but intercepts nothing for a minute."""
    bed = node.bed
    node.deploy(change=_without_pidfile)
    pod = node.node_cache_pod()
    assert "-pidfile" not in pod["spec"]["containers"][0]["args"]
    started = started_at(pod)
    wait_for(
        node,
        "node-cache to serve on fd00::10",
        lambda: probes.dig(bed.pod, "kubernetes.default.svc.cluster.local", server=LOCAL_IP).status == "NOERROR",
        timeout=30,
    )
    serving = time.time() - started
    time.sleep(max(0.0, started + 5 - time.time()))
    dnat_before = probes.kube_dns_dnat(bed, "dns")

    # Serving on its addresses, yet without rules kube-proxy's DNAT takes the pod's query.
    assert probes.node_cache_rules(bed.node) == ()
    result = probes.dig(bed.pod, "kubernetes.default.svc.cluster.local", "AAAA")
    assert result.answers == ("fd00:ec2::1",), result.output
    assert probes.kube_dns_dnat(bed, "dns") == dnat_before + 1

    wait_for(node, "node-cache's first rule sync", lambda: bool(probes.node_cache_rules(bed.node)), timeout=90)
    seconds = time.time() - started

    assert 58 <= seconds <= 76
    wait_for(node, "all 24 rules", lambda: set(probes.node_cache_rules(bed.node)) == expected_rules(), timeout=10)
    measured(
        f"NOTRACK rules without -pidfile: in place {seconds:.0f} s after the container started "
        f"(serving after {serving:.0f} s)"
    )


# ---------------------------------------------------------------- e. failure modes ---
def test_preview_synth_fails_on_its_placeholder_in_localip(node: RealNodeBed) -> None:
    """``dist/`` as written (the preview) applied by hand: node-cache exits on the placeholder, and kubelet retries."""
    node.apply(kubectl_objects(NodeLocalDNSProps()))

    pod, ended = node.wait_crash()

    assert ended["exitCode"] == 1
    assert (
        '[FATAL] Error parsing flags - invalid localip specified - "__KUBE_DNS_CLUSTER_IP__", Exiting'
    ) in node.container_log(pod["metadata"]["uid"])
    assert probes.node_cache_rules(node.bed.node) == ()


def test_preview_configmap_under_deployable_args_fails_on_its_bind_placeholder(node: RealNodeBed) -> None:
    """The preview's ConfigMap applied over a deployable DaemonSet: CoreDNS refuses the placeholder it binds."""
    deployable = kubectl_objects(NodeLocalDNSProps(kube_dns_cluster_ip=node.bed.ips.kube_dns))
    (preview,) = [
        o
        for o in kubectl_objects(NodeLocalDNSProps())
        if o["kind"] == "ConfigMap" and o["metadata"]["name"] == "node-local-dns"
    ]
    node.apply(
        [preview if o["metadata"]["name"] == "node-local-dns" and o["kind"] == "ConfigMap" else o for o in deployable]
    )

    pod, ended = node.wait_crash()

    assert ended["exitCode"] == 1
    assert 'plugin/bind: not a valid IP address or interface name: "__KUBE_DNS_CLUSTER_IP__"' in node.container_log(
        pod["metadata"]["uid"]
    )
    assert probes.node_cache_rules(node.bed.node) == ()


def test_configmap_change_is_rendered_and_reloaded_while_running(
    node: RealNodeBed, measured: Callable[[str], None]
) -> None:
    """kubelet syncs the changed ConfigMap into the pod; node-cache re-renders within 10 s; CoreDNS reloads it."""
    node.deploy(wait=True, stall_after=60)
    node.wait_intercepting()
    pod = node.node_cache_pod()
    root = container_root(node, pod)
    assert probes.dig(node.bed.pod, "web.shop.svc.cluster.local").ttls == (5,)
    assert "success 9984 30\n" in (root / RENDERED_COREFILE).read_text()

    pushed = time.monotonic()
    node.deploy(NodeLocalDNSProps(cache=CacheSettings(success_ttl=2)))
    synced = wait_for(
        node,
        "kubelet to sync the ConfigMap",
        lambda: "success 9984 2\n" in (root / "etc/coredns/Corefile.base").read_text(),
        timeout=120,
    )
    rendered = wait_for(
        node,
        "node-cache to re-render",
        lambda: "success 9984 2\n" in (root / RENDERED_COREFILE).read_text(),
        timeout=20,
    )
    uid = pod["metadata"]["uid"]
    reloaded = wait_for(
        node, "CoreDNS's reload", lambda: "[INFO] Reloading complete" in node.container_log(uid), timeout=60
    )

    assert rendered - synced <= 12
    assert reloaded - synced <= 60
    same = node.node_cache_pod()
    assert same["metadata"]["uid"] == pod["metadata"]["uid"]
    assert same["status"]["containerStatuses"][0]["restartCount"] == 0
    # A name not cached before: its answer now carries the new 2 s cap.
    assert probes.dig(node.bed.pod, "db.shop.svc.cluster.local").ttls == (2,)
    assert set(probes.node_cache_rules(node.bed.node)) == expected_rules()
    measured(
        f"ConfigMap change: in the pod {synced - pushed:.1f} s after the apply (kubelet), re-rendered "
        f"{rendered - synced:.1f} s and reloaded by CoreDNS {reloaded - synced:.1f} s after that, no restart"
    )


# ---------------------------------------------------------------- f. other ports ---
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
    node: RealNodeBed,
    ports: Ports,
    health: int,
    metrics: int,
    binary_metrics: int,
    unused: tuple[int, ...],
) -> None:
    bed = node.bed
    node.deploy(NodeLocalDNSProps(ports=ports), wait=True, stall_after=60)
    node.wait_intercepting(metrics_port=metrics)
    container = node.node_cache_pod()["spec"]["containers"][0]
    assert container["livenessProbe"]["httpGet"]["port"] == health
    assert {p["name"]: p["containerPort"] for p in container["ports"]}["metrics"] == metrics
    assert {p["name"]: p["containerPort"] for p in container["ports"]}["metrics-binary"] == binary_metrics
    plugin_url = f"http://[{NODE_IP}]:{metrics}/metrics"
    served = probes.scrape(bed.cluster_dns, plugin_url).total("coredns_dns_requests_total", server=CLUSTER_IP_LISTENER)

    assert probes.dig(bed.pod, "kubernetes.default.svc.cluster.local").answers == ("fd00:ec2::1",)

    assert set(probes.node_cache_rules(bed.node)) == expected_rules(health_port=health)
    assert probes.http_get(bed.node, f"http://[fd00::10]:{health}/health") == (200, "OK")
    plugin = probes.scrape(bed.cluster_dns, plugin_url)
    assert plugin.total("coredns_dns_requests_total", server=CLUSTER_IP_LISTENER) == served + 1
    errors = probes.scrape(bed.cluster_dns, f"http://[{NODE_IP}]:{binary_metrics}/metrics").series(
        "coredns_nodecache_setup_errors_total"
    )
    assert {s.labels["errortype"]: s.value for s in errors} == dict.fromkeys(SETUP_ERROR_TYPES, 0.0)
    for port in unused:
        with pytest.raises(RuntimeError, match="Connection refused"):
            probes.http_get(bed.cluster_dns, f"http://[{NODE_IP}]:{port}/")
