"""Validators of the props: every bad value fails at construction, naming the prop."""

from __future__ import annotations

import re
from typing import Any

import pytest

from constructs_nld import (
    CacheSettings,
    LivenessProbe,
    NodeLocalDNSAlerts,
    NodeLocalDNSProps,
    Ports,
    Prefetch,
    Toleration,
)
from constructs_nld.alerts import AlertSettings
from constructs_nld.corefile import Directive
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
    assert props.interception == "node-cache"
    assert props.privileged is True


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
        {"interception": "fallthrough"},
        {"privileged": False},
        {"interception": "fallthrough", "privileged": False},
    ],
    ids=lambda kwargs: ",".join(kwargs),
)
def test_accepts_valid_values(kwargs: dict[str, Any]) -> None:
    props = NodeLocalDNSProps(**kwargs)

    for name, value in kwargs.items():
        assert getattr(props, name) == value


def test_ephemeral_storage_limit_reaches_the_daemon_set_props() -> None:
    resources = NodeLocalDNSProps(limits={"ephemeral-storage": "1Gi"}).parts.daemon_set.limits

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
        ("local_ip", "ff02::1", "must not be multicast"),
        ("local_ip", "::", "must not be the unspecified address"),
        ("local_ip", "::ffff:10.0.0.1", "must not be IPv4-mapped"),
        ("kube_dns_cluster_ip", "", "must be an IPv6 address"),
    ],
)
def test_fails_when_address_cannot_be_bound(prop: str, value: str, message: str) -> None:
    with pytest.raises(ValueError, match=rf"^{prop}: {message}"):
        NodeLocalDNSProps(**_kwargs(prop, value))


def test_fails_when_cluster_ip_equals_local_ip() -> None:
    with pytest.raises(ValueError, match=r"^kube_dns_cluster_ip: 'fd00::10' is the address of local_ip 'fd00::10'"):
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
    [("dns", 0), ("health", 65536), ("metrics", -1), ("binary_metrics", 70000)],
)
def test_fails_when_port_is_out_of_range(field: str, value: int) -> None:
    with pytest.raises(ValueError, match=rf"^ports\.{field}: must be a port number 1-65535, got {value!r}"):
        Ports(**{field: value})


@pytest.mark.parametrize("value", [True, "53", 53.0])
def test_fails_when_port_is_not_an_integer(value: Any) -> None:
    with pytest.raises(ValueError, match=rf"^ports\.dns: must be an integer, got {re.escape(repr(value))}$"):
        Ports(dns=value)


# --- rollout -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("0%", "must be a percentage 1%-100% or a positive integer, got '0%'"),
        ("150%", "must be a percentage 1%-100% or a positive integer, got '150%'"),
        ("abc", "must be a percentage 1%-100% or a positive integer, got 'abc'"),
        ("01%", "must be a percentage"),
        (0, "must be a positive integer \\(at most 2147483647\\), got 0"),
        (-3, "must be a positive integer \\(at most 2147483647\\), got -3"),
        (2**31, "must be a positive integer \\(at most 2147483647\\), got 2147483648"),
        (True, "must be a string or an integer, got True"),
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
    with pytest.raises(ValueError, match=rf"^cache\.{field}: must be a positive integer \(at most 2147483647\), got 0"):
        CacheSettings(**{field: 0})  # type: ignore[arg-type]


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


# --- addresses: one form, compared by value, only ranges node-cache can serve on -----------


@pytest.mark.parametrize(
    ("local_ip", "cluster_ip"),
    [
        ("FD00::10", "FD00:EC2::A"),
        ("fd00:0:0:0:0:0:0:10", "fd00:ec2:0:0:0:0:0:a"),
        ("fd00:0000:0000:0000:0000:0000:0000:0010", "fd00:0ec2::000a"),
        ("fd00::0.0.0.16", "fd00:ec2::0.0.0.10"),
    ],
)
def test_addresses_are_kept_in_rfc_5952_form(local_ip: str, cluster_ip: str) -> None:
    props = NodeLocalDNSProps(local_ip=local_ip, kube_dns_cluster_ip=cluster_ip)

    assert (props.local_ip, props.kube_dns_cluster_ip) == ("fd00::10", "fd00:ec2::a")


