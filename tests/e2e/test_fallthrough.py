"""The fallthrough mode and least privilege, on node-cache 1.26.8 and Debian's ip6tables, as the synth runs them.

Most scenarios deploy to the module's real node (:mod:`tests.e2e.realnode`): the DaemonSet
controller, kubelet and containerd run the synthesized pod, node-cache with the synth's args
(``-setupiptables=false`` among them) and the ``keeper`` running the synthesized ConfigMap's
script under the image's dash and ``ip6tables*``, each container under its securityContext
as the runtime applies it. A test that needs another capability set or node-cache's own
interface says so in its ``change`` of the pod. The scenarios that stop one container and
keep it stopped for a while (kubelet would restart it at once), the keeper's backends and the
switch from the spec mode still run the synthesized pod as :class:`tests.e2e.pod.NodeLocalDNSPod`
starts it on a fresh test bed. No rule is written here by hand: every rule on the node comes
from node-cache, the keeper or kube-proxy. Needs the node-cache binary; without it the
module is skipped (one summary line naming ``NODE_CACHE_BIN``).
"""

from __future__ import annotations

import dataclasses
import math
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from constructs_nld import NodeLocalDNSProps
from tests.e2e import probes
from tests.e2e.netns import Testbed, require_root
from tests.e2e.nodecache import NodeCache, Security, node_cache_binary_or_skip
from tests.e2e.pod import NodeLocalDNSPod, RuleKeeper, keeper_container
from tests.e2e.realnode import PodSpecChange, RealNodeBed, proc_status
from tests.e2e.resolver import ResolverLoad

NODE_CACHE_BINARY = node_cache_binary_or_skip()

CLUSTER_IP = "fd00:ec2::a"
LOCAL_IP = "fd00::10"
NODE_IP = "fd01::1"
FALLTHROUGH = NodeLocalDNSProps(kube_dns_cluster_ip=CLUSTER_IP, interception="fallthrough")
LEAST_PRIVILEGE = NodeLocalDNSProps(kube_dns_cluster_ip=CLUSTER_IP, interception="fallthrough", privileged=False)
SPEC_MODE = NodeLocalDNSProps(kube_dns_cluster_ip=CLUSTER_IP)
NAME = "kubernetes.default.svc.cluster.local"
NODE_CACHE_METRICS = f"http://[{NODE_IP}]:9253/metrics"
RESOLVER_TIMEOUT = 2.0
"""The load's one attempt waits this long: stricter than glibc's default 5 s resolver timeout."""

