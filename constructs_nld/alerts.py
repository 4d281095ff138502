"""The alerts as data: small dataclasses, their lint, and the Prometheus rule-group form.

Pure code (no cdk8s): the PrometheusRule construct renders an :class:`AlertGroup`, and the
promtool tests read the same rendered group back from the synthesized object. (The
ip6tables rules of the fallthrough mode are another thing: :mod:`constructs_nld.keeper`.)
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace

from constructs_nld import defaults
from constructs_nld.durations import check_duration
from constructs_nld.props import check_types

__all__ = [
    "AlertGroup",
    "AlertRule",
    "AlertSettings",
    "NodeLocalDNSAlerts",
    "check_routing_labels",
    "find_wrong_metric_prefix",
    "node_local_dns_alerts",
]

_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`')
_WRONG_PREFIX = re.compile(r"(?<![A-Za-z0-9_:])nodelocaldns_[A-Za-z0-9_:]*")
_WRONG_NAME_MATCHER = re.compile(r"""__name__\s*=~?\s*["'`](nodelocaldns_[^"'`]*)""")
_ALERT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_LABEL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def find_wrong_metric_prefix(expr: str) -> str | None:
    """The first ``nodelocaldns_*`` metric name in a PromQL expression (outside string literals), if any.

    No such metric exists; node-cache's are ``coredns_nodecache_*``, and a query on the
    wrong prefix silently returns nothing.
    """
    by_name = _WRONG_NAME_MATCHER.search(expr)
    if by_name:
        return by_name.group(1)
    match = _WRONG_PREFIX.search(_QUOTED.sub('""', expr))
    return match.group(0) if match else None


@dataclass(frozen=True, kw_only=True)
class AlertSettings:
    """How long an alert's condition must hold, and how loud it is."""

    for_: str
    """Pending period before the alert fires (Prometheus ``for``)."""

    severity: str
    """Value of the ``severity`` label routing the alert."""

    labels: Mapping[str, str] = field(default_factory=lambda: dict(defaults.ALERT_ROUTING_LABELS))
    """Routing labels beside ``severity``. Default: ``team: pytorch-dev-infra``, ``priority: P3`` (production's)."""

    def __post_init__(self) -> None:
        """``for_`` is a duration; ``severity`` is set; labels are Prometheus label names with values."""
        check_types(self)
        check_duration("for_", self.for_)
        if not self.severity:
            raise ValueError(f"severity: must be a non-empty label value, got {self.severity!r}")
        check_routing_labels("labels", self.labels)


def check_routing_labels(prop: str, labels: Mapping[str, str]) -> None:
    """Raise unless ``labels`` are Prometheus label names with values, ``severity`` not among them."""
    for name, value in labels.items():
        if not isinstance(name, str) or not _LABEL_NAME.fullmatch(name) or name.startswith("__"):
            raise ValueError(f"{prop}: {name!r} is not a Prometheus label name (letters, digits and '_')")
        if name == "severity":
            raise ValueError(f"{prop}: 'severity' is set by the severity field, not in labels")
        if not isinstance(value, str) or not value:
            raise ValueError(f"{prop}: value of {name!r} must be a non-empty string, got {value!r}")


@dataclass(frozen=True, kw_only=True)
class AlertRule:
    """One Prometheus alerting rule."""

    alert: str
    """Alert name, e.g. ``NodeLocalDNSSetupErrors``."""

    expr: str
    """PromQL condition."""

    settings: AlertSettings
    """``for`` and severity."""

    summary: str
    """One-line annotation."""

    description: str
    """Annotation with the diagnosis; may use ``$labels`` that the series really carry."""

    def __post_init__(self) -> None:
        """Reject names Prometheus refuses and metric names that do not exist."""
        check_types(self)
        if not _ALERT_NAME.fullmatch(self.alert):
            raise ValueError(f"alert: must be a metric-style name, got {self.alert!r}")
        wrong = find_wrong_metric_prefix(self.expr)
        if wrong:
            raise ValueError(
                f"expr: metric {wrong!r} in alert {self.alert!r} does not exist; "
                "node-cache's own metrics are prefixed 'coredns_nodecache_' "
                "(e.g. coredns_nodecache_setup_errors_total); a query on nodelocaldns_* "
                "silently returns nothing"
            )


@dataclass(frozen=True, kw_only=True)
class AlertGroup:
    """A named group of alerting rules, evaluated together."""

    name: str
    """Group name, unique within the PrometheusRule."""

    rules: tuple[AlertRule, ...]
    """The rules, in order."""

    def __post_init__(self) -> None:
        """The group has a name, and alert names are unique within it."""
        check_types(self)
        if not self.name:
            raise ValueError(f"name: a rule group needs a name, got {self.name!r}")
        names = [rule.alert for rule in self.rules]
        for name in names:
            if names.count(name) > 1:
                raise ValueError(f"rules: alert {name!r} is declared twice in group {self.name!r}")


@dataclass(frozen=True, kw_only=True)
class NodeLocalDNSAlerts:
    """Tuning of the four NodeLocal DNSCache alerts."""

    setup_errors: AlertSettings = field(
        default_factory=lambda: AlertSettings(
            for_=defaults.SETUP_ERRORS_ALERT_FOR, severity=defaults.SETUP_ERRORS_ALERT_SEVERITY
        )
    )
    """NodeLocalDNSSetupErrors: iptables/interface setup failed. Default: - 5m, critical."""

    pod_restarting: AlertSettings = field(
        default_factory=lambda: AlertSettings(
            for_=defaults.RESTARTING_ALERT_FOR, severity=defaults.RESTARTING_ALERT_SEVERITY
        )
    )
    """NodeLocalDNSPodRestarting: node-cache containers restart. Default: - 10m, warning."""

    daemonset_degraded: AlertSettings = field(
        default_factory=lambda: AlertSettings(
            for_=defaults.DEGRADED_ALERT_FOR, severity=defaults.DEGRADED_ALERT_SEVERITY
        )
    )
    """NodeLocalDNSDaemonSetDegraded: pods unavailable. Default: - 15m, warning."""

    target_down: AlertSettings = field(
        default_factory=lambda: AlertSettings(
            for_=defaults.TARGET_DOWN_ALERT_FOR, severity=defaults.TARGET_DOWN_ALERT_SEVERITY
        )
    )
    """NodeLocalDNSMetricsDown: a scrape target is down or all are gone. Default: - 10m, warning.

    Not in the spec's three; added because without it, losing the targets would also
    silence NodeLocalDNSSetupErrors (the spec's design notes: nothing alerts when the
    metrics target disappears).
    """

    def __post_init__(self) -> None:
        """Each alert's settings are :class:`AlertSettings`."""
        check_types(self)


def node_local_dns_alerts(
    *,
    alerts: NodeLocalDNSAlerts,
    namespace: str,
    daemon_set: str,
    container: str,
    scrape_job: str,
    routing: Mapping[str, str] | None = None,
) -> AlertGroup:
    """The NodeLocal DNSCache alert group.

    ``scrape_job`` is the ``job`` label prometheus-operator gives the PodMonitor's
    targets (``<namespace>/<name>``). Annotations use only labels the series carry: the
    PodMonitor relabels ``node`` from the pod's node name onto every scraped series.
    ``routing`` replaces the default routing labels (:data:`~constructs_nld.defaults.ALERT_ROUTING_LABELS`)
    of every alert whose settings keep them; an alert given labels of its own keeps those.
    """
    if routing is not None:
        alerts = NodeLocalDNSAlerts(
            **{
                name: replace(settings, labels=dict(routing))
                if dict(settings.labels) == defaults.ALERT_ROUTING_LABELS
                else settings
                for name, settings in ((f.name, getattr(alerts, f.name)) for f in fields(alerts))
            }
        )
    up = f'up{{job="{scrape_job}"}}'
    return AlertGroup(
        name="nodelocaldns",
        rules=(
            AlertRule(
                alert="NodeLocalDNSSetupErrors",
                expr="increase(coredns_nodecache_setup_errors_total[5m]) > 0",
                settings=alerts.setup_errors,
                summary="node-cache failed to set up iptables rules or its interface",
                description=(
                    "node-cache on node {{ $labels.node }} (pod {{ $labels.pod }}) reports "
                    "{{ $labels.errortype }} setup errors. Check its logs: kubectl logs -n "
                    f"{namespace} {{{{ $labels.pod }}}}."
                ),
            ),
            AlertRule(
                alert="NodeLocalDNSPodRestarting",
                expr=(
                    "rate(kube_pod_container_status_restarts_total"
                    f'{{namespace="{namespace}", container="{container}"}}[15m]) > 0'
                ),
                settings=alerts.pod_restarting,
                summary="node-cache containers are restarting",
                description=(
                    "{{ $labels.pod }} restarted in the last 15 minutes: iptables or "
                    "binary trouble, or a Corefile that does not load."
                ),
            ),
            AlertRule(
                alert="NodeLocalDNSDaemonSetDegraded",
                expr=(
                    f'kube_daemonset_status_number_unavailable{{namespace="{namespace}", daemonset="{daemon_set}"}} > 0'
                ),
                settings=alerts.daemonset_degraded,
                summary=f"{daemon_set} pods are unavailable",
                description=(
                    f"{{{{ $value }}}} {daemon_set} pods have been unavailable for "
                    f"{alerts.daemonset_degraded.for_}: "
                    "look for image pulls, scheduling or crashloops. Those nodes fall "
                    "through to cluster CoreDNS."
                ),
            ),
            AlertRule(
                alert="NodeLocalDNSMetricsDown",
                expr=f"{up} == 0 or absent({up})",
                settings=alerts.target_down,
                summary="node-cache metrics are not being scraped",
                description=(
                    f"A {scrape_job} target is down (node {{{{ $labels.node }}}}) or none is "
                    "left; NodeLocalDNSSetupErrors cannot fire without these metrics."
                ),
            ),
        ),
    )
