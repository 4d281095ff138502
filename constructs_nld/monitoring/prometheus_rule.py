"""The ``nodelocaldns-alerts`` PrometheusRule, rendered from the rules model."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import cdk8s
from constructs import Construct

from constructs_nld import defaults
from constructs_nld.props import ObjectProps, props_or_defaults
from constructs_nld.rules import NodeLocalDNSAlerts, RuleGroup, node_local_dns_rules
from constructs_nld_imports.nld_prometheusrule.com.coreos.monitoring import (
    PrometheusRule,
    PrometheusRuleSpec,
    PrometheusRuleSpecGroups,
    PrometheusRuleSpecGroupsRules,
    PrometheusRuleSpecGroupsRulesExpr,
)

__all__ = ["AlertRules", "AlertRulesProps"]


def _default_group() -> RuleGroup:
    return node_local_dns_rules(
        alerts=NodeLocalDNSAlerts(),
        namespace=defaults.NAMESPACE,
        daemon_set=defaults.DAEMON_SET_NAME,
        container=defaults.CONTAINER_NAME,
        scrape_job=f"{defaults.ALERTS_NAMESPACE}/{defaults.POD_MONITOR_NAME}",
    )


@dataclass(frozen=True, kw_only=True)
class AlertRulesProps(ObjectProps):
    """Props of :class:`AlertRules`."""

    name: str = defaults.PROMETHEUS_RULE_NAME
    """PrometheusRule name. Default: nodelocaldns-alerts."""

    namespace: str = defaults.ALERTS_NAMESPACE
    """Namespace watched by Prometheus. Default: monitoring."""

    labels: Mapping[str, str] = field(default_factory=lambda: dict(defaults.MONITORING_LABELS))
    """Labels. Default: ``app.kubernetes.io/part-of: osdc-monitoring``."""

    group: RuleGroup = field(default_factory=_default_group)
    """The rule group (linted when built). Default: - the four NodeLocal DNSCache alerts."""


class AlertRules(Construct):
    """The PrometheusRule holding one rule group."""

    def __init__(self, scope: Construct, id: str, props: AlertRulesProps | None = None) -> None:
        """Define the PrometheusRule in ``scope``."""
        super().__init__(scope, id)
        self.props = props_or_defaults(props, AlertRulesProps)
        p = self.props
        self.api_object = PrometheusRule(
            self,
            "Resource",
            metadata=cdk8s.ApiObjectMetadata(name=p.name, namespace=p.namespace, labels=dict(p.labels)),
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
