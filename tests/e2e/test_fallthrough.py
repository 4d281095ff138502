"""The fallthrough mode and least privilege, on node-cache 1.26.8 and Debian's ip6tables, as the synth runs them.

Every scenario deploys to the module's real node (:mod:`tests.e2e.realnode`): the DaemonSet
controller, kubelet and containerd run the synthesized pod, node-cache with the synth's args
(``-setupiptables=false`` among them) and the ``keeper`` running the synthesized ConfigMap's
script under the image's dash and ``ip6tables*``, each container under its securityContext
as the runtime applies it. A test that needs another capability set, node-cache's own
interface or rules, a shorter grace period or the legacy backend says so in its ``change``
of the pod. kubelet's crash-loop back-off is capped at 1 s on this node
(``crashLoopBackOff.maxContainerRestartPeriod``), so that 20 restarts take seconds; a kill
is followed by kubelet's restart, and a test that needs node-cache gone for a while makes
it crash-loop. No rule is written here by hand: every rule on the node comes from
node-cache, the keeper or kube-proxy. Needs the node-cache binary; without it the module is
skipped (one summary line naming ``NODE_CACHE_BIN``).
"""

from __future__ import annotations

import math
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from constructs_nld import NodeLocalDNSProps
from tests.e2e import probes
from tests.e2e.netns import Testbed, require_root
from tests.e2e.nodecache import node_cache_binary_or_skip
from tests.e2e.realnode import PodSpecChange, RealNodeBed, kubectl_objects, proc_status, real_node
from tests.harness.images import ImageArchive
from tests.harness.resolver import ResolverLoad

NODE_CACHE_BINARY = node_cache_binary_or_skip()

CLUSTER_IP = "fd00:ec2::a"
LOCAL_IP = "fd00::10"
NODE_IP = "fd01::1"
FALLTHROUGH = NodeLocalDNSProps(kube_dns_cluster_ip=CLUSTER_IP, interception="fallthrough")
LEAST_PRIVILEGE = NodeLocalDNSProps(kube_dns_cluster_ip=CLUSTER_IP, interception="fallthrough", privileged=False)
SPEC_MODE = NodeLocalDNSProps(kube_dns_cluster_ip=CLUSTER_IP)
NAME = "kubernetes.default.svc.cluster.local"
LEGACY_LINKS = ("ip6tables", "ip6tables-save", "ip6tables-restore")
"""What the image's iptables-wrapper relinks to ``xtables-legacy-multi`` on a node whose rules are legacy's."""
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


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory, images: list[ImageArchive]) -> Iterator[RealNodeBed]:
    """The module's real node, kubelet's crash-loop back-off capped at 1 s: 20 restarts take seconds, not minutes."""
    require_root()
    with real_node(tmp_path_factory.mktemp("realnode"), images, max_restart_period=1) as bed:
        yield bed


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
    return int(statuses(node.current_pod())[container]["restartCount"])


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

    def flows() -> set[probes.ConntrackFlow]:
        return probes.pod_dns_flows(bed.node, CLUSTER_IP) | probes.pod_dns_flows(bed.node, LOCAL_IP)

    flows_before = flows()

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
    assert flows() - flows_before == set()
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
def _kill(node: RealNodeBed, pod: dict[str, Any], *containers: str) -> None:
    """SIGKILL ``containers`` of ``pod`` at once, as the kernel's OOM killer would."""
    pids = [node.container_pid(pod, container) for container in containers]
    for pid in pids:
        os.kill(pid, signal.SIGKILL)


def _delete(node: RealNodeBed, pod: dict[str, Any]) -> None:
    """Delete ``pod`` as ``kubectl delete pod`` does; the DaemonSet controller makes its next one."""
    node.rest.request("DELETE", f"/api/v1/namespaces/kube-system/pods/{pod['metadata']['name']}", ok=(200, 202))


