"""Portable output with deploy.py and verify: the spec's checks without substitution, and what makes expansion work.

The app is ``NodeLocalDNSProps(portable=True)``; the API server shows node-cache's args
unexpanded, so ``verify`` checks what kubelet's expansion needs (Service links on, kube-dns
older than every node-cache pod) rather than the address itself. The pods those checks read
are the DaemonSet controller's, made ready by kwok on the simulated fleet.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from kubernetes import client as k8s

from constructs_nld.deploy.cli import main
from tests.controlplane import ControlPlane
from tests.fleet import fleet_node
from tests.harness.clock import next_whole_second
from tests.integration import rest
from tests.simcluster import SimulatedCluster

PORTABLE_APP = """\
from constructs_nld import NodeLocalDNSProps
from constructs_nld.app import main

raise SystemExit(main(NodeLocalDNSProps(portable=True)))
"""

NO_SERVICE_LINKS_APP = """\
import os

import cdk8s
from constructs_nld import NodeLocalDNS, NodeLocalDNSProps, props_from_environment

app = cdk8s.App()
nld = NodeLocalDNS(app, "nodelocaldns", props_from_environment(os.environ, NodeLocalDNSProps(portable=True)))
objects = [c for c in nld.workload_chart.node.find_all() if isinstance(c, cdk8s.ApiObject)]
daemon_set = next(o for o in objects if o.kind == "DaemonSet")
daemon_set.add_json_patch(cdk8s.JsonPatch.add("/spec/template/spec/enableServiceLinks", False))
app.synth()
"""


def run(cluster: ControlPlane, app: Path, *args: str) -> int:
    return main(["--kubeconfig", str(cluster.kubeconfig_path), "--app", f"python {app}", *args])


def recreate_kube_dns(api: k8s.ApiClient) -> None:
    service = rest.get(api, rest.PATHS["kube-dns"])
    assert service is not None
    rest.delete(api, rest.PATHS["kube-dns"])
    for _ in range(100):
        if rest.get(api, rest.PATHS["kube-dns"]) is None:
            break
        time.sleep(0.05)
    next_whole_second()
    rest.create(
        api,
        "/api/v1/namespaces/kube-system/services",
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "kube-dns", "namespace": "kube-system", "labels": service["metadata"]["labels"]},
            "spec": {k: service["spec"][k] for k in ("selector", "ports", "ipFamilyPolicy", "ipFamilies")},
        },
    )


@pytest.fixture
def portable_app(tmp_path: Path) -> Path:
    app = tmp_path / "portable.py"
    app.write_text(PORTABLE_APP)
    return app


def test_deploy_checks_everything_and_substitutes_nothing(
    cluster: ControlPlane, api_client: k8s.ApiClient, portable_app: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(cluster, portable_app) == 0

    lines = capsys.readouterr().out.splitlines()
    kube_dns_ip = rest.get(api_client, rest.PATHS["kube-dns"])["spec"]["clusterIP"]  # type: ignore[index]
    assert lines[1] == f"[2/7] kube-dns ClusterIP: {kube_dns_ip} (IPv6)"
    assert lines[2].startswith("warning: the caches' worst case is "), lines[2]  # the spec's caches, over 100Mi
    assert lines[3] == (
        "[3/7] synthesized 7 objects in 3 chart(s) portable: kubelet gives node-cache the address as "
        "$(KUBE_DNS_SERVICE_HOST)"
    )
    assert lines[-2] == (
        "[7/7] rollout restart: not needed (the pods of daemonset/kube-system/node-local-dns start after "
        "service/kube-system/kube-dns-upstream and kube-dns)"
    )
    assert lines[-1] == "[history] recorded revision 1 (deploy, succeeded)"
    daemon_set = rest.get(api_client, rest.PATHS["daemon-set"])
    assert daemon_set is not None
    assert daemon_set["spec"]["template"]["spec"]["containers"][0]["args"][1] == "fd00::10,$(KUBE_DNS_SERVICE_HOST)"
    config_map = rest.get(api_client, rest.PATHS["config-map"])
    assert config_map is not None
    assert kube_dns_ip not in config_map["data"]["Corefile"]
    mark = cluster.audit_mark()
    assert run(cluster, portable_app) == 0
    assert cluster.mutating_requests_since(mark) == []


def run_on(sim: SimulatedCluster, app: Path, *args: str) -> int:
    return main(["--kubeconfig", str(sim.control_plane.kubeconfig_path), "--app", f"python {app}", *args])


def test_verify_passes_when_every_pod_is_younger_than_kube_dns(
    sim: SimulatedCluster, portable_app: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sim.add_nodes([fleet_node("cpu", 1), fleet_node("cpu", 2)])
    assert run_on(sim, portable_app, "--wait", "--progress", "plain") == 0
    capsys.readouterr()

    assert run_on(sim, portable_app, "verify") == 0

    out = capsys.readouterr().out
    kube_dns = sim.control_plane.fixture_api().get(rest.PATHS["kube-dns"])
    assert kube_dns is not None
    assert (
        f"PASS node-cache-intercepts-kube-dns: portable: kubelet gives 2 pod(s) {kube_dns['spec']['clusterIP']} "
        "as $(KUBE_DNS_SERVICE_HOST)"
    ) in out


def test_verify_fails_on_pods_that_predate_kube_dns(
    sim: SimulatedCluster, portable_app: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sim.add_nodes([fleet_node("cpu", 1)])
    assert run_on(sim, portable_app, "--wait", "--progress", "plain") == 0
    (pod,) = sim.pods("kube-system", {"k8s-app": "node-local-dns"})
    recreate_kube_dns(sim.control_plane.api_client())
    capsys.readouterr()

    assert run_on(sim, portable_app, "verify") == 7

    out = capsys.readouterr().out
    assert f"FAIL node-cache-intercepts-kube-dns: 1 pod(s) predate kube-dns: {pod['metadata']['name']}" in out
    assert "$(KUBE_DNS_SERVICE_HOST) stays literal" in out
    assert "fix:   kubectl rollout restart ds node-local-dns -n kube-system" in out


def test_verify_fails_when_service_links_are_turned_off_live(
    cluster: ControlPlane, api_client: k8s.ApiClient, portable_app: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(cluster, portable_app) == 0
    patch = {"spec": {"template": {"spec": {"enableServiceLinks": False}}}}
    status, _ = rest.request(api_client, "PATCH", rest.PATHS["daemon-set"], patch, "application/merge-patch+json")
    assert status == 200
    capsys.readouterr()

    assert run(cluster, portable_app, "verify") == 7

    assert "FAIL node-cache-intercepts-kube-dns: node-local-dns sets enableServiceLinks: false" in (
        capsys.readouterr().out
    )


def test_deploy_refuses_an_app_that_turns_service_links_off(
    cluster: ControlPlane, api_client: k8s.ApiClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    app = tmp_path / "no_links.py"
    app.write_text(NO_SERVICE_LINKS_APP)
    mark = cluster.audit_mark()

    assert run(cluster, app) == 2

    assert capsys.readouterr().err == (
        "error: the app's daemonset/kube-system/node-local-dns sets enableServiceLinks: false: kubelet would give "
        "node-cache no KUBE_DNS_UPSTREAM_SERVICE_HOST (nor KUBE_DNS_SERVICE_HOST), and it exits at start\n"
    )
    assert cluster.mutating_requests_since(mark) == []


def test_verify_fails_when_a_pinned_address_is_no_longer_kube_dns(
    cluster: ControlPlane, api_client: k8s.ApiClient, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--kubeconfig", str(cluster.kubeconfig_path)]) == 0  # the repo's pinned app
    old = rest.get(api_client, rest.PATHS["kube-dns"])["spec"]["clusterIP"]  # type: ignore[index]
    recreate_kube_dns(api_client)
    new = rest.get(api_client, rest.PATHS["kube-dns"])["spec"]["clusterIP"]  # type: ignore[index]
    assert new != old
    capsys.readouterr()

    assert main(["--kubeconfig", str(cluster.kubeconfig_path), "verify"]) == 7

    out = capsys.readouterr().out
    assert f"FAIL node-cache-intercepts-kube-dns: -localip is fd00::10,{old}, kube-dns's ClusterIP is {new}" in out
    assert "fix:   python deploy.py (it pins the live ClusterIP)" in out