BOUND = '-m socket -m comment --comment "NodeLocal DNS fallthrough: skip conntrack while node-cache listens" -j NOTRACK'
SKIP = '-m comment --comment "NodeLocal DNS fallthrough: skip conntrack" -j NOTRACK'
ALLOW = '-m comment --comment "NodeLocal DNS fallthrough: allow DNS traffic" -j ACCEPT'
EXPECTED_RULES = {
    "raw -A PREROUTING -j NODELOCALDNS-PREROUTING",
    "raw -A OUTPUT -j NODELOCALDNS-OUTPUT",
    f"raw -A NODELOCALDNS-PREROUTING -d fd00:ec2::a/128 -p udp -m udp --dport 53 {BOUND}",
    f"raw -A NODELOCALDNS-PREROUTING -d fd00:ec2::a/128 -p tcp -m tcp --dport 53 {BOUND}",
    f"raw -A NODELOCALDNS-PREROUTING -d fd00::10/128 -p udp -m udp --dport 53 {BOUND}",
    f"raw -A NODELOCALDNS-PREROUTING -d fd00::10/128 -p tcp -m tcp --dport 53 {BOUND}",
    f"raw -A NODELOCALDNS-OUTPUT -s fd00:ec2::a/128 -p udp -m udp --sport 53 {SKIP}",
    f"raw -A NODELOCALDNS-OUTPUT -s fd00:ec2::a/128 -p tcp -m tcp --sport 53 {SKIP}",
    f"raw -A NODELOCALDNS-OUTPUT -s fd00::10/128 -p udp -m udp --sport 53 {SKIP}",
    f"raw -A NODELOCALDNS-OUTPUT -s fd00::10/128 -p tcp -m tcp --sport 53 {SKIP}",
    f"raw -A NODELOCALDNS-OUTPUT -d fd00::10/128 -p udp -m udp --dport 53 {SKIP}",
    f"raw -A NODELOCALDNS-OUTPUT -d fd00::10/128 -p tcp -m tcp --dport 53 {SKIP}",
    f"raw -A NODELOCALDNS-OUTPUT -d fd00::10/128 -p tcp -m tcp --dport 8080 {SKIP}",
    f"raw -A NODELOCALDNS-OUTPUT -s fd00::10/128 -p tcp -m tcp --sport 8080 {SKIP}",
    "filter -A INPUT -j NODELOCALDNS-INPUT",
    "filter -A OUTPUT -j NODELOCALDNS-OUTPUT",
    f"filter -A NODELOCALDNS-INPUT -d fd00:ec2::a/128 -p udp -m udp --dport 53 {ALLOW}",
    f"filter -A NODELOCALDNS-INPUT -d fd00:ec2::a/128 -p tcp -m tcp --dport 53 {ALLOW}",
    f"filter -A NODELOCALDNS-INPUT -d fd00::10/128 -p udp -m udp --dport 53 {ALLOW}",
    f"filter -A NODELOCALDNS-INPUT -d fd00::10/128 -p tcp -m tcp --dport 53 {ALLOW}",
    f"filter -A NODELOCALDNS-OUTPUT -s fd00:ec2::a/128 -p udp -m udp --sport 53 {ALLOW}",
    f"filter -A NODELOCALDNS-OUTPUT -s fd00:ec2::a/128 -p tcp -m tcp --sport 53 {ALLOW}",
    f"filter -A NODELOCALDNS-OUTPUT -s fd00::10/128 -p udp -m udp --sport 53 {ALLOW}",
    f"filter -A NODELOCALDNS-OUTPUT -s fd00::10/128 -p tcp -m tcp --sport 53 {ALLOW}",
}
"""The keeper's 20 rules and 4 jumps for fd00::10 and fd00:ec2::a, as ``ip6tables-save`` prints them."""


def node_cache_requests(bed: Testbed, **labels: str) -> float:
    """node-cache's own ``coredns_dns_requests_total``."""
    return probes.scrape(bed.node, NODE_CACHE_METRICS).total("coredns_dns_requests_total", **labels)


def pod_flows(bed: Testbed, dst: str) -> set[probes.ConntrackFlow]:
    """Conntrack entries of the node for the pod's DNS to ``dst`` (compare before and after a lookup)."""
    return {f for f in probes.conntrack_flows(bed.node) if f.dst == dst and f.dport == 53 and f.src == "fd0b::2"}


@pytest.fixture
def bed(tmp_path: Path) -> Iterator[Testbed]:
    """A fresh node for one scenario."""
    require_root()
    with Testbed(workdir=tmp_path) as testbed:
        yield testbed


def deployed(
    node: RealNodeBed,
    props: NodeLocalDNSProps,
    *,
    change: PodSpecChange | None = None,
    intercepting: bool = True,
) -> dict[str, Any]:
    """Deploy ``props`` on the real node; its Ready pod, once a lookup reaches node-cache (if ``intercepting``)."""
    node.deploy(props, change=change, wait=True, stall_after=60)
    if intercepting:
        node.wait_intercepting()
    return node.node_cache_pod()


