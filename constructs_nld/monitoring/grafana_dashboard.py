"""The ``nodelocaldns-dashboard`` ConfigMap: the Grafana dashboard, for Grafana's dashboard sidecar.

Grafana's sidecar (``k8s-sidecar``, as the Grafana Helm chart and kube-prometheus-stack
run it) loads every ConfigMap carrying its label (``grafana_dashboard: "1"`` by default) in
the namespaces it watches, one dashboard per ``*.json`` key. The dashboard itself is built
by :mod:`constructs_nld.dashboard`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from constructs_nld import defaults
from constructs_nld.dashboard import dashboard_json, node_local_dns_dashboard
from constructs_nld.metadata import object_meta
from constructs_nld.props import ObjectProps, check_dns_name, props_or_defaults
from constructs_nld.roles import Role
from constructs_nld.runtime import Construct, k8s

__all__ = ["GrafanaDashboard", "GrafanaDashboardProps"]


@dataclass(frozen=True, kw_only=True)
class GrafanaDashboardProps(ObjectProps):
    """Props of :class:`GrafanaDashboard`."""

    name: str = defaults.DASHBOARD_NAME
    """ConfigMap name. Default: nodelocaldns-dashboard."""

    namespace: str = defaults.ALERTS_NAMESPACE
    """A namespace the Grafana sidecar watches. Default: monitoring."""

    labels: Mapping[str, str] = field(default_factory=lambda: dict(defaults.DASHBOARD_LABELS))
    """Labels; the sidecar's label must be among them. Default: ``grafana_dashboard: "1"`` (the sidecar's default)."""

    job: str = f"{defaults.ALERTS_NAMESPACE}/{defaults.POD_MONITOR_NAME}"
    """``job`` of node-cache's series: ``<namespace>/<name>`` of the PodMonitor. Default: monitoring/nodelocaldns."""

    target_namespace: str = defaults.NAMESPACE
    """Namespace of the DaemonSet (kube-state-metrics' ``namespace`` label). Default: kube-system."""

    daemon_set: str = defaults.DAEMON_SET_NAME
    """The DaemonSet. Default: node-local-dns."""

    container: str = defaults.CONTAINER_NAME
    """The node-cache container. Default: node-cache."""

    uid: str = defaults.DASHBOARD_UID
    """Grafana's dashboard uid: links to it survive re-imports. Default: nodelocaldns."""

    title: str = defaults.DASHBOARD_TITLE
    """Dashboard title. Default: NodeLocal DNSCache."""

    def __post_init__(self) -> None:
        """Validate the identity, the targets, the uid and the title."""
        super().__post_init__()
        check_dns_name("target_namespace", self.target_namespace)
        check_dns_name("daemon_set", self.daemon_set)
        check_dns_name("container", self.container)
        namespace, _, name = self.job.partition("/")
        if not name:
            raise ValueError(f"job: must be '<namespace>/<name>' of the PodMonitor, got {self.job!r}")
        if not 0 < len(self.uid) <= 40 or not self.uid.replace("-", "").replace("_", "").isalnum():
            raise ValueError(f"uid: must be 1-40 letters, digits, '-' or '_', got {self.uid!r}")
        if not self.title.strip():
            raise ValueError(f"title: must not be empty, got {self.title!r}")


class GrafanaDashboard(Construct):
    """The ConfigMap holding the dashboard JSON under ``nodelocaldns.json``."""

    def __init__(self, scope: Construct, id: str, props: GrafanaDashboardProps | None = None) -> None:
        """Define the ConfigMap in ``scope``."""
        super().__init__(scope, id)
        self.props = props_or_defaults(props, GrafanaDashboardProps)
        p = self.props
        board = node_local_dns_dashboard(
            uid=p.uid,
            title=p.title,
            job=p.job,
            namespace=p.target_namespace,
            daemon_set=p.daemon_set,
            container=p.container,
        )
        self.api_object = k8s.KubeConfigMap(
            self,
            "Resource",
            metadata=object_meta(p, Role.DASHBOARD),
            data={defaults.DASHBOARD_KEY: dashboard_json(board)},
        )
