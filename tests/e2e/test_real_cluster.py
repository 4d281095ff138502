"""A cluster of real and simulated nodes: two real nodes (kubelet, containerd, kube-proxy each) beside kwok's.

The module's cluster (:func:`tests.e2e.realnode.real_nodes`) has two real nodes, each in its
own network namespaces with its own cluster CoreDNS and pod, and three simulated CPU nodes of
the EKS fleet (kwok). One DaemonSet controller and one scheduler serve them all, as in a
cluster: ``deploy --wait`` waits for the five pods, ``verify`` checks the live cluster, each
real node's pod answers its own node's lookups, and a rolling update goes node by node
(``maxUnavailable: 1%``) while each real node keeps resolving. A Helm release in the
deliveryhero chart's shapes (:mod:`tests.helmchart`), installed with the real helm, is taken
over in place by ``deploy --adopt-helm-release`` and then uninstalled, with every lookup of
each real node counted throughout.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e import probes
from tests.e2e.netns import KUBE_DNS_ENDPOINT, require_root
from tests.e2e.nodecache import node_cache_binary_or_skip
from tests.e2e.realnode import RealNodeBed, real_nodes
from tests.e2e.serviceapi import endpoint_slice
from tests.fleet import fleet_node
from tests.harness.images import ImageArchive
from tests.harness.resolver import ResolverLoad
from tests.helmchart import CHART_SELECTOR, RELEASE, UPSTREAM, Helm, helm_release, write_chart

node_cache_binary_or_skip()  # without the binary, the module is one line of the summary
SIMULATED = tuple(fleet_node("cpu", number, number) for number in range(3))
NAME = "kubernetes.default.svc.cluster.local"
DAEMON_SET = "/apis/apps/v1/namespaces/kube-system/daemonsets/node-local-dns"
SLICES = "/apis/discovery.k8s.io/v1/namespaces/kube-system/endpointslices"
SERVICES = "/api/v1/namespaces/kube-system/services"
CONFIG_MAPS = "/api/v1/namespaces/kube-system/configmaps"
LOST_AT_MOST = 5
"""Lookups a node may lose as its node-cache is replaced (measured on a quiet machine: none)."""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory, images: list[ImageArchive]) -> Iterator[tuple[RealNodeBed, ...]]:
    """Two real nodes and three simulated ones in one cluster, for the module."""
    require_root()
    with real_nodes(tmp_path_factory.mktemp("cluster"), images, 2) as beds:
        beds[0].sim.add_nodes(SIMULATED)
        yield beds


@pytest.fixture
def nodes(cluster: tuple[RealNodeBed, ...]) -> Iterator[tuple[RealNodeBed, ...]]:
    """The cluster for one scenario; after it the cluster is reset and every real node's pods are gone."""
    yield cluster
    first, *others = cluster
    first.reset()
    for bed in others:
        bed.settle()


def daemon_set_status(bed: RealNodeBed) -> dict[str, Any]:
    """The DaemonSet's status, as its controller wrote it."""
    live = bed.rest.get(DAEMON_SET)
    assert live is not None, "the DaemonSet is missing"
    return dict(live.get("status") or {})


def test_deploy_waits_for_real_and_simulated_nodes_alike_and_verify_passes(nodes: tuple[RealNodeBed, ...]) -> None:
    first = nodes[0]

    deployed = first.deploy(wait=True, stall_after=90)

    assert not deployed.report.restarted, deployed.output
    status = daemon_set_status(first)
    assert status["desiredNumberScheduled"] == status["numberReady"] == len(nodes) + len(SIMULATED)
    for bed in nodes:
        bed.wait_intercepting()
    results = {result.name: result for result in first.verify()}
    assert {name for name, result in results.items() if result.status == "fail"} == set(), results


def test_each_real_nodes_pod_answers_its_own_nodes_lookups(nodes: tuple[RealNodeBed, ...]) -> None:
    first, second = nodes
    first.deploy(wait=True, stall_after=90)
    for bed in nodes:
        bed.wait_intercepting()
    assert first.node_cache_pod()["spec"]["nodeName"] == first.name
    assert second.node_cache_pod()["spec"]["nodeName"] == second.name

    for asked, other in ((first, second), (second, first)):
        asked_before, other_before = asked.node_cache_requests(), other.node_cache_requests()
        result = probes.dig(asked.bed.pod, NAME, "AAAA")
        assert result.answers == ("fd00:ec2::1",), result.output
        assert asked.node_cache_requests() == asked_before + 1
        assert other.node_cache_requests() == other_before


