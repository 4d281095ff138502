"""Every default value of the component, in one place.

Each value comes from ``shared/spec/nodelocaldns-spec.md`` or ``shared/spec/DECISIONS.md``
(the node-cache 1.26.8 source and the upstream reference manifest). Props dataclasses
reference these names; no other module retypes a spec value.
"""

from __future__ import annotations

from typing import Final, Literal

__all__ = [
    "ALERTS_NAMESPACE",
    "ALERT_ROUTING_LABELS",
    "ARGOCD_SYNC_WAVE_ANNOTATION",
    "BINARY_METRICS_PORT",
    "BINARY_METRICS_PORT_NAME",
    "CLUSTER_DOMAIN",
    "CLUSTER_DOMAIN_CACHE_DENIAL",
    "CLUSTER_DOMAIN_CACHE_SUCCESS",
    "CONFIG_MAP_NAME",
    "CONTAINER_NAME",
    "COREFILE_BASE_MOUNT",
    "COREFILE_KEY",
    "CPU_REQUEST",
    "DAEMON_SET_NAME",
    "DASHBOARD_KEY",
    "DASHBOARD_LABELS",
    "DASHBOARD_NAME",
    "DASHBOARD_TITLE",
    "DASHBOARD_UID",
    "DEGRADED_ALERT_FOR",
    "DEGRADED_ALERT_SEVERITY",
    "DNS_PORT",
    "DNS_TCP_PORT_NAME",
    "DNS_UDP_PORT_NAME",
    "FALLTHROUGH_CONFIG_MAP_NAME",
    "FALLTHROUGH_CONTAINER_NAME",
    "FALLTHROUGH_CPU_REQUEST",
    "FALLTHROUGH_MEMORY_REQUEST",
    "FALLTHROUGH_MOUNT",
    "FALLTHROUGH_READINESS_PERIOD_SECONDS",
    "FALLTHROUGH_READINESS_TIMEOUT_SECONDS",
    "FALLTHROUGH_RESYNC_SECONDS",
    "FALLTHROUGH_RULES_KEY",
    "FALLTHROUGH_SCRIPT_KEY",
    "HEALTH_PORT",
    "IMAGE",
    "IMAGE_PULL_POLICY",
    "INTERCEPTION",
    "IPTABLES_WAIT_SECONDS",
    "KEEPER_CAPABILITIES",
    "KUBE_DNS_CONFIG_MAP_NAME",
    "KUBE_DNS_CONFIG_MOUNT",
    "KUBE_DNS_SELECTOR",
    "KUBE_DNS_SERVICE_NAME",
    "LIVENESS_FAILURE_THRESHOLD",
    "LIVENESS_INITIAL_DELAY_SECONDS",
    "LIVENESS_PERIOD_SECONDS",
    "LIVENESS_TIMEOUT_SECONDS",
    "LOCAL_IP",
    "MANAGED_BY_LABEL",
    "MAX_UNAVAILABLE",
    "MEMORY_REQUEST",
    "METRICS_PORT",
    "METRICS_PORT_NAME",
    "METRICS_SERVICE_NAME",
    "MONITORING_LABELS",
    "NAMESPACE",
    "NODE_CACHE_APP_LABEL",
    "NODE_CACHE_CAPABILITIES",
    "NODE_CACHE_CAPABILITIES_WITHOUT_RULES",
    "OTHER_ZONES_CACHE_TTL",
    "PID_FILE",
    "POD_MONITOR_NAME",
    "PRIORITY_CLASS_NAME",
    "PRIVILEGED",
    "PROMETHEUS_RULE_NAME",
    "RENDERED_COREFILE",
    "RESTARTING_ALERT_FOR",
    "RESTARTING_ALERT_SEVERITY",
    "SCRAPE_INTERVAL",
    "SERVICE_ACCOUNT_NAME",
    "SETUP_ERRORS_ALERT_FOR",
    "SETUP_ERRORS_ALERT_SEVERITY",
    "SHELL",
    "TARGET_DOWN_ALERT_FOR",
    "TARGET_DOWN_ALERT_SEVERITY",
    "TERMINATION_GRACE_PERIOD_SECONDS",
    "TOLERATIONS",
    "UPSTREAM_SERVICE_NAME",
    "XTABLES_LOCK_PATH",
]

