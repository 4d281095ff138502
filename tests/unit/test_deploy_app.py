"""The app a deploy works on: running it as ``cdk8s synth`` does, and finding NodeLocal DNS in it."""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from constructs_nld import NodeLocalDNSProps
from constructs_nld.deploy import AppChart, AppCommand, locate, props_source
from constructs_nld.deploy.errors import InvalidConfigError
from constructs_nld.deploy.source import read_charts

CLUSTER_IP = "fd00:ec2::a"


@pytest.fixture(scope="module")
def charts() -> tuple[AppChart, ...]:
    return tuple(props_source(NodeLocalDNSProps())(CLUSTER_IP))


def one_chart(charts: tuple[AppChart, ...]) -> list[dict[str, Any]]:
    return [copy.deepcopy(obj) for chart in charts for obj in chart.objects]


# --- AppCommand: the project and its app -------------------------------------------------
def test_the_app_is_the_app_of_cdk8s_yaml(tmp_path: Path) -> None:
    (tmp_path / "cdk8s.yaml").write_text("language: python\napp: python team_app.py\n")

    assert AppCommand.from_project(tmp_path) == AppCommand("python team_app.py", tmp_path.resolve())


def test_app_flag_overrides_cdk8s_yaml(tmp_path: Path) -> None:
    assert AppCommand.from_project(tmp_path, command="python other.py").command == "python other.py"


def test_fails_when_there_is_no_cdk8s_yaml(tmp_path: Path) -> None:
    with pytest.raises(InvalidConfigError, match=r"^no cdk8s.yaml in .*: run from your cdk8s project, or name the app"):
        AppCommand.from_project(tmp_path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("app: [unclosed\n", r"^cannot read .*cdk8s.yaml: "),
        ("language: python\n", r"^.*cdk8s.yaml has no 'app:' command \(e.g. 'app: python main.py'\)$"),
        ("app: ''\n", r"^.*cdk8s.yaml has no 'app:' command"),
        ("- a list\n", r"^.*cdk8s.yaml has no 'app:' command"),
    ],
)
def test_fails_when_cdk8s_yaml_names_no_app(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "cdk8s.yaml").write_text(text)

    with pytest.raises(InvalidConfigError, match=message):
        AppCommand.from_project(tmp_path)


def test_fails_when_app_flag_is_empty(tmp_path: Path) -> None:
    with pytest.raises(InvalidConfigError, match=r"^--app: must be a command such as 'python main.py'"):
        AppCommand.from_project(tmp_path, command=" ")


def test_the_app_runs_with_the_cluster_ip_and_the_deploys_python_first_on_path(tmp_path: Path) -> None:
    script = (
        "import os, sys\n"
        "out = os.environ['CDK8S_OUTDIR']\n"
        "os.makedirs(out)\n"
        "open(os.path.join(out, 'app.k8s.yaml'), 'w').write(\n"
        "    'apiVersion: v1\\nkind: ConfigMap\\nmetadata: {name: seen}\\ndata:\\n'\n"
        '    f\'  ip: "{os.environ.get("KUBE_DNS_CLUSTER_IP", "none")}"\\n  python: "{sys.executable}"\\n\')\n'
    )
    (tmp_path / "app.py").write_text(script)
    app = AppCommand("python app.py", tmp_path)

    (with_ip,) = app(CLUSTER_IP)
    (preview,) = app(None)

    assert with_ip.name == "app.k8s.yaml"
    assert with_ip.objects[0]["data"] == {"ip": CLUSTER_IP, "python": str(Path(sys.executable).parent / "python")}
    assert preview.objects[0]["data"]["ip"] == "none"


