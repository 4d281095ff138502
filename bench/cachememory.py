"""Benchmark node-cache's memory per cached entry, and the spec's worst case against its 100Mi request.

On a real node (``tests/e2e/realnode.py``: kubelet, containerd and kube-proxy v1.34.4, the pod
of the synthesized DaemonSet), node-cache 1.26.8 runs the spec's Corefile with one change:
``.`` forwards to an upstream of the bench (a CoreDNS in the cluster-DNS namespace) that
answers every name of ``ok.example`` with one AAAA record and every name of ``nx.example``
with NXDOMAIN and an SOA. Per run, on a new pod (cold caches), with the resident memory
(``VmRSS`` of node-cache's process: what the kubelet counts against the pod) read before and
after each step:

1. idle: the caches empty, after the loop plugin's start-up checks (the baseline);
2. ``.`` success: distinct ``ok.example`` names, twice the capacity, so the cache is full;
3. ``.`` denial: distinct ``nx.example`` names, likewise;
4. the denial caches of the other three blocks: distinct names of the cluster domain and of
   the reverse zones, which cluster CoreDNS answers NXDOMAIN.

Each step's entries are read from node-cache's ``coredns_cache_entries``, and its cost is the
rise of the resident memory over the entries it added. The median over the runs of each
step is judged against the idle memory of the same run, never against an absolute figure.
It prints a table per step, then the worst case of the spec's configuration (every cache of
the four blocks full) against its 100Mi request, as ``deploy`` and ``verify`` compute it
(:mod:`constructs_nld.cachememory`) both with the figures in ``defaults.py`` and with the
measured ones. It exits 1 when the measured cost of an entry exceeds the figure in
``defaults.py``, which would then promise too little.

Run as root, with the node-cache binary (``$NODE_CACHE_BIN`` or the per-user path):
``python bench/cachememory.py [--runs N] [--rate R]``.
"""

from __future__ import annotations

import argparse
import ipaddress
import re
import statistics
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.dataplane import new_pod  # noqa: E402
from constructs_nld import NodeLocalDNSProps, defaults  # noqa: E402
from constructs_nld.cachememory import CacheBudget, cache_budget  # noqa: E402
from tests.e2e import probes  # noqa: E402
from tests.e2e.netns import require_root, sweep_stale  # noqa: E402
from tests.e2e.nodecache import NODE_CACHE_MISSING, find_node_cache_binary, synthesized_objects  # noqa: E402
from tests.e2e.realnode import RealNodeBed, node_images, real_node  # noqa: E402
from tests.harness.resolver import ResolverLoad  # noqa: E402

UPSTREAM = "fd03::200"
"""The bench's upstream for ``.``, in the cluster-DNS namespace."""
METRICS = "http://[fd01::1]:9253/metrics"
UPSTREAM_COREFILE = f"""ok.example:53 {{
    bind {UPSTREAM}
    template IN AAAA ok.example {{
        answer "{{{{ .Name }}}} 3600 IN AAAA 2001:db8::1"
    }}
}}
nx.example:53 {{
    bind {UPSTREAM}
    template IN AAAA nx.example {{
        rcode NXDOMAIN
        authority "nx.example. 3600 IN SOA ns.nx.example. hostmaster.nx.example. 1 7200 1800 86400 3600"
    }}
}}
"""
"""Every name of ``ok.example`` has an AAAA record; every name of ``nx.example`` is NXDOMAIN."""


@dataclass(frozen=True)
class Step:
    """One fill: the names it asks, which cache of which block they land in."""

    label: str
    zone: str
    kind: str
    """``success`` or ``denial``: the cache the answers go to."""
    names: Callable[[int], str]


def _reverse(i: int) -> str:
    return ipaddress.IPv6Address(0xFD0099 << 104 | i).reverse_pointer


STEPS = (
    Step(". success", ".", "success", lambda i: f"s{i}.ok.example"),
    Step(". denial", ".", "denial", lambda i: f"d{i}.nx.example"),
    Step("cluster.local denial", "cluster.local", "denial", lambda i: f"no-such-{i}.default.svc.cluster.local"),
    Step("ip6.arpa denial", "ip6.arpa", "denial", _reverse),
    Step("in-addr.arpa denial", "in-addr.arpa", "denial", lambda i: f"{i % 256}.{i // 256 % 256}.99.10.in-addr.arpa"),
)


@dataclass(frozen=True)
class Measured:
    """What one step of one run added."""

    entries: int
    rss_bytes: int
    """Resident memory after the step."""
    added_bytes: int
    """Its rise over the step."""

    @property
    def per_entry(self) -> float:
        """Bytes of resident memory an entry of the step cost."""
        return self.added_bytes / self.entries if self.entries else float("nan")


def rss_bytes(pid: int) -> int:
    """``VmRSS`` of ``pid``."""
    status = Path(f"/proc/{pid}/status").read_text()
    match = re.search(r"^VmRSS:\s+(\d+) kB$", status, re.MULTILINE)
    if match is None:
        raise RuntimeError(f"no VmRSS in /proc/{pid}/status")
    return int(match.group(1)) * 1024


def cache_entries(node: RealNodeBed, zone: str, kind: str) -> int:
    """``coredns_cache_entries`` of ``zone``'s block, of one cache."""
    metrics = probes.scrape(node.bed.node, METRICS)
    return int(metrics.total("coredns_cache_entries", type=kind, zones=zone if zone == "." else f"{zone}."))