# --- where things live ------------------------------------------------------------------
NAMESPACE: Final = "kube-system"
ALERTS_NAMESPACE: Final = "monitoring"

# --- object names (public API: deploy and verify look them up by these names) ------------
DAEMON_SET_NAME: Final = "node-local-dns"
CONFIG_MAP_NAME: Final = "node-local-dns"
SERVICE_ACCOUNT_NAME: Final = "node-local-dns"
UPSTREAM_SERVICE_NAME: Final = "kube-dns-upstream"
METRICS_SERVICE_NAME: Final = "node-local-dns-metrics"
KUBE_DNS_SERVICE_NAME: Final = "kube-dns"
KUBE_DNS_CONFIG_MAP_NAME: Final = "kube-dns"
POD_MONITOR_NAME: Final = "nodelocaldns"
PROMETHEUS_RULE_NAME: Final = "nodelocaldns-alerts"
CONTAINER_NAME: Final = "node-cache"

# --- labels and annotations ---------------------------------------------------------------
NODE_CACHE_APP_LABEL: Final = {"k8s-app": "node-local-dns"}
KUBE_DNS_SELECTOR: Final = {"k8s-app": "kube-dns"}
MANAGED_BY_LABEL: Final = {"app.kubernetes.io/managed-by": "osdc-base"}
MONITORING_LABELS: Final = {"app.kubernetes.io/part-of": "osdc-monitoring"}
ARGOCD_SYNC_WAVE_ANNOTATION: Final = "argocd.argoproj.io/sync-wave"
"""Argo CD applies lower waves first and waits for them to be healthy."""

# --- addresses and ports ------------------------------------------------------------------
LOCAL_IP: Final = "fd00::10"
CLUSTER_DOMAIN: Final = "cluster.local"
DNS_PORT: Final = 53
HEALTH_PORT: Final = 8080
METRICS_PORT: Final = 9253
BINARY_METRICS_PORT: Final = 9353
DNS_UDP_PORT_NAME: Final = "dns"
DNS_TCP_PORT_NAME: Final = "dns-tcp"
METRICS_PORT_NAME: Final = "metrics"
BINARY_METRICS_PORT_NAME: Final = "metrics-binary"

# --- workload -------------------------------------------------------------------------------
IMAGE: Final = "registry.k8s.io/dns/k8s-dns-node-cache:1.26.8"
IMAGE_PULL_POLICY: Final = "IfNotPresent"
PRIORITY_CLASS_NAME: Final = "system-node-critical"
CPU_REQUEST: Final = "25m"
MEMORY_REQUEST: Final = "100Mi"
TERMINATION_GRACE_PERIOD_SECONDS: Final = 30
MAX_UNAVAILABLE: Final = "1%"
LIVENESS_INITIAL_DELAY_SECONDS: Final = 60
LIVENESS_PERIOD_SECONDS: Final = 15
LIVENESS_TIMEOUT_SECONDS: Final = 5
LIVENESS_FAILURE_THRESHOLD: Final = 5
PID_FILE: Final = "/tmp/node-cache.pid"
RENDERED_COREFILE: Final = "/etc/Corefile"
COREFILE_BASE_MOUNT: Final = "/etc/coredns"
COREFILE_KEY: Final = "Corefile"
KUBE_DNS_CONFIG_MOUNT: Final = "/etc/kube-dns"
XTABLES_LOCK_PATH: Final = "/run/xtables.lock"
PRIVILEGED: Final = True
"""The spec runs node-cache privileged; ``privileged=False`` grants only the capabilities below."""
NODE_CACHE_CAPABILITIES: Final = ("NET_ADMIN", "NET_BIND_SERVICE", "NET_RAW")
"""What node-cache needs when it writes its own rules: NET_ADMIN for the dummy interface and
ip6tables, NET_BIND_SERVICE for port 53, NET_RAW for ip6tables on a node whose backend is
iptables-legacy (its socket is a raw one; the image's iptables-wrapper picks the node's backend)."""
NODE_CACHE_CAPABILITIES_WITHOUT_RULES: Final = ("NET_ADMIN", "NET_BIND_SERVICE")
"""What node-cache needs in the fallthrough mode (``-setupiptables=false``): no ip6tables, so no NET_RAW."""
KEEPER_CAPABILITIES: Final = ("NET_ADMIN", "NET_RAW")
"""What the fallthrough keeper needs: ip6tables on either backend."""