def test_daemon_set_props_keep_addresses_in_rfc_5952_form() -> None:
    props = NodeCacheDaemonSetProps(local_ip="FD00::53", kube_dns_cluster_ip="FD00:EC2:0::A")

    assert (props.local_ip, props.kube_dns_cluster_ip) == ("fd00::53", "fd00:ec2::a")


@pytest.mark.parametrize("value", ["FD00::10", "fd00:0:0:0:0:0:0:10", "fd00::0.0.0.16"])
def test_fails_when_cluster_ip_is_local_ip_written_otherwise(value: str) -> None:
    with pytest.raises(ValueError, match=r"^kube_dns_cluster_ip: .* is the address of local_ip 'fd00::10'"):
        NodeLocalDNSProps(kube_dns_cluster_ip=value)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("::1", "must not be the loopback address, got '::1' \\(pods cannot reach a node's loopback\\)"),
        ("0:0:0:0:0:0:0:1", "must not be the loopback address"),
        ("::", "must not be the unspecified address"),
        ("::127.0.0.1", "must not be IPv4-compatible, got '::127.0.0.1' \\(deprecated by RFC 4291"),
        ("::a00:10", "must not be IPv4-compatible"),
        ("::ffff:10.0.0.1", "must not be IPv4-mapped, got '::ffff:10.0.0.1' \\(node-cache reads it as IPv4"),
        ("64:ff9b::10.0.0.1", "must not be in the NAT64 prefix 64:ff9b::/96"),
        ("64:ff9b:1::1", "must not be in the local NAT64 prefix 64:ff9b:1::/48"),
        ("fe80::1", "must not be link-local"),
        ("FE80::1", "must not be link-local"),
        ("fec0::1", "must not be site-local"),
        ("ff05::1", "must not be multicast"),
    ],
)
@pytest.mark.parametrize("prop", ["local_ip", "kube_dns_cluster_ip"])
def test_fails_when_address_is_in_a_range_node_cache_cannot_serve_on(prop: str, value: str, message: str) -> None:
    with pytest.raises(ValueError, match=rf"^{prop}: {message}"):
        NodeLocalDNSProps(**_kwargs(prop, value))


@pytest.mark.parametrize(
    ("value", "canonical"),
    [
        ("2001:db8::53", "2001:db8::53"),  # documentation range: an ordinary unicast address to the kernel
        ("3fff::53", "3fff::53"),
        ("2600:1f14:0:0::53", "2600:1f14::53"),
        ("fc00::53", "fc00::53"),
    ],
)
def test_accepts_unicast_addresses_outside_the_refused_ranges(value: str, canonical: str) -> None:
    assert NodeLocalDNSProps(local_ip=value).local_ip == canonical


def test_canonical_addresses_reach_every_place_that_writes_one() -> None:
    props = NodeLocalDNSProps(local_ip="FD00:0:0::10", kube_dns_cluster_ip="FD00:EC2::000A")

    corefile = props.parts.corefile.corefile.render()
    daemon_set = props.parts.daemon_set

    assert "    bind fd00::10 fd00:ec2::a\n" in corefile
    assert "    health [fd00::10]:8080\n" in corefile
    assert "FD00" not in corefile
    assert (daemon_set.local_ip, daemon_set.kube_dns_cluster_ip) == ("fd00::10", "fd00:ec2::a")


# --- ports and namespace -------------------------------------------------------------------


@pytest.mark.parametrize("value", [5353, 54, 1053])
def test_fails_when_dns_port_is_not_53(value: int) -> None:
    with pytest.raises(ValueError, match=rf"^ports\.dns: must be 53, got {value} \(pods ask the kube-dns ClusterIP"):
        Ports(dns=value)


def test_upstream_service_stays_on_kube_dns_port_53() -> None:
    props = NodeLocalDNSProps(ports=Ports(health=8081, metrics=9254, binary_metrics=9354))

    assert props.parts.upstream_service.dns_port == 53


@pytest.mark.parametrize("value", ["dns", "default", "node-local-dns"])
def test_fails_when_namespace_is_not_kube_dns_namespace(value: str) -> None:
    with pytest.raises(
        ValueError, match=rf"^namespace: must be 'kube-system', the namespace of kube-dns, got '{value}'"
    ):
        NodeLocalDNSProps(namespace=value)


