"""deploy.py against a real kube-apiserver: order, idempotency, refusals, recovery, dry run, diff.

Every test asserts the cluster state afterwards, read through the official client; the
audit log counts what the deploy sent.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from kubernetes import client as k8s

from constructs_nld import ForwardZone, NodeLocalDNSProps, ZoneCache
from constructs_nld.deploy import DeployOptions, deploy, load_client, open_session, props_source
from constructs_nld.deploy.cli import main
from constructs_nld.deploy.errors import ApiUnreachableError, InvalidConfigError, PreconditionError
from constructs_nld.keeper import Keeper
from tests.controlplane import ControlPlane
from tests.integration import rest

REPO = Path(__file__).resolve().parents[2]
RESTART = "kubectl.kubernetes.io/restartedAt"


def run(cluster: ControlPlane, *args: str) -> int:
    return main(["--kubeconfig", str(cluster.kubeconfig_path), "--timeout", "10", *args])


def kube_dns_ip(api: k8s.ApiClient) -> str:
    service = rest.get(api, rest.PATHS["kube-dns"])
    assert service is not None
    ip: str = service["spec"]["clusterIP"]
    return ip


def restarted_at(api: k8s.ApiClient) -> str | None:
    daemon_set = rest.get(api, rest.PATHS["daemon-set"])
    assert daemon_set is not None
    annotations = daemon_set["spec"]["template"]["metadata"].get("annotations") or {}
    value: str | None = annotations.get(RESTART)
    return value


def written_paths(cluster: ControlPlane, mark: int) -> list[str]:
    return [
        event["objectRef"].get("resource", "") + "/" + event["objectRef"].get("name", "")
        for event in cluster.mutating_requests_since(mark)
    ]


def assert_nothing_deployed(api: k8s.ApiClient, *, except_: tuple[str, ...] = ()) -> None:
    for name, path in rest.PATHS.items():
        if name in ("kube-dns", *except_):
            continue
        assert rest.get(api, path) is None, f"{name} exists after a refused deploy"


def replace_kube_dns(api: k8s.ApiClient, spec: dict[str, Any]) -> None:
    rest.delete(api, rest.PATHS["kube-dns"])
    for _ in range(50):
        if rest.get(api, rest.PATHS["kube-dns"]) is None:
            break
        time.sleep(0.1)
    rest.create(
        api,
        "/api/v1/namespaces/kube-system/services",
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "kube-dns", "namespace": "kube-system", "labels": {"k8s-app": "kube-dns"}},
            "spec": {
                "selector": {"k8s-app": "kube-dns"},
                "ports": [{"name": "dns", "port": 53, "protocol": "UDP"}],
                **spec,
            },
        },
    )


def test_fresh_install_applies_services_then_workload_then_monitoring_without_a_restart(
    cluster: ControlPlane, api_client: k8s.ApiClient, capsys: pytest.CaptureFixture[str]
) -> None:
    mark = cluster.audit_mark()

    assert run(cluster) == 0

    ip = kube_dns_ip(api_client)
    upstream = rest.get(api_client, rest.PATHS["upstream"])
    assert upstream is not None and upstream["spec"]["selector"] == {"k8s-app": "kube-dns"}
    assert upstream["spec"]["clusterIP"].startswith("fd00:ec2::")
    metrics = rest.get(api_client, rest.PATHS["metrics"])
    assert metrics is not None and metrics["spec"]["clusterIP"] == "None"
    config_map = rest.get(api_client, rest.PATHS["config-map"])
    assert config_map is not None
    corefile = config_map["data"]["Corefile"]
    assert corefile.count(f"bind fd00::10 {ip}\n") == 4
    assert "__KUBE_DNS_CLUSTER_IP__" not in corefile
    daemon_set = rest.get(api_client, rest.PATHS["daemon-set"])
    assert daemon_set is not None
    assert daemon_set["spec"]["template"]["spec"]["containers"][0]["args"][:2] == ["-localip", f"fd00::10,{ip}"]
    # The pods the controller makes come after kube-dns-upstream: they have its address.
    assert restarted_at(api_client) is None
    assert rest.get(api_client, rest.PATHS["service-account"]) is not None
    assert rest.get(api_client, rest.PATHS["pod-monitor"]) is not None
    assert rest.get(api_client, rest.PATHS["prometheus-rule"]) is not None

    # The deploy Lease taken before the first write and given up after the last (docs/commands.md).
    assert written_paths(cluster, mark) == [
        "leases/node-local-dns-deploy",
        "configmaps/node-local-dns-applyset",
        "services/kube-dns-upstream",
        "services/node-local-dns-metrics",
        "serviceaccounts/node-local-dns",
        "configmaps/node-local-dns",
        "daemonsets/node-local-dns",
        "podmonitors/nodelocaldns",
        "prometheusrules/nodelocaldns-alerts",
        "configmaps/node-local-dns-history",
        "leases/node-local-dns-deploy",
    ]
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("]")[0] + "]" if line.startswith("[") else line.split(":")[0] for line in lines] == [
        "[1/7]",
        "[2/7]",
        "warning",
        "[3/7]",
        "[4/7]",
        "[5/7]",
        "[5/7]",
        "[5/7]",
        "[6/7]",
        "[6/7]",
        "[7/7]",
        "[history]",
    ]
    assert "first_deploy=yes freshly_created=yes" in lines[0]
    assert lines[2].startswith("warning: the caches' worst case is "), lines[2]  # the spec's: 141.5 MiB over 100Mi
    assert lines[-2] == (
        "[7/7] rollout restart: not needed (the pods of daemonset/kube-system/node-local-dns start after "
        "service/kube-system/kube-dns-upstream)"
    )
    assert lines[-1] == "[history] recorded revision 1 (deploy, succeeded)"


def test_second_run_writes_nothing_and_does_not_restart(cluster: ControlPlane, api_client: k8s.ApiClient) -> None:
    assert run(cluster) == 0
    before = rest.resource_versions(api_client)
    stamp = restarted_at(api_client)
    mark = cluster.audit_mark()

    assert run(cluster) == 0

    assert cluster.mutating_requests_since(mark) == []
    assert rest.resource_versions(api_client) == before
    assert restarted_at(api_client) == stamp


def test_entry_point_runs_as_a_script(cluster: ControlPlane, api_client: k8s.ApiClient) -> None:
    result = subprocess.run(
        [sys.executable, "deploy.py", "--kubeconfig", str(cluster.kubeconfig_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert len(result.stdout.splitlines()) == 12  # the seven steps' ten lines, the caches' warning, the revision
    assert rest.get(api_client, rest.PATHS["daemon-set"]) is not None


def test_fails_when_kube_dns_is_missing(
    cluster: ControlPlane, api_client: k8s.ApiClient, capsys: pytest.CaptureFixture[str]
) -> None:
    rest.delete(api_client, rest.PATHS["kube-dns"])
    mark = cluster.audit_mark()

    assert run(cluster) == 4

    assert "kube-system/kube-dns not found" in capsys.readouterr().err
    assert cluster.mutating_requests_since(mark) == []
    assert_nothing_deployed(api_client)


def test_fails_when_kube_dns_is_ipv4(
    cluster: ControlPlane, api_client: k8s.ApiClient, capsys: pytest.CaptureFixture[str]
) -> None:
    replace_kube_dns(api_client, {"ipFamilyPolicy": "SingleStack", "ipFamilies": ["IPv4"]})
    ipv4 = kube_dns_ip(api_client)
    assert ipv4.startswith("10.100.")
    mark = cluster.audit_mark()

    assert run(cluster) == 4

    err = capsys.readouterr().err
    assert f"kube-dns ClusterIP: must be an IPv6 address, got IPv4 '{ipv4}'" in err
    assert cluster.mutating_requests_since(mark) == []
    assert_nothing_deployed(api_client)


def test_fails_when_kube_dns_is_headless(
    cluster: ControlPlane, api_client: k8s.ApiClient, capsys: pytest.CaptureFixture[str]
) -> None:
    replace_kube_dns(api_client, {"clusterIP": "None"})
    mark = cluster.audit_mark()

    assert run(cluster) == 4

    assert "has no ClusterIP (got 'None')" in capsys.readouterr().err
    assert cluster.mutating_requests_since(mark) == []
    assert_nothing_deployed(api_client)


def test_fails_when_upstream_service_has_a_foreign_selector(
    cluster: ControlPlane, api_client: k8s.ApiClient, capsys: pytest.CaptureFixture[str]
) -> None:
    rest.create(
        api_client,
        "/api/v1/namespaces/kube-system/services",
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "kube-dns-upstream", "namespace": "kube-system"},
            "spec": {"selector": {"k8s-app": "old-dns"}, "ports": [{"name": "dns", "port": 53, "protocol": "UDP"}]},
        },
    )
    before = rest.get(api_client, rest.PATHS["upstream"])
    assert before is not None
    mark = cluster.audit_mark()

    assert run(cluster) == 3

    err = capsys.readouterr().err
    assert "selector {'k8s-app': 'old-dns'}" in err and "refusing to overwrite" in err
    assert cluster.mutating_requests_since(mark) == []
    after = rest.get(api_client, rest.PATHS["upstream"])
    assert after is not None and after["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]
    assert_nothing_deployed(api_client, except_=("upstream",))


def test_fails_when_the_kube_dns_configmap_has_a_stub_domain_the_app_serves(
    cluster: ControlPlane, api_client: k8s.ApiClient
) -> None:
    """node-cache reads the mounted kube-dns ConfigMap; a zone served twice stops it on every node."""
    rest.create_kube_dns_config_map(api_client, {"stubDomains": '{"corp.example.": ["fd03::100"]}'})
    client = load_client(str(cluster.kubeconfig_path), None, timeout=10)
    props = NodeLocalDNSProps(zones=(ForwardZone(names=("corp.example",), upstreams=("fd03::53",)),))
    mark = cluster.audit_mark()

    with pytest.raises(
        PreconditionError,
        match=r"^configmap/kube-system/kube-dns has stubDomains corp.example, which the app's Corefile serves too: "
        r"node-cache reads both",
    ):
        deploy(open_session(client, props_source(props), read="deployable", out=lambda line: None))

    assert cluster.mutating_requests_since(mark) == []
    assert_nothing_deployed(api_client)
    # Without the mount, node-cache does not read the ConfigMap: the same zones deploy.
    deploy(
        open_session(
            client,
            props_source(replace(props, read_kube_dns_config_map=False)),
            read="deployable",
            out=lambda line: None,
        )
    )
    assert rest.get(api_client, rest.PATHS["daemon-set"]) is not None


def test_fails_when_output_would_hold_a_placeholder(cluster: ControlPlane, api_client: k8s.ApiClient) -> None:
    client = load_client(str(cluster.kubeconfig_path), None, timeout=10)
    props = NodeLocalDNSProps(image="registry.example/node-cache:__KUBE_DNS_CLUSTER_IP__")
    mark = cluster.audit_mark()

    with pytest.raises(
        InvalidConfigError,
        match=r"(?s)not deployable: .*DaemonSet kube-system/node-local-dns: "
        r"spec.template.spec.containers\[0\].image holds __KUBE_DNS_CLUSTER_IP__",
    ):
        deploy(open_session(client, props_source(props), read="deployable", out=lambda line: None))

    assert cluster.mutating_requests_since(mark) == []
    assert_nothing_deployed(api_client)


def test_fails_when_monitoring_crds_are_absent_unless_skipped(
    cluster: ControlPlane, api_client: k8s.ApiClient, capsys: pytest.CaptureFixture[str]
) -> None:
    cluster.uninstall_crds()
    try:
        mark = cluster.audit_mark()
        assert run(cluster) == 5
        assert "--skip-monitoring" in capsys.readouterr().err
        assert cluster.mutating_requests_since(mark) == []
        assert_nothing_deployed(api_client)

        assert run(cluster, "--skip-monitoring") == 0
        assert rest.get(api_client, rest.PATHS["daemon-set"]) is not None
        assert "; 2 monitoring object(s) skipped (--skip-monitoring)" in capsys.readouterr().out
    finally:
        cluster.install_crds()


def test_rerun_converges_after_the_apiserver_stops_between_services_and_workload(
    cluster: ControlPlane, api_client: k8s.ApiClient
) -> None:
    client = load_client(str(cluster.kubeconfig_path), None, timeout=5)

    def stop_after_services(line: str) -> None:
        if line.startswith("[5/7]") and "ClusterIP" in line:
            cluster.stop_apiserver()

    try:
        with pytest.raises(ApiUnreachableError, match="cannot reach the API server"):
            deploy(open_session(client, props_source(NodeLocalDNSProps()), read="deployable", out=stop_after_services))
    finally:
        if not cluster.apiserver_running:
            cluster.start_apiserver()
    api = cluster.api_client()
    assert rest.get(api, rest.PATHS["upstream"]) is not None
    assert rest.get(api, rest.PATHS["daemon-set"]) is None

    lines: list[str] = []
    client = load_client(str(cluster.kubeconfig_path), None, timeout=10)
    report = deploy(open_session(client, props_source(NodeLocalDNSProps()), read="deployable", out=lines.append))

    assert {r.action for r in report.objects if r.ref.kind == "Service"} == {"unchanged"}
    assert all(rest.get(api, path) is not None for path in rest.PATHS.values())
    assert "first_deploy=no freshly_created=no" in lines[0]
    mark = cluster.audit_mark()
    assert run(cluster) == 0
    assert cluster.mutating_requests_since(mark) == []


def test_dry_run_persists_nothing(
    cluster: ControlPlane, api_client: k8s.ApiClient, capsys: pytest.CaptureFixture[str]
) -> None:
    mark = cluster.audit_mark()

    assert run(cluster, "--dry-run") == 0

    assert cluster.mutating_requests_since(mark) == []
    dry_runs = [e for e in cluster.requests_since(mark) if "dryRun=All" in e["requestURI"]]
    assert len(dry_runs) == 8  # the ApplySet parent and the seven applies; no restart of a DaemonSet to come
    assert_nothing_deployed(api_client)
    assert "(dry run)" in capsys.readouterr().out


def test_diff_shows_a_changed_prop_and_writes_nothing(cluster: ControlPlane, api_client: k8s.ApiClient) -> None:
    assert run(cluster) == 0
    before = rest.resource_versions(api_client)
    client = load_client(str(cluster.kubeconfig_path), None, timeout=10)
    mark = cluster.audit_mark()

    report = deploy(
        open_session(
            client,
            props_source(replace(NodeLocalDNSProps(), cpu_request="50m")),
            read="deployable",
            out=lambda line: None,
        ),
        DeployOptions(diff=True),
    )

    assert list(report.diffs) == ["daemonset/kube-system/node-local-dns"]
    diff = report.diffs["daemonset/kube-system/node-local-dns"]
    assert re.search(r"^-\s+cpu: 25m$", diff, re.M) and re.search(r"^\+\s+cpu: 50m$", diff, re.M), diff
    assert cluster.mutating_requests_since(mark) == []
    assert rest.resource_versions(api_client) == before


def test_diff_on_an_up_to_date_cluster_says_no_changes(
    cluster: ControlPlane, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(cluster) == 0
    capsys.readouterr()

    assert run(cluster, "--diff") == 0

    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith(("[5/7] 0", "[6/7] 0"))]
    assert len(lines) == 3 and all(line.endswith(".k8s.yaml: no changes") for line in lines), lines


def test_fails_when_the_context_is_not_in_the_kubeconfig(
    cluster: ControlPlane, api_client: k8s.ApiClient, capsys: pytest.CaptureFixture[str]
) -> None:
    mark = cluster.audit_mark()

    assert run(cluster, "--context", "no-such-context") == 2

    assert capsys.readouterr().err == (
        f"error: context 'no-such-context' is not in kubeconfig {cluster.kubeconfig_path} (it has 'nld-test')\n"
    )
    assert cluster.requests_since(mark) == []
    assert_nothing_deployed(api_client)


@pytest.mark.parametrize("value", ["0", "-1", "inf", "nan", "soon"])
def test_fails_when_timeout_is_not_a_positive_finite_number(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--timeout", value]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: argument --timeout: must be a ") and f"got '{value}'" in err
    assert len(err.splitlines()) == 1


def test_switching_to_fallthrough_and_back_rolls_the_template_and_a_redeploy_writes_nothing(
    cluster: ControlPlane, api_client: k8s.ApiClient
) -> None:
    assert run(cluster) == 0
    stamp = restarted_at(api_client)
    client = load_client(str(cluster.kubeconfig_path), None, timeout=10)
    fallthrough = NodeLocalDNSProps(interception="fallthrough")
    mark = cluster.audit_mark()

    deploy(open_session(client, props_source(fallthrough), read="deployable", out=lambda line: None))

    # The parent records the keeper's ConfigMap as a member (constructs_nld.deploy.applyset).
    assert sorted(set(written_paths(cluster, mark))) == [
        "configmaps/node-local-dns-applyset",
        f"configmaps/{Keeper().config_map_name()}",
        "daemonsets/node-local-dns",
        "leases/node-local-dns-deploy",
    ]
    daemon_set = rest.get(api_client, rest.PATHS["daemon-set"])
    assert daemon_set is not None
    containers = daemon_set["spec"]["template"]["spec"]["containers"]
    assert [c["name"] for c in containers] == ["node-cache", "keeper"]
    assert containers[0]["args"][-1] == "-setupiptables=false"
    # A template change rolls the pods by itself: no restart of ours.
    assert restarted_at(api_client) == stamp
    mark = cluster.audit_mark()
    deploy(open_session(client, props_source(fallthrough), read="deployable", out=lambda line: None))
    assert cluster.mutating_requests_since(mark) == []

    assert run(cluster) == 0

    daemon_set = rest.get(api_client, rest.PATHS["daemon-set"])
    assert daemon_set is not None
    (container,) = daemon_set["spec"]["template"]["spec"]["containers"]
    assert "-setupiptables=false" not in container["args"]
    assert [v["name"] for v in daemon_set["spec"]["template"]["spec"]["volumes"]] == [
        "xtables-lock",
        "kube-dns-config",
        "config-volume",
    ]


def _deploy_lines(cluster: ControlPlane, props: NodeLocalDNSProps, options: DeployOptions) -> list[str]:
    lines: list[str] = []
    client = load_client(str(cluster.kubeconfig_path), None, timeout=10)
    deploy(open_session(client, props_source(props), read="deployable", out=lines.append), options)
    return lines


@pytest.mark.parametrize("options", [DeployOptions(diff=True), DeployOptions(dry_run=True)], ids=["diff", "dry-run"])
def test_a_cache_beyond_the_memory_request_is_warned_of_before_anything_is_written(
    cluster: ControlPlane, api_client: k8s.ApiClient, options: DeployOptions
) -> None:
    big = ForwardZone(names=("corp.example",), upstreams=("fd03::100",), cache=ZoneCache(success_capacity=100_000))
    mark = cluster.audit_mark()

    lines = _deploy_lines(cluster, NodeLocalDNSProps(zones=(big,), memory_request="160Mi"), options)

    (warning,) = [line for line in lines if line.startswith("warning: ")]
    assert "(189,696 entries of 5 block(s), success + denial: cluster.local:53 9,984 + 9,984; " in warning
    assert "; corp.example:53 99,840 + 9,984; .:53 9,984 + 9,984; " in warning
    assert "against a memory request of 160Mi: full caches would take more than node-cache requests" in warning
    assert re.search(r"set memory_request to at least [0-9]+Mi, or lower the capacities", warning), warning
    assert lines.index(warning) < next(i for i, line in enumerate(lines) if line.startswith("[5/7]"))
    assert cluster.mutating_requests_since(mark) == []
    assert_nothing_deployed(api_client)


def test_a_memory_request_that_covers_every_cache_full_is_deployed_without_a_warning(cluster: ControlPlane) -> None:
    lines = _deploy_lines(cluster, NodeLocalDNSProps(memory_request="160Mi"), DeployOptions(dry_run=True))

    assert [line for line in lines if line.startswith("warning: ")] == []
    assert any(line.startswith("[5/7]") for line in lines), lines
