"""The oracle of the Corefile: every one the library accepts starts the real CoreDNS 1.13.2 and answers.

Hypothesis draws DNS options (zones, upstreams, forward and cache options, static records,
query logs, dns64, extra blocks), the cache settings and the cluster domain from the props
strategies of the API-server oracle (``tests/integration/strategies.py``), valid values
only. Each accepted example's ConfigMap Corefile is filled in as node-cache 1.26.8 fills it
at start (:func:`tests.e2e.nodecache.render_runtime_corefile`) and given to ``coredns
-conf`` (v1.13.2, the CoreDNS node-cache embeds) in a network namespace of its own, which
has only ``lo``: node-cache's two addresses, and every upstream the Corefile forwards to
(``/etc/resolv.conf`` names one), served by a second CoreDNS that answers NXDOMAIN to every
query. Nothing leaves the machine. CoreDNS must print its banner, answer an AAAA and an A query (the A filter's
template among them) on both addresses, through its cache and ``forward``, and report healthy.
"""

from __future__ import annotations

import ipaddress
import os
import re
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, reject, settings

from constructs_nld import Corefile, Directive, NodeLocalDNSProps, ServerBlock
from tests.e2e import probes
from tests.e2e.netns import NAME_PREFIX, Namespace, require_root
from tests.e2e.nodecache import render_runtime_corefile, synthesized_objects
from tests.harness.coredns import COREDNS_BINARY, CoreDNS
from tests.integration import strategies
from tests.integration.strategies import Make

LOCAL_IP = "fd00::10"
CLUSTER_IP = "fd00:ec2::a"
UPSTREAM_CLUSTER_IP = "fd00:ec2::b"
"""What node-cache fills ``__PILLAR__CLUSTER__DNS__`` with: kube-dns-upstream's ClusterIP."""
NODE_RESOLVER = "fd03::53"
"""The namespace's ``/etc/resolv.conf`` nameserver."""
_FORWARD = re.compile(r"^\s*forward \. (?P<to>[^{]+?)(?: \{)?$", re.MULTILINE)

DNS_PROPS = strategies.props(
    lambda **kw: NodeLocalDNSProps(kube_dns_cluster_ip=CLUSTER_IP, **kw),
    {"cluster_domain": strategies.DOMAINS, "cache": strategies.CACHE, **strategies.DNS_OPTIONS},
    NodeLocalDNSProps,
)


@pytest.fixture(scope="module")
def node() -> Iterator[Namespace]:
    """A namespace with only ``lo``, node-cache's addresses on it, and a resolv.conf naming no server."""
    require_root()
    namespace = Namespace(f"{NAME_PREFIX}{os.getpid()}-corefile")
    namespace.create()
    try:
        for address in (LOCAL_IP, CLUSTER_IP):
            namespace.ip("addr", "add", f"{address}/128", "dev", "lo")
        namespace.write_etc("resolv.conf", f"nameserver {NODE_RESOLVER}\n")
        yield namespace
    finally:
        namespace.delete()


def upstreams(corefile: str) -> dict[int, set[str]]:
    """Every address ``forward`` sends to, by port; ``/etc/resolv.conf`` is the node's resolver."""
    by_port: dict[int, set[str]] = defaultdict(set)
    for match in _FORWARD.finditer(corefile):
        for target in match["to"].split():
            if target == "/etc/resolv.conf":
                by_port[53].add(NODE_RESOLVER)
            elif target.startswith("["):
                host, _, port = target[1:].partition("]:")
                by_port[int(port)].add(host)
            else:
                by_port[53].add(target)
    return by_port


def start_upstreams(node: Namespace, by_port: dict[int, set[str]], directory: Path) -> CoreDNS:
    """One CoreDNS on every upstream address (added to ``lo``), answering NXDOMAIN to everything."""
    present = set(re.findall(r"inet6 ([0-9a-f:]+)/", node.ip("-6", "addr", "show", "dev", "lo")))
    blocks = []
    for port, hosts in sorted(by_port.items()):
        for host in sorted(hosts - present):
            node.ip("addr", "add", f"{host}/128", "dev", "lo")
            present.add(host)
        binds = " ".join(sorted(str(ipaddress.ip_address(h)) for h in hosts))
        blocks.append(f".:{port} {{\n    bind {binds}\n    template ANY ANY {{\n        rcode NXDOMAIN\n    }}\n}}\n")
    path = directory / "upstreams" / "Corefile"
    path.parent.mkdir()
    path.write_text("".join(blocks))
    process = CoreDNS(node, path, COREDNS_BINARY)
    process.start(wait=False)
    return process


def _corefile_and_health(make: Make) -> tuple[str, int]:
    try:
        props = make.build()
    except ValueError:
        reject()
    return _runtime_corefile(props), props.ports.health


def _runtime_corefile(props: NodeLocalDNSProps) -> str:
    """The ConfigMap's Corefile of ``props`` as node-cache fills it at start."""
    (config_map,) = [o for o in synthesized_objects(props) if o["kind"] == "ConfigMap" and "Corefile" in o["data"]]
    return render_runtime_corefile(
        config_map["data"]["Corefile"], cluster_dns_ip=UPSTREAM_CLUSTER_IP, local_ips=(LOCAL_IP, CLUSTER_IP)
    )


