"""``deploy.py verify`` against a real kube-apiserver, one failure mode of the spec's objects at a time.

These failure modes are in the objects themselves (a Service, a ConfigMap, a rule), so
the plain control plane serves. What controllers and kubelets make — pods, their
readiness, rollouts, placement by taints — is verified on the simulated fleet, from state
the controllers wrote (``test_fleet.py``); no status is written by hand anywhere.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from kubernetes import client as k8s

from constructs_nld import ForwardZone, NodeLocalDNSProps
from constructs_nld.deploy import CheckResult, deploy, load_client, open_session, props_source, verify
from constructs_nld.deploy.cli import main
from tests.controlplane import ControlPlane
from tests.integration import rest

LATER = datetime.now(UTC) + timedelta(days=1)
"""A 'now' after every node's creation, so no node counts as new unless a test says so."""


def run_verify(cluster: ControlPlane, *, now: datetime = LATER) -> dict[str, CheckResult]:
    client = load_client(str(cluster.kubeconfig_path), None, timeout=10)
    return {
        result.name: result
        for result in verify(open_session(client, props_source(NodeLocalDNSProps()), read="installed"), now=now)
    }


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


KUBE_DNS_STUBS = {"stubDomains": '{"corp.example": ["fd03::100"]}', "upstreamNameservers": "[]"}
"""A kube-dns ConfigMap sending corp.example to the company's resolver (and no upstreams: ``[]``)."""


def verify_app(cluster: ControlPlane, props: NodeLocalDNSProps) -> dict[str, CheckResult]:
    client = load_client(str(cluster.kubeconfig_path), None, timeout=10)
    return {
        result.name: result for result in verify(open_session(client, props_source(props), read="installed"), now=LATER)
    }


def test_stub_domains_node_cache_reads_from_the_kube_dns_configmap_are_reported(
    cluster: ControlPlane, api_client: k8s.ApiClient
) -> None:
    assert main(["--kubeconfig", str(cluster.kubeconfig_path)]) == 0
    assert run_verify(cluster)["kube-dns-configmap"].status == "pass"
    rest.create_kube_dns_config_map(api_client, KUBE_DNS_STUBS)

    result = run_verify(cluster)["kube-dns-configmap"]

    assert result.status == "warn"
    assert result.detail == (
        "node-cache serves stubDomains: corp.example → fd03::100 from configmap/kube-system/kube-dns, outside the app"
    )
    assert result.fix == (
        "move them to NodeLocalDNSProps.zones and upstream_servers in the app, and set read_kube_dns_config_map=False"
    )


def test_upstream_nameservers_the_apps_upstream_servers_override_are_said_to_be_ignored(
    cluster: ControlPlane, api_client: k8s.ApiClient
) -> None:
    props = NodeLocalDNSProps(upstream_servers=("fd03::200",))
    deploy(
        open_session(
            load_client(str(cluster.kubeconfig_path), None, timeout=10),
            props_source(props),
            read="deployable",
            out=lambda line: None,
        )
    )
    rest.create_kube_dns_config_map(api_client, {"upstreamNameservers": '["fd03::53"]'})

    result = verify_app(cluster, props)["kube-dns-configmap"]

    assert result.status == "warn"
    assert result.detail.endswith("(its upstreamNameservers are ignored: the app's upstream_servers win)")


def test_a_stub_domain_the_app_serves_too_fails_verify(cluster: ControlPlane, api_client: k8s.ApiClient) -> None:
    assert main(["--kubeconfig", str(cluster.kubeconfig_path)]) == 0
    rest.create_kube_dns_config_map(api_client, {"stubDomains": '{"cluster.local": ["fd03::100"]}'})

    result = run_verify(cluster)["kube-dns-configmap"]

    assert result.status == "fail"
    assert result.detail == (
        "configmap/kube-system/kube-dns has stubDomains cluster.local, which the app's Corefile serves too"
    )
    assert "CoreDNS refuses a zone served twice: node-cache exits" in result.diagnosis


