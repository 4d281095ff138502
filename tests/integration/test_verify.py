"""``deploy.py verify`` against a real kube-apiserver, one failure mode of the spec at a time.

There is no kubelet or controller here: the tests create Node and Pod objects and write
Node, Pod and DaemonSet status through the status subresource, as those components would.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from kubernetes import client as k8s

from constructs_nld import NodeLocalDNSProps
from constructs_nld.deploy import CheckResult, deploy, load_client, props_source, verify
from constructs_nld.deploy.cli import main
from tests.controlplane import ControlPlane
from tests.integration import rest

LATER = datetime.now(UTC) + timedelta(days=1)
"""A 'now' after every node's creation, so no node counts as new unless a test says so."""


def deploy_and_verify(cluster: ControlPlane, *, now: datetime = LATER) -> dict[str, CheckResult]:
    assert main(["--kubeconfig", str(cluster.kubeconfig_path)]) == 0
    return run_verify(cluster, now=now)


def run_verify(cluster: ControlPlane, *, now: datetime = LATER) -> dict[str, CheckResult]:
    client = load_client(str(cluster.kubeconfig_path), None, timeout=10)
    return {result.name: result for result in verify(client, props_source(NodeLocalDNSProps()), now=now)}


def set_daemon_set_status(api: k8s.ApiClient, *, desired: int, ready: int, updated: int | None = None) -> None:
    """What the DaemonSet controller would write, for the generation it has seen."""
    daemon_set = rest.get(api, rest.PATHS["daemon-set"])
    assert daemon_set is not None
    rest.patch_status(
        api,
        rest.PATHS["daemon-set"],
        {
            "observedGeneration": daemon_set["metadata"]["generation"],
            "desiredNumberScheduled": desired,
            "currentNumberScheduled": desired,
            "updatedNumberScheduled": desired if updated is None else updated,
            "numberReady": ready,
            "numberAvailable": ready,
            "numberUnavailable": desired - ready,
            "numberMisscheduled": 0,
        },
    )


def add_node(api: k8s.ApiClient, name: str, *, ready: bool = True, taints: list[dict[str, str]] | None = None) -> None:
    rest.create(
        api,
        "/api/v1/nodes",
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name},
            "spec": {"taints": taints or []},
        },
    )
    rest.patch_status(
        api,
        f"/api/v1/nodes/{name}",
        {
            "conditions": [
                {"type": "Ready", "status": "True" if ready else "False", "reason": "KubeletReady", "message": "test"}
            ],
        },
    )


def add_pod(api: k8s.ApiClient, name: str, node: str, *, ready: bool = True, waiting: str = "") -> None:
    rest.create(
        api,
        "/api/v1/namespaces/kube-system/pods",
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name, "namespace": "kube-system", "labels": {"k8s-app": "node-local-dns"}},
            "spec": {
                "nodeName": node,
                "serviceAccountName": "node-local-dns",
                "automountServiceAccountToken": False,
                "containers": [{"name": "node-cache", "image": "registry.k8s.io/dns/k8s-dns-node-cache:1.26.8"}],
            },
        },
    )
    container: dict[str, Any] = {
        "name": "node-cache",
        "image": "registry.k8s.io/dns/k8s-dns-node-cache:1.26.8",
        "imageID": "",
        "ready": ready,
        "restartCount": 0,
    }
    container["state"] = (
        {"waiting": {"reason": waiting}} if waiting else {"running": {"startedAt": "2026-01-01T00:00:00Z"}}
    )
    rest.patch_status(
        api,
        f"/api/v1/namespaces/kube-system/pods/{name}",
        {
            "phase": "Running" if not waiting else "Pending",
            "conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
            "containerStatuses": [container],
        },
    )


