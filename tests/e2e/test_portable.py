"""Portable output on node-cache 1.26.8 under a real kubelet: the args it expands, the Corefile node-cache fills.

``NodeLocalDNSProps(portable=True)`` gives node-cache ``-localip fd00::10,$(KUBE_DNS_SERVICE_HOST)``
and a Corefile that binds ``__PILLAR__LOCAL__DNS__``. Here the deploy of those props runs on
a real node (:mod:`tests.e2e.realnode`): kubelet v1.34.4 turns the cluster's Services into
the container's variables and expands the args, containerd runs them, and node-cache
intercepts, serves health and metrics as with the pinned address. Without the variable
(Service links off, or kube-dns created after the pod) the literal stays, and node-cache
exits before it writes a rule. kubelet computes a container's variables at each start, so
once kube-dns exists the next restart of its crash loop heals the pod by itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from constructs_nld import NodeLocalDNSProps, is_deployable, synthesize
from constructs_nld.deploy.errors import InvalidConfigError
from tests.e2e import probes
from tests.e2e.nodecache import node_cache_binary_or_skip
from tests.e2e.realnode import RealNodeBed, environ, kubectl_objects
from tests.e2e.serviceapi import service_at

node_cache_binary_or_skip()  # without the binary, the module is one line of the summary
PORTABLE = NodeLocalDNSProps(portable=True)
LOCAL_IP = "fd00::10"
CLUSTER_IP = "fd00:ec2::a"
NODE_METRICS = "http://[fd01::1]:9253/metrics"
UNEXPANDED = "fd00::10,$(KUBE_DNS_SERVICE_HOST)"
NAME = "kubernetes.default.svc.cluster.local"
KUBE_DNS = "/api/v1/namespaces/kube-system/services/kube-dns"


def test_the_synth_holds_no_cluster_value_and_is_deployable_as_it_is() -> None:
    objects = [obj for chart in synthesize(PORTABLE) for obj in chart.objects]

    assert is_deployable(objects)
    (daemon_set,) = [o for o in objects if o["kind"] == "DaemonSet"]
    assert daemon_set["spec"]["template"]["spec"]["containers"][0]["args"][:2] == ["-localip", UNEXPANDED]
    (config_map,) = [o for o in objects if o["kind"] == "ConfigMap"]
    assert config_map["data"]["Corefile"].count("    bind __PILLAR__LOCAL__DNS__\n") == 4


def _local_ips(args: list[str]) -> str:
    return args[args.index("-localip") + 1]


def test_kubelets_expansion_gives_node_cache_the_live_address_and_it_intercepts(node: RealNodeBed) -> None:
    node.deploy(PORTABLE, wait=True, stall_after=60)
    node.wait_intercepting()
    pod = node.node_cache_pod()
    # The API holds the reference; kubelet expanded it for the process.
    assert _local_ips(pod["spec"]["containers"][0]["args"]) == UNEXPANDED
    pid = node.container_pid(pod)
    argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
    assert _local_ips(argv) == f"{LOCAL_IP},{CLUSTER_IP}"
    upstream = node.rest.get("/api/v1/namespaces/kube-system/services/kube-dns-upstream")
    assert upstream is not None
    env = environ(pid)
    assert env["KUBE_DNS_SERVICE_HOST"] == CLUSTER_IP
    assert env["KUBE_DNS_UPSTREAM_SERVICE_HOST"] == upstream["spec"]["clusterIP"]

    # node-cache filled __PILLAR__LOCAL__DNS__ with both -localip values.
    rendered = Path(f"/proc/{pid}/root/etc/Corefile").read_text()
    assert rendered.count(f"    bind {LOCAL_IP} {CLUSTER_IP}\n") == 4
    answer = probes.dig(node.bed.pod, NAME, "AAAA")
    assert answer.answers == ("fd00:ec2::1",), answer.output
    served = probes.scrape(node.bed.node, NODE_METRICS).total(
        "coredns_dns_requests_total", server=f"dns://[{CLUSTER_IP}]:53", zone="cluster.local."
    )
    assert served >= 1
    assert probes.http_get(node.bed.node, "http://[fd00::10]:8080/health") == (200, "OK")
    assert len(probes.node_cache_rules(node.bed.node)) == 24

    node.delete_daemon_sets()
    assert probes.node_cache_rules(node.bed.node) == ()


def _service_links_off(spec: dict[str, Any]) -> None:
    """The pod with ``enableServiceLinks: false`` (a cause of the failure, not the synth's)."""
    spec["enableServiceLinks"] = False


def _assert_exited_on_the_literal(node: RealNodeBed, pod_uid: str, ended: dict[str, Any]) -> dict[str, str]:
    """node-cache exited 1 on the unexpanded ``-localip`` and wrote no rule; its variables."""
    process = node.container_process(pod_uid)
    # kubelet leaves a reference to a variable the container does not have as it is.
    assert _local_ips(process["args"]) == UNEXPANDED
    assert ended["exitCode"] == 1
    assert (
        '[FATAL] Error parsing flags - invalid localip specified - "$(KUBE_DNS_SERVICE_HOST)", Exiting'
    ) in node.container_log(pod_uid)
    assert probes.node_cache_rules(node.bed.node) == ()
    return dict(pair.split("=", 1) for pair in process["env"])


def test_with_service_links_off_node_cache_exits_and_the_node_falls_through(node: RealNodeBed) -> None:
    """``deploy`` refuses such an app and applies nothing; applied by hand, node-cache exits at start."""
    with pytest.raises(InvalidConfigError, match="sets enableServiceLinks: false"):
        node.deploy(PORTABLE, change=_service_links_off)
    assert node.rest.items("/apis/apps/v1/namespaces/kube-system/daemonsets") == []
    node.apply(kubectl_objects(PORTABLE), change=_service_links_off)

    pod, ended = node.wait_crash()

    env = _assert_exited_on_the_literal(node, pod["metadata"]["uid"], ended)
    assert "KUBE_DNS_SERVICE_HOST" not in env and "KUBE_DNS_UPSTREAM_SERVICE_HOST" not in env
    # No rule was written: the pod still resolves through kube-proxy and cluster CoreDNS.
    assert probes.dig(node.bed.pod, NAME).answers == ("fd00:ec2::1",)


def test_a_pod_started_before_kube_dns_exits_and_its_next_restart_after_kube_dns_heals_it(
    node: RealNodeBed,
) -> None:
    node.deploy(PORTABLE, wait=True, stall_after=60)
    old = node.node_cache_pod()
    kube_dns = node.rest.get(KUBE_DNS)
    assert kube_dns is not None
    node.rest.request("DELETE", KUBE_DNS)
    node.rest.request("DELETE", f"/api/v1/namespaces/kube-system/pods/{old['metadata']['name']}")

    pod, ended = node.wait_crash()

    env = _assert_exited_on_the_literal(node, pod["metadata"]["uid"], ended)
    assert "KUBE_DNS_SERVICE_HOST" not in env
    upstream = node.rest.get("/api/v1/namespaces/kube-system/services/kube-dns-upstream")
    assert upstream is not None
    assert env["KUBE_DNS_UPSTREAM_SERVICE_HOST"] == upstream["spec"]["clusterIP"]

    node.rest.request("POST", "/api/v1/namespaces/kube-system/services", body=service_at(kube_dns, CLUSTER_IP))
    node.wait_for("kube-proxy to program kube-dns again", lambda: node.proxy.programs(CLUSTER_IP))
    # No rule was written: once kube-dns is back the pod resolves through kube-proxy and cluster CoreDNS.
    assert probes.dig(node.bed.pod, NAME).answers == ("fd00:ec2::1",)

    # kubelet computes the variables at each start of the container: the crash loop's next start has it.
    node.wait_intercepting()
    healed = node.node_cache_pod()
    assert healed["metadata"]["uid"] == pod["metadata"]["uid"]
    assert environ(node.container_pid(healed))["KUBE_DNS_SERVICE_HOST"] == CLUSTER_IP
    assert len(probes.node_cache_rules(node.bed.node)) == 24
