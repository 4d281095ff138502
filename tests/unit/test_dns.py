"""What node-cache serves beyond the spec's blocks: each option's Corefile text, and every refusal naming its prop."""

from __future__ import annotations

import re
from typing import Any

import pytest

from constructs_nld import (
    AQueryFilter,
    CacheSettings,
    Directive,
    Dns64,
    ForwardOptions,
    ForwardZone,
    HostEntry,
    NodeAffinity,
    NodeLocalDNSProps,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Prefetch,
    ServerBlock,
    ServeStale,
    ZoneCache,
    synthesize,
)

CLUSTER_IP = "fd00:ec2::a"
CORP = ForwardZone(names=("corp.example",), upstreams=("fd03::100", "[fd03::101]:5353"))


def corefile(**props: Any) -> str:
    rule = NodeLocalDNSProps(kube_dns_cluster_ip=CLUSTER_IP, **props).parts.corefile
    return rule.corefile.render()


def block_of(text: str, key: str) -> str:
    """The text of the server block whose header is ``key``."""
    match = re.search(rf"^{re.escape(key)} \{{\n(.*?)^\}}\n", text, re.S | re.M)
    assert match is not None, text
    return match.group(1)


def test_the_defaults_leave_the_spec_corefile_as_it_was() -> None:
    default = corefile()

    assert [line for line in default.splitlines() if line.endswith("{") and not line.startswith(" ")] == [
        "cluster.local:53 {",
        "in-addr.arpa:53 {",
        "ip6.arpa:53 {",
        ".:53 {",
    ]
    assert "    forward . __PILLAR__UPSTREAM__SERVERS__\n" in block_of(default, ".:53")
    assert "log" not in default and "hosts" not in default and "dns64" not in default


def test_a_zone_gets_a_block_of_its_own_before_the_catch_all_bound_and_scraped_as_the_others() -> None:
    text = corefile(zones=(CORP,))

    assert block_of(text, "corp.example:53") == (
        "    errors\n"
        "    cache 30\n"
        "    reload\n"
        "    loop\n"
        f"    bind fd00::10 {CLUSTER_IP}\n"
        "    forward . fd03::100 [fd03::101]:5353\n"
        "    prometheus :9253\n"
    )
    headers = [line for line in text.splitlines() if line.endswith(":53 {")]
    assert headers.index("corp.example:53 {") == headers.index(".:53 {") - 1


def test_a_zone_with_two_names_its_options_and_cache() -> None:
    zone = ForwardZone(
        names=("corp.example", "corp.internal."),
        upstreams=("FD03:0::100",),
        forward=ForwardOptions(
            protocol="prefer_udp", max_fails=3, expire="30s", policy="sequential", max_concurrent=100
        ),
        cache=ZoneCache(
            ttl=60, denial_ttl=5, prefetch=Prefetch(amount=2), serve_stale=ServeStale(duration="30m", mode="verify")
        ),
    )

    text = block_of(corefile(zones=(zone,)), "corp.example:53 corp.internal:53")

    assert "    forward . fd03::100 {\n        prefer_udp\n        max_fails 3\n        expire 30s\n" in text
    assert "        policy sequential\n        max_concurrent 100\n    }\n" in text
    assert (
        "    cache 60 {\n        denial 9984 5\n        prefetch 2 1m 10%\n        serve_stale 30m verify\n    }\n"
        in text
    )


def test_upstream_servers_and_forward_options_replace_the_nodes_resolvers_in_the_catch_all() -> None:
    text = corefile(
        upstream_servers=("fd03::200", "[fd03::201]:53"),
        upstream_forward=ForwardOptions(protocol="force_tcp", max_concurrent=500),
        cluster_forward=ForwardOptions(protocol="force_tcp", health_check="1s"),
    )

    assert "    forward . fd03::200 fd03::201 {\n        force_tcp\n        max_concurrent 500\n    }\n" in block_of(
        text, ".:53"
    )
    assert "__PILLAR__UPSTREAM__SERVERS__" not in text
    for key in ("cluster.local:53", "in-addr.arpa:53", "ip6.arpa:53"):
        assert "    forward . __PILLAR__CLUSTER__DNS__ {\n        force_tcp\n        health_check 1s\n    }\n" in (
            block_of(text, key)
        )


def test_serve_stale_and_prefetch_apply_to_the_spec_blocks() -> None:
    cache = CacheSettings(prefetch=Prefetch(amount=10, duration="1m", percentage=20), serve_stale=ServeStale())

    text = corefile(cache=cache)

    assert "    cache {\n        success 9984 30\n        denial 9984 5\n        prefetch 10 1m 20%\n" in block_of(
        text, "cluster.local:53"
    )
    assert "        serve_stale 1h immediate\n" in block_of(text, "cluster.local:53")
    assert "    cache 30 {\n        prefetch 10 1m 20%\n        serve_stale 1h immediate\n    }\n" in block_of(
        text, ".:53"
    )


