"""What each object of NodeLocal DNS is, said on the object itself: its role, as two labels.

Every construct of this library labels the object it makes with
``app.kubernetes.io/name: node-local-dns`` and ``app.kubernetes.io/component: <role>``,
Kubernetes' recommended labels for "which application" and "which part of it". The labels
sit on the object's own metadata only: never in a selector (selectors are immutable on a
DaemonSet), and never on the pod template (a new pod label would roll every pod of an
install being labelled for the first time).

``app.kubernetes.io/part-of`` is left to the user: production already gives the monitoring
objects ``part-of: osdc-monitoring``, which Prometheus selects them by.

The deploy side (:mod:`constructs_nld.deploy.component`) reads these labels to find the
component in any app, built by ``NodeLocalDNS`` or from the per-object constructs, and checks
each labelled object against the YAML that references it. The table below is the one place
that says, per role, which kind it is and in which phase it is applied: ``NodeLocalDNS``
makes one chart per phase from it, ``deploy`` applies and ``uninstall`` deletes by it.

Pure code: no cdk8s, so the deploy CLI imports it without starting jsii.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final, Literal

from constructs_nld import defaults

__all__ = [
    "COMPONENT_LABEL",
    "NAME_LABEL",
    "PHASES",
    "RESERVED_LABEL_PREFIXES",
    "ROLES",
    "Phase",
    "Role",
    "RoleSpec",
    "role_labels",
    "role_of",
]

NAME_LABEL: Final = "app.kubernetes.io/name"
"""Recommended label: the application an object belongs to (``node-local-dns``)."""

COMPONENT_LABEL: Final = "app.kubernetes.io/component"
"""Recommended label: the object's part in the application (its :class:`Role`)."""

RESERVED_LABEL_PREFIXES: Final = (NAME_LABEL, COMPONENT_LABEL, "applyset.kubernetes.io/")
"""Label keys the user's ``labels`` may not set: the role labels, and the ApplySet's, which the deploy writes."""

Phase = Literal["services", "workload", "monitoring"]
"""Where an object is applied: Services first (kubelet gives a pod the address of Services that
exist when it is created), then the workload, then monitoring (served only with its CRDs)."""

PHASES: Final[tuple[Phase, ...]] = ("services", "workload", "monitoring")
"""The phases in apply order; an uninstall takes them in reverse."""


class Role(StrEnum):
    """The part an object plays in NodeLocal DNS: the value of its ``app.kubernetes.io/component`` label."""

    UPSTREAM_SERVICE = "upstream-service"
    """``kube-dns-upstream``: the Service node-cache forwards cache misses to (``-upstreamsvc``)."""

    METRICS_SERVICE = "metrics-service"
    """The headless Service over the node-cache pods' metrics ports."""

    SERVICE_ACCOUNT = "service-account"
    """The node-cache pods' identity, without a token."""

    COREFILE = "corefile"
    """The ConfigMap holding the Corefile node-cache reads as ``Corefile.base``."""

    KEEPER_CONFIG = "keeper-config"
    """The ConfigMap of the fallthrough keeper: its script and the rules it keeps."""

    NODE_CACHE = "node-cache"
    """The DaemonSet: one node-cache per node."""

    POD_MONITOR = "pod-monitor"
    """The PodMonitor scraping both metrics ports."""

    ALERT_RULES = "alert-rules"
    """The PrometheusRule holding the alerts."""

    DASHBOARD = "dashboard"
    """The ConfigMap holding the Grafana dashboard."""


@dataclass(frozen=True)
class RoleSpec:
    """What an object of a role must be, and when it is applied."""

    api_version: str
    """``apiVersion`` of the object."""

    kind: str
    """``kind`` of the object."""

    phase: Phase
    """The phase (and the chart of ``NodeLocalDNS``) it belongs to."""


ROLES: Final[Mapping[Role, RoleSpec]] = {
    Role.UPSTREAM_SERVICE: RoleSpec("v1", "Service", "services"),
    Role.METRICS_SERVICE: RoleSpec("v1", "Service", "services"),
    Role.SERVICE_ACCOUNT: RoleSpec("v1", "ServiceAccount", "workload"),
    Role.COREFILE: RoleSpec("v1", "ConfigMap", "workload"),
    Role.KEEPER_CONFIG: RoleSpec("v1", "ConfigMap", "workload"),
    Role.NODE_CACHE: RoleSpec("apps/v1", "DaemonSet", "workload"),
    Role.POD_MONITOR: RoleSpec("monitoring.coreos.com/v1", "PodMonitor", "monitoring"),
    Role.ALERT_RULES: RoleSpec("monitoring.coreos.com/v1", "PrometheusRule", "monitoring"),
    Role.DASHBOARD: RoleSpec("v1", "ConfigMap", "monitoring"),
}
"""Per role: the kind its object must be, and its phase."""


def role_labels(role: Role) -> dict[str, str]:
    """The two labels that say an object plays ``role`` in NodeLocal DNS."""
    return {NAME_LABEL: defaults.APP_NAME, COMPONENT_LABEL: role.value}


def role_of(manifest: Mapping[str, Any]) -> Role | str | None:
    """The role a manifest's labels say it plays: a :class:`Role`, the unknown value as a string, or None.

    None when the object does not say it belongs to NodeLocal DNS (no ``app.kubernetes.io/name:
    node-local-dns``), so an app's other objects are never taken for ours.
    """
    labels = (manifest.get("metadata") or {}).get("labels") or {}
    if labels.get(NAME_LABEL) != defaults.APP_NAME:
        return None
    value = str(labels.get(COMPONENT_LABEL, ""))
    try:
        return Role(value)
    except ValueError:
        return value