def statuses(pod: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """``pod``'s container statuses by container name."""
    return {status["name"]: status for status in pod["status"]["containerStatuses"]}


def restarts(node: RealNodeBed, container: str) -> int:
    """How often kubelet restarted ``container`` of the node's pod."""
    return int(statuses(node.node_cache_pod())[container]["restartCount"])


def started(bed: Testbed, props: NodeLocalDNSProps = FALLTHROUGH) -> NodeLocalDNSPod:
    """The synthesized pod of ``props`` on ``bed``, started and ready."""
    pod = NodeLocalDNSPod(bed, props, binary=NODE_CACHE_BINARY)
    pod.start()
    pod.wait_ready()
    return pod


# ----------------------------------------------------------------- while node-cache runs ---
@pytest.mark.parametrize("props", [FALLTHROUGH, LEAST_PRIVILEGE], ids=["privileged", "least-privilege"])
def test_while_node_cache_runs_the_pods_lookups_are_intercepted_by_the_keepers_rules(
    node: RealNodeBed, props: NodeLocalDNSProps
) -> None:
    bed = node.bed
    pod = deployed(node, props)
    dnat_before = probes.kube_dns_dnat(bed)
    tcp_dnat_before = probes.kube_dns_dnat(bed, "dns-tcp")
    served_before = node_cache_requests(bed, server=f"dns://[{CLUSTER_IP}]:53")
    flows_before = pod_flows(bed, CLUSTER_IP) | pod_flows(bed, LOCAL_IP)

    udp = probes.dig(bed.pod, NAME)
    tcp = probes.dig(bed.pod, NAME, tcp=True)
    local = probes.dig(bed.pod, NAME, server=LOCAL_IP)

    assert set(probes.node_rules(bed.node)) == EXPECTED_RULES
    assert len(probes.node_rules(bed.node)) == 24
    assert probes.node_cache_rules(bed.node) == ()
    for result in (udp, tcp, local):
        assert result.answers == ("fd00:ec2::1",), result.output
    assert node_cache_requests(bed, server=f"dns://[{CLUSTER_IP}]:53") == served_before + 2
    assert probes.kube_dns_dnat(bed) == dnat_before
    assert probes.kube_dns_dnat(bed, "dns-tcp") == tcp_dnat_before
    assert (pod_flows(bed, CLUSTER_IP) | pod_flows(bed, LOCAL_IP)) - flows_before == set()
    # The keeper's readiness probe (its check of the rules) passes under the real kubelet.
    assert statuses(node.node_cache_pod())["keeper"]["ready"]
    assert "fallthrough rules in place" in node.container_log(pod["metadata"]["uid"], "keeper")


# --------------------------------------------------------------------------- SIGKILL ---
# A SIGKILL under load, with kubelet's restart, is in test_kube_proxy.py, beside each kube-proxy mode.


def test_a_restarted_node_cache_is_intercepted_again_without_the_keeper_doing_anything(node: RealNodeBed) -> None:
    bed = node.bed
    pod = deployed(node, FALLTHROUGH)

    os.kill(node.container_pid(pod), signal.SIGKILL)
    assert probes.dig(bed.pod, NAME).answers == ("fd00:ec2::1",)  # kube-proxy's path, or node-cache back already

    node.wait_for(
        "kubelet to restart node-cache", lambda: statuses(node.node_cache_pod())["node-cache"]["restartCount"] >= 1
    )
    node.wait_intercepting()
    dnat_before = probes.kube_dns_dnat(bed)
    served_before = node_cache_requests(bed, server=f"dns://[{CLUSTER_IP}]:53")

    assert probes.dig(bed.pod, NAME).answers == ("fd00:ec2::1",)
    assert node_cache_requests(bed, server=f"dns://[{CLUSTER_IP}]:53") == served_before + 1
    assert probes.kube_dns_dnat(bed) == dnat_before
    assert restarts(node, "keeper") == 0


# ------------------------------------------------------------------------ idempotence ---
def test_no_rule_duplicates_or_growth_across_20_restarts_however_they_end(
    bed: Testbed, measured: Callable[[str], None]
) -> None:
    pod = started(bed)
    keeper = pod.keeper
    assert keeper is not None

    def kill_both() -> None:
        pod.node_cache.kill()
        keeper.kill()

    endings: list[Callable[[], object]] = [
        keeper.kill,  # SIGKILL of the keeper: its rules stay, the next one finds them
        pod.node_cache.kill,  # an OOM kill of node-cache
        pod.stop,  # a pod deletion: everything removed, then reinstalled
        kill_both,  # the node's OOM killer, both
    ]
    counts = []
    for restart in range(20):
        endings[restart % len(endings)]()
        if not pod.node_cache.alive():
            pod.node_cache.start()
        if not keeper.alive():
            keeper.start()
        pod.wait_ready()
        rules = probes.node_rules(bed.node)
        counts.append(len(rules))
        assert sorted(rules) == sorted(EXPECTED_RULES), f"after restart {restart + 1}"

    assert counts == [24] * 20
    assert probes.dig(bed.pod, NAME).answers == ("fd00:ec2::1",)
    measured(f"fallthrough: 20 restarts (keeper and node-cache killed, pod deleted), rules after each: {set(counts)}")


# ------------------------------------------------------------------------- crash loop ---
def test_a_crash_loop_on_a_bad_corefile_keeps_the_node_resolving(bed: Testbed) -> None:
    """The preview ConfigMap rolled out: node-cache exits 1 at every start; the keeper's rules match nothing."""
    pod = started(bed)
    load = ResolverLoad(bed.pod, CLUSTER_IP, (NAME,), rate=200, count=2400, timeout=RESOLVER_TIMEOUT)
    time.sleep(1)
    preview = NodeCache(bed, NodeLocalDNSProps(interception="fallthrough"), binary=NODE_CACHE_BINARY).invocation
    pod.node_cache.write_config_map("/etc/coredns", preview.volumes["/etc/coredns"])
    cluster_before = probes.cluster_requests(bed, proto="udp", zone="cluster.local.")
    assert pod.stop() == (0, 0)
    stopped = time.monotonic()

    pod.start()
    exits = []
    for delay in (0.5, 1.0, 2.0):
        exits.append(pod.node_cache.wait_exit())
        time.sleep(delay)
        pod.node_cache.start()
    exits.append(pod.node_cache.wait_exit())
    assert pod.keeper is not None
    pod.keeper.wait_ready()
    result = load.result()

    assert exits == [1, 1, 1, 1]
    assert "plugin/bind: not a valid IP address or interface name" in pod.node_cache.log
    assert set(probes.node_rules(bed.node)) == EXPECTED_RULES
    assert len(result.failed) <= 5, result.failed
    assert result.longest_outage() < RESOLVER_TIMEOUT
    # Every lookup after the rollout's stop was answered by cluster CoreDNS through kube-proxy.
    after = result.between(stopped, math.inf)
    assert len(after) > 1000 and all(lookup.ok for lookup in after)
    assert probes.cluster_requests(bed, proto="udp", zone="cluster.local.") - cluster_before >= len(after)


# ---------------------------------------------------------------------- graceful stop ---
@pytest.mark.parametrize("props", [FALLTHROUGH, LEAST_PRIVILEGE], ids=["privileged", "least-privilege"])
def test_a_graceful_stop_under_load_leaves_no_rule_behind(
    node: RealNodeBed, props: NodeLocalDNSProps, measured: Callable[[str], None]
) -> None:
    """The DaemonSet deleted under load: kubelet stops both containers, which exit 0 and leave no rule."""
    bed = node.bed
    before = probes.node_rules(bed.node)
    pod = deployed(node, props)
    containers = {name: node.container_id(pod, name) for name in ("node-cache", "keeper")}
    load = ResolverLoad(bed.pod, CLUSTER_IP, (NAME,), rate=200, count=2000, timeout=RESOLVER_TIMEOUT)
    time.sleep(1.5)

    with node.kept_log(pod["metadata"]["uid"], "keeper") as keeper_log, node.task_exits() as exits:
        sigterm = time.monotonic()
        node.delete_daemon_sets()
        stopped = time.monotonic()
        result = load.result()
        logged = keeper_log()

    assert {name: exits.get(container) for name, container in containers.items()} == {"node-cache": 0, "keeper": 0}
    assert probes.node_rules(bed.node) == before
    assert "fallthrough rules removed" in logged
    after = result.between(stopped, math.inf)
    assert len(after) > 50 and all(lookup.ok for lookup in after)
    assert len(result.failed) <= 5
    measured(
        f"fallthrough ({'privileged' if props.privileged else 'least privilege'}), DaemonSet deleted under "
        f"200 lookups/s: its pod gone in {stopped - sigterm:.2f} s, {len(result.failed)} of {len(result.lookups)} "
        "lookups lost"
    )


# ------------------------------------------------------------------- switching modes ---
def test_the_keeper_removes_the_rules_a_sigkilled_spec_mode_node_cache_left_and_its_probe_sees_them(
    bed: Testbed,
) -> None:
    spec_mode = NodeCache(bed, SPEC_MODE, binary=NODE_CACHE_BINARY)
    spec_mode.start()
    spec_mode.wait_ready()
    spec_mode.kill()
    assert len(probes.node_cache_rules(bed.node)) == 24
    assert probes.dig(bed.pod, NAME).status == ""  # the spec mode's black hole
    container = keeper_container(FALLTHROUGH)
    assert container is not None

    ready, output = RuleKeeper(bed, container).check()

    assert not ready
    for chain in ("PREROUTING", "OUTPUT"):
        for proto in ("udp", "tcp"):
            assert (
                "unconditional NOTRACK of the ClusterIP in place (node-cache's own rule): "
                f"-t raw -A {chain} -p {proto} -d fd00:ec2::a --dport 53 -j NOTRACK"
            ) in output
    assert "missing: -t raw -A PREROUTING -j NODELOCALDNS-PREROUTING" in output

    pod = started(bed)
    pod.node_cache.kill()

    assert probes.node_cache_rules(bed.node) == ()
    assert set(probes.node_rules(bed.node)) == EXPECTED_RULES
    assert probes.dig(bed.pod, NAME).answers == ("fd00:ec2::1",)


# ---------------------------------------------------------------- host-network clients ---
def test_host_network_clients_in_the_spec_mode_reach_node_cache_and_are_black_holed_by_a_sigkill(
    bed: Testbed,
) -> None:
    node_cache = NodeCache(bed, SPEC_MODE, binary=NODE_CACHE_BINARY)
    node_cache.start()
    node_cache.wait_ready()
    served_before = node_cache_requests(bed, server=f"dns://[{CLUSTER_IP}]:53")

    assert probes.dig(bed.node, NAME, server=CLUSTER_IP).answers == ("fd00:ec2::1",)
    assert node_cache_requests(bed, server=f"dns://[{CLUSTER_IP}]:53") == served_before + 1

    node_cache.kill()

    assert probes.dig(bed.node, NAME, server=CLUSTER_IP).status == ""


def test_host_network_clients_in_the_fallthrough_mode_always_go_through_kube_proxy_to_the_cluster_ip(
    bed: Testbed,
) -> None:
    """raw OUTPUT has no socket match: the node's own lookups to the ClusterIP are never diverted."""
    pod = started(bed)
    dnat_before = probes.kube_dns_dnat(bed)
    served_before = node_cache_requests(bed, server=f"dns://[{CLUSTER_IP}]:53")
    local_before = node_cache_requests(bed, server=f"dns://[{LOCAL_IP}]:53")

    alive = probes.dig(bed.node, NAME, server=CLUSTER_IP)
    to_local = probes.dig(bed.node, NAME, server=LOCAL_IP)

    assert alive.answers == ("fd00:ec2::1",) and to_local.answers == ("fd00:ec2::1",)
    assert probes.kube_dns_dnat(bed) == dnat_before + 1
    assert node_cache_requests(bed, server=f"dns://[{CLUSTER_IP}]:53") == served_before
    assert node_cache_requests(bed, server=f"dns://[{LOCAL_IP}]:53") == local_before + 1

    pod.node_cache.kill()

    assert probes.dig(bed.node, NAME, server=CLUSTER_IP).answers == ("fd00:ec2::1",)
    assert probes.dig(bed.node, NAME, server=LOCAL_IP).status == ""


# -------------------------------------------------------------- a wildcard listener ---
_LISTENER = """
import socket, sys
sock = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
sock.bind(("::", 53))
print("bound", flush=True)
sock.settimeout(float(sys.argv[1]))
count = 0
try:
    while True:
        sock.recvfrom(512)
        count += 1
except socket.timeout:
    print(count)
"""


def test_a_socket_on_the_wildcard_address_does_not_divert_lookups_when_node_cache_is_gone(bed: Testbed) -> None:
    """Why ``-m socket`` without ``--nowildcard``: another daemon on ``[::]:53`` must not get the pods' lookups."""
    pod = started(bed)
    pod.node_cache.kill()
    listener = subprocess.Popen(bed.node.argv(sys.executable, "-c", _LISTENER, "4"), stdout=subprocess.PIPE, text=True)
    assert listener.stdout is not None and listener.stdout.readline().strip() == "bound"

    results = [probes.dig(bed.pod, NAME) for _ in range(5)]
    received = int(listener.communicate(timeout=15)[0].strip())

    assert [r.answers for r in results] == [("fd00:ec2::1",)] * 5
    assert received == 0


# ------------------------------------------------------------------- least privilege ---
def test_without_privilege_the_spec_mode_node_cache_does_everything_with_its_three_capabilities(
    node: RealNodeBed,
) -> None:
    bed = node.bed
    pod = deployed(node, NodeLocalDNSProps(privileged=False))
    context = pod["spec"]["containers"][0]["securityContext"]
    assert context["privileged"] is False and context["allowPrivilegeEscalation"] is False
    assert sorted(context["capabilities"]["add"]) == ["NET_ADMIN", "NET_BIND_SERVICE", "NET_RAW"]
    net_admin, net_bind_service, net_raw = 12, 10, 13
    effective = int(proc_status(node.container_pid(pod))["CapEff"], 16)
    assert {i for i in range(64) if effective >> i & 1} == {net_admin, net_bind_service, net_raw}

    errors = probes.scrape(bed.cluster_dns, f"http://[{NODE_IP}]:9353/metrics").series(
        "coredns_nodecache_setup_errors_total"
    )
    assert probes.dig(bed.pod, NAME).answers == ("fd00:ec2::1",)
    assert probes.http_get(bed.node, f"http://[{LOCAL_IP}]:8080/health") == (200, "OK")
    assert len(probes.node_cache_rules(bed.node)) == 24
    assert {s.value for s in errors} == {0.0}
    container = node.container_id(pod)
    with node.task_exits() as exits:
        node.delete_daemon_sets()
    assert exits.get(container) == 0
    assert probes.node_cache_rules(bed.node) == ()


def _capabilities(*capabilities: str) -> PodSpecChange:
    """The pod with node-cache given ``capabilities`` instead of the synth's (to show each one is needed)."""

    def change(spec: dict[str, Any]) -> None:
        spec["containers"][0]["securityContext"]["capabilities"]["add"] = list(capabilities)

    return change


def _setup_interface(spec: dict[str, Any]) -> None:
    """The pod without the bed's ``-setupinterface=false``: node-cache tries to make its dummy interface."""
    spec["containers"][0]["args"].remove("-setupinterface=false")


def test_node_cache_needs_net_bind_service_for_port_53(node: RealNodeBed) -> None:
    node.deploy(NodeLocalDNSProps(privileged=False), change=_capabilities("NET_ADMIN", "NET_RAW"))

    pod, ended = node.wait_crash()

    assert ended["exitCode"] == 1
    assert "bind: permission denied" in node.container_log(pod["metadata"]["uid"])
    assert probes.node_cache_rules(node.bed.node) == ()


def test_node_cache_needs_net_admin_for_its_rules_and_its_interface(node: RealNodeBed) -> None:
    bed = node.bed

    def without_net_admin(spec: dict[str, Any]) -> None:
        _setup_interface(spec)
        _capabilities("NET_BIND_SERVICE", "NET_RAW")(spec)

    pod = deployed(node, NodeLocalDNSProps(privileged=False), change=without_net_admin, intercepting=False)
    uid = pod["metadata"]["uid"]
    node.wait_for("node-cache to try its interface", lambda: "nodelocaldns" in node.container_log(uid), 30)
    time.sleep(2)

    errors = probes.scrape(bed.cluster_dns, f"http://[{NODE_IP}]:9353/metrics").series(
        "coredns_nodecache_setup_errors_total"
    )
    assert probes.node_cache_rules(bed.node) == ()
    assert {s.labels["errortype"] for s in errors if s.value > 0} == {"iptables", "interface_add", "interface_check"}
    # The kernel refuses the dummy interface for want of the capability ...
    assert "Failed to add non-existent interface nodelocaldns: operation not permitted" in node.container_log(uid)
    node.reset()

    pod = deployed(node, NodeLocalDNSProps(privileged=False), change=_setup_interface, intercepting=False)
    uid = pod["metadata"]["uid"]
    node.wait_for("node-cache's 24 rules", lambda: len(probes.node_cache_rules(bed.node)) == 24, 30)

    # ... and, with it, for want of dummy-interface support in this test kernel only.
    assert "Failed to add non-existent interface nodelocaldns: operation not supported" in node.container_log(uid)


@pytest.mark.parametrize("backend", ["nft", "legacy"])
def test_the_keeper_works_with_its_capabilities_on_either_backend(bed: Testbed, backend: str) -> None:
    container = keeper_container(LEAST_PRIVILEGE)
    assert container is not None
    assert container.security == Security(privileged=False, capabilities=("NET_ADMIN", "NET_RAW"), no_new_privs=True)
    keeper = RuleKeeper(bed, container, backend="legacy" if backend == "legacy" else "nft")
    save = "ip6tables-legacy-save" if backend == "legacy" else "ip6tables-save"

    keeper.start()
    keeper.wait_ready()

    ours = set(probes.node_rules(bed.node, save))
    assert ours == EXPECTED_RULES
    assert keeper.stop() == 0
    assert set(probes.node_rules(bed.node, save)) == set()


@pytest.mark.parametrize(
    ("backend", "capabilities", "error"),
    [
        ("nft", ("NET_RAW",), "Could not fetch rule set generation id: Permission denied"),
        ("legacy", ("NET_ADMIN",), "unable to initialize table 'raw'"),
    ],
    ids=["nft-without-net-admin", "legacy-without-net-raw"],
)
def test_the_keeper_fails_loudly_without_each_capability(
    bed: Testbed, backend: str, capabilities: tuple[str, ...], error: str
) -> None:
    container = keeper_container(LEAST_PRIVILEGE)
    assert container is not None
    security = dataclasses.replace(container.security, capabilities=capabilities)
    keeper = RuleKeeper(
        bed, dataclasses.replace(container, security=security), backend="legacy" if backend == "legacy" else "nft"
    )

    keeper.start()

    assert keeper.wait_exit() == 1
    assert error in keeper.log
    assert "cannot install the fallthrough rules" in keeper.log


def test_a_sigterm_to_the_keeper_alone_removes_its_rules_and_its_sleeper(bed: Testbed) -> None:
    """SIGTERM lands in ``wait`` on the re-assert sleep: the trap kills the sleeper and removes the rules."""
    pod = started(bed)
    assert pod.keeper is not None and pod.keeper.process is not None
    sleepers: list[int] = []
    deadline = time.monotonic() + 5
    while not sleepers and time.monotonic() < deadline:
        children = subprocess.run(
            ["pgrep", "-P", str(pod.keeper.process.pid), "-x", "sleep"], capture_output=True, text=True, check=False
        )
        sleepers = [int(pid) for pid in children.stdout.split()]
    assert len(sleepers) == 1

    pod.keeper.signal(signal.SIGTERM)

    assert pod.keeper.wait_exit(10) == 0
    assert probes.node_rules(bed.node) == ()
    with pytest.raises(ProcessLookupError):
        os.kill(sleepers[0], 0)
    assert pod.node_cache.alive()
    assert probes.dig(bed.pod, NAME).answers == ("fd00:ec2::1",)