def _back(node: RealNodeBed, pod: dict[str, Any], killed: tuple[str, ...]) -> Callable[[], bool]:
    """Whether the node's pod is back: ``killed`` restarted in ``pod`` (a new pod when empty), each running.

    The keeper's run is back once its log says it installed the rules (its readiness
    probe's next period may be 15 s away).
    """
    uid = pod["metadata"]["uid"]
    before = {container: int(status["restartCount"]) for container, status in statuses(pod).items()}

    def back() -> bool:
        current = [p for p in node.pods() if not p["metadata"].get("deletionTimestamp")]
        if len(current) != 1 or (current[0]["metadata"]["uid"] == uid) != bool(killed):
            return False
        now = statuses(current[0]) if current[0]["status"].get("containerStatuses") else {}
        if set(now) != set(before) or not all("running" in status["state"] for status in now.values()):
            return False
        if killed and any(int(now[c]["restartCount"]) <= before[c] for c in killed):
            return False
        keeper_run = int(now["keeper"]["restartCount"])
        return "fallthrough rules in place" in node.run_log(current[0]["metadata"]["uid"], "keeper", keeper_run)

    return back


def test_no_rule_duplicates_or_growth_across_20_restarts_however_they_end(
    node: RealNodeBed, measured: Callable[[str], None]
) -> None:
    """kubelet restarts what was killed, the DaemonSet controller replaces a deleted pod; the rules stay 24."""
    bed = node.bed
    deployed(node, FALLTHROUGH)
    endings: list[tuple[str, tuple[str, ...]]] = [
        ("keeper SIGKILLed", ("keeper",)),  # its rules stay, the next run finds them
        ("node-cache SIGKILLed", ("node-cache",)),  # an OOM kill of node-cache
        ("pod deleted", ()),  # everything removed, then reinstalled by the next pod
        ("both SIGKILLed", ("node-cache", "keeper")),  # the node's OOM killer, both
    ]
    counts = []
    started = time.monotonic()
    for restart in range(20):
        what, killed = endings[restart % len(endings)]
        pod = node.node_cache_pod() if restart == 0 else node.current_pod()
        back = _back(node, pod, killed)
        if killed:
            _kill(node, pod, *killed)
        else:
            _delete(node, pod)
        node.wait_for(f"the pod back after restart {restart + 1} ({what})", back, 60)
        rules = probes.node_rules(bed.node)
        counts.append(len(rules))
        assert sorted(rules) == sorted(EXPECTED_RULES), f"after restart {restart + 1} ({what})"
    seconds = time.monotonic() - started

    assert counts == [24] * 20
    node.wait_intercepting()
    assert probes.dig(bed.pod, NAME).answers == ("fd00:ec2::1",)
    measured(
        f"fallthrough on the real node: 20 restarts (kubelet restarting a SIGKILLed keeper, node-cache or both, "
        f"the DaemonSet replacing a deleted pod) in {seconds:.0f} s, rules after each: {set(counts)}"
    )


# ------------------------------------------------------------------------- crash loop ---
def _preview_config_map() -> dict[str, Any]:
    """The preview's node-local-dns ConfigMap (``dist/`` as written): its Corefile binds the placeholder."""
    (config_map,) = [
        obj
        for obj in kubectl_objects(NodeLocalDNSProps(interception="fallthrough"))
        if obj["kind"] == "ConfigMap" and obj["metadata"]["name"] == "node-local-dns"
    ]
    return config_map


def _crash_looping(node: RealNodeBed) -> dict[str, Any]:
    """The fallthrough pod with the preview's ConfigMap applied by hand: node-cache crash-loops, the keeper holds."""
    preview = _preview_config_map()
    node.apply(
        [
            preview if (o["kind"], o["metadata"]["name"]) == ("ConfigMap", "node-local-dns") else o
            for o in kubectl_objects(FALLTHROUGH)
        ]
    )
    pod, _ = node.wait_crash()
    node.wait_for(
        "the keeper to install its rules",
        lambda: "fallthrough rules in place" in node.container_log(pod["metadata"]["uid"], "keeper"),
    )
    return pod


