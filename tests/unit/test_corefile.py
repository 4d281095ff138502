"""The Corefile model: its text, its four blocks and the lint that refuses what node-cache rejects."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from constructs_nld import CacheSettings, Corefile, Directive, NodeLocalDNSProps, Ports, ServerBlock
from constructs_nld.corefile import DIAGNOSTIC_PLUGINS, NODE_CACHE_PLUGINS, PLUGIN_OPTIONS
from constructs_nld.dns import node_local_dns_corefile

PREVIEW_COREFILE = """\
cluster.local:53 {
    errors
    cache {
        success 9984 30
        denial 9984 5
    }
    reload
    loop
    bind fd00::10 __KUBE_DNS_CLUSTER_IP__
    forward . __PILLAR__CLUSTER__DNS__ {
        force_tcp
    }
    prometheus :9253
    health [fd00::10]:8080
}
in-addr.arpa:53 {
    errors
    cache 30
    reload
    loop
    bind fd00::10 __KUBE_DNS_CLUSTER_IP__
    forward . __PILLAR__CLUSTER__DNS__ {
        force_tcp
    }
    prometheus :9253
}
ip6.arpa:53 {
    errors
    cache 30
    reload
    loop
    bind fd00::10 __KUBE_DNS_CLUSTER_IP__
    forward . __PILLAR__CLUSTER__DNS__ {
        force_tcp
    }
    prometheus :9253
}
.:53 {
    errors
    cache 30
    reload
    loop
    bind fd00::10 __KUBE_DNS_CLUSTER_IP__
    forward . __PILLAR__UPSTREAM__SERVERS__
    prometheus :9253
}
"""

HEALTH = Directive("health", ("[fd00::10]:8080",))


def _blocks(text: str) -> dict[str, str]:
    """Split Corefile text into ``{header: body}`` by its top-level ``zone:port {`` lines."""
    found = re.findall(r"^(\S+:\d+) \{\n(.*?)^\}$", text, flags=re.MULTILINE | re.DOTALL)
    return dict(found)


def _corefile(*blocks: ServerBlock, cluster_domain: str = "cluster.local") -> Corefile:
    return Corefile(cluster_domain=cluster_domain, blocks=blocks)


@pytest.fixture
def preview_text() -> str:
    return NodeLocalDNSProps().parts.corefile.corefile.render()


@pytest.fixture
def deployable_text() -> str:
    return NodeLocalDNSProps(kube_dns_cluster_ip="fd00:ec2::a").parts.corefile.corefile.render()


# --- the default Corefile ------------------------------------------------------------------


def test_default_corefile_text(preview_text: str) -> None:
    assert preview_text == PREVIEW_COREFILE


def test_corefile_with_cluster_ip_binds_it_everywhere(deployable_text: str) -> None:
    assert deployable_text == PREVIEW_COREFILE.replace("__KUBE_DNS_CLUSTER_IP__", "fd00:ec2::a")
    assert deployable_text.count("bind fd00::10 fd00:ec2::a\n") == 4


def test_four_blocks_in_order(preview_text: str) -> None:
    assert list(_blocks(preview_text)) == ["cluster.local:53", "in-addr.arpa:53", "ip6.arpa:53", ".:53"]


def test_model_has_four_blocks_in_order() -> None:
    corefile = NodeLocalDNSProps().parts.corefile.corefile

    assert [block.key for block in corefile.blocks] == ["cluster.local:53", "in-addr.arpa:53", "ip6.arpa:53", ".:53"]
    assert corefile.cluster_domain == "cluster.local"


def test_bind_lines_carry_no_brackets(deployable_text: str) -> None:
    binds = [line.strip() for line in deployable_text.splitlines() if line.strip().startswith("bind ")]

    assert binds == ["bind fd00::10 fd00:ec2::a"] * 4
    assert not any("[" in line or "]" in line for line in binds)


def test_health_only_in_the_cluster_domain_block(preview_text: str) -> None:
    blocks = _blocks(preview_text)

    assert preview_text.count("health") == 1
    assert "    health [fd00::10]:8080\n" in blocks["cluster.local:53"]
    for header in ("in-addr.arpa:53", "ip6.arpa:53", ".:53"):
        assert "health" not in blocks[header]


@pytest.mark.parametrize("header", ["cluster.local:53", "in-addr.arpa:53", "ip6.arpa:53"])
def test_cluster_blocks_force_tcp_to_the_upstream_service(preview_text: str, header: str) -> None:
    body = _blocks(preview_text)[header]

    assert "    forward . __PILLAR__CLUSTER__DNS__ {\n        force_tcp\n    }\n" in body
    assert "__PILLAR__UPSTREAM__SERVERS__" not in body


def test_catch_all_forwards_to_the_node_resolvers_without_force_tcp(preview_text: str) -> None:
    body = _blocks(preview_text)[".:53"]

    assert "    forward . __PILLAR__UPSTREAM__SERVERS__\n" in body
    assert "force_tcp" not in body
    assert "__PILLAR__CLUSTER__DNS__" not in body


def test_every_block_exports_metrics_on_9253(preview_text: str) -> None:
    for body in _blocks(preview_text).values():
        assert "    prometheus :9253\n" in body


def test_custom_cluster_domain_and_cache_render() -> None:
    corefile = node_local_dns_corefile(
        cluster_domain="example.internal",
        bind_addresses=("fd00::53", "fd00:ec2::a"),
        health_address="fd00::53",
        ports=Ports(health=8081, metrics=9254),
        cache=CacheSettings(success_capacity=100, success_ttl=60, denial_capacity=50, denial_ttl=2, other_zones_ttl=10),
    )

    text = corefile.render()

    assert (
        text
        == """\
example.internal:53 {
    errors
    cache {
        success 100 60
        denial 50 2
    }
    reload
    loop
    bind fd00::53 fd00:ec2::a
    forward . __PILLAR__CLUSTER__DNS__ {
        force_tcp
    }
    prometheus :9254
    health [fd00::53]:8081
}
in-addr.arpa:53 {
    errors
    cache 10
    reload
    loop
    bind fd00::53 fd00:ec2::a
    forward . __PILLAR__CLUSTER__DNS__ {
        force_tcp
    }
    prometheus :9254
}
ip6.arpa:53 {
    errors
    cache 10
    reload
    loop
    bind fd00::53 fd00:ec2::a
    forward . __PILLAR__CLUSTER__DNS__ {
        force_tcp
    }
    prometheus :9254
}
.:53 {
    errors
    cache 10
    reload
    loop
    bind fd00::53 fd00:ec2::a
    forward . __PILLAR__UPSTREAM__SERVERS__
    prometheus :9254
}
"""
    )


def test_props_cluster_domain_reaches_the_corefile() -> None:
    corefile = NodeLocalDNSProps(cluster_domain="example.internal").parts.corefile.corefile

    assert corefile.cluster_domain == "example.internal"
    assert corefile.render().startswith("example.internal:53 {\n")
    assert corefile.block("example.internal").find("health") == (HEALTH,)


def test_block_lookup_fails_for_an_unknown_zone() -> None:
    corefile = NodeLocalDNSProps().parts.corefile.corefile

    with pytest.raises(KeyError):
        corefile.block("example.com")


def test_hand_built_corefile_renders_nested_blocks() -> None:
    corefile = _corefile(
        ServerBlock(
            zone=".",
            port=53,
            directives=(Directive("forward", (".", "fd00::1"), (Directive("except", ("cluster.local",)),)),),
        )
    )

    assert corefile.render() == ".:53 {\n    forward . fd00::1 {\n        except cluster.local\n    }\n}\n"


def test_runtime_placeholders_are_accepted_in_arguments() -> None:
    corefile = _corefile(
        ServerBlock(
            zone=".",
            port=53,
            directives=(
                Directive("bind", ("__PILLAR__LOCAL__DNS__",)),
                Directive("forward", (".", "__PILLAR__UPSTREAM__SERVERS__")),
            ),
        )
    )

    assert corefile.render() == (
        ".:53 {\n    bind __PILLAR__LOCAL__DNS__\n    forward . __PILLAR__UPSTREAM__SERVERS__\n}\n"
    )


# --- lint ----------------------------------------------------------------------------------


def test_fails_when_health_is_in_the_catch_all_block() -> None:
    with pytest.raises(ValueError, match=r"^blocks: health \[fd00::10\]:8080 is declared in '\.:53'"):
        _corefile(ServerBlock(zone=".", port=53, directives=(HEALTH,)))


def test_fails_when_health_is_declared_in_two_blocks() -> None:
    with pytest.raises(ValueError, match=r"^blocks: health .* is declared in 'in-addr\.arpa:53'"):
        _corefile(
            ServerBlock(zone="cluster.local", port=53, directives=(HEALTH,)),
            ServerBlock(zone="in-addr.arpa", port=53, directives=(HEALTH,)),
        )


def test_fails_when_health_is_declared_in_two_cluster_domain_blocks() -> None:
    with pytest.raises(ValueError, match=r"^blocks: health is declared twice \(in 'cluster\.local:53' and"):
        _corefile(
            ServerBlock(zone="cluster.local", port=53, directives=(HEALTH,)),
            ServerBlock(zone="cluster.local", port=5353, directives=(HEALTH,)),
        )


def test_fails_when_health_is_declared_twice_in_one_block() -> None:
    with pytest.raises(ValueError, match=r"^blocks: health is declared twice"):
        _corefile(ServerBlock(zone="cluster.local", port=53, directives=(HEALTH, HEALTH)))


@pytest.mark.parametrize("args", [("fd00::10:8080",), (), ("[fd00::10]",), ("[fd00::10]:8080", "extra")])
def test_fails_when_health_address_is_not_bracketed_with_a_port(args: tuple[str, ...]) -> None:
    with pytest.raises(ValueError, match=r"^blocks: health in 'cluster\.local:53' must be '\[IPv6\]:port'"):
        _corefile(ServerBlock(zone="cluster.local", port=53, directives=(Directive("health", args),)))


def test_fails_when_health_host_is_not_an_address() -> None:
    with pytest.raises(ValueError, match=r"^blocks: health"):
        _corefile(ServerBlock(zone="cluster.local", port=53, directives=(Directive("health", ("[localhost]:8080",)),)))


@pytest.mark.parametrize("token", ["__PILLAR__DNS__DOMAIN__", "__PILLAR__FOO__"])
def test_fails_when_an_argument_holds_an_unknown_placeholder(token: str) -> None:
    with pytest.raises(ValueError, match=rf"^blocks: unknown placeholder {token} in '\.:53' \(forward\)"):
        _corefile(ServerBlock(zone=".", port=53, directives=(Directive("forward", (".", token)),)))


def test_fails_when_a_nested_argument_holds_an_unknown_placeholder() -> None:
    nested = Directive("forward", (".", "fd00::1"), (Directive("except", ("__PILLAR__FOO__",)),))

    with pytest.raises(ValueError, match=r"^blocks: unknown placeholder __PILLAR__FOO__"):
        _corefile(ServerBlock(zone=".", port=53, directives=(nested,)))


def test_fails_when_a_zone_holds_an_unknown_placeholder() -> None:
    with pytest.raises(ValueError, match=r"^blocks: unknown placeholder __PILLAR__DNS__DOMAIN__"):
        _corefile(ServerBlock(zone="__PILLAR__DNS__DOMAIN__", port=53, directives=(Directive("errors"),)))


def test_fails_when_bind_address_is_bracketed() -> None:
    with pytest.raises(ValueError, match=r"^blocks: bind in '\.:53' takes bare addresses without brackets"):
        _corefile(ServerBlock(zone=".", port=53, directives=(Directive("bind", ("[fd00::10]",)),)))


@pytest.mark.parametrize(
    ("arg", "message"),
    [
        ("::", r"^blocks: bind in '\.:53' must name an address, got '::' \(every address of the node, on the host"),
        (
            "fd00::10%eth0",
            r"^blocks: bind in '\.:53' must not be zone-scoped, got 'fd00::10%eth0' \(CoreDNS refuses it\)$",
        ),
        ("__x__", r"^blocks: bind in '\.:53' takes IP addresses or one of __KUBE_DNS_CLUSTER_IP__, .*, got '__x__'$"),
        (
            "__NODE_IP__",
            r"^blocks: bind in '\.:53' takes IP addresses or one of .*, got '__NODE_IP__'$",
        ),
    ],
    ids=["unspecified", "zone", "placeholder-shaped", "unknown-placeholder"],
)
def test_fails_when_bind_names_no_single_address_node_cache_can_serve(arg: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _corefile(ServerBlock(zone=".", port=53, directives=(Directive("bind", (arg,)),)))


@pytest.mark.parametrize("arg", ["__KUBE_DNS_CLUSTER_IP__", "__PILLAR__LOCAL__DNS__", "fd00::10"])
def test_bind_takes_an_address_or_a_placeholder_that_becomes_one(arg: str) -> None:
    assert f"bind {arg}" in _corefile(ServerBlock(zone=".", port=53, directives=(Directive("bind", (arg,)),))).render()


@pytest.mark.parametrize(
    "directive",
    [
        Directive("hosts", block=(Directive("import", ("/etc/coredns/extra",)),)),
        Directive("forward", (".", "fd03::53"), block=(Directive("policy", block=(Directive("import", ("x",)),)),)),
    ],
    ids=["nested", "deeper"],
)
def test_fails_when_import_is_nested_at_any_depth(directive: Directive) -> None:
    with pytest.raises(ValueError, match=r"^blocks: 'import' in '\.:53' is refused at any depth: CoreDNS expands it"):
        _corefile(ServerBlock(zone=".", port=53, directives=(directive,)))


def test_fails_when_bind_argument_is_not_an_address() -> None:
    with pytest.raises(ValueError, match=r"^blocks: bind in '\.:53' takes IP addresses, got 'localhost'"):
        _corefile(ServerBlock(zone=".", port=53, directives=(Directive("bind", ("localhost",)),)))


def test_fails_when_a_server_block_is_declared_twice() -> None:
    with pytest.raises(ValueError, match=r"^blocks: server block '\.:53' is declared twice"):
        _corefile(
            ServerBlock(zone=".", port=53, directives=(Directive("errors"),)),
            ServerBlock(zone=".", port=53, directives=(Directive("errors"),)),
        )


def test_fails_when_the_corefile_is_empty() -> None:
    with pytest.raises(ValueError, match=r"^blocks: a Corefile needs at least one server block, got none"):
        _corefile()


# --- text the model would render broken ----------------------------------------------------


def _one(*directives: Directive, zone: str = ".", port: int = 53) -> Corefile:
    return _corefile(ServerBlock(zone=zone, port=port, directives=directives))


@pytest.mark.parametrize("zone", ["a b", "Cluster.Local", "a..b", "-a.b", "cluster.local:53", "a{b", "", "x" * 64])
def test_fails_when_a_zone_would_not_render_as_a_zone(zone: str) -> None:
    with pytest.raises(ValueError, match=r"^blocks: zone must be '\.' or a lower-case DNS domain"):
        _one(Directive("errors"), zone=zone)


@pytest.mark.parametrize("zone", [".", "cluster.local", "cluster.local.", "10.in-addr.arpa", "_tcp.example"])
def test_accepts_zones(zone: str) -> None:
    assert _one(Directive("errors"), zone=zone).blocks[0].zone == zone


@pytest.mark.parametrize("port", [0, 65536])
def test_fails_when_a_block_port_is_out_of_range(port: int) -> None:
    with pytest.raises(ValueError, match=rf"^blocks\.port: must be a port number 1-65535, got {port}$"):
        _one(Directive("errors"), port=port)


@pytest.mark.parametrize(
    ("directive", "problem"),
    [
        (Directive("errors {"), "it holds whitespace or a control character"),
        (Directive("log", ("",)), "it is empty"),
        (Directive("log", ("a b",)), "it holds whitespace or a control character"),
        (Directive("log", ("a\nb",)), "it holds whitespace or a control character"),
        (Directive("log", ("#x",)), "it holds '#' \\(a comment\\)"),
        (Directive("log", ('"x',)), "it holds '#' \\(a comment\\) or '\"' \\(a quoted string\\)"),
        (Directive("log", ("{",)), "a lone brace opens or closes a block"),
        (Directive("log", ("}",)), "a lone brace opens or closes a block"),
        (Directive("log", ("{$HOME}",)), "'\\{\\$…\\}' and '\\{%…%\\}' are replaced by environment variables"),
        (Directive("forward", (".", "fd00::1"), (Directive("except", ("a b",)),)), "it holds whitespace"),
    ],
)
def test_fails_when_a_word_would_not_render_as_one_word(directive: Directive, problem: str) -> None:
    with pytest.raises(ValueError, match=rf"^blocks: .* in .* of '\.:53' would not render as one word: {problem}"):
        _one(directive)


@pytest.mark.parametrize("name", ["kubernetes", "ready", "import", "Errors", "etcd"])
def test_fails_when_a_plugin_is_not_in_node_cache(name: str) -> None:
    with pytest.raises(
        ValueError, match=rf"^blocks: directive '{name}' in '\.:53' is not a plugin of node-cache 1\.26"
    ):
        _one(Directive(name))


def test_nested_words_are_the_plugins_own_options_and_a_hosts_block_takes_address_lines() -> None:
    hosts = Directive(
        "hosts",
        ("/dev/null",),
        (Directive("fd00::1", ("db.example",)), Directive("ttl", ("60",)), Directive("fallthrough")),
    )

    assert _one(hosts).render() == (
        ".:53 {\n    hosts /dev/null {\n        fd00::1 db.example\n        ttl 60\n        fallthrough\n    }\n}\n"
    )
    with pytest.raises(ValueError, match=r"^blocks: 'bogus' in 'forward' of '\.:53' is not an option of forward"):
        _one(Directive("forward", (".", "fd00::1"), (Directive("bogus", ("1",)),)))


def test_every_plugin_of_node_cache_has_its_options_listed() -> None:
    assert set(PLUGIN_OPTIONS) == NODE_CACHE_PLUGINS
    assert set(DIAGNOSTIC_PLUGINS) == {"debug", "pprof", "trace"} <= NODE_CACHE_PLUGINS


@pytest.mark.parametrize(
    ("directive", "message"),
    [
        (
            Directive("forward", (".", "fd00::1"), (Directive("bogus", ("1",)),)),
            r"^blocks: 'bogus' in 'forward' of '\.:53' is not an option of forward in CoreDNS 1\.13\.2 \(one of "
            r"except, expire, failfast_all_unhealthy_upstreams, .*, tls, tls_servername\)$",
        ),
        (
            Directive("cache", ("30",), (Directive("capacity", ("10",)),)),
            r"^blocks: 'capacity' in 'cache' of '\.:53' is not an option of cache in CoreDNS 1\.13\.2 \(one of denial",
        ),
        (
            Directive("hosts", ("/dev/null",), (Directive("db.example", ("fd00::1",)),)),
            r"^blocks: 'db\.example' in 'hosts' of '\.:53' is not an option of hosts in CoreDNS 1\.13\.2 \(one of "
            r"fallthrough, no_reverse, reload, ttl or an address line 'ADDRESS NAME…'\)$",
        ),
        (
            Directive("hosts", ("/dev/null",), (Directive("fallthrough"), Directive("fd00::1", ("db.example",)))),
            r"^blocks: address line 'fd00::1' in 'hosts' of '\.:53' follows 'fallthrough'; CoreDNS reads address "
            r"lines only before it$",
        ),
        (
            Directive("hosts", ("/dev/null",), (Directive("fd00::1"),)),
            r"^blocks: address line 'fd00::1' in 'hosts' of '\.:53' must be 'ADDRESS NAME…'",
        ),
        (
            Directive("hosts", ("/dev/null",), (Directive("fd00::1%eth0", ("db.example",)),)),
            r"^blocks: address line 'fd00::1%eth0' in 'hosts' of '\.:53' must be 'ADDRESS NAME…', the address not "
            r"zone-scoped \(CoreDNS refuses it\), got 'fd00::1%eth0 db\.example'$",
        ),
        (
            Directive("template", ("IN", "A"), (Directive("answers", ("x",)),)),
            r"^blocks: 'answers' in 'template' of '\.:53' is not an option of template in CoreDNS 1\.13\.2 \(one of "
            r"additional, answer, authority, ederror, fallthrough, match, rcode, upstream\)$",
        ),
        (
            Directive("loop", block=(Directive("x"),)),
            r"^blocks: 'loop' of '\.:53' takes no block \(CoreDNS 1\.13\.2 refuses one\)$",
        ),
        (
            Directive("prometheus", (":9253",), (Directive("x"),)),
            r"^blocks: 'prometheus' of '\.:53' takes no block",
        ),
        (
            Directive("forward", (".", "fd00::1"), (Directive("policy", ("random",), (Directive("x"),)),)),
            r"^blocks: option 'policy' in 'forward' of '\.:53' takes no block$",
        ),
        (
            Directive("rewrite", ("name", "a.example", "b.example"), (Directive("answer"),)),
            r"^blocks: 'rewrite' of '\.:53' takes a block only with at most one argument",
        ),
        (
            Directive("rewrite", ("stop",), (Directive("regex"),)),
            r"^blocks: 'regex' in 'rewrite' of '\.:53' is not an option of rewrite",
        ),
    ],
    ids=[
        "forward",
        "cache",
        "hosts-name-first",
        "hosts-after-fallthrough",
        "hosts-without-name",
        "hosts-zone-scoped",
        "template",
        "loop",
        "prometheus",
        "option-with-a-block",
        "rewrite-line-and-block",
        "rewrite-word",
    ],
)
def test_fails_when_a_nested_word_is_not_the_plugins_own(directive: Directive, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _one(directive)


def test_accepts_each_plugins_own_options() -> None:
    corefile = _one(
        Directive("bind", ("fd00::10",), (Directive("except", ("fd00::11",)),)),
        Directive("errors", block=(Directive("consolidate", ("5m", ".*")),)),
        Directive(
            "forward", (".", "tls://fd03::53", "[fd03::54]:5353"), (Directive("tls"), Directive("next", ("NXDOMAIN",)))
        ),
        Directive(
            "rewrite",
            ("stop",),
            (Directive("name", ("regex", "(.*)\\.a", "{1}.b")), Directive("answer", ("name", "(.*)\\.b", "{1}.a"))),
        ),
        Directive("template", ("IN", "AAAA"), (Directive("rcode", ("NXDOMAIN",)),)),
        Directive("timeouts", block=(Directive("read", ("10s",)),)),
        Directive("log", block=(Directive("class", ("denial",)),)),
    )

    assert "        except fd00::11\n" in corefile.render()


@pytest.mark.parametrize(
    ("directive", "message"),
    [
        (
            Directive("hosts", ("/etc/hosts",)),
            r"^blocks: hosts in '\.:53' must read /dev/null, its entries written in its block, got '/etc/hosts': "
            r"node-cache runs on the host network, and any other file is the node's$",
        ),
        (
            Directive("hosts", block=(Directive("fd00::1", ("db.example",)),)),
            r"^blocks: hosts in '\.:53' must read /dev/null, .* got 'no file \(/etc/hosts\)'",
        ),
        (
            Directive("forward", (".", "/etc/resolv.conf")),
            r"^blocks: forward in '\.:53' sends to '/etc/resolv\.conf': it is no IP address: forward would read a file "
            r"of that name on the node \(node-cache's resolv\.conf comes only through its own "
            r"__PILLAR__UPSTREAM__SERVERS__\)$",
        ),
        (
            Directive("forward", (".", "[fd03::53]")),
            r"^blocks: forward in '\.:53' sends to '\[fd03::53\]': it is no IP address",
        ),
        (
            Directive("forward", (".", "https://fd03::53")),
            r"^blocks: forward in '\.:53' sends to 'https://fd03::53': https:// is not a transport forward takes",
        ),
        (
            Directive("forward", (".",)),
            r"^blocks: forward in '\.:53' takes a zone and at least one upstream, got \('\.',\)$",
        ),
        (
            Directive("forward", (".", "fd03::53"), (Directive("tls", ("/etc/ssl/c.pem", "/etc/ssl/k.pem")),)),
            r"^blocks: tls of forward in '\.:53' must name no file, got '/etc/ssl/c\.pem /etc/ssl/k\.pem': the "
            r"certificate, key and CA would be read on the node",
        ),
        (
            Directive("loadbalance", ("weighted", "/etc/weights")),
            r"^blocks: loadbalance in '\.:53' must not be 'weighted': its weight file is read on the node$",
        ),
    ],
    ids=[
        "hosts-file",
        "hosts-etc-hosts",
        "forward-file",
        "forward-bracketed",
        "forward-transport",
        "forward-no-to",
        "forward-tls-files",
        "loadbalance-weighted",
    ],
)
def test_fails_when_a_plugin_reads_a_file_on_the_node(directive: Directive, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _one(directive)


@pytest.mark.parametrize(
    ("directive", "message"),
    [
        (
            Directive("forward", (".", "fd03::53%eth0")),
            r"^blocks: forward in '\.:53' sends to 'fd03::53%eth0': a zone-scoped address, which CoreDNS refuses",
        ),
        (
            Directive("forward", (".", "[fe80::1%eth0]:53")),
            r"^blocks: forward in '\.:53' sends to '\[fe80::1%eth0\]:53': a zone-scoped address",
        ),
        (
            Directive("bind", ("fd00::10",), (Directive("except", ("fd00::11%eth0",)),)),
            r"^blocks: bind in '\.:53' must not be zone-scoped, got 'fd00::11%eth0' \(CoreDNS refuses it\)$",
        ),
        (
            Directive("prometheus", ("[fd00::10%eth0]:9253",)),
            r"^blocks: prometheus in '\.:53' must not listen on a zone-scoped address, got '\[fd00::10%eth0\]:9253' "
            r"\(CoreDNS refuses it\)$",
        ),
    ],
    ids=["forward", "forward-bracketed", "bind-except", "prometheus"],
)
def test_fails_when_an_address_is_zone_scoped(directive: Directive, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _one(directive)


def test_fails_when_the_health_address_is_zone_scoped() -> None:
    with pytest.raises(
        ValueError,
        match=r"^blocks: health in 'cluster\.local:53' must not be zone-scoped, got '\[fd00::10%eth0\]:8080'",
    ):
        _corefile(
            ServerBlock(zone="cluster.local", port=53, directives=(Directive("health", ("[fd00::10%eth0]:8080",)),))
        )


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("debug", "it turns off the recovery from panics"),
        ("pprof", "it serves the process's profiles on a listener of its own"),
        ("trace", "it sends a span of every query to a collector"),
    ],
)
def test_fails_when_a_diagnostic_plugin_is_not_allowed_by_name(name: str, reason: str) -> None:
    block = ServerBlock(zone=".", port=53, directives=(Directive(name),))

    with pytest.raises(
        ValueError, match=rf"^blocks: '{name}' in '\.:53' is refused unless diagnostic_plugins names it: {reason}"
    ):
        _corefile(block)
    assert (
        f"    {name}\n"
        in Corefile(cluster_domain="cluster.local", blocks=(block,), diagnostic_plugins=(name,)).render()
    )


@pytest.mark.parametrize("allowed", [("strace",), ("pprof", "pprof")])
def test_fails_when_diagnostic_plugins_names_another_plugin_or_one_twice(allowed: tuple[str, ...]) -> None:
    with pytest.raises(ValueError, match=r"^diagnostic_plugins: takes each of debug, pprof, trace at most once, got "):
        Corefile(
            cluster_domain="cluster.local",
            blocks=(ServerBlock(zone=".", port=53, directives=(Directive("errors"),)),),
            diagnostic_plugins=allowed,
        )


def test_rewrite_templates_with_braces_inside_a_word_are_kept() -> None:
    rewrite = Directive("rewrite", ("name", "regex", "(.*)\\.example", "{1}.cluster.local"))

    assert "rewrite name regex (.*)\\.example {1}.cluster.local" in _one(rewrite).render()


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: Corefile(cluster_domain="cluster.local", blocks=[1]), "blocks: must be a tuple of ServerBlock"),  # type: ignore[arg-type]
        (lambda: _one(Directive("log", [5])), "blocks.args: must be a tuple of str"),  # type: ignore[arg-type]
        (lambda: _one(Directive("log", (5,))), "blocks.args: must be a tuple of str"),  # type: ignore[arg-type]
        (lambda: _one(Directive("errors"), port="53"), "blocks.port: must be an integer"),  # type: ignore[arg-type]
        (lambda: _one(Directive("errors"), zone=None), "blocks.zone: must be a string"),  # type: ignore[arg-type]
    ],
)
def test_fails_when_the_model_has_the_wrong_types(build: Callable[[], Corefile], message: str) -> None:
    with pytest.raises(ValueError, match=rf"^{re.escape(message)}"):
        build()


@pytest.mark.parametrize("domain", ["Cluster.Local", "cluster.local.", "a b", ""])
def test_fails_when_the_corefile_cluster_domain_is_not_a_domain(domain: str) -> None:
    with pytest.raises(ValueError, match=r"^cluster_domain: must be a lower-case DNS domain"):
        _corefile(ServerBlock(zone=".", port=53, directives=(Directive("errors"),)), cluster_domain=domain)


@pytest.mark.parametrize("name", ["cache", "errors", "hosts", "loop", "prometheus"])
def test_fails_when_a_plugin_coredns_takes_once_is_declared_twice_in_a_block(name: str) -> None:
    args = {"hosts": ("/dev/null",), "prometheus": (":9253",)}.get(name, ())

    with pytest.raises(
        ValueError, match=rf"^blocks: '{name}' is declared twice in '\.:53'; CoreDNS takes it once a block$"
    ):
        _one(Directive(name, args), Directive(name, args))