def test_fails_with_the_apps_own_error_when_it_fails(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(
        "import sys\nprint('local_ip: must be an IPv6 address', file=sys.stderr)\nsys.exit(2)\n"
    )

    with pytest.raises(
        InvalidConfigError, match=r"(?s)^the app 'python app.py' failed \(exit 2\) in .*:\nlocal_ip: must"
    ):
        AppCommand("python app.py", tmp_path)(None)


def test_charts_are_read_in_file_order(tmp_path: Path) -> None:
    (tmp_path / "0001-b.k8s.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n")
    (tmp_path / "0000-a.k8s.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a1}\n---\n"
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a2}\n"
    )

    charts = read_charts(tmp_path, "python main.py")

    assert [(c.name, [o["metadata"]["name"] for o in c.objects]) for c in charts] == [
        ("0000-a.k8s.yaml", ["a1", "a2"]),
        ("0001-b.k8s.yaml", ["b"]),
    ]


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({}, r"^the app 'python main.py' wrote no manifests: does it call app.synth\(\)\?"),
        ({"a.yaml": "a: [b"}, r"^the app wrote a.yaml, which is not YAML: "),
        ({"a.yaml": "just: text\n"}, r"^the app wrote a.yaml holding something that is not a manifest"),
    ],
)
def test_fails_when_the_output_is_not_manifests(tmp_path: Path, files: dict[str, str], message: str) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)

    with pytest.raises(InvalidConfigError, match=message):
        read_charts(tmp_path, "python main.py")


def test_fails_when_the_app_wrote_nothing(tmp_path: Path) -> None:
    with pytest.raises(InvalidConfigError, match=r"^the app 'true' wrote nothing: does it call app.synth\(\)\?"):
        read_charts(tmp_path / "dist", "true")


# --- locate: NodeLocal DNS in the app ------------------------------------------------------
def test_locates_every_object_of_the_component(charts: tuple[AppChart, ...]) -> None:
    component = locate(charts)

    assert component.namespace == "kube-system"
    assert [f"{o['kind']}/{o['metadata']['name']}" for o in component.objects()] == [
        "Service/kube-dns-upstream",
        "Service/node-local-dns-metrics",
        "ServiceAccount/node-local-dns",
        "ConfigMap/node-local-dns",
        "DaemonSet/node-local-dns",
        "PodMonitor/nodelocaldns",
        "PrometheusRule/nodelocaldns-alerts",
    ]
    assert component.local_ips == ("fd00::10", CLUSTER_IP)
    assert component.pod_selector == "k8s-app=node-local-dns"


def test_locates_the_component_among_the_users_own_objects(charts: tuple[AppChart, ...]) -> None:
    mine = AppChart("0000-mine.k8s.yaml", ({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}},))

    assert locate((mine, *charts)).daemon_set["metadata"]["name"] == "node-local-dns"


def test_fails_when_the_app_has_no_node_cache(charts: tuple[AppChart, ...]) -> None:
    without = tuple(AppChart(c.name, tuple(o for o in c.objects if o["kind"] != "DaemonSet")) for c in charts)

    with pytest.raises(InvalidConfigError, match=r"^the app defines no NodeLocal DNS DaemonSet"):
        locate(without)


def test_fails_when_the_app_has_two(charts: tuple[AppChart, ...]) -> None:
    with pytest.raises(InvalidConfigError, match=r"^the app defines 2 node-cache DaemonSets \(daemonset/kube-system"):
        locate((*charts, *charts))


def test_fails_when_the_upstream_service_is_missing(charts: tuple[AppChart, ...]) -> None:
    without = tuple(
        AppChart(c.name, tuple(o for o in c.objects if o["metadata"]["name"] != "kube-dns-upstream")) for c in charts
    )

    with pytest.raises(
        InvalidConfigError,
        match=r"^node-cache's -upstreamsvc names service/kube-system/kube-dns-upstream, which the app does not define",
    ):
        locate(without)


def test_fails_when_the_daemon_set_comes_before_the_upstream_service(charts: tuple[AppChart, ...]) -> None:
    objects = one_chart(charts)
    upstream = next(o for o in objects if o["metadata"]["name"] == "kube-dns-upstream")
    objects.remove(upstream)
    objects.append(upstream)

    with pytest.raises(
        InvalidConfigError,
        match=r"^the app orders daemonset/kube-system/node-local-dns before service/kube-system/kube-dns-upstream: "
        r"kubelet injects KUBE_DNS_UPSTREAM_SERVICE_HOST only into pods created after the Service",
    ):
        locate((AppChart("all.k8s.yaml", tuple(objects)),))


def test_fails_when_the_daemon_set_has_no_namespace(charts: tuple[AppChart, ...]) -> None:
    objects = one_chart(charts)
    next(o for o in objects if o["kind"] == "DaemonSet")["metadata"].pop("namespace")

    with pytest.raises(InvalidConfigError, match=r"^daemonset/node-local-dns has no metadata.namespace"):
        locate((AppChart("all.k8s.yaml", tuple(objects)),))