def test_healthy_install_passes_every_check(
    cluster: ControlPlane, api_client: k8s.ApiClient, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--kubeconfig", str(cluster.kubeconfig_path)]) == 0
    for node in ("node-a", "node-b"):
        add_node(api_client, node, taints=[{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}])
        add_pod(api_client, f"node-local-dns-{node}", node)
    set_daemon_set_status(api_client, desired=2, ready=2)

    results = run_verify(cluster)

    assert {name: r.status for name, r in results.items()} == {
        "daemonset-healthy": "pass",
        "metrics-service-headless": "pass",
        "upstream-service-selects-kube-dns": "pass",
        "no-unsubstituted-placeholder": "pass",
        "pods-created-after-upstream-service": "pass",
        "node-cache-intercepts-kube-dns": "pass",
        "node-taints-tolerated": "pass",
        "alert-metric-prefix": "pass",
        "podmonitor-scrapes-both-ports": "pass",
        "interception-mode": "pass",
        "live-matches-app": "pass",
    }
    assert results["daemonset-healthy"].detail == "ready on 2 node(s); desired 2, ready 2, updated 2"
    assert results["interception-mode"].detail.startswith(
        "node-cache (the spec's) on 2 pod(s): node-cache's own NOTRACK rules, unconditional"
    )
    assert results["live-matches-app"].detail == "7 object(s) as the app configures them"


def test_cli_verify_exit_codes(
    cluster: ControlPlane, api_client: k8s.ApiClient, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--kubeconfig", str(cluster.kubeconfig_path), "verify"]) == 7
    out = capsys.readouterr().out
    assert "FAIL daemonset-healthy: daemonset node-local-dns not found" in out
    assert out.rstrip().endswith("failed")

    assert main(["--kubeconfig", str(cluster.kubeconfig_path)]) == 0
    add_node(api_client, "node-a")
    add_pod(api_client, "node-local-dns-a", "node-a")
    set_daemon_set_status(api_client, desired=1, ready=1)
    capsys.readouterr()
    assert main(["--kubeconfig", str(cluster.kubeconfig_path), "verify"]) == 0
    assert "11 passed, 0 failed" in capsys.readouterr().out


def test_node_without_a_ready_pod_fails_and_names_the_reason(cluster: ControlPlane, api_client: k8s.ApiClient) -> None:
    assert main(["--kubeconfig", str(cluster.kubeconfig_path)]) == 0
    add_node(api_client, "node-ok")
    add_pod(api_client, "node-local-dns-ok", "node-ok")
    add_node(api_client, "node-pulling")
    add_pod(api_client, "node-local-dns-pulling", "node-pulling", ready=False, waiting="ImagePullBackOff")
    add_node(api_client, "node-empty")

    result = run_verify(cluster)["daemonset-healthy"]

    assert result.status == "fail"
    assert result.detail.startswith(
        "2 node(s) without a ready node-cache pod: node-empty (no ready pod), node-pulling (ImagePullBackOff)"
    )
    assert "image pull" in result.diagnosis and "kubectl logs" in result.fix


def test_nodes_in_transition_are_tolerated(cluster: ControlPlane, api_client: k8s.ApiClient) -> None:
    assert main(["--kubeconfig", str(cluster.kubeconfig_path)]) == 0
    add_node(api_client, "node-ok")
    add_pod(api_client, "node-local-dns-ok", "node-ok")
    add_node(api_client, "node-not-ready", ready=False)
    add_node(api_client, "node-new")
    node_new = rest.get(api_client, "/api/v1/nodes/node-new")
    assert node_new is not None
    created = datetime.fromisoformat(node_new["metadata"]["creationTimestamp"].replace("Z", "+00:00"))
    rest.request(api_client, "PATCH", "/api/v1/nodes/node-ok", {"spec": {}}, "application/merge-patch+json")
    set_daemon_set_status(api_client, desired=3, ready=1)

    result = run_verify(cluster, now=created + timedelta(minutes=1))["daemonset-healthy"]

    assert result.status == "pass"
    assert "node-not-ready (not ready)" in result.detail and "node-new (new)" in result.detail


def test_metrics_service_not_headless_fails(cluster: ControlPlane, api_client: k8s.ApiClient) -> None:
    assert main(["--kubeconfig", str(cluster.kubeconfig_path)]) == 0
    rest.delete(api_client, rest.PATHS["metrics"])
    rest.create(
        api_client,
        "/api/v1/namespaces/kube-system/services",
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {
                "name": "node-local-dns-metrics",
                "namespace": "kube-system",
                "labels": {"app.kubernetes.io/managed-by": "osdc-base"},
            },
            "spec": {"selector": {"k8s-app": "node-local-dns"}, "ports": [{"name": "metrics", "port": 9253}]},
        },
    )

    result = run_verify(cluster)["metrics-service-headless"]

    assert result.status == "fail" and "not 'None'" in result.detail


def test_upstream_selector_drift_fails(cluster: ControlPlane, api_client: k8s.ApiClient) -> None:
    assert main(["--kubeconfig", str(cluster.kubeconfig_path)]) == 0
    rest.request(
        api_client,
        "PATCH",
        rest.PATHS["upstream"],
        {"spec": {"selector": {"k8s-app": "coredns"}}},
        "application/merge-patch+json",
    )

    result = run_verify(cluster)["upstream-service-selects-kube-dns"]

    assert result.status == "fail" and result.detail == "selector is {'k8s-app': 'coredns'}"


def test_placeholder_left_in_live_configmap_fails(cluster: ControlPlane, api_client: k8s.ApiClient) -> None:
    assert main(["--kubeconfig", str(cluster.kubeconfig_path)]) == 0
    config_map = rest.get(api_client, rest.PATHS["config-map"])
    assert config_map is not None
    corefile = config_map["data"]["Corefile"].replace(
        config_map["data"]["Corefile"].split("bind fd00::10 ")[1].split("\n")[0], "__KUBE_DNS_CLUSTER_IP__"
    )
    rest.request(
        api_client, "PATCH", rest.PATHS["config-map"], {"data": {"Corefile": corefile}}, "application/merge-patch+json"
    )

    result = run_verify(cluster)["no-unsubstituted-placeholder"]

    assert result.status == "fail"
    assert result.detail == "ConfigMap kube-system/node-local-dns: data.Corefile holds __KUBE_DNS_CLUSTER_IP__"
    assert "python deploy.py" in result.fix


def test_pods_created_before_the_upstream_service_fail(cluster: ControlPlane, api_client: k8s.ApiClient) -> None:
    assert main(["--kubeconfig", str(cluster.kubeconfig_path)]) == 0
    add_node(api_client, "node-a")
    add_pod(api_client, "node-local-dns-early", "node-a")
    upstream = rest.get(api_client, rest.PATHS["upstream"])
    assert upstream is not None
    rest.delete(api_client, rest.PATHS["upstream"])
    upstream["metadata"] = {
        "name": "kube-dns-upstream",
        "namespace": "kube-system",
        "labels": upstream["metadata"]["labels"],
    }
    upstream["spec"].pop("clusterIP"), upstream["spec"].pop("clusterIPs")
    time.sleep(1.1)  # creationTimestamp has one-second resolution
    rest.create(api_client, "/api/v1/namespaces/kube-system/services", upstream)

    result = run_verify(cluster)["pods-created-after-upstream-service"]

    assert result.status == "fail"
    assert result.detail == "1 pod(s) predate kube-dns-upstream: node-local-dns-early"
    assert result.fix == "kubectl rollout restart ds node-local-dns -n kube-system"


def test_untolerated_taints_are_listed(cluster: ControlPlane, api_client: k8s.ApiClient) -> None:
    assert main(["--kubeconfig", str(cluster.kubeconfig_path)]) == 0
    add_node(
        api_client,
        "node-tainted",
        taints=[
            {"key": "dedicated", "value": "ci", "effect": "NoSchedule"},
            {"key": "node-fleet", "value": "x", "effect": "NoSchedule"},
            {"key": "spot", "effect": "NoExecute"},
            {"key": "soft", "effect": "PreferNoSchedule"},
        ],
    )
    add_node(api_client, "node-base", taints=[{"key": "CriticalAddonsOnly", "value": "true", "effect": "NoSchedule"}])
    add_pod(api_client, "node-local-dns-base", "node-base")
    set_daemon_set_status(api_client, desired=1, ready=1)

    results = run_verify(cluster)

    assert results["node-taints-tolerated"].status == "fail"
    assert results["node-taints-tolerated"].detail == (
        "taints not tolerated: node-tainted: dedicated=ci:NoSchedule, spot:NoExecute"
    )
    assert "never operator Exists" in results["node-taints-tolerated"].fix
    assert results["daemonset-healthy"].status == "pass"
    assert "node-tainted (untolerated taints)" in results["daemonset-healthy"].detail


def test_wrong_metric_prefix_in_a_live_rule_fails(cluster: ControlPlane, api_client: k8s.ApiClient) -> None:
    assert main(["--kubeconfig", str(cluster.kubeconfig_path)]) == 0
    rest.create(
        api_client,
        "/apis/monitoring.coreos.com/v1/namespaces/default/prometheusrules",
        {
            "apiVersion": "monitoring.coreos.com/v1",
            "kind": "PrometheusRule",
            "metadata": {"name": "legacy", "namespace": "default"},
            "spec": {
                "groups": [
                    {
                        "name": "old",
                        "rules": [
                            {"alert": "OldSetupErrors", "expr": "increase(nodelocaldns_setup_errors_total[5m]) > 0"},
                        ],
                    }
                ]
            },
        },
    )
    try:
        result = run_verify(cluster)["alert-metric-prefix"]
    finally:
        rest.delete(api_client, "/apis/monitoring.coreos.com/v1/namespaces/default/prometheusrules/legacy")

    assert result.status == "fail"
    assert result.detail == "default/legacy OldSetupErrors: nodelocaldns_setup_errors_total"
    assert "coredns_nodecache_" in result.fix


def test_pod_monitor_scraping_one_port_fails(cluster: ControlPlane, api_client: k8s.ApiClient) -> None:
    assert main(["--kubeconfig", str(cluster.kubeconfig_path)]) == 0
    rest.request(
        api_client,
        "PATCH",
        rest.PATHS["pod-monitor"],
        {"spec": {"podMetricsEndpoints": [{"port": "metrics", "interval": "60s"}]}},
        "application/merge-patch+json",
    )

    result = run_verify(cluster)["podmonitor-scrapes-both-ports"]

    assert result.status == "fail" and "scrapes ['metrics']" in result.detail
    assert ":9353" in result.diagnosis


def test_without_monitoring_crds_the_monitoring_checks_warn(cluster: ControlPlane, api_client: k8s.ApiClient) -> None:
    cluster.uninstall_crds()
    try:
        assert main(["--kubeconfig", str(cluster.kubeconfig_path), "--skip-monitoring"]) == 0
        results = run_verify(cluster)
    finally:
        cluster.install_crds()

    assert results["alert-metric-prefix"].status == "warn"
    assert results["podmonitor-scrapes-both-ports"].status == "warn"


def test_a_daemon_set_without_pods_fails_even_when_every_node_is_new(
    cluster: ControlPlane, api_client: k8s.ApiClient
) -> None:
    assert main(["--kubeconfig", str(cluster.kubeconfig_path)]) == 0
    add_node(api_client, "node-a")
    add_node(api_client, "node-b")
    node = rest.get(api_client, "/api/v1/nodes/node-a")
    assert node is not None
    young = datetime.fromisoformat(node["metadata"]["creationTimestamp"].replace("Z", "+00:00")) + timedelta(minutes=1)

    set_daemon_set_status(api_client, desired=0, ready=0)
    result = run_verify(cluster, now=young)["daemonset-healthy"]

    assert result.status == "fail"
    assert result.detail == (
        "no node runs node-cache (desired 0, ready 0, updated 0); skipped in transition: node-a (new), node-b (new)"
    )
    assert "nothing is cached anywhere" in result.diagnosis
    assert "tolerations" in result.fix and "kubectl describe pod" in result.fix

    set_daemon_set_status(api_client, desired=2, ready=0)
    result = run_verify(cluster, now=young)["daemonset-healthy"]

    assert result.status == "fail"
    assert result.detail.startswith("no node-cache pod is ready (desired 2, ready 0, updated 2)")


def test_a_daemon_set_whose_controller_lags_or_whose_rollout_is_unfinished_fails(
    cluster: ControlPlane, api_client: k8s.ApiClient
) -> None:
    assert main(["--kubeconfig", str(cluster.kubeconfig_path)]) == 0
    add_node(api_client, "node-a")
    add_pod(api_client, "node-local-dns-a", "node-a")
    add_node(api_client, "node-b")
    add_pod(api_client, "node-local-dns-b", "node-b")

    set_daemon_set_status(api_client, desired=2, ready=2, updated=1)
    result = run_verify(cluster)["daemonset-healthy"]
    assert result.status == "fail"
    assert result.detail == "rollout unfinished: 1 of 2 pods run the current template (desired 2, ready 2, updated 1)"
    assert result.fix.startswith("kubectl rollout status ds node-local-dns -n kube-system")

    set_daemon_set_status(api_client, desired=2, ready=2)
    rest.request(
        api_client,
        "PATCH",
        rest.PATHS["daemon-set"],
        {"spec": {"template": {"metadata": {"annotations": {"example.com/bump": "1"}}}}},
        "application/merge-patch+json",
    )
    result = run_verify(cluster)["daemonset-healthy"]
    assert result.status == "fail"
    assert result.detail.startswith("the DaemonSet controller has not observed generation 3 (observed 2;")


def test_a_node_cache_placeholder_outside_the_corefile_is_named_in_the_cause(
    cluster: ControlPlane, api_client: k8s.ApiClient
) -> None:
    assert main(["--kubeconfig", str(cluster.kubeconfig_path)]) == 0
    daemon_set = rest.get(api_client, rest.PATHS["daemon-set"])
    assert daemon_set is not None
    containers = daemon_set["spec"]["template"]["spec"]["containers"]
    containers[0]["args"] = [*containers[0]["args"], "-upstream", "__PILLAR__CLUSTER__DNS__"]
    status, _ = rest.request(
        api_client,
        "PATCH",
        rest.PATHS["daemon-set"],
        {"spec": {"template": {"spec": {"containers": containers}}}},
        "application/merge-patch+json",
    )
    assert status == 200

    result = run_verify(cluster)["no-unsubstituted-placeholder"]

    assert result.status == "fail"
    assert result.detail == "DaemonSet kube-system/node-local-dns: spec.template.spec.containers[0].args[9] holds " + (
        "__PILLAR__CLUSTER__DNS__"
    )
    assert result.diagnosis.startswith("__PILLAR__CLUSTER__DNS__ is left where nothing fills it")


def test_a_live_object_that_drifted_from_the_app_fails(cluster: ControlPlane, api_client: k8s.ApiClient) -> None:
    assert main(["--kubeconfig", str(cluster.kubeconfig_path)]) == 0
    rest.request(
        api_client,
        "PATCH",
        rest.PATHS["config-map"],
        {"data": {"Corefile": ".:53 {\n    errors\n}\n"}},
        "application/merge-patch+json",
    )
    rest.delete(api_client, rest.PATHS["service-account"])

    result = run_verify(cluster)["live-matches-app"]

    assert result.status == "fail"
    assert (
        result.detail
        == "serviceaccount/kube-system/node-local-dns missing; configmap/kube-system/node-local-dns differs"
    )
    assert result.fix == "python deploy.py --diff to see it; python deploy.py to apply the app"


# --- the interception mode ----------------------------------------------------------------------

FALLTHROUGH = NodeLocalDNSProps(interception="fallthrough")
IMAGE = "registry.k8s.io/dns/k8s-dns-node-cache:1.26.8"
KEEPER_COMMAND = ["/bin/sh", "/etc/nodelocaldns-fallthrough/keeper.sh", "keep"]


def deploy_fallthrough(cluster: ControlPlane) -> None:
    client = load_client(str(cluster.kubeconfig_path), None, timeout=10)
    deploy(client, props_source(FALLTHROUGH), out=lambda line: None)


def verify_fallthrough(cluster: ControlPlane) -> dict[str, CheckResult]:
    client = load_client(str(cluster.kubeconfig_path), None, timeout=10)
    return {result.name: result for result in verify(client, props_source(FALLTHROUGH), now=LATER)}


def add_fallthrough_pod(
    api: k8s.ApiClient, name: str, node: str, *, keeper_ready: bool = True, restarts: int = 0, waiting: str = ""
) -> None:
    """A pod of the fallthrough mode, with the statuses kubelet would write for its two containers."""
    rest.create(
        api,
        "/api/v1/namespaces/kube-system/pods",
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name, "namespace": "kube-system", "labels": {"k8s-app": "node-local-dns"}},
            "spec": {
                "nodeName": node,
                "automountServiceAccountToken": False,
                "containers": [
                    {"name": "node-cache", "image": IMAGE, "args": ["-localip", "fd00::10", "-setupiptables=false"]},
                    {"name": "fallthrough-rules", "image": IMAGE, "command": KEEPER_COMMAND},
                ],
            },
        },
    )
    keeper_state = {"waiting": {"reason": waiting}} if waiting else {"running": {"startedAt": "2026-01-01T00:00:00Z"}}
    statuses = [
        {"name": "node-cache", "image": IMAGE, "imageID": "", "ready": True, "restartCount": 0, "state": {}},
        {
            "name": "fallthrough-rules",
            "image": IMAGE,
            "imageID": "",
            "ready": keeper_ready,
            "restartCount": restarts,
            "state": keeper_state,
        },
    ]
    statuses[0]["state"] = {"running": {"startedAt": "2026-01-01T00:00:00Z"}}
    ready = "True" if keeper_ready else "False"
    rest.patch_status(
        api,
        f"/api/v1/namespaces/kube-system/pods/{name}",
        {"phase": "Running", "conditions": [{"type": "Ready", "status": ready}], "containerStatuses": statuses},
    )


