"""Validators of the props: every bad value fails at construction, naming the prop."""

from __future__ import annotations

from typing import Any

import pytest

from constructs_nld import (
    CacheSettings,
    LivenessProbe,
    NodeLocalDNSAlerts,
    NodeLocalDNSProps,
    Ports,
    Toleration,
)
from constructs_nld.rules import AlertSettings
from constructs_nld.workload import NodeCacheDaemonSetProps

# NodeLocalDNSProps builds (and lints) the Corefile before it checks the addresses, so a
# malformed or bracketed address is reported as a Corefile problem, not as the prop.


def _kwargs(prop: str, value: Any) -> dict[str, Any]:
    return {prop: value}


# --- defaults ------------------------------------------------------------------------------


def test_defaults_are_the_spec_values() -> None:
    props = NodeLocalDNSProps()

    assert props.image == "registry.k8s.io/dns/k8s-dns-node-cache:1.26.8"
    assert props.image_pull_policy == "IfNotPresent"
    assert props.local_ip == "fd00::10"
    assert props.kube_dns_cluster_ip is None
    assert props.cluster_domain == "cluster.local"
    assert props.namespace == "kube-system"
    assert props.monitoring_namespace == "monitoring"
    assert dict(props.labels) == {"app.kubernetes.io/managed-by": "osdc-base"}
    assert dict(props.monitoring_labels) == {"app.kubernetes.io/part-of": "osdc-monitoring"}
    assert props.cpu_request == "25m"
    assert props.memory_request == "100Mi"
    assert dict(props.limits) == {}
    assert props.max_unavailable == "1%"
    assert props.termination_grace_period_seconds == 30
    assert props.scrape_interval == "60s"
    assert props.monitoring is True


def test_default_tolerations_are_the_spec_four_in_order() -> None:
    assert NodeLocalDNSProps().tolerations == (
        Toleration(key="CriticalAddonsOnly", operator="Equal", value="true", effect="NoSchedule"),
        Toleration(key="nvidia.com/gpu", operator="Exists", value=None, effect="NoSchedule"),
        Toleration(key="node-fleet", operator="Exists", value=None, effect="NoSchedule"),
        Toleration(key="instance-type", operator="Exists", value=None, effect="NoSchedule"),
    )


def test_default_liveness_is_60_15_5_5() -> None:
    liveness = NodeLocalDNSProps().liveness

    assert (
        liveness.initial_delay_seconds,
        liveness.period_seconds,
        liveness.timeout_seconds,
        liveness.failure_threshold,
    ) == (60, 15, 5, 5)


def test_default_ports_are_53_8080_9253_9353() -> None:
    ports = NodeLocalDNSProps().ports

    assert (ports.dns, ports.health, ports.metrics, ports.binary_metrics) == (53, 8080, 9253, 9353)


def test_default_cache_is_9984_30_and_9984_5_and_30() -> None:
    cache = NodeLocalDNSProps().cache

    assert (cache.success_capacity, cache.success_ttl) == (9984, 30)
    assert (cache.denial_capacity, cache.denial_ttl) == (9984, 5)
    assert cache.other_zones_ttl == 30


def test_default_alert_settings() -> None:
    alerts = NodeLocalDNSProps().alerts

    assert (alerts.setup_errors.for_, alerts.setup_errors.severity) == ("5m", "critical")
    assert (alerts.pod_restarting.for_, alerts.pod_restarting.severity) == ("10m", "warning")
    assert (alerts.daemonset_degraded.for_, alerts.daemonset_degraded.severity) == ("15m", "warning")
    assert (alerts.target_down.for_, alerts.target_down.severity) == ("10m", "warning")


# --- accepted values -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {"kube_dns_cluster_ip": "fd00:ec2::a"},
        {"local_ip": "fd00::53", "kube_dns_cluster_ip": "fd00:ec2::a"},
        {"max_unavailable": "100%"},
        {"max_unavailable": 7},
        {"limits": {"ephemeral-storage": "1Gi"}},
        {"cluster_domain": "example.internal"},
        {"labels": {"example.com/team": "dns", "app.kubernetes.io/managed-by": "osdc-base"}},
        {"scrape_interval": "1m30s"},
        {"monitoring": False},
    ],
    ids=lambda kwargs: ",".join(kwargs),
)
def test_accepts_valid_values(kwargs: dict[str, Any]) -> None:
    props = NodeLocalDNSProps(**kwargs)

    for name, value in kwargs.items():
        assert getattr(props, name) == value


