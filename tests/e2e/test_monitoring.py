"""The monitoring chart on a real scrape: PodMonitor, alerts, soak and dashboard, as a day in a node's life.

One real node (:mod:`tests.e2e.realnode`: kubelet, containerd and kube-proxy v1.34.4) runs the
synthesized DaemonSet's pod, node-cache 1.26.8, while the pod of the test bed resolves cluster
and external names through the kube-dns ClusterIP; Prometheus 3.13.1 scrapes it with the
configuration prometheus-operator v0.93.0 generated from the app's PodMonitor and rules
(:mod:`tests.e2e.monitoring`), and the real kube-state-metrics reports what the DaemonSet
controller and kubelet say of it. The app's props differ from the defaults only where time
forces it: scrapes every 5 s and alerts pending 10 s (the shipped ``for`` values are the
spec's); kubelet's crash-loop back-off is capped at 10 s. The tests run in file order on that
one cluster: first the pre-NodeLocal-DNS baseline (set up by the fixture), then the scrape and
a quiet day with a rollout, which the soak passes; then one incident per alert, each from a
real cause; then the dashboard, and the soak again, which now fails.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from constructs_nld import NodeLocalDNSProps, synthesize
from constructs_nld.deploy.promapi import Series
from tests.controlplane import REPO_ROOT
from tests.e2e import probes
from tests.e2e.monitoring import COREDNS_JOB, KSM_JOB, MonitoringStack
from tests.e2e.netns import Testbed, require_root
from tests.e2e.nodecache import node_cache_binary_or_skip
from tests.e2e.realnode import NODE_NAME, SERVED_NAMES, RealNodeBed, kubectl_objects, real_node
from tests.harness.images import ImageArchive
from tests.harness.prometheus import Prometheus
from tests.harness.resolver import ResolverLoad

NODE_CACHE_BINARY = node_cache_binary_or_skip()

JOB = "monitoring/nodelocaldns"
NODE = NODE_NAME
APP = """\
from constructs_nld import AlertSettings, NodeLocalDNSAlerts, NodeLocalDNSProps, props_from_environment
from constructs_nld.app import main

WARNING = AlertSettings(for_="10s", severity="warning")
props = NodeLocalDNSProps(
    scrape_interval="5s",
    dashboard=True,
    alerts=NodeLocalDNSAlerts(
        setup_errors=AlertSettings(for_="10s", severity="critical"),
        pod_restarting=WARNING,
        daemonset_degraded=WARNING,
        target_down=WARNING,
    ),
)
if __name__ == "__main__":
    raise SystemExit(main(props))
"""
"""The app of this cluster: the spec's props but for 5 s scrapes, alerts pending 10 s and the dashboard on."""


def _app_props() -> NodeLocalDNSProps:
    scope: dict[str, object] = {}
    exec(APP, scope)  # noqa: S102 - the app above, so the stack and deploy.py soak see the same one
    props = scope["props"]
    assert isinstance(props, NodeLocalDNSProps)
    return replace(props, kube_dns_cluster_ip="fd00:ec2::a")


PROPS = _app_props()
BASELINE_SECONDS = 40
"""How long the pod resolves through kube-proxy to cluster CoreDNS before node-cache starts."""
NAMES = (*SERVED_NAMES, "www.example.com")
SCRAPE = 5.0


@dataclass
class Day:
    """The real node, the monitoring stack and the pod's lookups."""

    node: RealNodeBed
    stack: MonitoringStack
    prometheus: Prometheus
    node_cache_from: float
    """Unix time the app was deployed (node-cache's first scrape follows)."""
    app: Path
    """The app's file, for ``deploy.py soak --app``."""

    @property
    def bed(self) -> Testbed:
        """The node's namespaces."""
        return self.node.bed

    def pod(self) -> dict[str, Any]:
        """The node's node-cache pod (not being deleted), ready or not."""
        return self.node.current_pod()


@pytest.fixture(scope="module")
def day(tmp_path_factory: pytest.TempPathFactory, images: list[ImageArchive]) -> Iterator[Day]:
    require_root()
    work = tmp_path_factory.mktemp("monitoring")
    app = work / "app.py"
    app.write_text(APP)
    with (
        real_node(work / "node", images, max_restart_period=10) as node,
        MonitoringStack(node, PROPS, work / "stack") as stack,
    ):
        prometheus = stack.prometheus
        assert prometheus is not None
        load = ResolverLoad(node.bed.pod, node.bed.ips.kube_dns, NAMES, rate=20, count=20 * 900)
        try:
            stack.cluster_pods()
            stack.wait_scraped("monitoring/coredns", 1)
            prometheus.wait_scrapes(COREDNS_JOB, round(BASELINE_SECONDS / SCRAPE))
            began = time.time()
            node.deploy(PROPS, wait=True, stall_after=60)
            node.wait_intercepting()
            stack.wait_scraped(JOB, 2)
            # CoreDNS makes its per-server series at the first lookup it serves: the first scrape of
            # a new pod may come before it (a loaded machine), so the day starts once one has been ingested.
            prometheus.wait_for(
                "node-cache's served lookups scraped",
                lambda: bool(prometheus.api.query(f'coredns_dns_requests_total{{job="{JOB}"}}')),
                timeout=60,
            )
            yield Day(node, stack, prometheus, began, app)
        finally:
            load.stop()