@pytest.mark.parametrize("key", ["k8s-app"])
def test_fails_when_labels_set_the_app_label(key: str) -> None:
    with pytest.raises(ValueError, match=rf"^labels: must not set '{key}', got {key}='mine'"):
        NodeLocalDNSProps(labels={key: "mine"})


@pytest.mark.parametrize("cls", [NodeLocalDNSProps, NodeCacheDaemonSetProps])
def test_fails_when_pod_annotations_set_the_restart_stamp(cls: Any) -> None:
    with pytest.raises(
        ValueError,
        match=r"^pod_annotations: 'kubectl.kubernetes.io/restartedAt' is the restart stamp that deploy and "
        r"'kubectl rollout restart' write; a value here would undo their restarts at every deploy$",
    ):
        cls(pod_annotations={"kubectl.kubernetes.io/restartedAt": "2026-12-03T00:00:00Z"})


@pytest.mark.parametrize(
    "key", ["nodelocaldns.constructs-nld.io/cutover", "nodelocaldns.osdc/restarted-for-upstream-uid"]
)
def test_fails_when_pod_annotations_are_under_the_tools_prefixes(key: str) -> None:
    prefix = key.partition("/")[0] + "/"
    with pytest.raises(
        ValueError,
        match=rf"^pod_annotations: '{re.escape(key)}' is under '{re.escape(prefix)}', which the tool writes itself$",
    ):
        NodeLocalDNSProps(pod_annotations={key: "x"})


def test_annotations_beside_the_tools_own_are_accepted() -> None:
    props = NodeLocalDNSProps(pod_annotations={"kubectl.kubernetes.io/default-container": "node-cache"})
    assert props.pod_annotations == {"kubectl.kubernetes.io/default-container": "node-cache"}


# --- types ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prop", "value", "message"),
    [
        ("monitoring", "no", "must be True or False, got 'no'"),
        ("monitoring", 1, "must be True or False, got 1"),
        ("image", 5, "must be a string, got 5"),
        ("kube_dns_cluster_ip", 5, "must be a string or None, got 5"),
        ("tolerations", ("a",), "must be a tuple of Toleration, got \\('a',\\)"),
        ("tolerations", ["a"], "must be a tuple of Toleration, got \\('a',\\)"),
        ("labels", {"a": 1}, "must be a mapping of strings to strings, got \\{'a': 1\\}"),
        ("labels", "a=b", "must be a mapping of strings to strings, got 'a=b'"),
        ("ports", {"dns": 53}, "must be a Ports, got \\{'dns': 53\\}"),
        ("liveness", None, "must be a LivenessProbe, got None"),
        ("cache", 30, "must be a CacheSettings, got 30"),
        ("alerts", {}, "must be a NodeLocalDNSAlerts, got \\{\\}"),
        ("termination_grace_period_seconds", 30.0, "must be an integer, got 30\\.0"),
        ("max_unavailable", 1.5, "must be a string or an integer, got 1\\.5"),
    ],
)
def test_fails_when_a_prop_has_the_wrong_type(prop: str, value: Any, message: str) -> None:
    with pytest.raises(ValueError, match=rf"^{prop}: {message}$"):
        NodeLocalDNSProps(**_kwargs(prop, value))


def test_fails_when_nested_alert_settings_have_the_wrong_type() -> None:
    with pytest.raises(ValueError, match=r"^setup_errors: must be an AlertSettings, got '5m'$"):
        NodeLocalDNSAlerts(setup_errors="5m")  # type: ignore[arg-type]


def test_fails_when_severity_is_not_a_string() -> None:
    with pytest.raises(ValueError, match=r"^severity: must be a string, got 5$"):
        AlertSettings(for_="5m", severity=5)  # type: ignore[arg-type]


@pytest.mark.parametrize(("field", "value"), [("period_seconds", "15"), ("failure_threshold", 2.0)])
def test_fails_when_liveness_timing_is_not_an_integer(field: str, value: Any) -> None:
    with pytest.raises(ValueError, match=rf"^liveness\.{field}: must be an integer, got {re.escape(repr(value))}$"):
        LivenessProbe(**{field: value})


# --- integer widths ------------------------------------------------------------------------


