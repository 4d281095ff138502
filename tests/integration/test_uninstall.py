"""``deploy.py uninstall``: the DaemonSet and its pods first, the rest once they are gone; refusals write nothing.

Removal needs the garbage collector (the DaemonSet's pods) and kubelets (pods that stop):
those tests run on the simulated cluster, where kwok takes a second to stop each
node-cache pod, as node-cache's SIGTERM cleanup does. Refusals and no-ops run on the
plain control plane.
"""

from __future__ import annotations

from typing import Any

import pytest

from constructs_nld import NodeLocalDNSProps
from constructs_nld.deploy import DeployOptions, deploy, load_client, open_session, props_source
from constructs_nld.deploy.cli import main
from tests.controlplane import ADMIN_USER, ControlPlane
from tests.fleet import eks_fleet
from tests.integration import rest
from tests.simcluster import KWOK_USER, PodFate, SimulatedCluster

POD_LABELS = {"k8s-app": "node-local-dns"}
REVERSE_ORDER = [
    "prometheusrules/nodelocaldns-alerts",
    "podmonitors/nodelocaldns",
    "configmaps/node-local-dns",
    "serviceaccounts/node-local-dns",
    "services/node-local-dns-metrics",
    "services/kube-dns-upstream",
]
PARENT = "configmaps/node-local-dns-applyset"
"""The deploy's ApplySet parent: deleted last, once nothing belongs to it."""


def run(control_plane: ControlPlane, *args: str) -> int:
    return main(["--kubeconfig", str(control_plane.kubeconfig_path), "--timeout", "10", *args])


def deploy_and_wait(sim: SimulatedCluster, *, skip_monitoring: bool = False) -> None:
    client = load_client(str(sim.control_plane.kubeconfig_path), None, timeout=10)
    options = DeployOptions(wait=True, stall_after=30.0, rollout_poll_interval=0.1, skip_monitoring=skip_monitoring)
    deploy(open_session(client, props_source(NodeLocalDNSProps()), read="deployable", out=lambda line: None), options)


def deletes(events: list[dict[str, Any]]) -> list[str]:
    return [
        f"{e['objectRef'].get('resource')}/{e['objectRef'].get('name')}"
        for e in events
        if e.get("verb") == "delete" and e.get("user", {}).get("username") == ADMIN_USER
    ]