def test_an_app_that_does_not_mount_the_kube_dns_configmap_is_told_what_is_not_read(
    cluster: ControlPlane, api_client: k8s.ApiClient
) -> None:
    props = NodeLocalDNSProps(read_kube_dns_config_map=False)
    client = load_client(str(cluster.kubeconfig_path), None, timeout=10)
    deploy(open_session(client, props_source(props), read="deployable", out=lambda line: None))
    rest.create_kube_dns_config_map(api_client, KUBE_DNS_STUBS)

    result = verify_app(cluster, props)["kube-dns-configmap"]

    assert result.status == "warn"
    assert result.detail == (
        "configmap/kube-system/kube-dns sets stubDomains: corp.example → fd03::100, which node-cache does not read "
        "(the app does not mount it)"
    )


def test_live_matches_app_covers_the_new_knobs(cluster: ControlPlane, api_client: k8s.ApiClient) -> None:
    props = NodeLocalDNSProps(
        zones=(ForwardZone(names=("corp.example",), upstreams=("fd03::100",)),),
        node_selector={"node-fleet": "cpu"},
        update_strategy="OnDelete",
    )
    deploy(
        open_session(
            load_client(str(cluster.kubeconfig_path), None, timeout=10),
            props_source(props),
            read="deployable",
            out=lambda line: None,
        )
    )
    assert verify_app(cluster, props)["live-matches-app"].status == "pass"
    rest.request(
        api_client,
        "PATCH",
        rest.PATHS["daemon-set"],
        {"spec": {"template": {"spec": {"nodeSelector": {"node-fleet": "gpu"}}}}},
        "application/merge-patch+json",
    )

    result = verify_app(cluster, props)["live-matches-app"]

    assert result.status == "fail"
    assert result.detail == "daemonset/kube-system/node-local-dns differs"
    assert verify_app(cluster, NodeLocalDNSProps())["live-matches-app"].status == "fail"


def test_the_specs_caches_full_exceed_its_memory_request_and_verify_warns_naming_the_blocks(
    cluster: ControlPlane,
) -> None:
    assert main(["--kubeconfig", str(cluster.kubeconfig_path)]) == 0

    result = run_verify(cluster)["cache-memory-budget"]

    assert result.status == "warn", result
    assert result.detail.startswith("the caches' worst case is "), result.detail
    assert "(79,872 entries of 4 block(s), success + denial: cluster.local:53 9,984 + 9,984; in-addr.arpa:53 " in (
        result.detail
    )
    assert result.detail.endswith("against a memory request of 100Mi"), result.detail
    assert re.fullmatch(
        r"set NodeLocalDNSProps.memory_request to at least \d+Mi and deploy, or lower the cache capacities "
        r'\(docs/configuration.md, "Sizing the memory request"\)',
        result.fix,
    ), result.fix


def test_verify_reads_the_live_corefile_and_request_and_passes_when_the_request_covers_them(
    cluster: ControlPlane, api_client: k8s.ApiClient
) -> None:
    assert main(["--kubeconfig", str(cluster.kubeconfig_path)]) == 0
    config_map = rest.get(api_client, rest.PATHS["config-map"])
    assert config_map is not None
    small = config_map["data"]["Corefile"].replace(
        "    cache 30\n", "    cache 30 {\n        success 1024\n        denial 1024\n    }\n"
    )
    rest.request(
        api_client, "PATCH", rest.PATHS["config-map"], {"data": {"Corefile": small}}, "application/merge-patch+json"
    )

    result = run_verify(cluster)["cache-memory-budget"]

    assert result.status == "pass", result
    assert (
        "(26,112 entries of 4 block(s), success + denial: cluster.local:53 9,984 + 9,984; in-addr.arpa:53 1,024 + "
        in result.detail
    )