def test_ephemeral_storage_limit_reaches_the_daemon_set_props() -> None:
    resources = NodeLocalDNSProps(limits={"ephemeral-storage": "1Gi"}).daemon_set_props().limits

    assert dict(resources) == {"ephemeral-storage": "1Gi"}


# --- addresses -----------------------------------------------------------------------------


def test_fails_when_local_ip_is_ipv4() -> None:
    with pytest.raises(ValueError, match=r"^local_ip: must be an IPv6 address, got IPv4 '169\.254\.20\.10'"):
        NodeLocalDNSProps(local_ip="169.254.20.10")


def test_fails_when_local_ip_and_cluster_ip_are_both_ipv4() -> None:
    with pytest.raises(ValueError, match=r"^local_ip:.*IPv6"):
        NodeLocalDNSProps(local_ip="169.254.20.10", kube_dns_cluster_ip="10.100.0.10")


def test_fails_when_cluster_ip_is_ipv4_beside_an_ipv6_local_ip() -> None:
    with pytest.raises(ValueError, match=r"^kube_dns_cluster_ip: .*different address families"):
        NodeLocalDNSProps(kube_dns_cluster_ip="10.100.0.10")


@pytest.mark.parametrize(
    ("prop", "value", "message"),
    [
        ("local_ip", "fe80::10%eth0", "must not be zone-scoped"),
        ("kube_dns_cluster_ip", "fe80::a%eth0", "must not be zone-scoped"),
        ("local_ip", "fe80::10", "must not be link-local"),
        ("kube_dns_cluster_ip", "fe80::a", "must not be link-local"),
        ("local_ip", "ff02::1", "must be a unicast IPv6 address"),
        ("local_ip", "::", "must be a unicast IPv6 address"),
        ("local_ip", "::ffff:10.0.0.1", "must be a unicast IPv6 address"),
        ("kube_dns_cluster_ip", "", "must be an IPv6 address"),
    ],
)
def test_fails_when_address_cannot_be_bound(prop: str, value: str, message: str) -> None:
    with pytest.raises(ValueError, match=rf"^{prop}: {message}"):
        NodeLocalDNSProps(**_kwargs(prop, value))


def test_fails_when_cluster_ip_equals_local_ip() -> None:
    with pytest.raises(ValueError, match=r"^kube_dns_cluster_ip: 'fd00::10' equals local_ip"):
        NodeLocalDNSProps(kube_dns_cluster_ip="fd00::10")


@pytest.mark.parametrize(
    ("prop", "value", "message"),
    [
        ("local_ip", "fd00::zz", "must be an IPv6 address"),
        ("local_ip", "not-an-ip", "must be an IPv6 address"),
        ("local_ip", "", "must be an IPv6 address"),
        ("local_ip", "[fd00::10]", "must be a bare IPv6 address"),
        ("kube_dns_cluster_ip", "fd00:ec2::zz", "must be an IPv6 address"),
        ("kube_dns_cluster_ip", "[fd00:ec2::a]", "must be a bare IPv6 address"),
    ],
)
def test_fails_when_address_is_malformed_or_bracketed(prop: str, value: str, message: str) -> None:
    with pytest.raises(ValueError, match=rf"^{prop}: {message}"):
        NodeLocalDNSProps(**_kwargs(prop, value))


@pytest.mark.parametrize(
    ("prop", "value", "message"),
    [
        ("local_ip", "fd00::zz", "must be an IPv6 address, got 'fd00::zz' \\(not an IP address\\)"),
        ("local_ip", "", "must be an IPv6 address, got ''"),
        ("local_ip", "[fd00::10]", "must be a bare IPv6 address without brackets, got '\\[fd00::10\\]'"),
        ("kube_dns_cluster_ip", "fd00:ec2::zz", "must be an IPv6 address"),
        ("kube_dns_cluster_ip", "[fd00:ec2::a]", "must be a bare IPv6 address without brackets"),
    ],
)
def test_daemon_set_props_fail_when_address_is_malformed_or_bracketed(prop: str, value: str, message: str) -> None:
    with pytest.raises(ValueError, match=rf"^{prop}: {message}"):
        NodeCacheDaemonSetProps(**_kwargs(prop, value))


# --- tolerations ---------------------------------------------------------------------------


def test_fails_when_toleration_is_a_keyless_exists() -> None:
    with pytest.raises(ValueError, match=r"^tolerations: operator 'Exists' with no key tolerates every taint"):
        Toleration(key="", operator="Exists")


def test_fails_when_toleration_has_no_key() -> None:
    with pytest.raises(ValueError, match=r"^tolerations: a toleration needs a key"):
        Toleration(key="")