def test_a_crash_loop_on_a_bad_corefile_keeps_the_node_resolving(node: RealNodeBed) -> None:
    """The preview ConfigMap rolled out: node-cache exits 1 at every start; the keeper's rules match nothing."""
    bed = node.bed
    old = deployed(node, FALLTHROUGH)
    old_containers = {node.container_id(old, name) for name in ("node-cache", "keeper")}
    load = ResolverLoad(bed.pod, CLUSTER_IP, (NAME,), rate=200, count=4000, timeout=RESOLVER_TIMEOUT)
    load.wait_answered(200)
    node.apply([_preview_config_map()])
    cluster_before = probes.cluster_requests(bed, proto="udp", zone="cluster.local.")

    with node.task_exits() as exits:
        node.roll()
        node.wait_for(
            "the old pod to be gone", lambda: old["metadata"]["uid"] not in {p["metadata"]["uid"] for p in node.pods()}
        )
        stopped = time.monotonic()
        pod, _ = node.wait_crash()
        node.wait_for("node-cache's third crash", lambda: restarts(node, "node-cache") >= 3, 60)
        result = load.result()
    uid = pod["metadata"]["uid"]

    assert {exits[c] for c in old_containers} == {0}
    # The other exits: node-cache's crashes (1), and the old pod's sandbox (pause: 0 or 137).
    assert [code for container, code in exits.items() if container not in old_containers].count(1) >= 3
    # How it ended: its lastState, or its state until kubelet restarts it (kubelet's container GC
    # may have removed the run before by then, leaving lastState empty).
    _, ending = node.wait_crash()
    assert ending["exitCode"] == 1
    assert statuses(node.current_pod())["keeper"]["restartCount"] == 0
    assert "plugin/bind: not a valid IP address or interface name" in node.container_log(uid)
    assert "fallthrough rules in place" in node.container_log(uid, "keeper")
    assert set(probes.node_rules(bed.node)) == EXPECTED_RULES
    assert len(result.failed) <= 5, result.failed
    assert result.longest_outage() < RESOLVER_TIMEOUT
    # Every lookup after the old pod went was answered by cluster CoreDNS through kube-proxy.
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
    load.wait_answered(300)

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
def _grace(seconds: int) -> PodSpecChange:
    """The pod with ``terminationGracePeriodSeconds`` of ``seconds`` (kubelet's SIGKILL comes sooner)."""

    def change(spec: dict[str, Any]) -> None:
        spec["terminationGracePeriodSeconds"] = seconds

    return change


def test_the_keeper_removes_the_rules_a_spec_mode_node_cache_killed_at_its_grace_deadline_left(
    node: RealNodeBed,
) -> None:
    """A hung spec-mode node-cache switched to the fallthrough mode: kubelet SIGKILLs it; the new keeper cleans up."""
    bed = node.bed
    old = deployed(node, SPEC_MODE, change=_grace(2))
    assert len(probes.node_cache_rules(bed.node)) == 24
    container = node.container_id(old)
    os.kill(node.container_pid(old), signal.SIGSTOP)  # hung: SIGTERM stays pending

    with node.task_exits() as exits:
        node.deploy(FALLTHROUGH, wait=True, stall_after=60)
        pod = node.node_cache_pod()
    node.wait_intercepting()

    assert exits[container] == 128 + signal.SIGKILL  # no teardown: its 24 rules stayed behind
    assert probes.node_cache_rules(bed.node) == ()
    assert set(probes.node_rules(bed.node)) == EXPECTED_RULES
    assert probes.dig(bed.pod, NAME).answers == ("fd00:ec2::1",)
    assert "fallthrough rules in place" in node.container_log(pod["metadata"]["uid"], "keeper")


def _node_cache_writes_its_rules(spec: dict[str, Any]) -> None:
    """node-cache without ``-setupiptables=false``, checking its rules every second.

    ``-syncinterval`` is a duration that node-cache multiplies by a second (its default is
    ``60``, i.e. 60 ns), so ``1ns`` means 1 s.
    """
    args = spec["containers"][0]["args"]
    args.remove("-setupiptables=false")
    args.append("-syncinterval=1ns")


