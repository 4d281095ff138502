"""The alert rules model: the four alerts, and the lint of names, queries and durations."""

from __future__ import annotations

import pytest

from constructs_nld import AlertGroup, AlertRule, AlertSettings, NodeLocalDNSAlerts, NodeLocalDNSProps
from constructs_nld.alerts import node_local_dns_alerts

WARNING = AlertSettings(for_="5m", severity="warning")


def _rule(expr: str = "up == 0", alert: str = "SomethingDown") -> AlertRule:
    return AlertRule(alert=alert, expr=expr, settings=WARNING, summary="s", description="d")


def _group(props: NodeLocalDNSProps) -> AlertGroup:
    """The alert group the component's PrometheusRule holds."""
    rule = props.parts.prometheus_rule
    assert rule is not None
    return rule.group


@pytest.fixture
def group() -> AlertGroup:
    return _group(NodeLocalDNSProps())


def test_group_name_and_alert_names_in_order(group: AlertGroup) -> None:
    assert group.name == "nodelocaldns"
    assert [rule.alert for rule in group.rules] == [
        "NodeLocalDNSSetupErrors",
        "NodeLocalDNSPodRestarting",
        "NodeLocalDNSDaemonSetDegraded",
        "NodeLocalDNSMetricsDown",
    ]


def test_exprs_are_the_production_queries_plus_metrics_down(group: AlertGroup) -> None:
    assert {rule.alert: rule.expr for rule in group.rules} == {
        "NodeLocalDNSSetupErrors": "increase(coredns_nodecache_setup_errors_total[5m]) > 0",
        "NodeLocalDNSPodRestarting": (
            'rate(kube_pod_container_status_restarts_total{namespace="kube-system", container="node-cache"}[15m]) > 0'
        ),
        "NodeLocalDNSDaemonSetDegraded": (
            'kube_daemonset_status_number_unavailable{namespace="kube-system", daemonset="node-local-dns"} > 0'
        ),
        "NodeLocalDNSMetricsDown": (
            'up{job="monitoring/nodelocaldns"} == 0 or absent(up{job="monitoring/nodelocaldns"})'
        ),
    }


def test_for_and_severity_defaults(group: AlertGroup) -> None:
    assert {rule.alert: (rule.settings.for_, rule.settings.severity) for rule in group.rules} == {
        "NodeLocalDNSSetupErrors": ("5m", "critical"),
        "NodeLocalDNSPodRestarting": ("10m", "warning"),
        "NodeLocalDNSDaemonSetDegraded": ("15m", "warning"),
        "NodeLocalDNSMetricsDown": ("10m", "warning"),
    }


def test_annotations(group: AlertGroup) -> None:
    assert {rule.alert: (rule.summary, rule.description) for rule in group.rules} == {
        "NodeLocalDNSSetupErrors": (
            "node-cache failed to set up iptables rules or its interface",
            "node-cache on node {{ $labels.node }} (pod {{ $labels.pod }}) reports {{ $labels.errortype }} "
            "setup errors. Check its logs: kubectl logs -n kube-system {{ $labels.pod }}.",
        ),
        "NodeLocalDNSPodRestarting": (
            "node-cache containers are restarting",
            "{{ $labels.pod }} restarted in the last 15 minutes: iptables or binary trouble, or a Corefile "
            "that does not load.",
        ),
        "NodeLocalDNSDaemonSetDegraded": (
            "node-local-dns pods are unavailable",
            "{{ $value }} node-local-dns pods have been unavailable for 15m: look for image pulls, "
            "scheduling or crashloops. Those nodes fall through to cluster CoreDNS.",
        ),
        "NodeLocalDNSMetricsDown": (
            "node-cache metrics are not being scraped",
            "A monitoring/nodelocaldns target is down (node {{ $labels.node }}) or none is left; "
            "NodeLocalDNSSetupErrors cannot fire without these metrics.",
        ),
    }


def test_no_query_uses_the_nonexistent_prefixes(group: AlertGroup) -> None:
    for rule in group.rules:
        assert "nodelocaldns_" not in rule.expr
        assert "coredns_nodecache_dummy_count" not in rule.expr