def test_retry_bounds_failfast_and_failover_are_written_in_the_forward_block() -> None:
    zone = _zone(
        upstreams=("fd03::100", "fd03::101"),
        forward=ForwardOptions(
            max_fails=1, max_connect_attempts=3, failfast_all_unhealthy_upstreams=True, failover=("servfail", "Refused")
        ),
    )

    text = block_of(corefile(zones=(zone,)), "corp.example:53")

    assert (
        "    forward . fd03::100 fd03::101 {\n        max_fails 1\n        max_connect_attempts 3\n"
        "        failfast_all_unhealthy_upstreams\n        failover SERVFAIL REFUSED\n    }\n"
    ) in text
    assert zone.forward.failover == ("SERVFAIL", "REFUSED")


def test_servfail_ttl_reaches_every_cache_and_the_denial_capacity_the_other_blocks() -> None:
    text = corefile(
        cache=CacheSettings(servfail_ttl=0, other_zones_denial_capacity=1000),
        zones=(_zone(cache=ZoneCache(ttl=60, servfail_ttl=30)),),
    )

    assert "    cache {\n        success 9984 30\n        denial 9984 5\n        servfail 0s\n    }\n" in block_of(
        text, "cluster.local:53"
    )
    for key in ("in-addr.arpa:53", "ip6.arpa:53", ".:53"):
        assert "    cache 30 {\n        denial 1000\n        servfail 0s\n    }\n" in block_of(text, key)
    assert "    cache 60 {\n        servfail 30s\n    }\n" in block_of(text, "corp.example:53")


def test_static_records_go_to_the_block_that_serves_their_name() -> None:
    text = corefile(
        zones=(CORP,),
        hosts=(
            HostEntry(name="registry.corp.example", addresses=("fd03::a1",)),
            HostEntry(name="db.svc.cluster.local", addresses=("fd00:ec2::99",), overrides_cluster_zones=True),
            HostEntry(name="mirror.example.net", addresses=("2001:db8::1", "2001:DB8::2")),
        ),
    )

    assert "    hosts /dev/null {\n        fd03::a1 registry.corp.example\n        fallthrough\n    }\n" in block_of(
        text, "corp.example:53"
    )
    assert "        fd00:ec2::99 db.svc.cluster.local\n" in block_of(text, "cluster.local:53")
    assert "        2001:db8::1 mirror.example.net\n        2001:db8::2 mirror.example.net\n" in block_of(text, ".:53")


def test_query_log_in_every_block_and_dns64_in_the_catch_all() -> None:
    text = corefile(zones=(CORP,), query_log=("denial", "error"), dns64=Dns64())

    for key in ("cluster.local:53", "in-addr.arpa:53", "ip6.arpa:53", "corp.example:53", ".:53"):
        assert "    log {\n        class denial error\n    }\n" in block_of(text, key)
    assert "    dns64 64:ff9b::/96\n" in block_of(text, ".:53")
    assert "dns64" not in block_of(text, "cluster.local:53")
    assert "    dns64 64:ff9b::/96 {\n        translate_all\n    }\n" in corefile(dns64=Dns64(translate_all=True))


_NODATA = (
    "    template IN A {zones} {{\n        rcode NOERROR\n"
    '        authority "{{{{ .Zone }}}} {ttl} IN SOA . . 1 7200 1800 86400 {ttl}"\n    }}\n'
)


def test_the_a_filter_answers_a_queries_in_the_cluster_domain_and_the_catch_all_by_default() -> None:
    text = corefile(a_filter=AQueryFilter())

    assert _NODATA.format(zones="cluster.local.", ttl=30) in block_of(text, "cluster.local:53")
    assert _NODATA.format(zones=".", ttl=30) in block_of(text, ".:53")
    assert "template" not in block_of(text, "in-addr.arpa:53") + block_of(text, "ip6.arpa:53")


def test_the_a_filter_goes_to_the_block_serving_each_zone_with_its_ttl() -> None:
    text = corefile(
        zones=(ForwardZone(names=("corp.example", "corp.test"), upstreams=("fd03::100",)),),
        a_filter=AQueryFilter(zones=("svc.cluster.local.", "corp.test", "build.corp.example"), ttl=300),
    )

    assert _NODATA.format(zones="svc.cluster.local.", ttl=300) in block_of(text, "cluster.local:53")
    assert _NODATA.format(zones="corp.test. build.corp.example.", ttl=300) in block_of(
        text, "corp.example:53 corp.test:53"
    )
    assert "template" not in block_of(text, ".:53")