# --- the fallthrough interception mode (constructs_nld.fallthrough) -------------------------
INTERCEPTION: Final[Literal["node-cache", "fallthrough"]] = "node-cache"
"""The spec's: node-cache writes its own unconditional NOTRACK rules."""
FALLTHROUGH_CONTAINER_NAME: Final = "fallthrough-rules"
FALLTHROUGH_CONFIG_MAP_NAME: Final = "node-local-dns-fallthrough"
FALLTHROUGH_MOUNT: Final = "/etc/nodelocaldns-fallthrough"
FALLTHROUGH_SCRIPT_KEY: Final = "keeper.sh"
FALLTHROUGH_RULES_KEY: Final = "rules"
FALLTHROUGH_RESYNC_SECONDS: Final = 60
"""How often the keeper re-asserts its rules: node-cache's own ``-syncinterval`` default."""
FALLTHROUGH_CPU_REQUEST: Final = "5m"
FALLTHROUGH_MEMORY_REQUEST: Final = "20Mi"
FALLTHROUGH_READINESS_PERIOD_SECONDS: Final = 15
FALLTHROUGH_READINESS_TIMEOUT_SECONDS: Final = 10
"""Longer than the probe's ip6tables calls may wait for the xtables lock (``-w 5``)."""
IPTABLES_WAIT_SECONDS: Final = 5
"""``ip6tables -w``: how long to wait for the xtables lock, as node-cache's own calls do."""
SHELL: Final = "/bin/sh"
"""The node-cache image's shell (dash, from distroless-iptables), which its ip6tables wrapper needs too."""
TOLERATIONS: Final[
    tuple[
        tuple[str, Literal["Equal", "Exists"], str | None, Literal["NoSchedule", "PreferNoSchedule", "NoExecute"]], ...
    ]
] = (
    ("CriticalAddonsOnly", "Equal", "true", "NoSchedule"),
    ("nvidia.com/gpu", "Exists", None, "NoSchedule"),
    ("node-fleet", "Exists", None, "NoSchedule"),
    ("instance-type", "Exists", None, "NoSchedule"),
)
"""(key, operator, value, effect) per toleration, in the spec's order."""

# --- Corefile cache -------------------------------------------------------------------------
CLUSTER_DOMAIN_CACHE_SUCCESS: Final = (9984, 30)
"""(capacity, max TTL seconds) of positive answers in the cluster-domain block."""
CLUSTER_DOMAIN_CACHE_DENIAL: Final = (9984, 5)
"""(capacity, max TTL seconds) of negative answers in the cluster-domain block."""
OTHER_ZONES_CACHE_TTL: Final = 30

# --- monitoring -----------------------------------------------------------------------------
SCRAPE_INTERVAL: Final = "60s"
SETUP_ERRORS_ALERT_FOR: Final = "5m"
SETUP_ERRORS_ALERT_SEVERITY: Final = "critical"
RESTARTING_ALERT_FOR: Final = "10m"
RESTARTING_ALERT_SEVERITY: Final = "warning"
DEGRADED_ALERT_FOR: Final = "15m"
DEGRADED_ALERT_SEVERITY: Final = "warning"
TARGET_DOWN_ALERT_FOR: Final = "10m"
TARGET_DOWN_ALERT_SEVERITY: Final = "warning"
ALERT_ROUTING_LABELS: Final = {"team": "pytorch-dev-infra", "priority": "P3"}
"""Labels production's alerts carry beside ``severity``, for Alertmanager routing."""

# --- Grafana dashboard (not in the spec: issue 10) ----------------------------------------
DASHBOARD_NAME: Final = "nodelocaldns-dashboard"
DASHBOARD_KEY: Final = "nodelocaldns.json"
DASHBOARD_LABELS: Final = {"grafana_dashboard": "1"}
"""The label Grafana's dashboard sidecar looks for by default."""
DASHBOARD_UID: Final = "nodelocaldns"
DASHBOARD_TITLE: Final = "NodeLocal DNSCache"