@pytest.mark.parametrize("field", ["initial_delay_seconds", "period_seconds", "timeout_seconds", "failure_threshold"])
def test_fails_when_liveness_timing_overflows_int32(field: str) -> None:
    with pytest.raises(ValueError, match=rf"^liveness\.{field}: must be a .*\(at most 2147483647\), got 2147483648$"):
        LivenessProbe(**{field: 2**31})


def test_accepts_liveness_timings_at_int32_max() -> None:
    assert LivenessProbe(period_seconds=2**31 - 1).period_seconds == 2**31 - 1


def test_fails_when_grace_period_would_not_survive_jsii() -> None:
    with pytest.raises(
        ValueError,
        match=r"^termination_grace_period_seconds: must be a non-negative integer \(at most 9007199254740991\)",
    ):
        NodeLocalDNSProps(termination_grace_period_seconds=2**63 - 1)


def test_fails_when_cache_ttl_exceeds_the_dns_maximum() -> None:
    with pytest.raises(ValueError, match=r"^cache\.success_ttl: must be a positive integer \(at most 2147483647\)"):
        CacheSettings(success_ttl=2**31)


# --- label keys and values, as the API server checks them ----------------------------------


@pytest.mark.parametrize(
    ("key", "reason"),
    [
        ("a" * 254 + "/x", "the prefix must be a lower-case DNS subdomain of at most 253 characters"),
        ("b" * 64 + ".example.com/x", "each DNS label of the prefix must be at most 63 characters"),
        ("/x", "the prefix must be a lower-case DNS subdomain"),
        ("a/b/c", "the prefix must be a lower-case DNS subdomain"),
        ("example.com/" + "n" * 64, "the name part must be 1-63 alphanumerics"),
        ("a b", "the name part must be 1-63 alphanumerics"),
        ("team\n", "the name part must be 1-63 alphanumerics"),
    ],
)
def test_fails_when_label_key_breaks_an_api_server_rule(key: str, reason: str) -> None:
    with pytest.raises(ValueError, match=rf"^labels: {re.escape(repr(key))} is not a valid label key: {reason}"):
        NodeLocalDNSProps(labels={key: "x"})


@pytest.mark.parametrize("key", ["a" * 63 + "." + "b" * 63 + "." + "c" * 63 + "." + "d" * 61 + "/" + "n" * 63])
def test_accepts_label_key_at_both_length_limits(key: str) -> None:
    assert dict(NodeLocalDNSProps(labels={key: "v" * 63}).labels) == {key: "v" * 63}


def test_fails_when_label_value_ends_in_a_newline() -> None:
    with pytest.raises(ValueError, match=r"^labels: value 'dns\\n' of 'team' is not a valid label value"):
        NodeLocalDNSProps(labels={"team": "dns\n"})


def test_fails_when_namespace_ends_in_a_newline() -> None:
    with pytest.raises(ValueError, match=r"^monitoring_namespace: must be a DNS label"):
        NodeLocalDNSProps(monitoring_namespace="monitoring\n")


# --- tolerations, as the API server checks them --------------------------------------------


@pytest.mark.parametrize(
    ("key", "reason"),
    [
        ("a b", "the name part must be 1-63 alphanumerics"),
        ("k" * 300, "the name part must be 1-63 alphanumerics"),
        ("Example.com/gpu", "the prefix must be a lower-case DNS subdomain"),
    ],
)
def test_fails_when_toleration_key_is_not_a_qualified_name(key: str, reason: str) -> None:
    with pytest.raises(ValueError, match=rf"^tolerations: {re.escape(repr(key))} is not a valid taint key: {reason}"):
        Toleration(key=key, operator="Exists")


@pytest.mark.parametrize("value", ["a b", "v" * 64, "-x", "x\n"])
def test_fails_when_toleration_value_is_not_a_label_value(value: str) -> None:
    with pytest.raises(ValueError, match=r"^tolerations: value .* of 'dedicated' is not a valid taint value"):
        Toleration(key="dedicated", value=value)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"key": 5}, "tolerations\\.key: must be a string, got 5"),
        ({"key": "a", "value": 1}, "tolerations\\.value: must be a string or None, got 1"),
        ({"key": "a", "operator": 1}, "tolerations\\.operator: must be one of 'Equal', 'Exists', got 1"),
    ],
)
def test_fails_when_toleration_field_has_the_wrong_type(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=rf"^{message}$"):
        Toleration(**kwargs)