def test_the_keepers_readiness_probe_fails_on_node_caches_unconditional_rules(node: RealNodeBed) -> None:
    """A pod whose node-cache still writes its own rules: kubelet's probe of the keeper reports each one.

    After three such periods (the probe's ``failureThreshold``), kubelet marks the pod unready.
    """
    bed = node.bed
    node.deploy(FALLTHROUGH, change=_node_cache_writes_its_rules)
    node.wait_for("node-cache's 24 rules", lambda: len(probes.node_cache_rules(bed.node)) == 24, 30)
    # klog writes a multi-line value as ``output=<``, its lines indented by a tab, then `` >``.
    failed = re.compile(
        r'"Probe failed" probeType="Readiness" [^\n]*containerName="keeper"[^\n]*output=<\n(?P<output>.*?)\n\s*>',
        re.DOTALL,
    )
    # node-cache writes its rules one by one, and a probe before the keeper's first install also
    # lists the keeper's missing jumps: wait for a probe that reports all four of node-cache's.
    expected = [
        "unconditional NOTRACK of the ClusterIP in place (node-cache's own rule): "
        f"-t raw -A {chain} -p {proto} -d fd00:ec2::a --dport 53 -j NOTRACK"
        for chain in ("PREROUTING", "OUTPUT")
        for proto in ("udp", "tcp")
    ]
    outputs: list[str] = []

    def failed_on_the_rules() -> bool:
        outputs[:] = [m.group("output") for m in failed.finditer(node.node.kubelet.log)]
        return any(all(line in output for line in expected) for output in outputs)

    node.wait_for("the keeper's readiness probe to fail on node-cache's four rules", failed_on_the_rules, 60)


# ---------------------------------------------------------------- host-network clients ---
def _dig_while_gone(node: RealNodeBed, pod: dict[str, Any], server: str) -> probes.DigResult:
    """SIGKILL node-cache, then a host-network lookup to ``server`` before kubelet has restarted it.

    kubelet is paused (SIGSTOP) from the kill until the lookup has ended: the module caps its
    crash-loop back-off at 1 s, and a restart can otherwise come before the lookup is sent.
    """
    kubelet = node.node.kubelet
    kubelet.signal(signal.SIGSTOP)
    try:
        os.kill(node.container_pid(pod), signal.SIGKILL)
        result = probes.dig(node.bed.node, NAME, server=server)
        assert node.running_tasks(pod["metadata"]["uid"]) == [], "node-cache ran again before the lookup ended"
    finally:
        kubelet.signal(signal.SIGCONT)
    return result


def test_host_network_clients_in_the_spec_mode_reach_node_cache_and_are_black_holed_by_a_sigkill(
    node: RealNodeBed,
) -> None:
    bed = node.bed
    pod = deployed(node, SPEC_MODE)
    served_before = node_cache_requests(bed, server=f"dns://[{CLUSTER_IP}]:53")

    assert probes.dig(bed.node, NAME, server=CLUSTER_IP).answers == ("fd00:ec2::1",)
    assert node_cache_requests(bed, server=f"dns://[{CLUSTER_IP}]:53") == served_before + 1

    assert _dig_while_gone(node, pod, CLUSTER_IP).status == ""
    # Until kubelet has restarted node-cache: a pod deleted meanwhile would leave its rules for good.
    node.wait_for("kubelet to restart node-cache", lambda: restarts(node, "node-cache") >= 1)
    node.wait_intercepting()
    assert probes.dig(bed.node, NAME, server=CLUSTER_IP).answers == ("fd00:ec2::1",)


