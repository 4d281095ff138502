"""The ``nodelocaldns-alerts`` PrometheusRule, rendered from the alerts model (:mod:`constructs_nld.alerts`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from constructs_nld import defaults
from constructs_nld.alerts import AlertGroup, NodeLocalDNSAlerts, node_local_dns_alerts
from constructs_nld.metadata import api_object_metadata
from constructs_nld.props import ObjectProps, props_or_defaults
from constructs_nld.roles import Role
from constructs_nld.runtime import Construct
from constructs_nld_imports.nld_prometheusrule.com.coreos.monitoring import (
    PrometheusRule as PrometheusRuleObject,
)
from constructs_nld_imports.nld_prometheusrule.com.coreos.monitoring import (
    PrometheusRuleSpec,
    PrometheusRuleSpecGroups,
    PrometheusRuleSpecGroupsRules,
    PrometheusRuleSpecGroupsRulesExpr,
)

__all__ = ["PrometheusRule", "PrometheusRuleProps"]


def _default_group() -> AlertGroup:
    return node_local_dns_alerts(
        alerts=NodeLocalDNSAlerts(),
        namespace=defaults.NAMESPACE,
        daemon_set=defaults.DAEMON_SET_NAME,
        container=defaults.CONTAINER_NAME,
        scrape_job=f"{defaults.ALERTS_NAMESPACE}/{defaults.POD_MONITOR_NAME}",
    )


@dataclass(frozen=True, kw_only=True)
class PrometheusRuleProps(ObjectProps):
    """Props of :class:`PrometheusRule`."""

    name: str = defaults.PROMETHEUS_RULE_NAME
    """PrometheusRule name. Default: nodelocaldns-alerts."""

    namespace: str = defaults.ALERTS_NAMESPACE
    """Namespace watched by Prometheus. Default: monitoring."""

    labels: Mapping[str, str] = field(default_factory=lambda: dict(defaults.MONITORING_LABELS))
    """Labels. Default: ``app.kubernetes.io/part-of: osdc-monitoring``."""

    group: AlertGroup = field(default_factory=_default_group)
    """The alert group (linted when built). Default: - the four NodeLocal DNSCache alerts."""


class PrometheusRule(Construct):
    """The PrometheusRule holding one alert group."""

    def __init__(self, scope: Construct, id: str, props: PrometheusRuleProps | None = None) -> None:
        """Define the PrometheusRule in ``scope``."""
        super().__init__(scope, id)
        self.props = props_or_defaults(props, PrometheusRuleProps)
        p = self.props
        self.api_object = PrometheusRuleObject(
            self,
            "Resource",
            metadata=api_object_metadata(p, Role.ALERT_RULES),
            spec=PrometheusRuleSpec(
                groups=[
                    PrometheusRuleSpecGroups(
                        name=p.group.name,
                        rules=[
                            PrometheusRuleSpecGroupsRules(
                                alert=rule.alert,
                                expr=PrometheusRuleSpecGroupsRulesExpr.from_string(rule.expr),
                                for_=rule.settings.for_,
                                labels={"severity": rule.settings.severity, **rule.settings.labels},
                                annotations={"summary": rule.summary, "description": rule.description},
                            )
                            for rule in p.group.rules
                        ],
                    )
                ]
            ),
        )