def test_accepts_a_prefixed_toleration_at_the_length_limits() -> None:
    toleration = Toleration(key="example.com/" + "k" * 63, value="v" * 63, effect="NoExecute")

    assert toleration.value == "v" * 63


# --- resources and the rest of the DaemonSet -----------------------------------------------


@pytest.mark.parametrize(
    ("limits", "message"),
    [
        ({"hugepages-2Mi": "2Mi"}, "limits: 'hugepages-2Mi' cannot be limited on node-cache"),
        ({"storage": "1Gi"}, "limits: 'storage' cannot be limited on node-cache"),
        ({"kubernetes.io/foo": "1"}, "limits: 'kubernetes.io/foo' cannot be limited on node-cache"),
        ({"a b": "1"}, "limits: 'a b' is not a valid resource name"),
        ({"example.com/device": "1.5"}, "limits\\.example\\.com/device: must be a whole number"),
        ({"example.com/device": "500m"}, "limits\\.example\\.com/device: must be a whole number"),
    ],
)
def test_fails_when_a_limit_cannot_apply_to_node_cache(limits: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=rf"^{message}"):
        NodeLocalDNSProps(limits=limits)


def test_accepts_an_extended_resource_limit() -> None:
    assert dict(NodeLocalDNSProps(limits={"example.com/device": "1"}).limits) == {"example.com/device": "1"}


@pytest.mark.parametrize("value", ["Upper/case", "img:", "a//b", ":tag", "img\n", "Img@sha256:" + "0" * 64])
def test_fails_when_image_is_not_a_reference_grammar(value: str) -> None:
    with pytest.raises(ValueError, match=r"^image: must be an image reference such as"):
        NodeLocalDNSProps(image=value)


@pytest.mark.parametrize(
    "value",
    [
        "node-cache:1.26.8",
        "localhost:5000/dns/node-cache:v1",
        "dns/node-cache@sha256:" + "a" * 64,
        "registry.k8s.io/dns/k8s-dns-node-cache:1.26.8@sha256:" + "0123456789abcdef" * 4,
        "localhost:5000/dns/node-cache:v1@sha512:" + "f" * 128,
    ],
)
def test_accepts_image_references(value: str) -> None:
    assert NodeLocalDNSProps(image=value).image == value


@pytest.mark.parametrize("value", ["node-cache", "registry.k8s.io/dns/k8s-dns-node-cache", "localhost:5000/dns/nc"])
def test_fails_when_image_has_neither_tag_nor_digest(value: str) -> None:
    expected = f"image: must carry a tag or a digest (without one it is ':latest', which moves), got {value!r}"
    with pytest.raises(ValueError, match=f"^{re.escape(expected)}$"):
        NodeLocalDNSProps(image=value)


def test_a_list_is_taken_where_a_tuple_is_expected() -> None:
    props = NodeLocalDNSProps(upstream_servers=["fd10::53"], tolerations=[Toleration(key="ci")])  # type: ignore[arg-type]

    assert props.upstream_servers == ("fd10::53",)
    assert props.tolerations == (Toleration(key="ci"),)
    assert props == NodeLocalDNSProps(upstream_servers=("fd10::53",), tolerations=(Toleration(key="ci"),))