def test_with_dns64_the_default_a_filter_leaves_the_catch_all_to_it() -> None:
    text = corefile(a_filter=AQueryFilter(), dns64=Dns64())

    assert _NODATA.format(zones="cluster.local.", ttl=30) in block_of(text, "cluster.local:53")
    assert "template" not in block_of(text, ".:53")
    assert "dns64 64:ff9b::/96" in block_of(text, ".:53")


def test_a_template_record_may_be_quoted_and_nothing_else() -> None:
    answer = Directive("answer", ('"{{ .Name }} 60 IN AAAA 2001:db8::1"',))
    mine = ServerBlock(zone="lab.example", port=53, directives=(Directive("template", ("IN", "AAAA"), (answer,)),))

    assert '        answer "{{ .Name }} 60 IN AAAA 2001:db8::1"\n' in corefile(extra_server_blocks=(mine,))


def test_a_zone_may_replace_a_spec_zone_when_the_prop_says_so() -> None:
    reverse = ForwardZone(names=("ip6.arpa",), upstreams=("fd03::100",), overrides_cluster_zones=True)
    subzone = ForwardZone(names=("10.in-addr.arpa",), upstreams=("fd03::100",), overrides_cluster_zones=True)

    text = corefile(zones=(reverse, subzone))

    assert "forward . fd03::100" in block_of(text, "ip6.arpa:53")
    assert "forward . __PILLAR__CLUSTER__DNS__" in block_of(text, "in-addr.arpa:53")
    assert "forward . fd03::100" in block_of(text, "10.in-addr.arpa:53")


def test_an_extra_server_block_is_linted_and_appended_before_the_catch_all() -> None:
    mine = ServerBlock(
        zone="lab.example",
        port=53,
        directives=(Directive("bind", ("fd00::10",)), Directive("template", ("IN", "A", "lab.example"))),
    )

    text = corefile(extra_server_blocks=(mine,))

    headers = [line for line in text.splitlines() if line.endswith(":53 {")]
    assert headers[-2:] == ["lab.example:53 {", ".:53 {"]


def test_an_extra_block_without_bind_gets_node_caches_binds_in_every_mode() -> None:
    mine = ServerBlock(zone="lab.example", port=53, directives=(Directive("errors"),))

    assert block_of(corefile(extra_server_blocks=(mine,)), "lab.example:53") == (
        f"    bind fd00::10 {CLUSTER_IP}\n    errors\n"
    )
    preview = NodeLocalDNSProps(extra_server_blocks=(mine,)).parts.corefile.corefile.render()
    assert block_of(preview, "lab.example:53") == "    bind fd00::10 __KUBE_DNS_CLUSTER_IP__\n    errors\n"
    portable = NodeLocalDNSProps(portable=True, extra_server_blocks=(mine,)).parts.corefile.corefile.render()
    assert block_of(portable, "lab.example:53") == "    bind __PILLAR__LOCAL__DNS__\n    errors\n"


@pytest.mark.parametrize(
    ("props", "bind"),
    [
        ({"kube_dns_cluster_ip": CLUSTER_IP}, f"bind {CLUSTER_IP}"),
        ({}, "bind __KUBE_DNS_CLUSTER_IP__"),
    ],
    ids=["deployable", "preview"],
)
def test_an_extra_block_binding_the_cluster_ip_placeholder_gets_the_cluster_ip_when_known(
    props: dict[str, Any], bind: str
) -> None:
    mine = ServerBlock(zone="lab.example", port=53, directives=(Directive("bind", ("__KUBE_DNS_CLUSTER_IP__",)),))

    text = NodeLocalDNSProps(extra_server_blocks=(mine,), **props).parts.corefile.corefile.render()

    assert block_of(text, "lab.example:53") == f"    {bind}\n"


@pytest.mark.parametrize("bind", ["fd00::10", "FD00:0::10", "__PILLAR__LOCAL__DNS__"])
def test_an_extra_block_binding_the_local_ip_is_reached_in_every_mode(bind: str) -> None:
    mine = ServerBlock(zone="lab.example", port=53, directives=(Directive("bind", (bind,)),))

    for props in ({}, {"portable": True}, {"interception": "fallthrough", "kube_dns_cluster_ip": CLUSTER_IP}):
        text = NodeLocalDNSProps(extra_server_blocks=(mine,), **props).parts.corefile.corefile.render()
        assert block_of(text, "lab.example:53") == f"    bind {bind}\n"


