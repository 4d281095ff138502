"""Looking at the test bed from inside a namespace: ``dig``, HTTP, Prometheus metrics, rule counters."""

from __future__ import annotations

import ipaddress
import re
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field

from tests.e2e.netns import KUBE_DNS_ENDPOINT, POD_IP, Namespace, Testbed
from tests.harness.process import wait_until

__all__ = [
    "ConntrackFlow",
    "DigResult",
    "Metrics",
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
    wait: int = 3,
) -> DigResult:
    """``dig`` from ``namespace``; without ``server``, the namespace's ``/etc/resolv.conf`` decides.

    ``rtype="PTR"`` with an address as ``name`` does a reverse lookup (``dig -x``);
    ``source`` (``address#port``) fixes the query's source address and port (``dig -b``);
    ``wait`` is the seconds dig waits for the one answer it asks for.
    """
    argv = ["dig", "+tries=1", f"+time={wait}", "-p", str(port)]
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


def cluster_requests(bed: Testbed, endpoint: str = KUBE_DNS_ENDPOINT, **labels: str) -> float:
    """``coredns_dns_requests_total`` of the cluster CoreDNS at ``endpoint`` over the series carrying ``labels``.

    Scraped from the node.
    """
    url = bed.cluster_coredns_metrics_url(endpoint)
    return scrape(bed.node, url).total("coredns_dns_requests_total", **labels)


def _dnat_rule(namespace: Namespace, service_port: str) -> re.Match[str]:
    """kube-proxy's DNAT rule for ``service_port`` (``namespace/service:port``, one endpoint), with its counters."""
    saved = namespace.run("ip6tables-save", "-c", "-t", "nat")
    for line in saved.splitlines():
        match = re.match(r"^\[(?P<packets>\d+):\d+\] -A (?P<chain>KUBE-SEP-\S+) .*-j DNAT", line)
        if match and f'--comment "{service_port}"' in line:
            return match
    raise LookupError(f"no DNAT rule of kube-proxy for {service_port} in {namespace.name}:\n{saved}")


def endpoint_chain(namespace: Namespace, service_port: str) -> str:
    """The ``KUBE-SEP-*`` chain kube-proxy (iptables mode) wrote for ``service_port``'s one endpoint."""
    return _dnat_rule(namespace, service_port).group("chain")


def dnat_packets(namespace: Namespace, service_port: str) -> int:
    """Packets through kube-proxy's DNAT for ``service_port``, e.g. ``kube-system/kube-dns:dns`` (one per new flow)."""
    return int(_dnat_rule(namespace, service_port).group("packets"))


def kube_dns_dnat(bed: Testbed, port_name: str = "dns") -> int:
    """Packets through the bed's kube-proxy DNAT for ``kube-system/kube-dns:<port_name>``."""
    return dnat_packets(bed.node, f"kube-system/kube-dns:{port_name}")


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


def is_kube_proxys(rule: str) -> bool:
    """Whether ``rule`` (``<table> <ip6tables-save line>``) is kube-proxy's: in a ``KUBE-*`` chain or jumping to one."""
    chain = rule.split()[2]
    return chain.startswith("KUBE-") or re.search(r" -j KUBE-\S+", rule) is not None


def node_rules(namespace: Namespace, save: str = "ip6tables-save") -> tuple[str, ...]:
    """The rules in ``namespace`` that are not kube-proxy's (node-cache's, the keeper's), in save order."""
    return tuple(rule for rule in ip6tables_rules(namespace, save) if not is_kube_proxys(rule))


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


def pod_dns_flows(node: Namespace, dst: str) -> set[ConntrackFlow]:
    """Conntrack entries of ``node`` for the pod's DNS to ``dst``.

    A test compares them before and after its lookup: the lookups that waited for the pod
    (before its rules were in place) went through kube-proxy and keep theirs until they expire.
    """
    return {f for f in conntrack_flows(node) if f.dst == dst and f.dport == 53 and f.src == POD_IP}


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
