"""Migrating a production install made by the spec's deploy.sh (client-side ``kubectl apply``) to ``deploy.py``.

The install is made with the real kubectl (:mod:`tests.deploysh`); ``deploy.py`` must take
the objects over cleanly — none of the old manager's fields left, ``-pidfile`` added, no
restart the spec's triggers do not call for — and a second run must be a no-op.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from kubernetes import client as k8s

from constructs_nld import NodeLocalDNSProps
from constructs_nld.deploy import load_client, props_source
from constructs_nld.deploy.cli import main
from tests.controlplane import ControlPlane
from tests.deploysh import install_like_deploy_sh, kubectl
from tests.integration import rest

RESTART = "kubectl.kubernetes.io/restartedAt"
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
RESTARTED_FOR = "nodelocaldns.osdc/restarted-for-upstream-uid"


def run(cluster: ControlPlane, *args: str) -> int:
    return main(["--kubeconfig", str(cluster.kubeconfig_path), "--timeout", "10", *args])


def managers(obj: dict[str, Any]) -> set[str]:
    return {entry["manager"] for entry in obj["metadata"].get("managedFields") or []}


def configured_state(api: k8s.ApiClient) -> dict[str, Any]:
    """What each object configures: no server bookkeeping, no allocated addresses, no restart records."""
    state = {}
    for name, path in rest.PATHS.items():
        if name == "kube-dns":
            continue
        obj = copy.deepcopy(rest.get(api, path))
        assert obj is not None, name
        obj.pop("status", None)
        for key in ("managedFields", "resourceVersion", "uid", "creationTimestamp", "generation"):
            obj["metadata"].pop(key, None)
        for annotation in ("deprecated.daemonset.template.generation", RESTARTED_FOR):
            obj["metadata"].get("annotations", {}).pop(annotation, None)
        if not obj["metadata"].get("annotations"):
            obj["metadata"].pop("annotations", None)
        if name == "daemon-set":
            template = obj["spec"]["template"]["metadata"]
            template.get("annotations", {}).pop(RESTART, None)
            if not template.get("annotations"):
                template.pop("annotations", None)  # a fresh install is never restarted: it has none
        if name == "upstream":
            for key in ("clusterIP", "clusterIPs"):
                obj["spec"].pop(key)
        state[name] = obj
    return state


def test_deploy_takes_over_a_deploy_sh_install_cleanly_and_reruns_as_a_no_op(
    cluster: ControlPlane, api_client: k8s.ApiClient, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(cluster) == 0  # the fresh install, for comparison
    fresh = configured_state(api_client)
    cluster.reset()
    install_like_deploy_sh(cluster)
    old = rest.get(api_client, rest.PATHS["daemon-set"])
    assert old is not None
    assert "-pidfile" not in old["spec"]["template"]["spec"]["containers"][0]["args"]
    assert "kubectl-client-side-apply" in managers(old)
    stamp = old["spec"]["template"]["metadata"]["annotations"][RESTART]
    capsys.readouterr()

    assert run(cluster) == 0

    lines = capsys.readouterr().out.splitlines()
    assert "first_deploy=no freshly_created=no" in lines[0]
    assert lines[-2] == (
        "[7/7] rollout restart: not needed "
        "(the pods of daemonset/kube-system/node-local-dns start after service/kube-system/kube-dns-upstream)"
    )
    assert lines[-1] == "[history] recorded revision 1 (deploy, succeeded)"
    assert "daemonset/kube-system/node-local-dns taken over from kubectl apply, configured" in "\n".join(lines)
    for name, path in rest.PATHS.items():
        if name == "kube-dns":
            continue
        obj = rest.get(api_client, path)
        assert obj is not None
        assert LAST_APPLIED not in (obj["metadata"].get("annotations") or {}), name
        assert "kubectl-client-side-apply" not in managers(obj), name
    daemon_set = rest.get(api_client, rest.PATHS["daemon-set"])
    assert daemon_set is not None
    assert daemon_set["spec"]["template"]["metadata"]["annotations"] == {RESTART: stamp}
    migrated = configured_state(api_client)
    assert migrated == fresh

    mark = cluster.audit_mark()
    assert run(cluster) == 0
    assert cluster.mutating_requests_since(mark) == []


def test_verify_ignores_kubectls_last_applied_copy_of_the_corefile(
    cluster: ControlPlane, api_client: k8s.ApiClient, capsys: pytest.CaptureFixture[str]
) -> None:
    install_like_deploy_sh(cluster)
    config_map = rest.get(api_client, rest.PATHS["config-map"])
    assert config_map is not None
    assert "__PILLAR__CLUSTER__DNS__" in config_map["metadata"]["annotations"][LAST_APPLIED]
    # The same once anyone pipes the live object back through client-side apply.
    live_yaml = kubectl(cluster, "get", "configmap", "node-local-dns", "-n", "kube-system", "-o", "yaml")
    kubectl(cluster, "apply", "-f", "-", input=live_yaml)
    capsys.readouterr()

    assert run(cluster, "verify") == 7

    out = capsys.readouterr().out
    assert "PASS no-unsubstituted-placeholder" in out
    assert "FAIL live-matches-app: " in out  # the install lacks -pidfile: deploy.py is due


ROLE_LABELS = ("app.kubernetes.io/name", "app.kubernetes.io/component")


def test_an_install_made_before_objects_said_their_role_is_labelled_in_place_and_reruns_as_a_no_op(
    cluster: ControlPlane, api_client: k8s.ApiClient, capsys: pytest.CaptureFixture[str]
) -> None:
    kube_dns = rest.get(api_client, rest.PATHS["kube-dns"])
    assert kube_dns is not None
    client = load_client(str(cluster.kubeconfig_path), None, timeout=10)
    for chart in props_source(NodeLocalDNSProps())(kube_dns["spec"]["clusterIP"]):
        for obj in chart.objects:  # what the deploy applied before each object carried its role
            old = copy.deepcopy(obj)
            old["metadata"]["labels"] = {k: v for k, v in old["metadata"]["labels"].items() if k not in ROLE_LABELS}
            client.apply(old)
    before = rest.get(api_client, rest.PATHS["daemon-set"])
    assert before is not None and "app.kubernetes.io/component" not in before["metadata"]["labels"]
    capsys.readouterr()

    assert run(cluster) == 0

    out = capsys.readouterr().out
    assert "daemonset/kube-system/node-local-dns configured" in out
    assert "rollout restart: not needed" in out
    after = rest.get(api_client, rest.PATHS["daemon-set"])
    assert after is not None
    assert after["metadata"]["labels"]["app.kubernetes.io/component"] == "node-cache"
    assert after["metadata"]["labels"]["app.kubernetes.io/name"] == "node-local-dns"
    assert after["metadata"]["generation"] == before["metadata"]["generation"]  # labels only: no pod rolls
    assert after["spec"]["template"] == before["spec"]["template"]
    for name in ("upstream", "metrics", "service-account", "config-map", "pod-monitor", "prometheus-rule"):
        labelled = rest.get(api_client, rest.PATHS[name])
        assert labelled is not None, name
        assert labelled["metadata"]["labels"]["app.kubernetes.io/name"] == "node-local-dns", name
    mark = cluster.audit_mark()
    assert run(cluster) == 0
    assert cluster.mutating_requests_since(mark) == []