def test_the_cluster_zones_opt_ins_let_extra_blocks_and_host_entries_take_cluster_names() -> None:
    text = corefile(
        extra_server_blocks_override_cluster_zones=True,
        extra_server_blocks=(ServerBlock(zone="lab.svc.cluster.local", port=53, directives=(Directive("errors"),)),),
        hosts=(HostEntry(name="db.svc.cluster.local", addresses=("fd03::1",), overrides_cluster_zones=True),),
    )

    assert "lab.svc.cluster.local:53 {" in text
    assert "        fd03::1 db.svc.cluster.local\n" in block_of(text, "cluster.local:53")


def test_diagnostic_plugins_named_may_be_used_in_extra_blocks() -> None:
    mine = ServerBlock(
        zone="lab.example", port=53, directives=(Directive("pprof", ("[fd00::10]:6053",)), Directive("debug"))
    )

    text = corefile(diagnostic_plugins=("pprof", "debug"), extra_server_blocks=(mine,))

    assert "    pprof [fd00::10]:6053\n    debug\n" in block_of(text, "lab.example:53")


def test_scheduling_props_reach_the_pod_template() -> None:
    props = NodeLocalDNSProps(
        node_selector={"node-fleet": "cpu"},
        affinity=NodeAffinity(
            required=(
                NodeSelectorTerm(
                    match_expressions=(NodeSelectorRequirement(key="instance-type", operator="In", values=("m6i",)),)
                ),
            )
        ),
        priority_class_name="dns-critical",
        image_pull_secrets=("registry-creds",),
        pod_annotations={"team.example/owner": "dns"},
        pod_labels={"tier": "node"},
        update_strategy="OnDelete",
    )
    (daemon_set,) = [o for chart in synthesize(props) for o in chart.objects if o["kind"] == "DaemonSet"]
    template = daemon_set["spec"]["template"]

    assert template["metadata"] == {
        "labels": {"k8s-app": "node-local-dns", "app.kubernetes.io/managed-by": "osdc-base", "tier": "node"},
        "annotations": {"team.example/owner": "dns"},
    }
    assert template["spec"]["nodeSelector"] == {"node-fleet": "cpu"}
    assert template["spec"]["affinity"] == {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "instance-type", "operator": "In", "values": ["m6i"]}]}
                ]
            }
        }
    }
    assert template["spec"]["priorityClassName"] == "dns-critical"
    assert template["spec"]["imagePullSecrets"] == [{"name": "registry-creds"}]
    assert daemon_set["spec"]["updateStrategy"] == {"type": "OnDelete"}
    assert daemon_set["spec"]["selector"] == {"matchLabels": {"k8s-app": "node-local-dns"}}


def _lab(*directives: Directive, zone: str = "lab.example", more_zones: tuple[str, ...] = ()) -> ServerBlock:
    return ServerBlock(zone=zone, more_zones=more_zones, port=53, directives=(*directives, Directive("errors")))


def _zone(**kwargs: Any) -> ForwardZone:
    return ForwardZone(**{"names": ("corp.example",), "upstreams": ("fd03::100",), **kwargs})


