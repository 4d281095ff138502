"""Looking at the test bed from inside a namespace: ``dig``, HTTP, Prometheus metrics, rule counters."""

from __future__ import annotations

import ipaddress
import re
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field

from tests.e2e.netns import Namespace, Testbed
from tests.harness.process import wait_until

__all__ = [
    "ConntrackFlow",
    "DigResult",
    "Metrics",
    "conntrack_count",
    "conntrack_flows",
    "dig",
    "dnat_packets",
    "http_get",
    "ip6tables_rules",
    "node_cache_rules",
    "scrape",
    "wait_for_loop_self_check",
]

_STATUS = re.compile(r"->>HEADER<<-.*status: (?P<status>[A-Z]+)")
_SERVER = re.compile(r"^;; SERVER: (?P<server>\S+)", re.MULTILINE)


@dataclass(frozen=True)
class DigResult:
    """What ``dig`` printed, parsed."""

    status: str
    """RCODE (``NOERROR``, ``NXDOMAIN``, ...) or ``""`` when no answer came."""

    answers: tuple[str, ...]
    """RDATA of each answer record, e.g. ``fd00:ec2::1``."""

    server: str
    """The ``;; SERVER:`` line, e.g. ``fd00:ec2::a#53(fd00:ec2::a) (UDP)``'s first field."""

    ttls: tuple[int, ...]
    """TTL of each answer record, in the order of :attr:`answers`."""

    output: str = field(repr=False)
    """The whole output, for assertion messages."""


def dig(
    namespace: Namespace,
    name: str,
    rtype: str = "AAAA",
    *,
    server: str | None = None,
    port: int = 53,
    tcp: bool = False,
    search: bool = False,
    source: str | None = None,
) -> DigResult:
    """``dig`` from ``namespace``; without ``server``, the namespace's ``/etc/resolv.conf`` decides.

    ``rtype="PTR"`` with an address as ``name`` does a reverse lookup (``dig -x``);
    ``source`` (``address#port``) fixes the query's source address and port (``dig -b``).
    """
    argv = ["dig", "+tries=1", "+time=3", "-p", str(port)]
    if source is not None:
        argv += ["-b", source]
    if server is not None:
        argv.append(f"@{server}")
    if tcp:
        argv.append("+tcp")
    if search:
        argv.append("+search")
    argv += ["-x", name] if rtype == "PTR" else [name, rtype]
    result = subprocess.run(namespace.argv(*argv), capture_output=True, text=True, timeout=30, check=False)
    output = result.stdout + result.stderr
    status = _STATUS.search(output)
    server_line = _SERVER.search(output)
    answers: list[str] = []
    ttls: list[int] = []
    in_answer = False
    for line in output.splitlines():
        if line.startswith(";; ANSWER SECTION:"):
            in_answer = True
        elif in_answer and not line.strip():
            in_answer = False
        elif in_answer:
            fields = line.split()
            answers.append(" ".join(fields[4:]))
            ttls.append(int(fields[1]))
    return DigResult(
        status=status.group("status") if status else "",
        answers=tuple(answers),
        server=server_line.group("server") if server_line else "",
        ttls=tuple(ttls),
        output=output,
    )


_HTTP_GET = """
import sys, urllib.request
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
try:
    with opener.open(sys.argv[1], timeout=float(sys.argv[2])) as response:
        sys.stdout.write(f"{response.status}\\n" + response.read().decode())
except urllib.error.HTTPError as error:
    sys.stdout.write(f"{error.code}\\n" + error.read().decode())
"""


def http_get(namespace: Namespace, url: str, timeout: float = 5) -> tuple[int, str]:
    """GET ``url`` from inside ``namespace`` (no proxy); return status and body."""
    out = namespace.run(sys.executable, "-c", _HTTP_GET, url, str(timeout), timeout=timeout + 10)
    status, _, body = out.partition("\n")
    return int(status), body


_SAMPLE = re.compile(r"^(?P<name>[a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(?P<labels>.*)\})?\s+(?P<value>\S+)")
_LABEL = re.compile(r'(?P<key>[a-zA-Z_][a-zA-Z0-9_]*)="(?P<value>(?:[^"\\]|\\.)*)"')


@dataclass(frozen=True)
class Sample:
    """One series' value."""

    name: str
    labels: Mapping[str, str]
    value: float


@dataclass(frozen=True)
class Metrics:
    """A parsed Prometheus text exposition."""

    samples: tuple[Sample, ...]

    def series(self, name: str, **labels: str) -> tuple[Sample, ...]:
        """Samples of ``name`` whose labels include ``labels``."""
        return tuple(s for s in self.samples if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()))

    def total(self, name: str, **labels: str) -> float:
        """Sum of :meth:`series`; 0 when there is none."""
        return sum(s.value for s in self.series(name, **labels))


def parse_metrics(text: str) -> Metrics:
    """Parse the Prometheus text format (comments skipped)."""
    samples = []
    for line in text.splitlines():
        match = _SAMPLE.match(line)
        if match is None or line.startswith("#"):
            continue
        labels = {m.group("key"): m.group("value") for m in _LABEL.finditer(match.group("labels") or "")}
        samples.append(Sample(match.group("name"), labels, float(match.group("value"))))
    return Metrics(tuple(samples))