def test_fails_when_the_app_did_not_take_the_live_cluster_ip(charts: tuple[AppChart, ...]) -> None:
    with pytest.raises(
        InvalidConfigError,
        match=r"^the app's node-cache -localip is fd00::10,fd00:ec2::a, which lacks kube-dns's live ClusterIP "
        r"fd00:ec2::b: let the app take it from \$KUBE_DNS_CLUSTER_IP",
    ):
        locate(charts).check_cluster_ip("fd00:ec2::b")


def test_the_cluster_ip_is_compared_by_value(charts: tuple[AppChart, ...]) -> None:
    component = locate(charts)
    spelled_otherwise = "FD00:EC2:0:0:0:0:0:A"

    assert spelled_otherwise not in component.local_ips
    component.check_cluster_ip(spelled_otherwise)  # the same address: accepted
    with pytest.raises(InvalidConfigError, match=r"lacks kube-dns's live ClusterIP fd00:ec2::a0"):
        component.check_cluster_ip("fd00:ec2::a0")


def test_a_preview_is_located_too() -> None:
    component = locate(tuple(props_source(NodeLocalDNSProps())(None)))

    assert component.local_ips == ("fd00::10", "__KUBE_DNS_CLUSTER_IP__")


def test_props_source_refuses_bad_props_as_invalid_config() -> None:
    with pytest.raises(InvalidConfigError, match=r"^kube_dns_cluster_ip: "):
        props_source(NodeLocalDNSProps())("10.100.0.10")


def test_a_yaml_round_trip_of_the_app_locates_the_same(charts: tuple[AppChart, ...], tmp_path: Path) -> None:
    for index, chart in enumerate(charts):
        (tmp_path / f"{index:04d}-{chart.name}.k8s.yaml").write_text(yaml.safe_dump_all(chart.objects))

    assert locate(read_charts(tmp_path, "python main.py")).objects() == locate(charts).objects()