def test_a_rolling_update_goes_node_by_node_and_the_real_nodes_keep_resolving(
    nodes: tuple[RealNodeBed, ...], measured: Callable[[str], None]
) -> None:
    first = nodes[0]
    first.deploy(wait=True, stall_after=90)
    for bed in nodes:
        bed.wait_intercepting()
    before = {bed.name: bed.node_cache_pod()["metadata"]["uid"] for bed in nodes}
    generation = first.rest.get(DAEMON_SET)
    assert generation is not None
    loads = [ResolverLoad(bed.bed.pod, bed.bed.ips.kube_dns, (NAME,), rate=100, count=3000) for bed in nodes]
    for load in loads:
        load.wait_answered(100)

    first.roll()

    def rolled() -> bool:
        status = daemon_set_status(first)
        total = len(nodes) + len(SIMULATED)
        return bool(
            status.get("observedGeneration", 0) > generation["metadata"]["generation"]
            and status.get("updatedNumberScheduled") == total
            and status.get("numberAvailable") == total
        )

    first.wait_for("the rolling update to reach every node", rolled, 120)
    for bed in nodes:
        bed.wait_intercepting()
        assert bed.node_cache_pod()["metadata"]["uid"] != before[bed.name]
    results = [load.result() for load in loads]

    for bed, result in zip(nodes, results, strict=True):
        # At most what a SIGTERM loses (test_kube_proxy.py): a lookup in node-cache's socket as it closes.
        assert len(result.failed) <= LOST_AT_MOST, (bed.name, result.failed)
    measured(
        "rolling update over 2 real and 3 simulated nodes (maxUnavailable 1%): "
        + ", ".join(
            f"{bed.name} {len(r.failed)} of {len(r.lookups)} lookups lost"
            for bed, r in zip(nodes, results, strict=True)
        )
    )


def test_a_helm_release_is_taken_over_in_place_and_uninstalled_with_no_lookup_lost(
    nodes: tuple[RealNodeBed, ...], tmp_path: Path, measured: Callable[[str], None]
) -> None:
    first = nodes[0]
    slice_path = f"{SLICES}/{UPSTREAM}-test-bed"
    first.rest.request("POST", SLICES, body=endpoint_slice(UPSTREAM, KUBE_DNS_ENDPOINT), ok=(201, 409))
    # What kube-controller-manager's root CA publisher gives every namespace of a cluster: the chart's pods
    # mount a ServiceAccount token (ours do not), and kubelet projects this ConfigMap with it.
    root_ca = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "kube-root-ca.crt", "namespace": "kube-system"},
        "data": {"ca.crt": first.sim.control_plane.ca_path.read_text()},
    }
    first.rest.request("POST", CONFIG_MAPS, body=root_ca, ok=(201, 409))
    helm = Helm(first.sim.control_plane.kubeconfig_path, tmp_path / "helm")
    values = (f"config.dnsServer={first.ips.kube_dns}", "config.setupInterface=false")  # the bed's one change
    try:
        with helm_release(helm, first.rest, write_chart(tmp_path / "chart"), *values):
            for bed in nodes:
                # Without -pidfile (the chart passes none) node-cache writes its rules after -syncinterval, 1m.
                bed.wait_intercepting(selector=CHART_SELECTOR, upstream_service=UPSTREAM, timeout=120)
            chart_pods = {bed.name: bed.node_cache_pod(selector=CHART_SELECTOR)["metadata"]["uid"] for bed in nodes}
            loads = [
                ResolverLoad(bed.bed.pod, bed.bed.ips.kube_dns, (NAME,), rate=100, count=100 * 900) for bed in nodes
            ]
            for load in loads:
                load.wait_answered(100)
            started = time.monotonic()

            deployed = first.deploy(wait=True, stall_after=90, adopt_helm_release=RELEASE)

            handover = time.monotonic() - started
            assert "no restart" in deployed.output, deployed.output
            for bed in nodes:
                bed.wait_intercepting()
                assert bed.node_cache_pod()["metadata"]["uid"] != chart_pods[bed.name]
            uninstalled = helm.run("uninstall", RELEASE)
            assert "These resources were kept due to the resource policy" in uninstalled, uninstalled
            first.wait_for("the chart's Services to be gone", lambda: first.rest.get(f"{SERVICES}/{UPSTREAM}") is None)
            for load in loads:
                load.wait_answered(load.answered() + 500)  # node-cache answers on after the uninstall
            results = [load.finish() for load in loads]
    finally:
        first.rest.request("DELETE", slice_path, ok=(200, 202, 404))
        first.rest.request("DELETE", f"{CONFIG_MAPS}/kube-root-ca.crt", ok=(200, 202, 404))

    for bed, result in zip(nodes, results, strict=True):
        # At most what a SIGTERM loses (test_kube_proxy.py): a lookup in node-cache's socket as it closes.
        assert len(result.failed) <= LOST_AT_MOST, (bed.name, result.failed)
    verified = {result.name: result for result in first.verify()}
    assert {name for name, result in verified.items() if result.status == "fail"} == set(), verified
    measured(
        f"Helm release handed over on 2 real and 3 simulated nodes in {handover:.0f}s, then uninstalled: "
        + ", ".join(
            f"{bed.name} {len(r.failed)} of {len(r.lookups)} lookups lost"
            for bed, r in zip(nodes, results, strict=True)
        )
    )
