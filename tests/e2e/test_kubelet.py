"""What only a real kubelet proves: the synthesized DaemonSet's pod on containerd, as a cluster runs it.

One real node (:mod:`tests.e2e.realnode`) for the module: kubelet and containerd in the test
bed's node namespace, the real kube-proxy (iptables mode) beside them, the simulated
cluster's DaemonSet controller and scheduler giving the node its pod. Each test deploys
with ``deploy`` and the cluster is reset after it (the Node stays). The client is the test
bed's pod namespace, whose resolv.conf names the kube-dns ClusterIP.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from constructs_nld import LivenessProbe, NodeLocalDNSProps
from tests.e2e import probes
from tests.e2e.netns import NODE_LOCAL_DNS_IP, Namespace
from tests.e2e.nodecache import node_cache_binary_or_skip
from tests.e2e.realnode import RealNodeBed, environ, proc_status
from tests.harness.clock import next_whole_second

node_cache_binary_or_skip()  # without the binary, the module is one line of the summary


SECCOMP_FILTER = "2"
"""``Seccomp:`` in ``/proc/PID/status`` of a process under a seccomp filter (0: none)."""


def test_service_first_gives_node_cache_the_upstream_variable_and_it_answers(
    node: RealNodeBed, measured: Callable[[str], None]
) -> None:
    deployed = node.deploy(wait=True, stall_after=60)

    pod = node.node_cache_pod()
    upstream = node.rest.get("/api/v1/namespaces/kube-system/services/kube-dns-upstream")
    assert upstream is not None
    env = environ(node.container_pid(pod))
    assert env["KUBE_DNS_UPSTREAM_SERVICE_HOST"] == upstream["spec"]["clusterIP"]
    assert not deployed.report.restarted
    result = probes.dig(node.bed.pod, "kubernetes.default.svc.cluster.local", "AAAA")
    assert result.status == "NOERROR", result.output
    assert result.server.startswith(node.bed.ips.kube_dns), result.output
    memory = node.node.memory()
    assert memory["shim count"] == 1
    node_cache = int(proc_status(node.container_pid(pod))["VmRSS"].split()[0])
    measured(
        "real node's memory (RSS) with one node-cache pod: "
        + ", ".join(f"{name} {kib / 1024:.0f} MiB" for name, kib in memory.items() if name != "shim count")
        + f" (1 shim); node-cache itself {node_cache / 1024:.0f} MiB"
    )


def test_the_config_map_is_mounted_as_corefile_base_and_a_change_reaches_the_pod(node: RealNodeBed) -> None:
    node.deploy(wait=True, stall_after=60)
    pod = node.node_cache_pod()
    root = Path(f"/proc/{node.container_pid(pod)}/root")
    config_map = node.rest.get("/api/v1/namespaces/kube-system/configmaps/node-local-dns")
    assert config_map is not None

    assert (root / "etc/coredns/Corefile.base").read_text() == config_map["data"]["Corefile"]
    assert sorted(p.name for p in (root / "etc/coredns").iterdir() if not p.name.startswith("..")) == ["Corefile.base"]

    node.deploy(NodeLocalDNSProps(query_log=("denial",)))
    changed = node.wait_for(
        "kubelet to sync the changed ConfigMap into the pod",
        lambda: "class denial" in (root / "etc/coredns/Corefile.base").read_text(),
        120,
    )
    assert changed < 120
    assert node.node_cache_pod()["metadata"]["uid"] == pod["metadata"]["uid"]


def test_the_xtables_lock_is_the_hosts_file_created_if_missing(node: RealNodeBed) -> None:
    lock = Path("/run/xtables.lock")
    node.deploy(wait=True, stall_after=60)
    pod = node.node_cache_pod()

    inside = Path(f"/proc/{node.container_pid(pod)}/root/run/xtables.lock")
    assert lock.is_file() and inside.is_file()
    assert os.stat(lock).st_ino == os.stat(inside).st_ino


FAST_LIVENESS = LivenessProbe(initial_delay_seconds=0, period_seconds=1, timeout_seconds=1, failure_threshold=2)
"""The probe at test speed: a restart 2 s after the health endpoint stops answering."""


def liveness_results(node: RealNodeBed, pod: dict[str, Any], result: str) -> int:
    """How many liveness probes of ``pod``'s node-cache kubelet logged as ``result`` (``succeeded`` or ``failed``)."""
    marker = f'"Probe {result}" probeType="Liveness" pod="kube-system/{pod["metadata"]["name"]}"'
    return node.node.kubelet.log.count(marker)