# --- locate: by the labels each construct writes ------------------------------------------
def _labelled(objects: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    return next(o for o in objects if o["kind"] == kind and o["metadata"]["name"] == name)


def test_an_app_of_hand_composed_constructs_is_found_by_its_labels() -> None:
    from constructs_nld.runtime import cdk8s
    from constructs_nld.services import UpstreamService
    from constructs_nld.workload import NodeCacheDaemonSet, NodeCacheDaemonSetProps

    app = cdk8s.App()
    services = cdk8s.Chart(app, "team-services")
    UpstreamService(services, "upstream")
    workload = cdk8s.Chart(app, "team-workload")
    NodeCacheDaemonSet(workload, "nld", NodeCacheDaemonSetProps(name="team-nld", kube_dns_cluster_ip=CLUSTER_IP))
    workload.add_dependency(services)
    charts = tuple(AppChart(chart.node.id, tuple(chart.to_json())) for chart in app.charts)

    component = locate(charts)

    assert [(role.value, o["metadata"]["name"]) for role, o in component.members] == [
        ("upstream-service", "kube-dns-upstream"),
        ("node-cache", "team-nld"),
    ]
    assert component.corefile is None and component.metrics_service is None


def test_fails_naming_an_object_whose_labels_and_kind_disagree(charts: tuple[AppChart, ...]) -> None:
    objects = one_chart(charts)
    _labelled(objects, "ServiceAccount", "node-local-dns")["metadata"]["labels"]["app.kubernetes.io/component"] = (
        "corefile"
    )

    with pytest.raises(
        InvalidConfigError,
        match=r"^serviceaccount/kube-system/node-local-dns is labelled app.kubernetes.io/component=corefile, "
        r"which is a ConfigMap \(v1\), but it is a ServiceAccount \(v1\): its labels and its YAML disagree$",
    ):
        locate((AppChart("all.k8s.yaml", tuple(objects)),))


def test_fails_naming_a_node_cache_daemon_set_without_node_cache(charts: tuple[AppChart, ...]) -> None:
    objects = one_chart(charts)
    _labelled(objects, "DaemonSet", "node-local-dns")["spec"]["template"]["spec"]["containers"][0]["name"] = "cache"

    with pytest.raises(
        InvalidConfigError,
        match=r"^daemonset/kube-system/node-local-dns is labelled app.kubernetes.io/component=node-cache but has no "
        r"container 'node-cache' running node-cache with -localip and -upstreamsvc",
    ):
        locate((AppChart("all.k8s.yaml", tuple(objects)),))


def test_fails_naming_a_hand_written_service_the_daemon_set_forwards_to(charts: tuple[AppChart, ...]) -> None:
    objects = one_chart(charts)
    labels = _labelled(objects, "Service", "kube-dns-upstream")["metadata"]["labels"]
    del labels["app.kubernetes.io/name"], labels["app.kubernetes.io/component"]

    with pytest.raises(
        InvalidConfigError,
        match=r"^service/kube-system/kube-dns-upstream, which daemonset/kube-system/node-local-dns's -upstreamsvc "
        r"names, does not say what it is \(no labels app.kubernetes.io/name=node-local-dns, "
        r"app.kubernetes.io/component=upstream-service\)",
    ):
        locate((AppChart("all.k8s.yaml", tuple(objects)),))


def test_fails_naming_a_hand_written_corefile_the_pods_mount(charts: tuple[AppChart, ...]) -> None:
    objects = one_chart(charts)
    del _labelled(objects, "ConfigMap", "node-local-dns")["metadata"]["labels"]["app.kubernetes.io/name"]

    with pytest.raises(
        InvalidConfigError,
        match=r"^configmap/kube-system/node-local-dns, which daemonset/kube-system/node-local-dns's Corefile volume "
        r"names, does not say what it is",
    ):
        locate((AppChart("all.k8s.yaml", tuple(objects)),))


def test_fails_naming_the_hand_written_daemon_sets_of_an_app_without_labels(charts: tuple[AppChart, ...]) -> None:
    objects = one_chart(charts)
    for obj in objects:
        obj["metadata"]["labels"] = {
            k: v for k, v in obj["metadata"]["labels"].items() if not k.startswith("app.kubernetes.io/")
        }

    with pytest.raises(
        InvalidConfigError,
        match=r"^the app defines no NodeLocal DNS DaemonSet \(labels app.kubernetes.io/name=node-local-dns, "
        r"app.kubernetes.io/component=node-cache\); its DaemonSets daemonset/kube-system/node-local-dns do not say "
        r"what they are",
    ):
        locate((AppChart("all.k8s.yaml", tuple(objects)),))


def test_fails_when_the_upstream_label_is_on_another_service_than_upstreamsvc_names(
    charts: tuple[AppChart, ...],
) -> None:
    objects = one_chart(charts)
    _labelled(objects, "Service", "kube-dns-upstream")["metadata"]["name"] = "dns-upstream"

    with pytest.raises(
        InvalidConfigError,
        match=r"^daemonset/kube-system/node-local-dns's -upstreamsvc names service/kube-system/kube-dns-upstream, "
        r"but the app labels service/kube-system/dns-upstream as its upstream-service: "
        r"the labels and the YAML disagree",
    ):
        locate((AppChart("all.k8s.yaml", tuple(objects)),))


def test_fails_on_a_role_nodelocal_dns_does_not_have(charts: tuple[AppChart, ...]) -> None:
    objects = one_chart(charts)
    _labelled(objects, "ConfigMap", "node-local-dns")["metadata"]["labels"]["app.kubernetes.io/component"] = "cache"

    with pytest.raises(
        InvalidConfigError,
        match=r"^configmap/kube-system/node-local-dns is labelled app.kubernetes.io/component='cache', which is not a "
        r"role of NodeLocal DNS \(one of upstream-service, metrics-service, ",
    ):
        locate((AppChart("all.k8s.yaml", tuple(objects)),))


def test_fails_when_a_labelled_metrics_service_is_not_headless(charts: tuple[AppChart, ...]) -> None:
    objects = one_chart(charts)
    del _labelled(objects, "Service", "node-local-dns-metrics")["spec"]["clusterIP"]

    with pytest.raises(
        InvalidConfigError,
        match=r"^service/kube-system/node-local-dns-metrics is labelled app.kubernetes.io/component=metrics-service "
        r"but is not headless",
    ):
        locate((AppChart("all.k8s.yaml", tuple(objects)),))
