"""Monitoring, applied last and only where the prometheus-operator CRDs exist."""

from __future__ import annotations

from constructs_nld.monitoring.dashboard import GrafanaDashboard, GrafanaDashboardProps
from constructs_nld.monitoring.pod_monitor import PodMonitor, PodMonitorProps
from constructs_nld.monitoring.prometheus_rule import AlertRules, AlertRulesProps

__all__ = [
    "AlertRules",
    "AlertRulesProps",
    "GrafanaDashboard",
    "GrafanaDashboardProps",
    "PodMonitor",
    "PodMonitorProps",
]