@pytest.mark.parametrize(("given", "kept"), [(20, 20), ("20%", 20), ("90%", 90)])
def test_a_prefetch_percentage_is_taken_as_a_number_or_as_the_charts_percent(given: int | str, kept: int) -> None:
    prefetch = Prefetch(percentage=given)

    assert prefetch.percentage == kept
    assert prefetch.directive() == Directive("prefetch", ("1", "1m", f"{kept}%"))


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ("20", "prefetch.percentage: must be a number or 'N%', got '20'"),
        ("x%", "prefetch.percentage: must be a number or 'N%', got 'x%'"),
        ("２０%", "prefetch.percentage: must be a number or 'N%', got '２０%'"),
        ("95%", "prefetch.percentage: must be 10-90 (the cache plugin's range), got 95"),
        (2.5, "prefetch.percentage: must be an integer or a string, got 2.5"),
    ],
)
def test_fails_when_a_prefetch_percentage_is_not_one(given: Any, message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        Prefetch(percentage=given)


@pytest.mark.parametrize(
    "value",
    [
        "img@sha256:abc",
        "img:1.0@sha256:" + "0" * 63,
        "img@sha256:" + "0" * 65,
        "img@sha256:" + "A" * 64,
        "img:1.0@sha512:" + "0" * 64,
        "img@sha512:" + "ABCDEF01" * 16,
        "img@sha384:" + "0" * 96,
        "img@md5:" + "0" * 32,
        "img@SHA256:" + "0" * 64,
        "img@",
        "img@sha256:" + "0" * 64 + "\n",
    ],
)
def test_fails_when_image_digest_is_not_sha256_or_sha512(value: str) -> None:
    expected = "image: digest must be sha256:<64 lowercase hex> or sha512:<128 lowercase hex>, got " + repr(value)
    with pytest.raises(ValueError, match=f"^{re.escape(expected)}$"):
        NodeLocalDNSProps(image=value)


@pytest.mark.parametrize("value", ["System-Node-Critical", "a_b", "", "x" * 254])
def test_fails_when_priority_class_name_is_not_a_dns_subdomain(value: str) -> None:
    with pytest.raises(ValueError, match=r"^priority_class_name: must be a DNS subdomain"):
        NodeCacheDaemonSetProps(priority_class_name=value)


# --- interception and privilege --------------------------------------------------------------


@pytest.mark.parametrize("value", ["iptables", "Fallthrough", "", "ipvs"])
def test_fails_when_interception_is_unknown(value: str) -> None:
    message = f"interception: must be 'node-cache' (the spec's) or 'fallthrough', got {value!r}"

    with pytest.raises(ValueError, match=rf"^{re.escape(message)}$"):
        NodeLocalDNSProps(interception=value)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=rf"^{re.escape(message)}$"):
        NodeCacheDaemonSetProps(interception=value)  # type: ignore[arg-type]


def test_fails_when_fallthrough_is_asked_of_portable_manifests() -> None:
    message = (
        "interception: 'fallthrough' needs portable=False, got portable=True (the keeper's rules name the "
        "kube-dns ClusterIP, which portable manifests leave to kubelet and never hold)"
    )

    with pytest.raises(ValueError, match=rf"^{re.escape(message)}$"):
        NodeLocalDNSProps(interception="fallthrough", portable=True)
    with pytest.raises(ValueError, match=rf"^{re.escape(message)}$"):
        NodeCacheDaemonSetProps(interception="fallthrough", portable=True)


@pytest.mark.parametrize("value", [None, 1, True])
def test_fails_when_interception_is_not_a_string(value: Any) -> None:
    with pytest.raises(ValueError, match=r"^interception: must be one of 'node-cache', 'fallthrough', got "):
        NodeLocalDNSProps(interception=value)


@pytest.mark.parametrize("value", ["no", "false", 0, 1, None])
def test_fails_when_privileged_is_not_a_bool(value: Any) -> None:
    with pytest.raises(ValueError, match=rf"^privileged: must be True or False, got {re.escape(repr(value))}$"):
        NodeLocalDNSProps(privileged=value)
    with pytest.raises(ValueError, match=rf"^privileged: must be True or False, got {re.escape(repr(value))}$"):
        NodeCacheDaemonSetProps(privileged=value)


@pytest.mark.parametrize("value", ["Rules", "a_b", "", "x" * 64])
def test_fails_when_fallthrough_config_map_name_is_not_a_dns_label(value: str) -> None:
    with pytest.raises(ValueError, match=r"^keeper_config_map_name: must be a DNS label"):
        NodeCacheDaemonSetProps(keeper_config_map_name=value)


def test_fallthrough_builds_the_config_map_props_for_the_daemon_set_addresses_and_ports() -> None:
    props = NodeLocalDNSProps(
        interception="fallthrough", local_ip="FD00::53", kube_dns_cluster_ip="fd00:ec2::a", ports=Ports(health=8081)
    )
    assert props.parts.keeper_config is not None
    rules = props.parts.keeper_config.keeper

    assert (rules.local_ip, rules.kube_dns_cluster_ip, rules.ports.health) == ("fd00::53", "fd00:ec2::a", 8081)
    assert props.parts.daemon_set.interception == "fallthrough"


def test_privileged_reaches_the_daemon_set_props() -> None:
    assert NodeLocalDNSProps(privileged=False).parts.daemon_set.privileged is False