def scrape(namespace: Namespace, url: str) -> Metrics:
    """GET and parse a ``/metrics`` endpoint from inside ``namespace``."""
    status, body = http_get(namespace, url)
    if status != 200:
        raise RuntimeError(f"GET {url} from {namespace.name}: HTTP {status}: {body[:200]}")
    return parse_metrics(body)


def cluster_requests(bed: Testbed, **labels: str) -> float:
    """Cluster CoreDNS's ``coredns_dns_requests_total`` over the series carrying ``labels``, scraped from the node."""
    return scrape(bed.node, bed.cluster_coredns_metrics_url()).total("coredns_dns_requests_total", **labels)


def dnat_packets(namespace: Namespace, chain: str) -> int:
    """Packets that hit the DNAT rule of kube-proxy's endpoint chain ``chain`` (one per new connection)."""
    saved = namespace.run("ip6tables-save", "-c", "-t", "nat")
    for line in saved.splitlines():
        match = re.match(r"^\[(?P<packets>\d+):\d+\] -A (?P<chain>\S+) .*-j DNAT", line)
        if match and match.group("chain") == chain:
            return int(match.group("packets"))
    raise LookupError(f"no DNAT rule in chain {chain} of {namespace.name}:\n{saved}")


NODE_CACHE_RULE_COMMENTS = ("NodeLocal DNS Cache: skip conntrack", "NodeLocal DNS Cache: allow DNS traffic")
"""The comments node-cache 1.26.8 puts on every rule it writes (``cmd/node-cache/app/cache_app.go``)."""


def node_cache_rules(namespace: Namespace) -> tuple[str, ...]:
    """node-cache's ip6tables rules in ``namespace``, as ``<table> <ip6tables-save line>``, in save order.

    Recognised by node-cache's own rule comments, in every table.
    """
    rules = []
    table = ""
    for line in namespace.run("ip6tables-save").splitlines():
        if line.startswith("*"):
            table = line[1:]
        elif line.startswith("-A ") and any(f'"{comment}"' in line for comment in NODE_CACHE_RULE_COMMENTS):
            rules.append(f"{table} {line}")
    return tuple(rules)


def ip6tables_rules(namespace: Namespace, save: str = "ip6tables-save") -> tuple[str, ...]:
    """Every ip6tables rule in ``namespace``, as ``<table> <ip6tables-save line>``, in save order.

    ``save`` names the program: ``ip6tables-legacy-save`` reads the legacy backend's tables.
    """
    rules = []
    table = ""
    for line in namespace.run(save).splitlines():
        if line.startswith("*"):
            table = line[1:]
        elif line.startswith("-A "):
            rules.append(f"{table} {line}")
    return tuple(rules)


@dataclass(frozen=True)
class ConntrackFlow:
    """A conntrack entry's original direction."""

    protocol: str
    src: str
    """Source address, compressed (``fd0b::2``)."""
    dst: str
    sport: int
    dport: int


_CONNTRACK = re.compile(
    r"^ipv6\s+\d+\s+(?P<proto>\S+)\s+\d+\s+\d+\s.*?"
    r"src=(?P<src>\S+) dst=(?P<dst>\S+) sport=(?P<sport>\d+) dport=(?P<dport>\d+)"
)


def conntrack_flows(namespace: Namespace) -> tuple[ConntrackFlow, ...]:
    """The IPv6 TCP and UDP entries of ``namespace``'s conntrack table (``/proc/net/nf_conntrack``)."""
    flows = []
    for line in namespace.run("cat", "/proc/net/nf_conntrack").splitlines():
        match = _CONNTRACK.match(line)
        if match is not None:
            flows.append(
                ConntrackFlow(
                    protocol=match.group("proto"),
                    src=str(ipaddress.IPv6Address(match.group("src"))),
                    dst=str(ipaddress.IPv6Address(match.group("dst"))),
                    sport=int(match.group("sport")),
                    dport=int(match.group("dport")),
                )
            )
    return tuple(flows)


def conntrack_count(namespace: Namespace) -> int:
    """Entries in ``namespace``'s conntrack table: ``net.netfilter.nf_conntrack_count``."""
    return int(namespace.run("cat", "/proc/sys/net/netfilter/nf_conntrack_count"))


def wait_for_loop_self_check(
    namespace: Namespace, url: str, *, listener: str, blocks: int, timeout: float = 15
) -> None:
    """Wait until CoreDNS's ``loop`` plugin has sent its start-up query in each of ``blocks`` server blocks.

    The plugin queries ``<random>.<random>.<zone>`` HINFO (counted as type ``other``) at the
    block's first bind address right after start; once all are answered they can no longer
    land in a measurement's counts.
    """
    seen: tuple[Sample, ...] = ()

    def checked() -> bool:
        nonlocal seen
        seen = scrape(namespace, url).series("coredns_dns_requests_total", server=listener, type="other")
        return len(seen) >= blocks

    wait_until(
        f"the loop self-check in {blocks} blocks at {listener}",
        checked,
        timeout,
        0.1,
        detail=lambda: f"seen in {len(seen)} of {blocks} blocks",
    )
