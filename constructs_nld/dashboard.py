"""The NodeLocal DNSCache Grafana dashboard as data, built with Grafana's own typed builders.

Pure code (no cdk8s): :func:`node_local_dns_dashboard` returns the dashboard model that
``grafana-foundation-sdk`` builds — Grafana's schema, typed, instead of hand-written JSON —
and :func:`dashboard_json` its JSON, which the ConfigMap construct stores for Grafana's
dashboard sidecar. Every query selects node-cache by the PodMonitor's ``job`` and the
DaemonSet's namespace and container, as the alerts do.

What an on-call engineer looks for, top to bottom: is node-cache answering (QPS per zone and
per node, cache hit ratio, response time), is the upstream answering it (forward errors),
is it healthy (setup errors by ``errortype``, restarts, unavailable pods, scrape targets).
Latency is the mean (``_sum / _count``): the PodMonitor drops the
``*_request_duration_seconds_bucket`` series (production's cost decision), without which no
percentile can be computed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final

from grafana_foundation_sdk.builders import dashboard as builder
from grafana_foundation_sdk.builders import prometheus, timeseries
from grafana_foundation_sdk.cog.encoder import JSONEncoder
from grafana_foundation_sdk.models.dashboard import DataSourceRef, VariableRefresh

__all__ = ["DashboardPanel", "DashboardQuery", "dashboard_json", "dashboard_panels", "node_local_dns_dashboard"]

RATE: Final = "$__rate_interval"
"""Grafana's rate window: at least four scrape intervals."""
DATASOURCE: Final = DataSourceRef(type_val="prometheus", uid="${datasource}")


@dataclass(frozen=True)
class DashboardQuery:
    """One PromQL query of a panel, with its legend."""

    expr: str
    legend: str


@dataclass(frozen=True)
class DashboardPanel:
    """One time-series panel: title, unit, description and queries."""

    title: str
    unit: str
    description: str
    queries: tuple[DashboardQuery, ...]


def dashboard_panels(*, job: str, namespace: str, daemon_set: str, container: str) -> tuple[DashboardPanel, ...]:
    """The panels, for node-cache scraped as ``job`` and its DaemonSet ``namespace/daemon_set`` (``container``)."""
    nc = f'job="{job}", node=~"$node"'
    ds = f'namespace="{namespace}", daemonset="{daemon_set}"'
    restarts = f'namespace="{namespace}", container="{container}"'

    def rate(metric: str, selector: str = nc) -> str:
        return f"rate({metric}{{{selector}}}[{RATE}])"

    hits, misses = rate("coredns_cache_hits_total"), rate("coredns_cache_misses_total")
    servfail = f'{nc}, rcode="SERVFAIL"'
    return (
        DashboardPanel(
            "Queries per second by zone",
            "reqps",
            "Queries node-cache answered, by server block zone (cluster domain, reverse zones, the rest).",
            (DashboardQuery(f"sum by (zone) ({rate('coredns_dns_requests_total')})", "{{zone}}"),),
        ),
        DashboardPanel(
            "Queries per second by node",
            "reqps",
            "Queries each node's node-cache answered.",
            (DashboardQuery(f"sum by (node) ({rate('coredns_dns_requests_total')})", "{{node}}"),),
        ),
        DashboardPanel(
            "Cache hit ratio",
            "percentunit",
            "Share of lookups answered from node-cache's cache, by node.",
            (
                DashboardQuery(
                    f"sum by (node) ({hits}) / (sum by (node) ({hits}) + sum by (node) ({misses}))", "{{node}}"
                ),
            ),
        ),
        DashboardPanel(
            "Mean response time by node",
            "s",
            "Mean time node-cache took to answer. The mean, not p99: the PodMonitor drops the latency "
            "buckets, as production does.",
            (
                DashboardQuery(
                    f"sum by (node) ({rate('coredns_dns_request_duration_seconds_sum')})"
                    f" / sum by (node) ({rate('coredns_dns_request_duration_seconds_count')})",
                    "{{node}}",
                ),
            ),
        ),
        DashboardPanel(
            "Forward errors to the upstream",
            "reqps",
            "Failed health checks of each upstream (kube-dns-upstream, the node's resolvers), and SERVFAIL "
            "answers node-cache gave.",
            (
                DashboardQuery(
                    f"sum by (to) ({rate('coredns_proxy_healthcheck_failures_total')})", "health check failed: {{to}}"
                ),
                DashboardQuery(
                    f"sum by (zone) ({rate('coredns_dns_responses_total', servfail)})",
                    "SERVFAIL: {{zone}}",
                ),
            ),
        ),
        DashboardPanel(
            "Setup errors by errortype",
            "short",
            "node-cache's own errors setting up its iptables rules, interface or Corefile "
            "(coredns_nodecache_setup_errors_total): any is an alert.",
            (
                DashboardQuery(
                    f"sum by (errortype) (increase(coredns_nodecache_setup_errors_total{{{nc}}}[{RATE}]))",
                    "{{errortype}}",
                ),
            ),
        ),
        DashboardPanel(
            "Restarts in the last hour",
            "short",
            "node-cache container restarts per pod (kube-state-metrics).",
            (
                DashboardQuery(
                    f"sum by (pod) (increase(kube_pod_container_status_restarts_total{{{restarts}}}[1h]))", "{{pod}}"
                ),
            ),
        ),
        DashboardPanel(
            "Unavailable pods",
            "short",
            "DaemonSet pods unavailable (kube-state-metrics); their nodes fall through to cluster CoreDNS.",
            (DashboardQuery(f"sum(kube_daemonset_status_number_unavailable{{{ds}}})", "unavailable"),),
        ),
        DashboardPanel(
            "Metrics targets up",
            "short",
            "Scrape targets of node-cache up, per endpoint (metrics: CoreDNS's plugin, metrics-binary: node-cache's).",
            (DashboardQuery(f"sum by (endpoint) (up{{{nc}}})", "{{endpoint}}"),),
        ),
    )


def node_local_dns_dashboard(
    *, uid: str, title: str, job: str, namespace: str, daemon_set: str, container: str
) -> builder.Dashboard:
    """The dashboard builder: a data-source and a node variable, then the panels two per row."""
    panels = dashboard_panels(job=job, namespace=namespace, daemon_set=daemon_set, container=container)
    board = (
        builder.Dashboard(title)
        .uid(uid)
        .tags(["dns", "nodelocaldns", "node-cache"])
        .refresh("1m")
        .time("now-6h", "now")
        .with_variable(builder.DatasourceVariable("datasource").type("prometheus").label("Data source"))
        .with_variable(
            builder.QueryVariable("node")
            .label("Node")
            .datasource(DATASOURCE)
            .query(f'label_values(up{{job="{job}"}}, node)')
            .refresh(VariableRefresh.ON_TIME_RANGE_CHANGED)
            .multi(True)
            .include_all(True)
            .all_value(".*")
        )
    )
    for panel in panels:
        chart = (
            timeseries.Panel()
            .title(panel.title)
            .description(panel.description)
            .unit(panel.unit)
            .datasource(DATASOURCE)
            .height(8)
            .span(12)
        )
        for index, query in enumerate(panel.queries):
            chart = chart.with_target(
                prometheus.Dataquery().expr(query.expr).legend_format(query.legend).ref_id(chr(ord("A") + index))
            )
        board = board.with_panel(chart)
    return board


def dashboard_json(board: builder.Dashboard) -> str:
    """The dashboard's JSON, as Grafana imports it."""
    model: Any = board.build()
    return json.dumps(model, cls=JSONEncoder, indent=2, sort_keys=True) + "\n"