def run_once(node: RealNodeBed, pid: int, args: argparse.Namespace) -> tuple[int, dict[str, Measured]]:
    """The idle memory of ``pid``, then each step's entries and memory."""
    idle = before = rss_bytes(pid)
    measured: dict[str, Measured] = {}
    fill = 2 * defaults.CACHE_PLUGIN_CAPACITY
    for step in STEPS:
        entries_before = cache_entries(node, step.zone, step.kind)
        names = [step.names(i) for i in range(fill)]
        load = ResolverLoad(node.bed.pod, node.bed.ips.kube_dns, names, rate=args.rate, count=fill, timeout=4)
        failed = len(load.result().failed)
        after = rss_bytes(pid)
        entries = cache_entries(node, step.zone, step.kind) - entries_before
        if entries < defaults.CACHE_PLUGIN_CAPACITY * 0.9:
            raise RuntimeError(f"{step.label}: the cache holds {entries} entries after {fill} names ({failed} failed)")
        measured[step.label] = Measured(entries, after, after - before)
        before = after
    return idle, measured


@contextmanager
def bench_node(workdir: Path) -> Iterator[RealNodeBed]:
    """A real node running the spec's props with ``.`` to the bench's upstream."""
    binary = find_node_cache_binary()
    assert binary is not None
    images = node_images(workdir / "images", binary)
    with real_node(workdir / "node", images) as node:
        bed = node.bed
        bed.cluster_dns.ip("addr", "add", f"{UPSTREAM}/128", "dev", "lo")
        with bed.coredns(bed.cluster_dns, UPSTREAM_COREFILE, "bench-upstream"):
            node.deploy(NodeLocalDNSProps(upstream_servers=(UPSTREAM,)), wait=True, stall_after=60)
            node.wait_intercepting()
            yield node


def spec_budget(**figures: int) -> CacheBudget:
    """The spec's configuration (default props) as ``deploy`` and ``verify`` judge it, with ``figures``."""
    objects = synthesized_objects(NodeLocalDNSProps())
    config_map = next(o for o in objects if o["kind"] == "ConfigMap" and defaults.COREFILE_KEY in o.get("data", {}))
    daemon_set = next(o for o in objects if o["kind"] == "DaemonSet")
    budget = cache_budget(config_map, daemon_set)
    assert budget is not None
    return CacheBudget(budget.blocks, budget.request, budget.request_bytes, **figures)


def main() -> int:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("--runs", type=int, default=3, help="runs, each on a new pod, medians reported; default 3")
    cli.add_argument("--rate", type=int, default=1500, help="lookups per second of each fill; default 1500")
    args = cli.parse_args()
    for name in ("runs", "rate"):
        if getattr(args, name) < 1:
            cli.error(f"--{name} must be at least 1")
    require_root()
    if find_node_cache_binary() is None:
        print(f"error: {NODE_CACHE_MISSING}", file=sys.stderr)
        return 2
    sweep_stale()
    runs: list[tuple[int, dict[str, Measured]]] = []
    with tempfile.TemporaryDirectory(prefix="nld-bench-") as tmp, bench_node(Path(tmp)) as node:
        for _ in range(args.runs):
            new_pod(node)
            runs.append(run_once(node, node.container_pid(node.node_cache_pod()), args))

    idle = int(statistics.median(run[0] for run in runs))
    print(
        f"node-cache 1.26.8 on a real node, the spec's Corefile ('.' to the bench's upstream); {args.runs} run(s), "
        f"each on a new pod, medians; each fill asks {2 * defaults.CACHE_PLUGIN_CAPACITY:,} distinct names at "
        f"{args.rate}/s. Idle resident memory (the baseline): {idle / 2**20:.1f} MiB.\n"
    )
    print("| step | entries added | resident memory after, MiB | × idle | added, MiB | bytes per entry |")
    print("|---|---|---|---|---|---|")
    per_entry: dict[str, float] = {}
    for step in STEPS:
        rows = [run[1][step.label] for run in runs]
        per_entry[step.label] = statistics.median(row.per_entry for row in rows)
        rss = statistics.median(row.rss_bytes for row in rows)
        print(
            f"| {step.label} | {statistics.median(row.entries for row in rows):,.0f} | {rss / 2**20:.1f} "
            f"| {rss / idle:.2f} | {statistics.median(row.added_bytes for row in rows) / 2**20:.1f} "
            f"| {per_entry[step.label]:,.0f} |"
        )
    worst_entry = max(per_entry.values())
    measured = spec_budget(entry_bytes=round(worst_entry), idle_bytes=idle)
    kept = spec_budget()
    print(
        "\n| the spec's worst case (every cache of the four blocks full) | bytes per entry | idle, MiB "
        "| worst case, MiB | request | worst case / request |"
    )
    print("|---|---|---|---|---|---|")
    for label, budget in (("measured here (the costliest step)", measured), ("defaults.py", kept)):
        print(
            f"| {label} | {budget.entry_bytes:,} | {budget.idle_bytes / 2**20:.1f} | {budget.worst_bytes / 2**20:.1f} "
            f"| {budget.request} | {budget.worst_bytes / budget.request_bytes:.2f} |"
        )
    print(f"\n{kept.entries:,} entries at worst: {kept.sizes()}")
    if worst_entry > defaults.CACHE_ENTRY_BYTES:
        print(
            f"error: an entry cost {worst_entry:,.0f} bytes here, more than defaults.CACHE_ENTRY_BYTES "
            f"({defaults.CACHE_ENTRY_BYTES:,}): the warnings would promise too little",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