def values(prometheus: Prometheus, expr: str) -> list[tuple[dict[str, str], float]]:
    return [(dict(series.labels), series.samples[0][1]) for series in prometheus.api.query(expr)]


def wait_firing(day: Day, alert: str, instances: int = 1, timeout: float = 90) -> list[dict[str, str]]:
    """Wait until ``instances`` alerts named ``alert`` fire; return their labels."""
    day.prometheus.wait_for(
        f"{instances} {alert} firing",
        lambda: len(day.prometheus.firing().get(alert, [])) >= instances,
        timeout=timeout,
    )
    return day.prometheus.firing()[alert]


def run_soak(day: Day, *args: str) -> subprocess.CompletedProcess[str]:
    window = int(time.time() - day.node_cache_from - 2 * SCRAPE)
    return subprocess.run(
        [sys.executable, "deploy.py", "soak", "--app", f"python {day.app}", "--prometheus", day.prometheus.url,
         "--window", f"{window}s", "--baseline-window", f"{BASELINE_SECONDS - 10}s", *args],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


# --------------------------------------------------------------------- the scrape ---
def test_both_endpoints_are_up_with_the_node_label(day: Day) -> None:
    up = values(day.prometheus, f'up{{job="{JOB}"}}')

    assert sorted((labels["endpoint"], labels["instance"], labels["node"], value) for labels, value in up) == [
        ("metrics", "[fd01::1]:9253", NODE, 1.0),
        ("metrics-binary", "[fd01::1]:9353", NODE, 1.0),
    ]


def test_every_node_cache_series_carries_the_node_label(day: Day) -> None:
    everything = values(day.prometheus, f'{{job="{JOB}", __name__!~"ALERTS.*"}}')

    assert len(everything) > 50
    assert [labels for labels, _ in everything if labels.get("node") != NODE] == []


def test_the_dropped_families_are_exported_but_not_ingested(day: Day, measured: Callable[[str], None]) -> None:
    dropped = r"go_.*|process_.*|coredns_.*_request_duration_seconds_bucket"
    exported = probes.scrape(day.bed.node, "http://[fd01::1]:9253/metrics")
    buckets = [s for s in exported.samples if s.name.endswith("_request_duration_seconds_bucket")]
    measured(
        f"node-cache's exposition on 9253: {len(exported.samples)} series, {len(buckets)} of them "
        f"*_request_duration_seconds_bucket ({len(buckets) / len(exported.samples):.0%}), dropped by the PodMonitor"
    )

    assert {s.name.split("_")[0] for s in exported.samples if s.name.startswith(("go_", "process_"))} == {
        "go",
        "process",
    }
    assert exported.series("coredns_dns_request_duration_seconds_bucket")
    assert values(day.prometheus, f'{{job="{JOB}", __name__=~"{dropped}"}}') == []
    assert values(day.prometheus, f'{{job="{JOB}", __name__="coredns_dns_request_duration_seconds_count"}}') != []


def test_setup_errors_come_from_9353_and_no_series_is_ingested_twice(day: Day) -> None:
    errors = values(day.prometheus, "coredns_nodecache_setup_errors_total")
    # Prometheus' own series left out: up, scrape_*, and ALERTS (a target down for the first scrape
    # of the new pod makes a MetricsDown alert pending, one per endpoint).
    series = values(day.prometheus, f'{{job="{JOB}", __name__!~"up|scrape_.*|ALERTS.*"}}')
    identities = [
        tuple(sorted((k, v) for k, v in labels.items() if k not in ("endpoint", "instance"))) for labels, _ in series
    ]

    assert sorted((labels["errortype"], labels["endpoint"], value) for labels, value in errors) == [
        ("configmap", "metrics-binary", 0.0),
        ("interface_add", "metrics-binary", 0.0),
        ("interface_check", "metrics-binary", 0.0),
        ("iptables", "metrics-binary", 0.0),
        ("iptables_lock", "metrics-binary", 0.0),
    ]
    assert len(identities) == len(set(identities))
    assert {labels["endpoint"] for labels, _ in series if labels["__name__"] == "coredns_dns_requests_total"} == {
        "metrics"
    }


# ------------------------------------------------------- a quiet day, with a rollout ---
def test_no_alert_is_pending_or_firing_while_node_cache_is_healthy(day: Day) -> None:
    # Several scrapes of node-cache, then an evaluation of every rule on what they brought.
    day.prometheus.wait_scrapes(JOB, 3)
    day.prometheus.wait_evaluated(time.time())

    assert day.prometheus.alerts() == []


def test_the_soak_passes_on_the_live_scrape_after_a_rollout(day: Day) -> None:
    old = day.pod()["metadata"]["uid"]
    day.node.roll()  # kubectl rollout restart: the DaemonSet controller and kubelet replace the pod
    day.node.wait_for("the old pod to be gone", lambda: old not in {p["metadata"]["uid"] for p in day.node.pods()})
    day.node.wait_intercepting()
    # The rollout's end in the series the soak reads: node-cache's and kube-state-metrics'.
    day.prometheus.wait_scrapes(JOB, 3)
    day.prometheus.wait_scrapes(KSM_JOB, 3)

    done = run_soak(day)

    assert done.returncode == 0, done.stdout + done.stderr
    rows = {line.split("  ")[0]: line for line in done.stdout.splitlines()[2:6]}
    assert rows["DaemonSet unavailable"].endswith("PASS") and "outside 1 rollout" in rows["DaemonSet unavailable"]
    assert rows["cluster CoreDNS QPS"].endswith("PASS"), done.stdout
    assert done.stdout.splitlines()[-1] == "verdict: PASS"


# ------------------------------------------------------------- incidents, one by one ---
def _config_map(props: NodeLocalDNSProps) -> dict[str, Any]:
    """The node-local-dns ConfigMap of the synth of ``props``."""
    (config_map,) = [
        o for o in kubectl_objects(props) if (o["kind"], o["metadata"]["name"]) == ("ConfigMap", "node-local-dns")
    ]
    return config_map


def test_node_cache_crash_looping_fires_metrics_down_for_both_endpoints_and_daemonset_degraded(day: Day) -> None:
    """The preview's Corefile applied by hand, then a rollout: every start of node-cache exits on its bind."""
    day.node.apply([_config_map(replace(PROPS, kube_dns_cluster_ip=None))])
    day.node.roll()

    down = wait_firing(day, "NodeLocalDNSMetricsDown", instances=2)
    degraded = wait_firing(day, "NodeLocalDNSDaemonSetDegraded")

    assert sorted((a["endpoint"], a["node"], a["severity"]) for a in down) == [
        ("metrics", NODE, "warning"),
        ("metrics-binary", NODE, "warning"),
    ]
    assert [(a["namespace"], a["daemonset"]) for a in degraded] == [("kube-system", "node-local-dns")]
    assert "NodeLocalDNSSetupErrors" not in day.prometheus.firing()
    assert "plugin/bind: not a valid IP address" in day.node.container_log(day.pod()["metadata"]["uid"])


def test_the_fixed_config_map_fires_pod_restarting_and_clears_the_others(day: Day) -> None:
    """The ConfigMap put back: kubelet syncs it, and node-cache's next restart in the same pod serves."""
    day.node.apply([_config_map(PROPS)])
    day.node.node_cache_pod(timeout=120)  # Ready again

    restarting = wait_firing(day, "NodeLocalDNSPodRestarting")
    day.prometheus.wait_for(
        "MetricsDown and DaemonSetDegraded resolved",
        lambda: not {"NodeLocalDNSMetricsDown", "NodeLocalDNSDaemonSetDegraded"} & set(day.prometheus.firing()),
    )

    assert [(a["pod"], a["container"]) for a in restarting] == [(day.pod()["metadata"]["name"], "node-cache")]


def test_a_rule_node_cache_cannot_re_add_fires_setup_errors(day: Day) -> None:
    """Another agent writes a rule iptables-nft cannot parse into ip6 raw PREROUTING, and one rule of node-cache's goes.

    node-cache checks its rules every 60 s: the check of the missing one fails on the
    foreign rule (exit 3) and is counted as an ``iptables`` setup error, every minute.
    """
    node = day.bed.node
    pod = day.pod()
    (rule,) = [r for r in probes.node_cache_rules(node) if r.startswith("raw -A PREROUTING -d fd00::10/128 -p udp")]
    node.run("ip6tables", "-t", "raw", "-D", *shlex.split(rule.removeprefix("raw -A ")))
    # After this, ip6tables-save itself refuses the table ("incompatible, use 'nft' tool").
    node.run("nft", "add", "rule", "ip6", "raw", "PREROUTING", "numgen", "inc", "mod", "2", "0", "counter")
    try:
        errors = wait_firing(day, "NodeLocalDNSSetupErrors", timeout=120)
    finally:
        listed = node.run("nft", "-a", "list", "chain", "ip6", "raw", "PREROUTING")
        (handle,) = [line.rsplit("# handle ", 1)[1] for line in listed.splitlines() if "numgen" in line]
        node.run("nft", "delete", "rule", "ip6", "raw", "PREROUTING", "handle", handle.strip())

    assert [(a["errortype"], a["node"], a["pod"], a["severity"]) for a in errors] == [
        ("iptables", NODE, pod["metadata"]["name"], "critical")
    ]
    assert "exit status 3" in day.node.container_log(pod["metadata"]["uid"])


# -------------------------------------------------------------------- the dashboard ---
def dashboard_panels() -> list[dict[str, Any]]:
    """The panels of the synthesized dashboard ConfigMap, as Grafana's sidecar would load them."""
    (config_map,) = [o for o in day_objects() if o["kind"] == "ConfigMap" and "nodelocaldns.json" in o.get("data", {})]
    panels: list[dict[str, Any]] = json.loads(config_map["data"]["nodelocaldns.json"])["panels"]
    return panels


def day_objects() -> list[dict[str, Any]]:
    return [obj for chart in synthesize(PROPS) for obj in chart.objects]


def as_grafana_sends(expr: str) -> str:
    """Grafana's variables as it fills them: every node, and a rate window of four scrape intervals."""
    return expr.replace("$__rate_interval", f"{4 * SCRAPE:.0f}s").replace("$node", ".*")


def test_every_dashboard_panel_returns_data(day: Day, tmp_path: Path) -> None:
    # The node's resolvers stop answering: external names fail upstream of node-cache.
    assert day.bed.internet_dns is not None
    day.bed.internet_dns.stop()
    day.prometheus.wait_for(
        "forward errors scraped",
        lambda: bool(day.prometheus.api.query(f'coredns_proxy_healthcheck_failures_total{{job="{JOB}"}}')),
    )
    day.prometheus.wait_scrapes(JOB, 4)
    end = time.time()
    start = day.node_cache_from - BASELINE_SECONDS

    results = {
        panel["title"]: [
            (
                target["legendFormat"],
                day.prometheus.api.query_range(as_grafana_sends(target["expr"]), start, end, SCRAPE),
            )
            for target in panel["targets"]
        ]
        for panel in dashboard_panels()
    }

    assert list(results) == [
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
    empty = [(title, legend) for title, queries in results.items() for legend, series in queries if not series]
    assert empty == []
    zones = {
        series.labels["zone"] for _, series_list in results["Queries per second by zone"] for series in series_list
    }
    assert {"cluster.local.", "."} <= zones
    errortypes = {s.labels["errortype"] for _, found in results["Setup errors by errortype"] for s in found}
    assert errortypes == {"configmap", "interface_add", "interface_check", "iptables", "iptables_lock"}
    render_panels(results, start, Path(os.environ.get("NLD_DASHBOARD_PNG", tmp_path / "dashboard.png")))


def render_panels(results: dict[str, list[tuple[str, tuple[Series, ...]]]], start: float, path: Path) -> None:
    """The panels' series as a grid of charts: what the dashboard shows over this day."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(5, 2, figsize=(14, 17))
    for axis, (title, queries) in zip(axes.flat, results.items(), strict=False):
        for legend, found in queries:
            for series in found:
                label = legend
                for key, value in series.labels.items():
                    label = label.replace("{{" + key + "}}", value)
                axis.plot([t - start for t, _ in series.samples], [v for _, v in series.samples], label=label)
        axis.set_title(title)
        axis.set_xlabel("seconds since the baseline began")
        axis.legend(fontsize="small", loc="upper left")
        axis.grid(alpha=0.3)
    axes.flat[-1].axis("off")
    figure.suptitle("NodeLocal DNSCache dashboard panels, real node-cache scraped by Prometheus (test bed)")
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=80)
    plt.close(figure)


# ------------------------------------------------------------------ the day after ---
def test_the_soak_fails_after_the_incidents(day: Day) -> None:
    done = run_soak(day)

    assert done.returncode == 8, done.stdout + done.stderr
    rows = {line.split("  ")[0]: line for line in done.stdout.splitlines()[2:6]}
    assert rows["node-cache setup errors"].endswith("FAIL") and "iptables up to " in rows["node-cache setup errors"]
    # The crash loop began with a rollout and ended when its pod stayed available: inside it, even
    # where a scrape caught the pod's container between two crashes.
    assert rows["DaemonSet unavailable"].endswith("PASS") and "outside 2 rollouts" in rows["DaemonSet unavailable"]
    assert rows["node-cache restarts"].endswith("FAIL")
    assert done.stdout.splitlines()[-1] == "verdict: FAIL"