def test_custom_names_and_settings_reach_the_queries() -> None:
    group = node_local_dns_alerts(
        alerts=NodeLocalDNSAlerts(daemonset_degraded=AlertSettings(for_="30m", severity="page")),
        namespace="dns",
        daemon_set="nld",
        container="cache",
        scrape_job="observability/nld",
    )

    by_name = {rule.alert: rule for rule in group.rules}
    assert by_name["NodeLocalDNSPodRestarting"].expr == (
        'rate(kube_pod_container_status_restarts_total{namespace="dns", container="cache"}[15m]) > 0'
    )
    assert by_name["NodeLocalDNSDaemonSetDegraded"].expr == (
        'kube_daemonset_status_number_unavailable{namespace="dns", daemonset="nld"} > 0'
    )
    assert by_name["NodeLocalDNSDaemonSetDegraded"].settings == AlertSettings(for_="30m", severity="page")
    assert by_name["NodeLocalDNSDaemonSetDegraded"].description.startswith(
        "{{ $value }} nld pods have been unavailable for 30m: "
    )
    assert by_name["NodeLocalDNSMetricsDown"].expr == (
        'up{job="observability/nld"} == 0 or absent(up{job="observability/nld"})'
    )


def test_props_wire_namespace_and_job_into_the_rules() -> None:
    group = _group(NodeLocalDNSProps(monitoring_namespace="observability"))

    exprs = {rule.alert: rule.expr for rule in group.rules}
    assert exprs["NodeLocalDNSPodRestarting"] == (
        'rate(kube_pod_container_status_restarts_total{namespace="kube-system", container="node-cache"}[15m]) > 0'
    )
    assert exprs["NodeLocalDNSMetricsDown"] == (
        'up{job="observability/nodelocaldns"} == 0 or absent(up{job="observability/nodelocaldns"})'
    )


# --- lint ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "expr",
    [
        "increase(nodelocaldns_setup_errors_total[5m]) > 0",
        "nodelocaldns_setup_errors_total > 0",
        "sum by (node) (nodelocaldns_dummy_count)",
    ],
)
def test_fails_when_expr_uses_the_nodelocaldns_prefix(expr: str) -> None:
    with pytest.raises(ValueError, match=r"^expr: metric 'nodelocaldns_\w+' in alert 'SomethingDown' does not exist"):
        _rule(expr)


@pytest.mark.parametrize(
    "expr",
    [
        'up{job="nodelocaldns_x"} == 0',
        "up{job='nodelocaldns_x'} == 0",
        'up{job="a\\"nodelocaldns_x"} == 0',
        "coredns_nodelocaldns_x > 0",
        "increase(coredns_nodecache_setup_errors_total[5m]) > 0",
    ],
)
def test_accepts_nodelocaldns_text_that_is_not_a_metric_name(expr: str) -> None:
    assert _rule(expr).expr == expr


def test_fails_when_name_matcher_uses_the_nodelocaldns_prefix() -> None:
    with pytest.raises(ValueError, match=r"^expr:"):
        _rule('{__name__="nodelocaldns_setup_errors_total"} > 0')


@pytest.mark.parametrize("value", ["5x", "", "5", "1.5m"])
def test_fails_when_for_is_not_a_duration(value: str) -> None:
    with pytest.raises(ValueError, match=rf"^for_: must be a Prometheus duration such as '5m', got '{value}'"):
        AlertSettings(for_=value, severity="warning")


@pytest.mark.parametrize("value", ["1h30m", "90s", "1d", "500ms", "2w"])
def test_accepts_prometheus_durations(value: str) -> None:
    assert AlertSettings(for_=value, severity="warning").for_ == value


@pytest.mark.parametrize("name", ["Node-Local-DNS", "1Alert", ""])
def test_fails_when_alert_name_is_invalid(name: str) -> None:
    with pytest.raises(ValueError, match=r"^alert: must be a metric-style name"):
        _rule(alert=name)


def test_fails_when_alert_names_repeat_in_a_group() -> None:
    with pytest.raises(ValueError, match=r"^rules: alert 'SomethingDown' is declared twice in group 'g'"):
        AlertGroup(name="g", rules=(_rule(), _rule()))


def test_every_alert_carries_productions_routing_labels_by_default(group: AlertGroup) -> None:
    assert {rule.alert: dict(rule.settings.labels) for rule in group.rules} == {
        "NodeLocalDNSSetupErrors": {"team": "pytorch-dev-infra", "priority": "P3"},
        "NodeLocalDNSPodRestarting": {"team": "pytorch-dev-infra", "priority": "P3"},
        "NodeLocalDNSDaemonSetDegraded": {"team": "pytorch-dev-infra", "priority": "P3"},
        "NodeLocalDNSMetricsDown": {"team": "pytorch-dev-infra", "priority": "P3"},
    }


