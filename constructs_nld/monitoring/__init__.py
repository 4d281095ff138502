"""Monitoring, applied last and only where the prometheus-operator CRDs exist (the dashboard beside them)."""

from __future__ import annotations

from constructs_nld.monitoring.grafana_dashboard import GrafanaDashboard, GrafanaDashboardProps
from constructs_nld.monitoring.pod_monitor import PodMonitor, PodMonitorProps
from constructs_nld.monitoring.prometheus_rule import PrometheusRule, PrometheusRuleProps

__all__ = [
    "GrafanaDashboard",
    "GrafanaDashboardProps",
    "PodMonitor",
    "PodMonitorProps",
    "PrometheusRule",
    "PrometheusRuleProps",
]