def test_fallthrough_with_every_keeper_ready_passes(cluster: ControlPlane, api_client: k8s.ApiClient) -> None:
    deploy_fallthrough(cluster)
    add_node(api_client, "node-a")
    add_fallthrough_pod(api_client, "node-local-dns-a", "node-a", restarts=2)
    add_node(api_client, "node-b")
    add_fallthrough_pod(api_client, "node-local-dns-b", "node-b")
    set_daemon_set_status(api_client, desired=2, ready=2)

    results = verify_fallthrough(cluster)

    assert {name for name, r in results.items() if r.status != "pass"} == set()
    assert results["interception-mode"].detail.startswith(
        "fallthrough: fallthrough-rules ready on 2 pod(s) (2 restart(s)): the keeper's socket-conditional rules"
    )
    assert results["live-matches-app"].detail == "8 object(s) as the app configures them"


def test_a_keeper_not_ready_fails_and_names_its_node(cluster: ControlPlane, api_client: k8s.ApiClient) -> None:
    deploy_fallthrough(cluster)
    add_node(api_client, "node-a")
    add_fallthrough_pod(api_client, "node-local-dns-a", "node-a")
    add_node(api_client, "node-b")
    add_fallthrough_pod(api_client, "node-local-dns-b", "node-b", keeper_ready=False, restarts=3)
    add_node(api_client, "node-c")
    add_fallthrough_pod(api_client, "node-local-dns-c", "node-c", keeper_ready=False, waiting="CrashLoopBackOff")

    result = verify_fallthrough(cluster)["interception-mode"]

    assert result.status == "fail"
    assert result.detail == (
        "fallthrough-rules not ready on 2 node(s): node-b (not ready, 3 restart(s)), "
        "node-c (CrashLoopBackOff, 0 restart(s))"
    )
    assert "unconditional NOTRACK of the kube-dns ClusterIP" in result.diagnosis
    assert result.fix.endswith("kubectl logs -n kube-system <pod> -c fallthrough-rules")