def test_fails_when_exists_toleration_has_a_value() -> None:
    with pytest.raises(ValueError, match=r"^tolerations: operator 'Exists' takes no value, got 'x' for key 'a'"):
        Toleration(key="a", operator="Exists", value="x")


def test_fails_when_toleration_operator_is_unknown() -> None:
    with pytest.raises(ValueError, match=r"^tolerations: operator must be 'Equal' or 'Exists', got 'In'"):
        Toleration(key="a", operator="In")  # type: ignore[arg-type]


def test_fails_when_toleration_effect_is_unknown() -> None:
    with pytest.raises(ValueError, match=r"^tolerations: effect must be"):
        Toleration(key="a", effect="Never")  # type: ignore[arg-type]


def test_fails_when_tolerations_are_empty() -> None:
    with pytest.raises(ValueError, match=r"^tolerations: must list at least one toleration"):
        NodeLocalDNSProps(tolerations=())


# --- resources -----------------------------------------------------------------------------


@pytest.mark.parametrize(("resource", "value"), [("memory", "1Gi"), ("cpu", "1")])
def test_fails_when_a_cpu_or_memory_limit_is_set(resource: str, value: str) -> None:
    with pytest.raises(ValueError, match=rf"^limits: no {resource} limit may be set, got {resource}='{value}'"):
        NodeLocalDNSProps(limits={resource: value})


def test_fails_when_a_limit_is_not_a_quantity() -> None:
    with pytest.raises(ValueError, match=r"^limits\.ephemeral-storage: must be a Kubernetes quantity"):
        NodeLocalDNSProps(limits={"ephemeral-storage": "lots"})


@pytest.mark.parametrize(
    ("prop", "value"),
    [
        ("cpu_request", "abc"),
        ("cpu_request", ""),
        ("memory_request", "100MB"),
        ("memory_request", "-1"),
        ("memory_request", "1 Gi"),
    ],
)
def test_fails_when_request_is_not_a_quantity(prop: str, value: str) -> None:
    with pytest.raises(ValueError, match=rf"^{prop}: must be a Kubernetes quantity such as '25m' or '100Mi'"):
        NodeLocalDNSProps(**_kwargs(prop, value))


# --- ports ---------------------------------------------------------------------------------


def test_fails_when_metrics_port_clashes_with_health() -> None:
    with pytest.raises(ValueError, match=r"^ports\.metrics: 8080 clashes with ports\.health"):
        Ports(metrics=8080)


def test_fails_when_binary_metrics_port_clashes_with_metrics() -> None:
    with pytest.raises(ValueError, match=r"^ports\.binary_metrics: 9353 clashes with ports\.metrics"):
        Ports(metrics=9353)


def test_fails_when_binary_metrics_port_equals_plugin_metrics_port() -> None:
    with pytest.raises(ValueError, match=r"^ports\.binary_metrics: 9253 clashes with ports\.metrics"):
        Ports(binary_metrics=9253)


@pytest.mark.parametrize(
    ("field", "value"),
    [("dns", 0), ("health", 65536), ("metrics", -1), ("binary_metrics", 70000), ("dns", True), ("dns", "53")],
)
def test_fails_when_port_is_out_of_range(field: str, value: Any) -> None:
    with pytest.raises(ValueError, match=rf"^ports\.{field}: must be a port number 1-65535, got {value!r}"):
        Ports(**{field: value})


# --- rollout -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("0%", "must be a percentage 1%-100% or a positive integer, got '0%'"),
        ("150%", "must be a percentage 1%-100% or a positive integer, got '150%'"),
        ("abc", "must be a percentage 1%-100% or a positive integer, got 'abc'"),
        ("01%", "must be a percentage"),
        (0, "must be a positive integer, got 0"),
        (-3, "must be a positive integer, got -3"),
        (True, "must be a positive integer, got True"),
    ],
)
def test_fails_when_max_unavailable_is_invalid(value: str | int, message: str) -> None:
    with pytest.raises(ValueError, match=rf"^max_unavailable: {message}"):
        NodeLocalDNSProps(max_unavailable=value)


def test_fails_when_termination_grace_period_is_negative() -> None:
    with pytest.raises(ValueError, match=r"^termination_grace_period_seconds: must be a non-negative integer"):
        NodeLocalDNSProps(termination_grace_period_seconds=-1)