@settings(max_examples=25)
@given(make=DNS_PROPS.valid)
def test_every_accepted_corefile_starts_coredns_which_answers(
    make: Make, node: Namespace, tmp_path_factory: pytest.TempPathFactory
) -> None:
    corefile, health_port = _corefile_and_health(make)
    _starts_and_answers(node, corefile, health_port, Path(tmp_path_factory.mktemp("corefile")))


def _starts_and_answers(node: Namespace, corefile: str, health_port: int, directory: Path) -> None:
    """CoreDNS starts on ``corefile``, answers on both of node-cache's addresses and reports healthy."""
    (directory / "Corefile").write_text(corefile)
    upstream = start_upstreams(node, upstreams(corefile), directory)
    process = CoreDNS(node, directory / "Corefile", COREDNS_BINARY)
    try:
        upstream.wait_started()
        process.start(wait=False)
        process.wait_started()
        for server in (LOCAL_IP, CLUSTER_IP):
            # The upstreams say NXDOMAIN; a static record of the example may answer instead.
            for rtype in ("AAAA", "A"):
                result = probes.dig(node, "oracle.example", rtype, server=server)
                assert result.status in ("NXDOMAIN", "NOERROR"), result.output
        status, body = probes.http_get(node, f"http://[{LOCAL_IP}]:{health_port}/health")
        assert (status, body.strip()) == (200, "OK")
    finally:
        process.stop()
        upstream.stop()


_EVERY_OPTION = tuple(
    Directive(name, args, tuple(strategies.LOADABLE_OPTIONS[name]))
    for name, args in (
        ("cache", ("30",)),
        ("errors", ()),
        ("forward", (".", "fd03::54", "[fd03::55]:5353")),
        ("log", ()),
        ("loadbalance", ("round_robin",)),
        ("template", ("IN", "AAAA", "nx.lab.example")),
        ("timeouts", ()),
        ("pprof", (f"[{LOCAL_IP}]:6053",)),
        ("trace", ()),
    )
)
"""One extra block using every option the oracle draws, of every plugin that takes a block, at once."""


def test_an_extra_block_with_every_option_and_node_caches_binds_starts_coredns(node: Namespace, tmp_path: Path) -> None:
    lab = ServerBlock(
        zone="lab.example",
        port=53,
        directives=(
            *_EVERY_OPTION,
            Directive(
                "hosts",
                ("/dev/null",),
                (
                    Directive("2001:db8::1ab", ("box.lab.example",)),
                    *strategies.LOADABLE_OPTIONS["hosts"],
                    Directive("fallthrough"),
                ),
            ),
            Directive("debug"),
        ),
    )
    props = NodeLocalDNSProps(
        kube_dns_cluster_ip=CLUSTER_IP, diagnostic_plugins=("debug", "pprof", "trace"), extra_server_blocks=(lab,)
    )
    corefile = _runtime_corefile(props)
    assert f"lab.example:53 {{\n    bind {LOCAL_IP} {CLUSTER_IP}\n" in corefile

    _starts_and_answers(node, corefile, props.ports.health, tmp_path)


REFUSED: list[tuple[str, tuple[Directive, ...], str]] = [
    (
        "an unknown forward option",
        (Directive("forward", (".", "fd03::53"), (Directive("bogus", ("1",)),)),),
        "unknown property 'bogus'",
    ),
    ("a block of a plugin that takes none", (Directive("loop", block=(Directive("x"),)),), "Unexpected token '{'"),
    (
        "a hosts address line after fallthrough",
        (Directive("hosts", ("/dev/null",), (Directive("fallthrough"), Directive("fd00::1", ("a.lab.example",)))),),
        "unknown property 'fd00::1'",
    ),
    ("forward to a file", (Directive("forward", (".", "/nonexistent/resolv.conf")),), "not an IP address or file"),
    ("cache twice in a block", (Directive("cache", ("30",)),) * 2, "can only be used once per Server Block"),
    ("an unknown cache option", (Directive("cache", ("30",), (Directive("capacity", ("10",)),)),), "Wrong argument"),
]
"""Shapes the lint refuses, each with what the real CoreDNS 1.13.2 says when it exits on them."""


@pytest.mark.parametrize(("what", "directives", "error"), REFUSED, ids=[r[0] for r in REFUSED])
def test_what_the_lint_refuses_stops_the_real_coredns(
    what: str, directives: tuple[Directive, ...], error: str, node: Namespace, tmp_path: Path
) -> None:
    block = ServerBlock(zone="lab.example", port=5300, directives=(Directive("bind", (LOCAL_IP,)), *directives))
    with pytest.raises(ValueError, match=r"^blocks: "):
        Corefile(cluster_domain="cluster.local", blocks=(block,))
    path = tmp_path / "Corefile"
    path.write_text(
        f"{block.key} {{\n" + "\n".join(line for d in block.directives for line in d.render("    ")) + "\n}\n"
    )
    process = CoreDNS(node, path, COREDNS_BINARY)

    process.start(wait=False)

    assert process.wait_exit() != 0, what
    assert error in process.log, process.log