def test_pods_still_in_the_other_mode_fail_as_an_unfinished_rollout(
    cluster: ControlPlane, api_client: k8s.ApiClient
) -> None:
    deploy_fallthrough(cluster)
    add_node(api_client, "node-a")
    add_fallthrough_pod(api_client, "node-local-dns-a", "node-a")
    add_node(api_client, "node-b")
    add_pod(api_client, "node-local-dns-old", "node-b")

    result = verify_fallthrough(cluster)["interception-mode"]

    assert result.status == "fail"
    assert result.detail == "1 pod(s) still run the node-cache mode: node-b (node-local-dns-old)"
    assert result.diagnosis.startswith("the rollout to fallthrough is unfinished: those nodes run node-cache's own")
    assert result.fix == "kubectl rollout status ds node-local-dns -n kube-system"


def test_a_live_daemon_set_of_the_other_mode_fails(cluster: ControlPlane, api_client: k8s.ApiClient) -> None:
    assert main(["--kubeconfig", str(cluster.kubeconfig_path)]) == 0

    results = verify_fallthrough(cluster)

    assert results["interception-mode"].status == "fail"
    assert results["interception-mode"].detail == (
        "the live DaemonSet runs the node-cache mode, the app configures fallthrough"
    )
    assert results["interception-mode"].fix == "python deploy.py"
    assert results["live-matches-app"].status == "fail"