def test_the_liveness_probe_on_the_local_ip_passes_and_restarts_node_cache_when_it_fails(node: RealNodeBed) -> None:
    """The probe on ``[fd00::10]:8080`` passes; without the address (the interface gone) kubelet restarts node-cache.

    On a node the restarted node-cache would make its interface again; here (``-setupinterface=false``)
    the test puts the address back, and the container comes back from its crash-loop back-off.
    """
    node.deploy(NodeLocalDNSProps(liveness=FAST_LIVENESS), wait=True, stall_after=60)
    pod = node.node_cache_pod()
    probe = pod["spec"]["containers"][0]["livenessProbe"]
    assert probe["httpGet"] == {"host": NODE_LOCAL_DNS_IP, "path": "/health", "port": 8080, "scheme": "HTTP"}
    node.wait_for("five passing liveness probes", lambda: liveness_results(node, pod, "succeeded") >= 5, 30)
    assert liveness_results(node, pod, "failed") == 0

    node.bed.node.ip("addr", "del", f"{NODE_LOCAL_DNS_IP}/128", "dev", "lo")
    try:
        node.wait_for(
            "kubelet to restart node-cache after failed probes",
            lambda: "failed liveness probe, will be restarted" in node.node.kubelet.log,
            30,
        )
    finally:
        node.bed.node.ip("addr", "add", f"{NODE_LOCAL_DNS_IP}/128", "dev", "lo")
    assert liveness_results(node, pod, "failed") >= FAST_LIVENESS.failure_threshold

    def restarted_and_ready() -> bool:
        back = node.node_cache_pod(timeout=90)
        (status,) = back["status"]["containerStatuses"]
        return bool(
            back["metadata"]["uid"] == pod["metadata"]["uid"] and status["restartCount"] >= 1 and status["ready"]
        )

    node.wait_for("node-cache restarted in the same pod and Ready again", restarted_and_ready, 90)
    result = probes.dig(node.bed.pod, "kubernetes.default.svc.cluster.local", "AAAA")
    assert result.status == "NOERROR", result.output


def test_least_privilege_and_fallthrough_run_under_the_runtimes_capabilities(node: RealNodeBed) -> None:
    node.deploy(NodeLocalDNSProps(interception="fallthrough", privileged=False), wait=True, stall_after=60)
    pod = node.node_cache_pod()

    statuses = {s["name"]: s for s in pod["status"]["containerStatuses"]}
    assert set(statuses) == {"node-cache", "keeper"}
    assert all(s["ready"] and s["restartCount"] == 0 for s in statuses.values())
    result = probes.dig(node.bed.pod, "kubernetes.default.svc.cluster.local", "AAAA")
    assert result.status == "NOERROR", result.output
    net_admin, net_bind_service, net_raw = 12, 10, 13
    wanted = {"node-cache": {net_admin, net_bind_service}, "keeper": {net_admin, net_raw}}
    for container, capabilities in wanted.items():
        status = proc_status(node.container_pid(pod, container))
        effective = int(status["CapEff"], 16)
        assert {i for i in range(64) if effective >> i & 1} == capabilities, (container, status["CapEff"])
        assert status["NoNewPrivs"] == "1", container
        assert status["Seccomp"] == SECCOMP_FILTER, f"{container} runs without RuntimeDefault's filter"


def test_privileged_containers_run_unconfined_by_seccomp(node: RealNodeBed) -> None:
    """The spec's privileged pod names no seccomp profile, and containerd applies none to a privileged container."""
    node.deploy(wait=True, stall_after=60)
    pod = node.node_cache_pod()

    assert "seccompProfile" not in pod["spec"]["containers"][0]["securityContext"]
    assert proc_status(node.container_pid(pod))["Seccomp"] == "0"