def test_uninstall_removes_the_daemon_set_first_and_the_rest_only_once_its_pods_are_gone(
    sim: SimulatedCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    sim.add_nodes(eks_fleet(8))
    deploy_and_wait(sim)
    sim.set_pod_fates(PodFate(labels=POD_LABELS, stop_seconds=1.0))
    cluster = sim.control_plane
    mark = cluster.audit_mark()
    capsys.readouterr()

    assert run(cluster, "uninstall") == 0

    out = capsys.readouterr().out.splitlines()
    assert out[0] == "[1/3] 7 of the app's 7 NodeLocal DNS object(s) installed"
    assert out[1].startswith(
        "[2/3] daemonset/kube-system/node-local-dns deleted; waiting for 6 node-cache pod(s) to stop"
    )
    assert out[-4].startswith("[2/3] every node-cache pod is gone (")
    assert out[-1] == "[history] recorded revision 1 (uninstall, succeeded)"  # deployed in-process: not recorded
    assert out[-3] == (
        "[3/3] deleted: prometheusrule/monitoring/nodelocaldns-alerts, podmonitor/monitoring/nodelocaldns, "
        "configmap/kube-system/node-local-dns, serviceaccount/kube-system/node-local-dns, "
        "service/kube-system/node-local-dns-metrics, service/kube-system/kube-dns-upstream"
    )
    events = cluster.requests_since(mark, user=None)
    assert deletes(events) == ["daemonsets/node-local-dns", *REVERSE_ORDER, PARENT]
    pods_gone = {  # kwok deletes a pod once it has stopped (a repeated delete answers 404)
        e["objectRef"]["name"]: e["stageTimestamp"]
        for e in events
        if e.get("verb") == "delete"
        and e["objectRef"].get("resource") == "pods"
        and e.get("user", {}).get("username") == KWOK_USER
        and e.get("responseStatus", {}).get("code") == 200
    }
    first_after = min(
        e["requestReceivedTimestamp"]
        for e in events
        if e.get("verb") == "delete"
        and e.get("user", {}).get("username") == ADMIN_USER
        and e["objectRef"].get("resource") != "daemonsets"
    )
    assert len(pods_gone) == 6 and max(pods_gone.values()) < first_after
    api = cluster.api_client()
    assert rest.get(api, rest.PATHS["kube-dns"]) is not None

    assert run(cluster, "verify", "--uninstalled") == 0
    assert "3 passed, 0 failed" in capsys.readouterr().out
    assert run(cluster, "verify") == 7
    capsys.readouterr()
    mark = cluster.audit_mark()
    assert run(cluster, "uninstall") == 0
    assert capsys.readouterr().out == (
        "[1/3] none of the app's 7 NodeLocal DNS object(s) is installed: nothing to do\n"
    )
    assert cluster.mutating_requests_since(mark) == []


def test_pods_that_never_stop_stall_the_uninstall_with_exit_10_and_a_rerun_finishes_it(
    sim: SimulatedCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    sim.add_nodes(eks_fleet(6))
    deploy_and_wait(sim)
    sim.set_pod_fates(PodFate(labels=POD_LABELS, nodes=("base-1",), stop_seconds=None))
    cluster = sim.control_plane
    mark = cluster.audit_mark()
    capsys.readouterr()

    assert run(cluster, "uninstall", "--stall-after", "2") == 10

    err = capsys.readouterr().err
    assert err.startswith("error: 1 node-cache pod(s) did not go away for 2s (node-local-dns-")
    assert err.endswith(
        "their nodes may be down or their cleanup hangs; nothing else was deleted. See "
        "'kubectl describe pod -n kube-system -l k8s-app=node-local-dns', "
        "then rerun 'python deploy.py uninstall' to continue\n"
    )
    assert len(err.splitlines()) == 1
    assert deletes(cluster.requests_since(mark)) == ["daemonsets/node-local-dns"]
    assert run(cluster, "verify", "--uninstalled") == 7
    out = capsys.readouterr().out
    assert "FAIL nothing-left: still live: service/kube-system/kube-dns-upstream, " in out
    assert "daemonset/kube-system/node-local-dns (being deleted)" in out
    assert "FAIL no-node-cache-pods: 1 pod(s) match k8s-app=node-local-dns in kube-system: node-local-dns-" in out

    sim.set_pod_fates()  # the node's kubelet is back: the pod stops
    assert run(cluster, "uninstall") == 0

    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("[2/3] daemonset/kube-system/node-local-dns ")
    assert run(cluster, "verify", "--uninstalled") == 0


def test_node_cache_pods_orphaned_by_their_daemon_set_are_stopped_before_the_rest_goes(
    sim: SimulatedCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    sim.add_nodes(eks_fleet(6))
    deploy_and_wait(sim)
    daemon_set = "/apis/apps/v1/namespaces/kube-system/daemonsets/node-local-dns"
    rest_api = sim.control_plane.fixture_api()
    rest_api.request("DELETE", daemon_set, body={"propagationPolicy": "Orphan"})
    sim.wait_for(
        "the DaemonSet gone, its 4 pods orphaned",
        lambda: (
            rest_api.get(daemon_set) is None
            and [bool(p["metadata"].get("ownerReferences")) for p in sim.pods("kube-system", POD_LABELS)] == [False] * 4
        ),
    )
    mark = sim.control_plane.audit_mark()

    assert run(sim.control_plane, "uninstall") == 0

    written = deletes(sim.control_plane.requests_since(mark))
    assert len(written) == 11 and all(path.startswith("pods/node-local-dns-") for path in written[:4]), written
    assert written[4:] == [*REVERSE_ORDER, PARENT]
    assert sim.pods("kube-system", POD_LABELS) == []
    assert "[2/3] daemonset/kube-system/node-local-dns already gone; waiting for 4 node-cache pod(s)" in (
        capsys.readouterr().out
    )


def test_without_the_monitoring_crds_uninstall_removes_the_rest(
    sim: SimulatedCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    sim.add_nodes(eks_fleet(6))
    sim.control_plane.uninstall_crds()
    try:
        deploy_and_wait(sim, skip_monitoring=True)
        mark = sim.control_plane.audit_mark()
        assert run(sim.control_plane, "uninstall") == 0
        assert deletes(sim.control_plane.requests_since(mark)) == [
            "daemonsets/node-local-dns",
            *REVERSE_ORDER[2:],
            PARENT,
        ]
        assert run(sim.control_plane, "verify", "--uninstalled") == 0
    finally:
        sim.control_plane.install_crds()
    assert "[1/3] 5 of the app's 7 NodeLocal DNS object(s) installed" in capsys.readouterr().out


def test_uninstall_refuses_a_foreign_kube_dns_upstream_and_deletes_nothing(
    cluster: ControlPlane, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(cluster, "--skip-monitoring") == 0
    api = cluster.api_client()
    rest.request(
        api,
        "PATCH",
        rest.PATHS["upstream"],
        {"spec": {"selector": {"k8s-app": "old-dns"}}},
        "application/merge-patch+json",
    )
    before = rest.resource_versions(api)
    mark = cluster.audit_mark()
    capsys.readouterr()

    assert run(cluster, "uninstall") == 3

    assert capsys.readouterr().err == (
        "error: service/kube-system/kube-dns-upstream exists with selector {'k8s-app': 'old-dns'}, not "
        "{'k8s-app': 'kube-dns'}: a stale or foreign install; refusing to remove it. Inspect it with "
        "'kubectl get svc -n kube-system kube-dns-upstream -o yaml' and delete it if it is not in use, then rerun.\n"
    )
    assert cluster.mutating_requests_since(mark) == []
    assert rest.resource_versions(api) == before


def test_uninstall_of_nothing_writes_nothing_and_verify_uninstalled_lists_what_is_live(
    cluster: ControlPlane, capsys: pytest.CaptureFixture[str]
) -> None:
    mark = cluster.audit_mark()

    assert run(cluster, "uninstall") == 0

    assert capsys.readouterr().out == (
        "[1/3] none of the app's 7 NodeLocal DNS object(s) is installed: nothing to do\n"
    )
    assert cluster.mutating_requests_since(mark) == []
    assert run(cluster, "verify", "--uninstalled") == 0
    assert run(cluster) == 0
    capsys.readouterr()
    assert run(cluster, "verify", "--uninstalled") == 7
    out = capsys.readouterr().out
    assert out.startswith(
        "FAIL nothing-left: still live: service/kube-system/kube-dns-upstream, "
        "service/kube-system/node-local-dns-metrics, serviceaccount/kube-system/node-local-dns, "
        "configmap/kube-system/node-local-dns, daemonset/kube-system/node-local-dns, "
        "podmonitor/monitoring/nodelocaldns, prometheusrule/monitoring/nodelocaldns-alerts\n"
        "     cause: the uninstall was interrupted or refused, or something applied the objects again\n"
        "     fix:   python deploy.py uninstall\n"
    )
    assert "PASS no-node-cache-pods" in out and "PASS cluster-dns-intact: kube-dns at fd00:ec2::" in out
    assert out.rstrip().endswith("2 passed, 1 failed")