REFUSALS: list[tuple[str, Any, str]] = [
    (
        "a zone with an IPv4 upstream",
        lambda: _zone(upstreams=("10.0.0.2",)),
        r"^zones.upstreams: must be an IPv6 address \(the cluster is IPv6-only\), got IPv4 '10.0.0.2'$",
    ),
    (
        "a zone listed twice",
        lambda: NodeLocalDNSProps(zones=(_zone(), _zone(names=("corp.example", "x.example")))),
        r"^zones: 'corp.example' is listed twice \(in 'corp.example'\)$",
    ),
    (
        "a zone shadowing the cluster domain",
        lambda: NodeLocalDNSProps(zones=(_zone(names=("svc.cluster.local",)),)),
        r"^zones: 'svc.cluster.local' shadows the spec's 'cluster.local', which cluster CoreDNS answers; set "
        r"overrides_cluster_zones=True",
    ),
    (
        "a zone equal to '.'",
        lambda: _zone(names=(".",)),
        r"^zones.names: '\.' is the catch-all block's: set upstream_servers",
    ),
    (
        "a plugin node-cache lacks",
        lambda: NodeLocalDNSProps(
            extra_server_blocks=(
                ServerBlock(
                    zone="lab.example",
                    port=53,
                    directives=(Directive("bind", ("fd00::10",)), Directive("kubernetes")),
                ),
            )
        ),
        r"^extra_server_blocks: directive 'kubernetes' in 'lab.example:53' is not a plugin of node-cache 1.26.8",
    ),
    (
        "an extra block bound only where no pod queries",
        lambda: NodeLocalDNSProps(extra_server_blocks=(_lab(Directive("bind", ("fd00::99",))),)),
        r"^extra_server_blocks: 'lab.example:53' binds only fd00::99, which no pod queries: pods query the kube-dns "
        r"ClusterIP \(__KUBE_DNS_CLUSTER_IP__\), which node-cache intercepts, or its local IP fd00::10; bind one of "
        r"those, or leave bind out to get node-cache's$",
    ),
    (
        "an extra block bound to a literal address that is not the ClusterIP the props give",
        lambda: NodeLocalDNSProps(
            kube_dns_cluster_ip=CLUSTER_IP, extra_server_blocks=(_lab(Directive("bind", ("fd00:ec2::b",))),)
        ),
        r"^extra_server_blocks: 'lab.example:53' binds only fd00:ec2::b, which no pod queries: pods query the "
        r"kube-dns ClusterIP \(fd00:ec2::a\)",
    ),
    (
        "an extra block bound to the ClusterIP placeholder in portable manifests",
        lambda: NodeLocalDNSProps(
            portable=True, extra_server_blocks=(_lab(Directive("bind", ("__KUBE_DNS_CLUSTER_IP__",))),)
        ),
        r"^extra_server_blocks: 'lab.example:53' binds __KUBE_DNS_CLUSTER_IP__, which portable manifests never fill; "
        r"bind __PILLAR__LOCAL__DNS__",
    ),
    (
        "an unknown option nested in an extra block's plugin",
        lambda: NodeLocalDNSProps(
            extra_server_blocks=(_lab(Directive("forward", (".", "fd03::53"), (Directive("bogus", ("1",)),))),)
        ),
        r"^extra_server_blocks: 'bogus' in 'forward' of 'lab.example:53' is not an option of forward in CoreDNS "
        r"1\.13\.2 \(one of except, ",
    ),
    (
        "an extra block reading the node's /etc/hosts",
        lambda: NodeLocalDNSProps(extra_server_blocks=(_lab(Directive("hosts", ("/etc/hosts",))),)),
        r"^extra_server_blocks: hosts in 'lab.example:53' must read /dev/null, its entries written in its block, got "
        r"'/etc/hosts'",
    ),
    (
        "an extra block forwarding to a file",
        lambda: NodeLocalDNSProps(extra_server_blocks=(_lab(Directive("forward", (".", "/etc/resolv.conf"))),)),
        r"^extra_server_blocks: forward in 'lab.example:53' sends to '/etc/resolv.conf': it is no IP address",
    ),
    (
        "pprof in an extra block without the opt-in",
        lambda: NodeLocalDNSProps(extra_server_blocks=(_lab(Directive("pprof")),)),
        r"^extra_server_blocks: 'pprof' in 'lab.example:53' is refused unless diagnostic_plugins names it: it serves "
        r"the process's profiles on a listener of its own",
    ),
    (
        "debug allowed but trace used",
        lambda: NodeLocalDNSProps(diagnostic_plugins=("debug",), extra_server_blocks=(_lab(Directive("trace")),)),
        r"^extra_server_blocks: 'trace' in 'lab.example:53' is refused unless diagnostic_plugins names it",
    ),
    (
        "a diagnostic plugin allowed twice",
        lambda: NodeLocalDNSProps(diagnostic_plugins=("pprof", "pprof")),
        r"^diagnostic_plugins: takes each of debug, pprof, trace at most once, got \('pprof', 'pprof'\)$",
    ),
    (
        "a plugin allowed that is no diagnostic one",
        lambda: NodeLocalDNSProps(diagnostic_plugins=("kubernetes",)),  # type: ignore[arg-type]
        r"^diagnostic_plugins: takes each of debug, pprof, trace at most once, got \('kubernetes',\)$",
    ),
    (
        "an extra block inside the cluster domain",
        lambda: NodeLocalDNSProps(extra_server_blocks=(_lab(zone="svc.cluster.local"),)),
        r"^extra_server_blocks: 'svc.cluster.local:53' serves 'svc.cluster.local', which shadows the spec's "
        r"'cluster.local' that cluster CoreDNS answers; set extra_server_blocks_override_cluster_zones=True if the "
        r"block is meant to take those names$",
    ),
    (
        "an extra block's second zone inside a reverse zone",
        lambda: NodeLocalDNSProps(extra_server_blocks=(_lab(more_zones=("10.in-addr.arpa",)),)),
        r"^extra_server_blocks: 'lab.example:53 10.in-addr.arpa:53' serves '10.in-addr.arpa', which shadows the "
        r"spec's 'in-addr.arpa'",
    ),
    (
        "an extra block serving the cluster domain itself, even with the opt-in",
        lambda: NodeLocalDNSProps(
            extra_server_blocks_override_cluster_zones=True, extra_server_blocks=(_lab(zone="cluster.local"),)
        ),
        r"^extra_server_blocks: 'cluster.local:53' serves 'cluster.local', which the spec's block serves$",
    ),
    (
        "a host entry inside the cluster domain",
        lambda: NodeLocalDNSProps(hosts=(HostEntry(name="db.svc.cluster.local", addresses=("fd03::1",)),)),
        r"^hosts: 'db.svc.cluster.local' shadows the spec's 'cluster.local', which cluster CoreDNS answers; set "
        r"overrides_cluster_zones=True on the entry if it is meant to answer that name$",
    ),
    (
        "a host entry inside a reverse zone",
        lambda: NodeLocalDNSProps(hosts=(HostEntry(name="1.0.0.10.in-addr.arpa", addresses=("fd03::1",)),)),
        r"^hosts: '1.0.0.10.in-addr.arpa' shadows the spec's 'in-addr.arpa'",
    ),
    (
        "a host entry falling in an extra block with a hosts of its own",
        lambda: NodeLocalDNSProps(
            hosts=(HostEntry(name="box.lab.example", addresses=("fd03::1",)),),
            extra_server_blocks=(
                _lab(Directive("hosts", ("/dev/null",), (Directive("fd03::2", ("a.lab.example",)),))),
            ),
        ),
        r"^hosts: 'box.lab.example' falls in the extra server block 'lab.example:53', which has a hosts of its own "
        r"\(CoreDNS takes one a block\): write the entry there$",
    ),
    (
        "an A filter on the catch-all with dns64",
        lambda: NodeLocalDNSProps(dns64=Dns64(), a_filter=AQueryFilter(zones=(".",))),
        r"^a_filter.zones: '.' is refused with dns64, which makes its AAAA answers from the A records the filter "
        r"would answer empty; leave '.' out$",
    ),
    (
        "an A filter zone in an extra server block",
        lambda: NodeLocalDNSProps(
            a_filter=AQueryFilter(zones=("build.lab.example",)), extra_server_blocks=(_lab(Directive("whoami")),)
        ),
        r"^a_filter.zones: 'build.lab.example' falls in the extra server block 'lab.example:53', which is yours: "
        r"write a template there$",
    ),
    (
        "an A filter zone listed twice",
        lambda: AQueryFilter(zones=("corp.example", "corp.example.")),
        r"^a_filter.zones: 'corp.example' is listed twice$",
    ),
    (
        "an A filter zone that is no DNS name",
        lambda: AQueryFilter(zones=("Corp.Example",)),
        r"^a_filter.zones: must be a lower-case DNS zone such as 'corp.example', got 'Corp.Example'$",
    ),
    (
        "an A filter TTL of 0",
        lambda: AQueryFilter(ttl=0),
        r"^a_filter.ttl: must be a positive integer",
    ),
    (
        "an A filter TTL past int32",
        lambda: AQueryFilter(ttl=2**31),
        r"^a_filter.ttl: must be a positive integer \(at most 2147483647\), got 2147483648$",
    ),
    (
        "a quoted argument outside a template's records",
        lambda: NodeLocalDNSProps(extra_server_blocks=(_lab(Directive("forward", (".", '"fd03::53"'))),)),
        r"^extra_server_blocks: '\"fd03::53\"' in 'forward' of 'lab.example:53' would not render as one word: it "
        r"holds '#' \(a comment\) or '\"' \(a quoted string\)$",
    ),
    (
        "a quoted template record holding a quote",
        lambda: NodeLocalDNSProps(
            extra_server_blocks=(
                _lab(Directive("template", ("IN", "TXT"), (Directive("answer", ('"a 60 IN TXT "x""',)),))),
            )
        ),
        r"^extra_server_blocks: '\"a 60 IN TXT \"x\"\"' in 'answer' of 'lab.example:53' would not render as one "
        r"word: a quoted string holds a '\"', a '\\' or a control character$",
    ),
    (
        "a zone-scoped dns64 prefix",
        lambda: Dns64(prefix="64:ff9b::%eth0/96"),
        r"^dns64.prefix: must not be zone-scoped, got '64:ff9b::%eth0/96' \(CoreDNS refuses it\)$",
    ),
    (
        "a zone-scoped forward zone upstream",
        lambda: _zone(upstreams=("[fd03::53%eth0]:53",)),
        r"^zones.upstreams: must not be zone-scoped, got '\[fd03::53%eth0\]:53'",
    ),
    (
        "a max_concurrent of 0",
        lambda: ForwardOptions(max_concurrent=0),
        r"^forward.max_concurrent: must be a positive integer, got 0 \(0 means no cap to CoreDNS",
    ),
    (
        "a max_connect_attempts of 0",
        lambda: ForwardOptions(max_connect_attempts=0),
        r"^forward.max_connect_attempts: must be a positive integer, got 0 \(0 means no bound to CoreDNS: leave it "
        r"None for that\)$",
    ),
    (
        "a max_connect_attempts past uint32",
        lambda: ForwardOptions(max_connect_attempts=2**32),
        r"^forward.max_connect_attempts: must be a positive integer \(at most 4294967295\), got 4294967296$",
    ),
    (
        "failfast without health checks",
        lambda: ForwardOptions(max_fails=0, failfast_all_unhealthy_upstreams=True),
        r"^forward.failfast_all_unhealthy_upstreams: needs health checks, but max_fails is 0, which never marks an "
        r"upstream down$",
    ),
    (
        "failover on NOERROR",
        lambda: ForwardOptions(failover=("noerror",)),
        r"^forward.failover: NOERROR is an answer, not a failure \(CoreDNS refuses it\)$",
    ),
    (
        "failover on NXDOMAIN",
        lambda: ForwardOptions(failover=("SERVFAIL", "nxdomain")),
        r"^forward.failover: NXDOMAIN is an answer every upstream gives for a name that does not exist: CoreDNS "
        r"would send such a lookup round the upstreams until its 5 s deadline, then answer SERVFAIL$",
    ),
    (
        "failover on an unknown answer code",
        lambda: ForwardOptions(failover=("SERVFALE",)),
        r"^forward.failover: 'SERVFALE' is not an answer code CoreDNS knows; one of BADALG, ",
    ),
    (
        "failover on an answer code twice",
        lambda: ForwardOptions(failover=("SERVFAIL", "servfail")),
        r"^forward.failover: SERVFAIL is given twice$",
    ),
    (
        "failover in a zone with one upstream",
        lambda: _zone(forward=ForwardOptions(failover=("SERVFAIL",))),
        r"^zones.forward.failover: needs two upstreams or more to move to, but the block forwards to 1$",
    ),
    (
        "failover towards the cluster DNS",
        lambda: NodeLocalDNSProps(cluster_forward=ForwardOptions(failover=("SERVFAIL",))),
        r"^cluster_forward.failover: needs two upstreams or more to move to, but the block forwards to 1$",
    ),
    (
        "failover towards one upstream server",
        lambda: NodeLocalDNSProps(
            upstream_servers=("fd03::200",), upstream_forward=ForwardOptions(failover=("REFUSED",))
        ),
        r"^upstream_forward.failover: needs two upstreams or more to move to, but the block forwards to 1$",
    ),
    (
        "a servfail TTL past five minutes",
        lambda: CacheSettings(servfail_ttl=301),
        r"^cache.servfail_ttl: must be a non-negative integer \(at most 300\), got 301$",
    ),
    (
        "a negative zone servfail TTL",
        lambda: ZoneCache(servfail_ttl=-1),
        r"^zones.cache.servfail_ttl: must be a non-negative integer \(at most 300\), got -1$",
    ),
    (
        "a denial capacity of 0 for the other blocks",
        lambda: CacheSettings(other_zones_denial_capacity=0),
        r"^cache.other_zones_denial_capacity: must be a positive integer \(at most 2147483647\), got 0$",
    ),
    (
        "a negative serve-stale duration",
        lambda: ServeStale(duration="-1h"),
        r"^serve_stale.duration: must not be negative, got '-1h' \(CoreDNS refuses it, and node-cache would exit\)$",
    ),
    (
        "a serve-stale duration in days",
        lambda: ServeStale(duration="1d"),
        r"^serve_stale.duration: must be a duration such as '1h', '90s' or '1m30s'",
    ),
    (
        "a prefetch percentage out of the plugin's range",
        lambda: Prefetch(percentage=95),
        r"^prefetch.percentage: must be 10-90 \(the cache plugin's range\), got 95$",
    ),
    (
        "a node selector value that the API server rejects",
        lambda: NodeLocalDNSProps(node_selector={"node-fleet": "cpu pool"}),
        r"^node_selector: value 'cpu pool' of 'node-fleet' is not a valid label value",
    ),
    (
        "a host entry with an IPv4 address",
        lambda: HostEntry(name="registry.corp.example", addresses=("192.0.2.1",)),
        r"^hosts.addresses: must be IPv6 addresses \(the cluster is IPv6-only\), got IPv4 '192.0.2.1'",
    ),
    (
        "a host entry with a zone-scoped address",
        lambda: HostEntry(name="registry.corp.example", addresses=("fd03::a1%eth0",)),
        r"^hosts.addresses: must not be zone-scoped, got 'fd03::a1%eth0' for 'registry.corp.example' \(CoreDNS ",
    ),
    (
        "a zone-scoped upstream server",
        lambda: NodeLocalDNSProps(upstream_servers=("fd03::53%x",)),
        r"^upstream_servers: must not be zone-scoped, got 'fd03::53%x' \(CoreDNS refuses a zone-scoped address\)$",
    ),
    (
        "a host listed twice",
        lambda: NodeLocalDNSProps(
            hosts=(
                HostEntry(name="a.example", addresses=("fd03::1",)),
                HostEntry(name="a.example", addresses=("fd03::2",)),
            )
        ),
        r"^hosts: 'a.example' is listed twice",
    ),
    (
        "a log class CoreDNS lacks",
        lambda: NodeLocalDNSProps(query_log=("warn",)),  # type: ignore[arg-type]
        r"^query_log: classes are all, denial, error and success, got 'warn'$",
    ),
    (
        "a dns64 prefix of a length RFC 6052 does not allow",
        lambda: Dns64(prefix="64:ff9b::/80"),
        r"^dns64.prefix: must be an IPv6 prefix of length 32, 40, 48, 56, 64 or 96",
    ),
    (
        "pod labels overriding the selector's",
        lambda: NodeLocalDNSProps(pod_labels={"k8s-app": "other"}),
        r"^pod_labels: must not set 'k8s-app'",
    ),
    (
        "an affinity operator the API lacks",
        lambda: NodeSelectorRequirement(key="zone", operator="Near"),  # type: ignore[arg-type]
        r"^affinity.operator: must be In, NotIn, Exists, DoesNotExist, Gt or Lt, got 'Near'$",
    ),
    (
        "Exists with values",
        lambda: NodeSelectorRequirement(key="zone", operator="Exists", values=("a",)),
        r"^affinity.values: operator Exists takes no values",
    ),
    (
        "an image pull secret that is no object name",
        lambda: NodeLocalDNSProps(image_pull_secrets=("Registry Creds",)),
        r"^image_pull_secrets: must be a DNS subdomain",
    ),
    (
        "an update strategy the API lacks",
        lambda: NodeLocalDNSProps(update_strategy="Recreate"),  # type: ignore[arg-type]
        r"^update_strategy: must be 'RollingUpdate' or 'OnDelete', got 'Recreate'$",
    ),
    (
        "Gt with a number the API server cannot parse",
        lambda: NodeSelectorRequirement(key="cores", operator="Gt", values=("--4",)),
        r"^affinity.values: operator Gt takes one integer, got \('--4',\)$",
    ),
    (
        "Gt with a negative number, which is no label value",
        lambda: NodeSelectorRequirement(key="cores", operator="Gt", values=("-1",)),
        r"^affinity.values: operator Gt takes an integer of 0 or more \(the API server also reads it as a label "
        r"value, which starts with a digit\), got \('-1',\)$",
    ),
    (
        "Lt beyond int64",
        lambda: NodeSelectorRequirement(key="cores", operator="Lt", values=(str(2**63),)),
        r"^affinity.values: operator Lt takes one integer",
    ),
    (
        "a bare upstream server of a port out of range",
        lambda: NodeLocalDNSProps(upstream_servers=("[fd03::53]:70000",)),
        r"^upstream_servers: port must be 1-65535, got '\[fd03::53\]:70000'$",
    ),
]


@pytest.mark.parametrize(("what", "build", "message"), REFUSALS, ids=[r[0] for r in REFUSALS])
def test_fails_with_one_line_naming_the_prop(what: str, build: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message) as refused:
        build()

    assert "\n" not in str(refused.value), what


def test_without_reading_the_kube_dns_config_map_its_volume_and_mount_are_left_out() -> None:
    def daemon_set(props: NodeLocalDNSProps) -> dict[str, Any]:
        (found,) = [o for chart in synthesize(props) for o in chart.objects if o["kind"] == "DaemonSet"]
        return dict(found["spec"]["template"]["spec"])

    default, without = daemon_set(NodeLocalDNSProps()), daemon_set(NodeLocalDNSProps(read_kube_dns_config_map=False))

    assert "kube-dns-config" in [v["name"] for v in default["volumes"]]
    assert "kube-dns-config" not in [v["name"] for v in without["volumes"]]
    assert "/etc/kube-dns" not in [m["mountPath"] for m in without["containers"][0]["volumeMounts"]]
    assert [v for v in default["volumes"] if v["name"] != "kube-dns-config"] == without["volumes"]