def test_the_daemon_set_first_crash_loops_node_cache_without_its_upstream_and_deploy_restarts_it(
    node: RealNodeBed,
) -> None:
    """The spec's failure mode: the DaemonSet's pod starts before kube-dns-upstream exists.

    kubelet injects no ``KUBE_DNS_UPSTREAM_SERVICE_HOST``, node-cache renders ``forward .
    <nil>``, CoreDNS refuses it and the container exits 1 over and over; deploy's next run
    recreates the Service and restarts the pods, which then carry the variable.
    """
    deployed = node.deploy(wait=True, stall_after=60)
    node.rest.request("DELETE", "/api/v1/namespaces/kube-system/services/kube-dns-upstream")
    old = node.node_cache_pod()
    node.rest.request("DELETE", f"/api/v1/namespaces/kube-system/pods/{old['metadata']['name']}")
    crashed: list[tuple[str, dict[str, Any]]] = []

    def crash_looping() -> bool:
        crashed[:] = [
            (p["metadata"]["uid"], s)
            for p in node.pods()
            if p["metadata"]["uid"] != old["metadata"]["uid"]
            for s in p["status"].get("containerStatuses") or []
            # Between two crashes, not in a run's first moment: without a readiness probe a
            # running container is ready until it exits.
            if s["restartCount"] >= 1 and "terminated" in s.get("lastState", {}) and "running" not in s["state"]
        ]
        return bool(crashed)

    node.wait_for("the new pod's node-cache to crash", crash_looping, 90)
    ((uid, status),) = crashed
    assert not status["ready"]
    assert status["lastState"]["terminated"]["exitCode"] == 1
    env = node.container_env(uid)
    assert "KUBE_DNS_UPSTREAM_SERVICE_HOST" not in env and "KUBE_DNS_SERVICE_HOST" in env
    log = node.container_log(uid)
    assert (
        "[WARNING] Unable to lookup IP address of Upstream service kube-dns-upstream, "
        "env $KUBE_DNS_UPSTREAM_SERVICE_HOST ``"
    ) in log
    assert "forward . <nil> {" in log
    assert 'plugin/forward: not an IP address or file: "<nil>"' in log
    assert probes.node_cache_rules(node.bed.node) == ()
    # No rules, so the pod still resolves through kube-proxy and cluster CoreDNS.
    assert probes.dig(node.bed.pod, "kubernetes.default.svc.cluster.local").answers == ("fd00:ec2::1",)
    next_whole_second()

    redeployed = node.deploy(wait=True, stall_after=90)

    assert not deployed.report.restarted and redeployed.report.restarted
    pod = node.node_cache_pod()
    upstream = node.rest.get("/api/v1/namespaces/kube-system/services/kube-dns-upstream")
    assert upstream is not None
    assert environ(node.container_pid(pod))["KUBE_DNS_UPSTREAM_SERVICE_HOST"] == upstream["spec"]["clusterIP"]
    result = probes.dig(node.bed.pod, "kubernetes.default.svc.cluster.local", "AAAA")
    assert result.status == "NOERROR", result.output


def test_a_rolling_restart_stops_node_cache_within_its_grace_period_and_the_new_pod_writes_its_rules(
    node: RealNodeBed,
) -> None:
    """kubelet kills the old container with the template's grace period; node-cache exits 0 well within it."""
    props = replace(NodeLocalDNSProps(), termination_grace_period_seconds=20)
    node.deploy(props, wait=True, stall_after=60)
    old = node.node_cache_pod()
    old_id = node.container_id(old)
    node.wait_for("node-cache's 24 rules", lambda: len(probes.node_cache_rules(node.bed.node)) == 24, 30)
    started = time.monotonic()

    with node.task_exits() as exits:
        node.roll()
        node.wait_for(
            "the old pod to be gone", lambda: old["metadata"]["uid"] not in {p["metadata"]["uid"] for p in node.pods()}
        )
        stopped = time.monotonic() - started
    code = exits.get(old_id)

    killing = re.search(
        rf'"Killing container with a grace period".*containerID="containerd://{old_id}".*', node.node.kubelet.log
    )
    assert killing is not None and "gracePeriod=20" in killing.group(0), killing
    assert code == 0
    assert stopped < 20
    node.wait_for("the new pod's rules", lambda: len(probes.node_cache_rules(node.bed.node)) == 24, 30)
    new = node.node_cache_pod()
    assert new["metadata"]["uid"] != old["metadata"]["uid"]


def links(namespace: Namespace) -> dict[str, tuple[int, int | None]]:
    """``namespace``'s links: name -> (ifindex, the veth peer's ifindex or None)."""
    found: dict[str, tuple[int, int | None]] = {}
    for match in re.finditer(r"^(\d+): ([^:@]+)(?:@if(\d+))?:", namespace.run("ip", "-o", "link"), re.M):
        found[match.group(2)] = (int(match.group(1)), int(match.group(3)) if match.group(3) else None)
    return found


def test_nothing_on_the_node_can_reach_beyond_the_test_namespaces(node: RealNodeBed) -> None:
    """containerd, kubelet and kube-proxy run in the node namespace, whose links all lead to the test's namespaces."""
    node_ns = os.stat(f"/run/netns/{node.bed.node.name}").st_ino
    for process in (node.node.containerd, node.node.kubelet, node.proxy):
        assert process.process is not None
        assert os.stat(f"/proc/{process.process.pid}/ns/net").st_ino == node_ns, process.name

    on_node, on_cluster, on_pod = links(node.bed.node), links(node.bed.cluster_dns), links(node.bed.pod)

    assert set(on_node) == {"lo", "eth0", "pod0"}
    assert set(on_cluster) == set(on_pod) == {"lo", "eth0"}
    # Each veth of the node pairs with the eth0 of a test namespace, and the other ends pair back.
    assert on_node["eth0"][1] == on_cluster["eth0"][0] and on_cluster["eth0"][1] == on_node["eth0"][0]
    assert on_node["pod0"][1] == on_pod["eth0"][0] and on_pod["eth0"][1] == on_node["pod0"][0]
    assert node.bed.node.run("ip", "-4", "route") == ""