def test_host_network_clients_in_the_fallthrough_mode_always_go_through_kube_proxy_to_the_cluster_ip(
    node: RealNodeBed,
) -> None:
    """raw OUTPUT has no socket match: the node's own lookups to the ClusterIP are never diverted.

    Only AAAA lookups are counted: CoreDNS's ``loop`` plugin queries the local IP itself (HINFO)
    once per server block after start, and may still be at it when the pod is Ready.
    """
    bed = node.bed
    pod = deployed(node, FALLTHROUGH)
    dnat_before = probes.kube_dns_dnat(bed)
    served_before = node_cache_requests(bed, server=f"dns://[{CLUSTER_IP}]:53", type="AAAA")
    local_before = node_cache_requests(bed, server=f"dns://[{LOCAL_IP}]:53", type="AAAA")

    alive = probes.dig(bed.node, NAME, server=CLUSTER_IP)
    to_local = probes.dig(bed.node, NAME, server=LOCAL_IP)

    assert alive.answers == ("fd00:ec2::1",) and to_local.answers == ("fd00:ec2::1",)
    assert probes.kube_dns_dnat(bed) == dnat_before + 1
    assert node_cache_requests(bed, server=f"dns://[{CLUSTER_IP}]:53", type="AAAA") == served_before
    assert node_cache_requests(bed, server=f"dns://[{LOCAL_IP}]:53", type="AAAA") == local_before + 1

    assert _dig_while_gone(node, pod, LOCAL_IP).status == ""
    assert probes.dig(bed.node, NAME, server=CLUSTER_IP).answers == ("fd00:ec2::1",)


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


def test_a_socket_on_the_wildcard_address_does_not_divert_lookups_when_node_cache_is_gone(node: RealNodeBed) -> None:
    """Why ``-m socket`` without ``--nowildcard``: another daemon on ``[::]:53`` must not get the pods' lookups."""
    bed = node.bed
    _crash_looping(node)
    listener = subprocess.Popen(bed.node.argv(sys.executable, "-c", _LISTENER, "4"), stdout=subprocess.PIPE, text=True)
    assert listener.stdout is not None and listener.stdout.readline().strip() == "bound"

    results = [probes.dig(bed.pod, NAME) for _ in range(5)]
    received = int(listener.communicate(timeout=15)[0].strip())

    assert [r.answers for r in results] == [("fd00:ec2::1",)] * 5
    assert received == 0
    assert set(probes.node_rules(bed.node)) == EXPECTED_RULES


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
    expected = {"iptables", "interface_add", "interface_check"}

    def failed_setups() -> set[str]:
        try:
            metrics = probes.scrape(bed.cluster_dns, f"http://[{NODE_IP}]:9353/metrics")
        except RuntimeError:  # its metrics server not listening yet
            return set()
        return {s.labels["errortype"] for s in metrics.series("coredns_nodecache_setup_errors_total") if s.value > 0}

    node.wait_for("node-cache to count its failed setups", lambda: failed_setups() >= expected, 30)

    assert probes.node_cache_rules(bed.node) == ()
    assert failed_setups() == expected
    # The kernel refuses the dummy interface for want of the capability ...
    assert "Failed to add non-existent interface nodelocaldns: operation not permitted" in node.container_log(uid)
    node.reset()

    pod = deployed(node, NodeLocalDNSProps(privileged=False), change=_setup_interface, intercepting=False)
    uid = pod["metadata"]["uid"]
    node.wait_for("node-cache's 24 rules", lambda: len(probes.node_cache_rules(bed.node)) == 24, 30)

    # ... and, with it, for want of dummy-interface support in this test kernel only.
    assert "Failed to add non-existent interface nodelocaldns: operation not supported" in node.container_log(uid)


def _legacy(spec: dict[str, Any]) -> None:
    """The keeper as the image's iptables-wrapper runs it on a legacy node: ``ip6tables*`` relinked first."""
    keeper = spec["containers"][1]
    relink = "; ".join(f"ln -sf xtables-legacy-multi /usr/sbin/{name}" for name in LEGACY_LINKS)
    keeper["command"] = ["/bin/sh", "-c", f'{relink}; exec "$0" "$@"', *keeper["command"]]


def _keeper_capabilities(*capabilities: str) -> PodSpecChange:
    """The pod with the keeper given ``capabilities`` instead of the synth's."""

    def change(spec: dict[str, Any]) -> None:
        spec["containers"][1]["securityContext"]["capabilities"]["add"] = list(capabilities)

    return change


