"""The Grafana dashboard: its model, its ConfigMap, and its place in the monitoring chart."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from constructs_nld import GrafanaDashboardProps, NodeLocalDNSProps, synthesize
from constructs_nld.dashboard import dashboard_panels

TITLES = [
    "Queries per second by zone",
    "Queries per second by node",
    "Cache hit ratio",
    "Mean response time by node",
    "Forward errors to the upstream",
    "Setup errors by errortype",
    "Restarts in the last hour",
    "Unavailable pods",
    "Metrics targets up",
]


def _objects(props: NodeLocalDNSProps) -> list[dict[str, Any]]:
    return [obj for chart in synthesize(props) for obj in chart.objects]


def _dashboard(props: NodeLocalDNSProps) -> tuple[dict[str, Any], dict[str, Any]]:
    (config_map,) = [o for o in _objects(props) if o["metadata"]["name"] == "nodelocaldns-dashboard"]
    return config_map, json.loads(config_map["data"]["nodelocaldns.json"])


def test_the_dashboard_is_off_by_default() -> None:
    assert [o for o in _objects(NodeLocalDNSProps()) if o["metadata"]["name"] == "nodelocaldns-dashboard"] == []


def test_the_dashboard_joins_the_monitoring_chart_as_a_sidecar_config_map() -> None:
    charts = {chart.phase: chart.objects for chart in synthesize(NodeLocalDNSProps(dashboard=True))}
    config_map, model = _dashboard(NodeLocalDNSProps(dashboard=True))

    assert [(o["kind"], o["metadata"]["name"]) for o in charts["monitoring"]][-1] == (
        "ConfigMap",
        "nodelocaldns-dashboard",
    )
    assert config_map["metadata"] == {
        "name": "nodelocaldns-dashboard",
        "namespace": "monitoring",
        "labels": {
            "grafana_dashboard": "1",
            "app.kubernetes.io/name": "node-local-dns",
            "app.kubernetes.io/component": "dashboard",
        },
    }
    assert list(config_map["data"]) == ["nodelocaldns.json"]
    assert (model["uid"], model["title"], model["refresh"]) == ("nodelocaldns", "NodeLocal DNSCache", "1m")
    assert [panel["title"] for panel in model["panels"]] == TITLES
    assert [v["name"] for v in model["templating"]["list"]] == ["datasource", "node"]


def test_every_query_selects_the_apps_job_or_daemon_set_and_a_prometheus_data_source() -> None:
    props = NodeLocalDNSProps(dashboard=True, monitoring_namespace="observability")
    _, model = _dashboard(props)

    for panel in model["panels"]:
        assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}
        assert [t["refId"] for t in panel["targets"]] == ["A", "B"][: len(panel["targets"])]
        for target in panel["targets"]:
            expr = target["expr"]
            assert 'job="observability/nodelocaldns", node=~"$node"' in expr or 'namespace="kube-system"' in expr, expr
            assert "monitoring/" not in expr


def test_the_queries_are_valid_promql(tmp_path: Path) -> None:
    promtool = shutil.which("promtool")
    if promtool is None:
        pytest.fail("promtool is not installed: apt-get install -y prometheus")
    panels = dashboard_panels(job="monitoring/nodelocaldns", namespace="kube-system", daemon_set="nld", container="c")
    rules = [
        {"record": f"panel_{i}_{j}", "expr": q.expr.replace("$__rate_interval", "4m").replace("$node", ".*")}
        for i, panel in enumerate(panels)
        for j, q in enumerate(panel.queries)
    ]
    (tmp_path / "panels.yaml").write_text(yaml.safe_dump({"groups": [{"name": "panels", "rules": rules}]}))

    done = subprocess.run(
        [promtool, "check", "rules", "panels.yaml"], cwd=tmp_path, capture_output=True, text=True, check=False
    )

    assert done.returncode == 0, done.stdout + done.stderr
    assert f"SUCCESS: {len(rules)} rules found" in done.stdout


def test_labels_come_from_the_props() -> None:
    config_map, _ = _dashboard(NodeLocalDNSProps(dashboard=True, dashboard_labels={"grafana_dashboard": "nld"}))

    assert config_map["metadata"]["labels"] == {
        "grafana_dashboard": "nld",
        "app.kubernetes.io/name": "node-local-dns",
        "app.kubernetes.io/component": "dashboard",
    }


def test_fails_when_the_dashboard_is_on_without_monitoring() -> None:
    with pytest.raises(ValueError, match=r"^dashboard: needs monitoring=True"):
        NodeLocalDNSProps(dashboard=True, monitoring=False)


def test_fails_when_dashboard_labels_are_invalid() -> None:
    with pytest.raises(ValueError, match=r"^dashboard_labels: "):
        NodeLocalDNSProps(dashboard=True, dashboard_labels={"grafana dashboard": "1"})


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"job": "nodelocaldns"}, r"^job: must be '<namespace>/<name>' of the PodMonitor, got 'nodelocaldns'"),
        ({"uid": "a uid"}, r"^uid: must be 1-40 letters"),
        ({"title": " "}, r"^title: must not be empty"),
        ({"daemon_set": "Node_Local"}, r"^daemon_set: must be a DNS label"),
    ],
)
def test_fails_when_dashboard_props_are_invalid(kwargs: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        GrafanaDashboardProps(**kwargs)  # type: ignore[arg-type]