def test_routing_labels_are_set_per_alert() -> None:
    alerts = NodeLocalDNSAlerts(setup_errors=AlertSettings(for_="5m", severity="critical", labels={"team": "dns"}))
    group = _group(NodeLocalDNSProps(alerts=alerts))

    assert {rule.alert: dict(rule.settings.labels) for rule in group.rules}["NodeLocalDNSSetupErrors"] == {
        "team": "dns"
    }


def test_alert_labels_route_every_alert_in_one_place_and_keep_for_and_severity(group: AlertGroup) -> None:
    routed = _group(NodeLocalDNSProps(alert_labels={"team": "platform", "priority": "P1"}))

    assert {rule.alert: dict(rule.settings.labels) for rule in routed.rules} == {
        rule.alert: {"team": "platform", "priority": "P1"} for rule in group.rules
    }
    assert [(r.settings.for_, r.settings.severity) for r in routed.rules] == [
        (r.settings.for_, r.settings.severity) for r in group.rules
    ]


def test_an_alert_given_labels_of_its_own_keeps_them_under_alert_labels() -> None:
    alerts = NodeLocalDNSAlerts(setup_errors=AlertSettings(for_="5m", severity="critical", labels={"team": "dns"}))
    group = _group(NodeLocalDNSProps(alerts=alerts, alert_labels={"team": "platform"}))

    labels = {rule.alert: dict(rule.settings.labels) for rule in group.rules}
    assert labels["NodeLocalDNSSetupErrors"] == {"team": "dns"}
    assert labels["NodeLocalDNSPodRestarting"] == {"team": "platform"}


@pytest.mark.parametrize(
    ("labels", "message"),
    [
        ({"team-name": "dns"}, r"^alert_labels: 'team-name' is not a Prometheus label name"),
        ({"severity": "page"}, r"^alert_labels: 'severity' is set by the severity field"),
        ({"team": ""}, r"^alert_labels: value of 'team' must be a non-empty string, got ''"),
        ({"team": 3}, r"^alert_labels: must be a mapping of strings to strings or None"),
    ],
)
def test_fails_when_alert_labels_are_invalid(labels: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        NodeLocalDNSProps(alert_labels=labels)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("labels", "message"),
    [
        ({"team-name": "dns"}, r"^labels: 'team-name' is not a Prometheus label name"),
        ({"__team": "dns"}, r"^labels: '__team' is not a Prometheus label name"),
        ({"severity": "page"}, r"^labels: 'severity' is set by the severity field"),
        ({"team": ""}, r"^labels: value of 'team' must be a non-empty string, got ''"),
        ({"team": 3}, r"^labels: must be "),
    ],
)
def test_fails_when_routing_labels_are_invalid(labels: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        AlertSettings(for_="5m", severity="warning", labels=labels)  # type: ignore[arg-type]


# --- values of the model ---------------------------------------------------------------------


@pytest.mark.parametrize("value", ["5m\n", "293y", "99999999999999999999ms"])
def test_fails_when_duration_is_past_what_prometheus_reads(value: str) -> None:
    with pytest.raises(ValueError, match=r"^for_: must be a Prometheus duration such as '5m'"):
        AlertSettings(for_=value, severity="warning")


def test_accepts_the_longest_duration_prometheus_reads() -> None:
    assert AlertSettings(for_="292y", severity="warning").for_ == "292y"


def test_fails_when_a_rule_group_has_no_name() -> None:
    with pytest.raises(ValueError, match=r"^name: a rule group needs a name, got ''$"):
        AlertGroup(name="", rules=())


def test_rules_given_as_a_list_are_kept_as_a_tuple() -> None:
    assert AlertGroup(name="g", rules=[]).rules == ()  # type: ignore[arg-type]


def test_fails_when_rules_are_not_a_sequence_of_rules() -> None:
    with pytest.raises(ValueError, match=r"^rules: must be a tuple of AlertRule, got \('r',\)$"):
        AlertGroup(name="g", rules=["r"])  # type: ignore[arg-type]


def test_fails_when_alert_name_ends_in_a_newline() -> None:
    with pytest.raises(ValueError, match=r"^alert: must be a metric-style name"):
        AlertRule(
            alert="Down\n",
            expr="up == 0",
            settings=AlertSettings(for_="5m", severity="warning"),
            summary="s",
            description="d",
        )