def _both(*changes: PodSpecChange) -> PodSpecChange:
    """``changes`` one after the other."""

    def change(spec: dict[str, Any]) -> None:
        for each in changes:
            each(spec)

    return change


@pytest.mark.parametrize("backend", ["nft", "legacy"])
def test_the_keeper_works_with_its_capabilities_on_either_backend(node: RealNodeBed, backend: str) -> None:
    bed = node.bed
    save = "ip6tables-legacy-save" if backend == "legacy" else "ip6tables-save"
    other = "ip6tables-save" if backend == "legacy" else "ip6tables-legacy-save"

    pod = deployed(node, LEAST_PRIVILEGE, change=_legacy if backend == "legacy" else None)
    context = pod["spec"]["containers"][1]["securityContext"]
    effective = int(proc_status(node.container_pid(pod, "keeper"))["CapEff"], 16)
    net_admin, net_raw = 12, 13

    assert sorted(context["capabilities"]["add"]) == ["NET_ADMIN", "NET_RAW"]
    assert context["allowPrivilegeEscalation"] is False
    assert {i for i in range(64) if effective >> i & 1} == {net_admin, net_raw}
    assert set(probes.node_rules(bed.node, save)) == EXPECTED_RULES
    assert probes.node_rules(bed.node, other) == ()
    container = node.container_id(pod, "keeper")
    with node.task_exits() as exits:
        node.delete_daemon_sets()
    assert exits[container] == 0
    assert probes.node_rules(bed.node, save) == ()


@pytest.mark.parametrize(
    ("backend", "capabilities", "error"),
    [
        ("nft", ("NET_RAW",), "Could not fetch rule set generation id: Permission denied"),
        ("legacy", ("NET_ADMIN",), "unable to initialize table 'raw'"),
    ],
    ids=["nft-without-net-admin", "legacy-without-net-raw"],
)
def test_the_keeper_fails_loudly_without_each_capability(
    node: RealNodeBed, backend: str, capabilities: tuple[str, ...], error: str
) -> None:
    changes = [_keeper_capabilities(*capabilities), *([_legacy] if backend == "legacy" else [])]
    node.deploy(LEAST_PRIVILEGE, change=_both(*changes))

    pod, ended = node.wait_crash("keeper")
    log = node.container_log(pod["metadata"]["uid"], "keeper")

    assert ended["exitCode"] == 1
    assert error in log
    assert "cannot install the fallthrough rules" in log


def test_a_sigterm_to_the_keeper_alone_removes_its_rules_and_its_sleeper(node: RealNodeBed) -> None:
    """SIGTERM lands in ``wait`` on the re-assert sleep: the trap kills the sleeper and removes the rules."""
    bed = node.bed
    pod = deployed(node, FALLTHROUGH)
    keeper_pid = node.container_pid(pod, "keeper")
    sleepers: list[int] = []
    deadline = time.monotonic() + 5
    while not sleepers and time.monotonic() < deadline:
        children = subprocess.run(
            ["pgrep", "-P", str(keeper_pid), "-x", "sleep"], capture_output=True, text=True, check=False
        )
        sleepers = [int(pid) for pid in children.stdout.split()]
    assert len(sleepers) == 1
    keeper = node.container_id(pod, "keeper")
    back = _back(node, pod, ("keeper",))

    with node.kept_log(pod["metadata"]["uid"], "keeper") as keeper_log, node.task_exits() as exits:
        os.kill(keeper_pid, signal.SIGTERM)
        node.wait_for("kubelet to restart the keeper", back)
        logged = keeper_log()

    assert exits == {keeper: 0}  # node-cache untouched
    assert "fallthrough rules removed" in logged
    with pytest.raises(ProcessLookupError):
        os.kill(sleepers[0], 0)
    assert set(probes.node_rules(bed.node)) == EXPECTED_RULES  # the next run's
    assert restarts(node, "node-cache") == 0
    assert probes.dig(bed.pod, NAME).answers == ("fd00:ec2::1",)