@pytest.mark.parametrize(
    ("field", "value"),
    [("initial_delay_seconds", -1), ("period_seconds", 0), ("timeout_seconds", 0), ("failure_threshold", 0)],
)
def test_fails_when_liveness_timing_is_not_positive(field: str, value: int) -> None:
    with pytest.raises(ValueError, match=rf"^liveness\.{field}: must be a"):
        LivenessProbe(**{field: value})


@pytest.mark.parametrize(
    "field", ["success_capacity", "success_ttl", "denial_capacity", "denial_ttl", "other_zones_ttl"]
)
def test_fails_when_cache_setting_is_not_positive(field: str) -> None:
    with pytest.raises(ValueError, match=rf"^cache\.{field}: must be a positive integer, got 0"):
        CacheSettings(**{field: 0})


# --- image ---------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["", "registry.k8s.io/dns/k8s-dns-node-cache: 1.26.8"])
def test_fails_when_image_is_not_a_reference(value: str) -> None:
    with pytest.raises(ValueError, match=r"^image: must be an image reference"):
        NodeLocalDNSProps(image=value)


def test_fails_when_image_pull_policy_is_unknown() -> None:
    with pytest.raises(ValueError, match=r"^image_pull_policy: must be Always, IfNotPresent or Never, got 'Sometimes'"):
        NodeLocalDNSProps(image_pull_policy="Sometimes")


# --- labels and names ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "key",
    ["bad key!", "-leading-dash", "a" * 64, "Example.com/team", "example.com/", ""],
)
def test_fails_when_label_key_is_invalid(key: str) -> None:
    with pytest.raises(ValueError, match=r"^labels: .* is not a valid label key"):
        NodeLocalDNSProps(labels={key: "x"})


@pytest.mark.parametrize("value", ["bad value!", "b" * 64, "-x", "x_"])
def test_fails_when_label_value_is_invalid(value: str) -> None:
    with pytest.raises(ValueError, match=r"^labels: value .* is not a valid label value"):
        NodeLocalDNSProps(labels={"team": value})


def test_fails_when_monitoring_label_is_invalid() -> None:
    with pytest.raises(ValueError, match=r"^monitoring_labels: value 'a b' of 'x' is not a valid label value"):
        NodeLocalDNSProps(monitoring_labels={"x": "a b"})


@pytest.mark.parametrize("value", ["Kube-System", "a_b", "", "a" * 64, "-dns", "dns."])
def test_fails_when_namespace_is_not_a_dns_label(value: str) -> None:
    with pytest.raises(ValueError, match=r"^namespace: must be a DNS label"):
        NodeLocalDNSProps(namespace=value)


def test_fails_when_monitoring_namespace_is_not_a_dns_label() -> None:
    with pytest.raises(ValueError, match=r"^monitoring_namespace: must be a DNS label.*got 'Monitoring'"):
        NodeLocalDNSProps(monitoring_namespace="Monitoring")


@pytest.mark.parametrize(
    "value",
    [
        "Cluster.Local",
        "cluster.local.",
        "",
        "a..b",
        "-a.b",
        "cluster_local",
        "a" * 64 + ".local",
    ],
)
def test_fails_when_cluster_domain_is_invalid(value: str) -> None:
    with pytest.raises(ValueError, match=r"^cluster_domain: must be a DNS domain such as 'cluster\.local'"):
        NodeLocalDNSProps(cluster_domain=value)


# --- monitoring ----------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["60", "1x", "", "1.5m", "60S"])
def test_fails_when_scrape_interval_is_not_a_duration(value: str) -> None:
    with pytest.raises(ValueError, match=r"^scrape_interval: must be a Prometheus duration"):
        NodeLocalDNSProps(scrape_interval=value)


@pytest.mark.parametrize("value", ["5x", "", "5", "5m30", "1.5m", "5M"])
def test_fails_when_alert_for_is_not_a_duration(value: str) -> None:
    with pytest.raises(ValueError, match=r"^for_: must be a Prometheus duration such as '5m'"):
        AlertSettings(for_=value, severity="warning")


def test_fails_when_alert_severity_is_empty() -> None:
    with pytest.raises(ValueError, match=r"^severity: must be a non-empty label value"):
        AlertSettings(for_="5m", severity="")


def test_custom_alert_settings_are_kept() -> None:
    alerts = NodeLocalDNSAlerts(setup_errors=AlertSettings(for_="1h30m", severity="page"))

    props = NodeLocalDNSProps(alerts=alerts)

    assert props.alerts.setup_errors == AlertSettings(for_="1h30m", severity="page")
    assert props.alerts.target_down == AlertSettings(for_="10m", severity="warning")
