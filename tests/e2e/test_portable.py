"""Portable output on node-cache 1.26.8: the args kubelet's own code expands, the Corefile node-cache fills.

``NodeLocalDNSProps(portable=True)`` gives node-cache ``-localip fd00::10,$(KUBE_DNS_SERVICE_HOST)``
and a Corefile that binds ``__PILLAR__LOCAL__DNS__``. Here kubelet's code (``tools/kubelet-env``,
Kubernetes v1.34's ``envvars.FromServices`` and ``ExpandContainerCommandAndArgs``) turns the
test bed's Services into the container's variables and expands the args; the real node-cache
then intercepts, serves health and metrics as with the pinned address. Without the variable —
Service links off, or kube-dns created after the pod — the literal stays, and node-cache exits
before it writes a rule.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from constructs_nld import NodeLocalDNSProps, is_deployable, synthesize
from tests.e2e import probes
from tests.e2e.netns import Testbed, require_root
from tests.e2e.nodecache import NODE_CACHE_MISSING, NodeCache, find_node_cache_binary

PORTABLE = NodeLocalDNSProps(portable=True)
LOCAL_IP = "fd00::10"
CLUSTER_IP = "fd00:ec2::a"
NODE_METRICS = "http://[fd01::1]:9253/metrics"


def _binary() -> Path:
    binary = find_node_cache_binary()
    if binary is None:
        pytest.skip(NODE_CACHE_MISSING, allow_module_level=True)
    return binary


NODE_CACHE_BINARY = _binary()


@pytest.fixture
def bed(tmp_path: Path) -> Iterator[Testbed]:
    require_root()
    with Testbed(workdir=tmp_path) as testbed:
        yield testbed


def test_the_synth_holds_no_cluster_value_and_is_deployable_as_it_is() -> None:
    objects = [obj for chart in synthesize(PORTABLE) for obj in chart.objects]

    assert is_deployable(objects)
    (daemon_set,) = [o for o in objects if o["kind"] == "DaemonSet"]
    assert daemon_set["spec"]["template"]["spec"]["containers"][0]["args"][:2] == [
        "-localip",
        "fd00::10,$(KUBE_DNS_SERVICE_HOST)",
    ]
    (config_map,) = [o for o in objects if o["kind"] == "ConfigMap"]
    assert config_map["data"]["Corefile"].count("    bind __PILLAR__LOCAL__DNS__\n") == 4


def test_kubelets_expansion_gives_node_cache_the_live_address_and_it_intercepts(bed: Testbed) -> None:
    node_cache = NodeCache(bed, PORTABLE, binary=NODE_CACHE_BINARY)
    assert node_cache.invocation.local_ips == (LOCAL_IP, bed.ips.kube_dns)
    assert node_cache.invocation.env["KUBE_DNS_SERVICE_HOST"] == bed.ips.kube_dns
    assert node_cache.invocation.env["KUBE_DNS_UPSTREAM_SERVICE_HOST"] == bed.ips.kube_dns_upstream

    node_cache.start()
    node_cache.wait_ready()

    # node-cache filled __PILLAR__LOCAL__DNS__ with both -localip values.
    rendered = node_cache.rendered_corefile_path.read_text()
    assert rendered.count(f"    bind {LOCAL_IP} {CLUSTER_IP}\n") == 4
    answer = probes.dig(bed.pod, "kubernetes.default.svc.cluster.local", "AAAA")
    assert answer.answers == ("fd00:ec2::1",), answer.output
    served = probes.scrape(bed.node, NODE_METRICS).total(
        "coredns_dns_requests_total", server=f"dns://[{CLUSTER_IP}]:53", zone="cluster.local."
    )
    assert served >= 1
    assert probes.http_get(bed.node, node_cache.invocation.liveness_url) == (200, "OK")
    assert len(probes.node_cache_rules(bed.node)) == 24
    assert node_cache.stop() == 0, node_cache.log
    assert probes.node_cache_rules(bed.node) == ()


@pytest.mark.parametrize("cause", ["service links off", "kube-dns created after the pod"])
def test_without_kube_dns_service_host_node_cache_exits_and_the_node_falls_through(bed: Testbed, cause: str) -> None:
    if cause == "service links off":
        node_cache = NodeCache(bed, PORTABLE, binary=NODE_CACHE_BINARY, enable_service_links=False)
        assert "KUBE_DNS_UPSTREAM_SERVICE_HOST" not in node_cache.invocation.env
    else:
        node_cache = NodeCache(bed, PORTABLE, binary=NODE_CACHE_BINARY, missing_services=("kube-dns",))
        assert node_cache.invocation.env["KUBE_DNS_UPSTREAM_SERVICE_HOST"] == bed.ips.kube_dns_upstream
    # kubelet leaves a reference to a variable the container does not have as it is.
    assert node_cache.invocation.local_ips == (LOCAL_IP, "$(KUBE_DNS_SERVICE_HOST)")
    node_cache.start()

    assert node_cache.wait_exit() == 1
    assert (
        '[FATAL] Error parsing flags - invalid localip specified - "$(KUBE_DNS_SERVICE_HOST)", Exiting'
    ) in node_cache.log
    assert probes.node_cache_rules(bed.node) == ()
    # No rule was written: the pod still resolves through kube-proxy and cluster CoreDNS.
    assert probes.dig(bed.pod, "kubernetes.default.svc.cluster.local").answers == ("fd00:ec2::1",)
