"""Benchmark one node's DNS data plane through the real node-cache, against the same node without it.

Everything runs on a real node (``tests/e2e/realnode.py``: kubelet, containerd and kube-proxy
v1.34.4, the pod of the synthesized DaemonSet from the DaemonSet controller), once per
kube-proxy mode (iptables, nftables: the column kubernetes/dns#682 asks about), the test bed's
pod as client:

(i)   the kube-dns ClusterIP without NodeLocal DNS, before the deploy: kube-proxy's DNAT to
      cluster CoreDNS — every pod's path without NLD, and its fallthrough path (the baseline);
(iii) the kube-dns ClusterIP with the app deployed: node-cache 1.26.8's NOTRACK rules take
      the pod's query to node-cache (the pod's real path with NLD);
(iv)  ``fd00::10``, node-cache's own address.

Per path:

- **resolver-style lookups**: ``--runs`` runs of ``--lookups`` AAAA lookups at ``--rate``
  per second, each from a fresh socket (a new source port, as glibc's resolver sends them),
  of the cluster names of the mix, a new pod before each run with NLD (a rollout: cold
  cache): latency percentiles (medians over the runs), failures, and the node's conntrack
  entries of the pod's lookups to the path's address that the first run added (those in the
  table after it and not before), scaled to 10,000 lookups — the conntrack table is the main
  reason NodeLocal DNS exists. Without NLD they stay below 10,000: a source port drawn again
  within the 30 s UDP timeout finds its entry still there. (The node's whole
  ``nf_conntrack_count`` would not do on a real node: kubelet's and kube-proxy's own
  connections come and go, and the entries of path (i) expire during the next path's run.)
- **dnsperf** from the pod with a fixed mix (cluster AAAA/SRV/PTR, external, NXDOMAIN),
  ``--runs`` runs, a new pod before each with NLD (cold cache): queries/s, p50/p99 of
  dnsperf's per-query latencies, and the share of queries that reached cluster CoreDNS (the
  rise of its ``coredns_dns_requests_total`` over the queries sent). Every response's RCODE
  is checked against the mix; a wrong one fails the run.

Goals (issue 9), per kube-proxy mode: ≥ 99.9 % of repeated lookups absorbed; p99 ≤ the
no-NLD p99; conntrack entries per 10,000 lookups ≈ 0 with NLD against ≈ 10,000 without.
Judged by comparing with (i), measured on the same node in the same run.

Run as root, with the node-cache binary (``$NODE_CACHE_BIN`` or the per-user path). Prints
markdown tables and writes a chart of the iptables mode (``bench/results/dataplane.png``).
"""

from __future__ import annotations

import argparse
import ipaddress
import math
import re
import statistics
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.e2e import probes  # noqa: E402
from tests.e2e.netns import NODE_LOCAL_DNS_IP, Namespace, Testbed, require_root, sweep_stale  # noqa: E402
from tests.e2e.nodecache import NODE_CACHE_MISSING, find_node_cache_binary  # noqa: E402
from tests.e2e.realnode import RealNodeBed, node_images, real_node  # noqa: E402
from tests.harness.node import PROXY_MODES, ProxyMode  # noqa: E402
from tests.harness.resolver import LoadResult, ResolverLoad  # noqa: E402

NO_NLD = "(i) kube-dns ClusterIP → kube-proxy DNAT → cluster CoreDNS (no NLD)"
INTERCEPTED = "(iii) kube-dns ClusterIP intercepted by node-cache"
LOCAL = "(iv) fd00::10 → node-cache"
SHORT_LABELS = {
    NO_NLD: "(i) ClusterIP → DNAT\n→ cluster CoreDNS (no NLD)",
    INTERCEPTED: "(iii) ClusterIP\nintercepted by node-cache",
    LOCAL: "(iv) fd00::10\n→ node-cache",
}
LOCAL_LISTENER = f"dns://[{NODE_LOCAL_DNS_IP}]:53"
NODE_METRICS_URL = "http://[fd01::1]:9253/metrics"
DEFAULT_CHART = Path(__file__).resolve().parent / "results" / "dataplane.png"


@dataclass(frozen=True)
class Query:
    """One line of the dnsperf input and the RCODE it must get."""

    name: str
    rtype: str
    kind: str
    """``cluster``, ``external`` or ``nxdomain``."""

    @property
    def expected(self) -> str:
        """The RCODE a correct server returns."""
        return "NXDOMAIN" if self.kind == "nxdomain" else "NOERROR"


def query_mix(bed: Testbed) -> tuple[Query, ...]:
    """The fixed mix: 8 cluster, 3 external, 4 NXDOMAIN queries per pass."""

    def ptr(ip: str) -> str:
        return ipaddress.IPv6Address(ip).reverse_pointer

    cluster = [Query(f"{s.name}.{s.namespace}.svc.cluster.local", "AAAA", "cluster") for s in bed.ips.services()[:5]]
    cluster += [
        Query("_https._tcp.kubernetes.default.svc.cluster.local", "SRV", "cluster"),
        Query(ptr(bed.ips.kubernetes), "PTR", "cluster"),
        Query(ptr(bed.ips.kube_dns), "PTR", "cluster"),
    ]
    external = [Query(n, "AAAA", "external") for n in ("example.com", "www.example.com", "www.example.org")]
    nxdomain = [Query(f"no-such-service-{i}.default.svc.cluster.local", "AAAA", "nxdomain") for i in range(3)]
    nxdomain.append(Query("no-such-host.example.net", "AAAA", "nxdomain"))
    # Interleaved, so every stretch of the run sees the same mix.
    mix: list[Query] = []
    groups = [cluster, external, nxdomain]
    while any(groups):
        for group in groups:
            if group:
                mix.append(group.pop(0))
    return tuple(mix)


@dataclass(frozen=True)
class Run:
    """One dnsperf run and what cluster CoreDNS saw meanwhile."""

    sent: int
    completed: int
    lost: int
    qps: float
    latencies: tuple[float, ...]
    """Seconds, one per response."""
    wrong: int
    """Responses whose RCODE differs from the expected one."""
    rcodes: Counter[str]
    cluster_requests: float

    @property
    def p50_ms(self) -> float:
        """Median latency."""
        return percentile(self.latencies, 50) * 1000

    @property
    def p99_ms(self) -> float:
        """99th percentile latency."""
        return percentile(self.latencies, 99) * 1000

    @property
    def reached_cluster(self) -> float:
        """Fraction of the client's queries that cluster CoreDNS answered."""
        return self.cluster_requests / self.sent if self.sent else math.nan


@dataclass(frozen=True)
class Lookups:
    """The resolver-style runs of a path and the node's conntrack entries the first one created."""

    results: tuple[LoadResult, ...]
    conntrack_entries: int
    """Conntrack entries of the pod's lookups to the path's address that the first run added."""

    @property
    def per_10k(self) -> float:
        """Conntrack entries created per 10,000 lookups."""
        return self.conntrack_entries * 10_000 / len(self.results[0].lookups)

    @property
    def failed(self) -> int:
        """Lookups without an answer, over every run."""
        return sum(len(result.failed) for result in self.results)

    def latency_ms(self, pct: float) -> float:
        """Median over the runs of the percentile of the answered lookups' latencies."""
        return statistics.median(
            percentile(tuple(lookup.latency or 0.0 for lookup in result.lookups if lookup.ok), pct) * 1000
            for result in self.results
        )


@dataclass
class PathResult:
    """Everything measured on one path."""

    lookups: Lookups
    runs: list[Run]


def percentile(values: tuple[float, ...], pct: float) -> float:
    """Nearest-rank percentile."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(0, math.ceil(pct / 100 * len(ordered)) - 1)]


_STAT = re.compile(r"^\s+(?P<key>Queries sent|Queries completed|Queries lost|Queries per second):\s+(?P<value>[\d.]+)")
_RESPONSE = re.compile(r"^> (?P<rcode>\S+) (?P<name>\S+) (?P<rtype>\S+) (?P<latency>[\d.]+)$")


def dnsperf(
    pod: Namespace, server: str, datafile: Path, mix: tuple[Query, ...], args: argparse.Namespace
) -> tuple[dict[str, float], tuple[float, ...], int, Counter[str]]:
    """Run dnsperf from ``pod``; return its statistics, latencies, wrong RCODEs and RCODE counts."""
    passes = max(1, math.ceil(args.queries / len(mix)))
    argv = pod.argv(
        "dnsperf", "-s", server, "-d", str(datafile), "-n", str(passes), "-l", str(args.seconds),
        "-c", str(args.clients), "-q", str(args.outstanding), "-t", "2", "-v",
    )  # fmt: skip
    out = subprocess.run(argv, capture_output=True, text=True, timeout=args.seconds + 60, check=True).stdout
    stats = {m.group("key"): float(m.group("value")) for line in out.splitlines() if (m := _STAT.match(line))}
    expected = {(q.name, q.rtype): q.expected for q in mix}
    latencies: list[float] = []
    rcodes: Counter[str] = Counter()
    wrong = 0
    for line in out.splitlines():
        match = _RESPONSE.match(line)
        if match is None:
            continue
        latencies.append(float(match.group("latency")))
        rcodes[match.group("rcode")] += 1
        wrong += match.group("rcode") != expected.get((match.group("name"), match.group("rtype")))
    if set(stats) != {"Queries sent", "Queries completed", "Queries lost", "Queries per second"}:
        raise RuntimeError(f"unexpected dnsperf output:\n{out[-2000:]}")
    return stats, tuple(latencies), wrong, rcodes


def measure(bed: Testbed, server: str, datafile: Path, mix: tuple[Query, ...], args: argparse.Namespace) -> Run:
    """One dnsperf run at ``server``, with cluster CoreDNS's request counter read around it."""
    before = probes.cluster_requests(bed)
    stats, latencies, wrong, rcodes = dnsperf(bed.pod, server, datafile, mix, args)
    return Run(
        sent=int(stats["Queries sent"]),
        completed=int(stats["Queries completed"]),
        lost=int(stats["Queries lost"]),
        qps=stats["Queries per second"],
        latencies=latencies,
        wrong=wrong,
        rcodes=rcodes,
        cluster_requests=probes.cluster_requests(bed) - before,
    )


def new_pod(node: RealNodeBed) -> None:
    """A rollout, so that a run starts with a cold cache: the next pod intercepting, its loop self-check done."""
    (old,) = node.pods()
    node.roll()
    node.wait_for(
        "the old pod to be gone", lambda: old["metadata"]["uid"] not in {p["metadata"]["uid"] for p in node.pods()}
    )
    node.wait_intercepting()
    probes.wait_for_loop_self_check(node.bed.node, NODE_METRICS_URL, listener=LOCAL_LISTENER, blocks=4)


def measure_node(
    node: RealNodeBed, workdir: Path, args: argparse.Namespace
) -> tuple[dict[str, PathResult], tuple[Query, ...]]:
    """The three paths on ``node``: (i) before the deploy, then (iii) and (iv) in turn, run after run.

    Resolver-style runs come first on each path: the node's conntrack entries are read
    right around the first one; later runs only measure latency.
    """
    bed = node.bed
    mix = query_mix(bed)
    datafile = workdir / "queries.txt"
    datafile.write_text("".join(f"{q.name} {q.rtype}\n" for q in mix))
    names = tuple(q.name for q in mix if q.kind == "cluster" and q.rtype == "AAAA")
    servers = {NO_NLD: bed.ips.kube_dns, INTERCEPTED: bed.ips.kube_dns, LOCAL: NODE_LOCAL_DNS_IP}
    lookups: dict[str, list[LoadResult]] = {label: [] for label in servers}
    entries: dict[str, int] = {}
    runs: dict[str, list[Run]] = {label: [] for label in servers}

    def lookups_run(label: str, first: bool) -> None:
        before = probes.pod_dns_flows(bed.node, servers[label])
        load = ResolverLoad(bed.pod, servers[label], names, rate=args.rate, count=args.lookups)
        lookups[label].append(load.result())
        if first:
            entries[label] = len(probes.pod_dns_flows(bed.node, servers[label]) - before)

    for run in range(args.runs):
        lookups_run(NO_NLD, run == 0)
    for _ in range(args.runs):
        runs[NO_NLD].append(measure(bed, servers[NO_NLD], datafile, mix, args))
    node.deploy(wait=True, stall_after=60)
    node.wait_intercepting()
    for run in range(args.runs):
        for label in (INTERCEPTED, LOCAL):
            new_pod(node)
            lookups_run(label, run == 0)
    for _ in range(args.runs):
        for label in (INTERCEPTED, LOCAL):
            new_pod(node)
            runs[label].append(measure(bed, servers[label], datafile, mix, args))
    node.reset()
    results = {label: PathResult(Lookups(tuple(lookups[label]), entries[label]), runs[label]) for label in servers}
    return results, mix


def measure_all(
    binary: Path, workdir: Path, args: argparse.Namespace
) -> tuple[dict[ProxyMode, dict[str, PathResult]], tuple[Query, ...]]:
    """Every path on a real node per kube-proxy mode, a fresh cluster each."""
    images = node_images(workdir / "images", binary)
    results: dict[ProxyMode, dict[str, PathResult]] = {}
    mix: tuple[Query, ...] = ()
    for proxy in PROXY_MODES:
        with real_node(workdir / proxy, images, proxy_mode=proxy) as node:
            results[proxy], mix = measure_node(node, workdir / proxy, args)
    return results, mix


def median_of(runs: list[Run], metric: Callable[[Run], float]) -> float:
    """Median of ``metric`` over ``runs``."""
    return statistics.median(metric(run) for run in runs)


def chart(results: dict[str, PathResult], path: Path) -> None:
    """Bar charts: throughput, latency, share reaching cluster CoreDNS, conntrack entries per 10,000 lookups."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = list(results)
    short = [SHORT_LABELS[label] for label in labels]
    colors = ["#7f7f7f", "#1f77b4", "#2ca02c"]
    fig, axes = plt.subplots(1, 4, figsize=(20, 5))
    qps = [median_of(results[k].runs, lambda r: r.qps) for k in labels]
    axes[0].bar(short, qps, color=colors)
    axes[0].set_title("dnsperf throughput (queries/s, median run)")
    for i, value in enumerate(qps):
        axes[0].annotate(f"{value:,.0f}", (i, value), ha="center", va="bottom")
    width = 0.38
    for offset, pct in enumerate((50, 99)):
        values = [results[k].lookups.latency_ms(pct) for k in labels]
        xs = [i + (offset - 0.5) * width for i in range(len(labels))]
        bars = axes[1].bar(xs, values, width, color=colors, alpha=0.55 if pct == 50 else 1.0)
        axes[1].bar_label(bars, fmt="%.2f")
    axes[1].set_xticks(range(len(labels)), short)
    axes[1].set_title("Resolver-style latency (ms): p50 light, p99 dark")
    fractions = [median_of(results[k].runs, lambda r: r.reached_cluster) * 100 for k in labels]
    axes[2].bar(short, fractions, color=colors)
    axes[2].set_ylim(0, 110)
    axes[2].set_title("dnsperf queries that reached cluster CoreDNS (%)")
    for i, value in enumerate(fractions):
        axes[2].annotate(f"{value:.3f}%", (i, value), ha="center", va="bottom")
    entries = [results[k].lookups.per_10k for k in labels]
    axes[3].bar(short, entries, color=colors)
    axes[3].set_title("Node conntrack entries per 10,000 resolver lookups")
    for i, value in enumerate(entries):
        axes[3].annotate(f"{value:,.0f}", (i, value), ha="center", va="bottom")
    for ax in axes:
        ax.tick_params(axis="x", labelsize=8)
    fig.suptitle(
        "DNS data plane of a real node through node-cache 1.26.8 (kube-proxy iptables mode, clients in the pod)"
    )
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


Goal = tuple[str, Callable[[PathResult], str], Callable[[PathResult], bool]]
"""A goal: what it asks, how a path's value is shown, whether the path meets it."""


def goals_for(baseline: PathResult) -> list[Goal]:
    """The goals of the NLD paths, judged against ``baseline`` (path (i) of the same node)."""
    no_nld_p99 = baseline.lookups.latency_ms(99)
    return [
        (
            "≥ 99.9 % of repeated lookups absorbed (dnsperf queries not reaching cluster CoreDNS)",
            lambda p: f"{1 - median_of(p.runs, lambda r: r.reached_cluster):.3%}",
            lambda p: 1 - median_of(p.runs, lambda r: r.reached_cluster) >= 0.999,
        ),
        (
            f"resolver p99 ≤ no-NLD p99 ({no_nld_p99:.3f} ms)",
            lambda p: f"{p.lookups.latency_ms(99):.3f} ms ({p.lookups.latency_ms(99) / no_nld_p99:.2f}×)",
            lambda p: p.lookups.latency_ms(99) <= no_nld_p99,
        ),
        (
            f"conntrack entries per 10,000 lookups ≈ 0 (no NLD: {baseline.lookups.per_10k:,.0f})",
            lambda p: f"{p.lookups.per_10k:,.0f}",
            lambda p: p.lookups.per_10k <= 0.001 * baseline.lookups.per_10k,
        ),
    ]


def main() -> int:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("--queries", type=int, default=100000, help="dnsperf: at most this many per run; default 100000")
    cli.add_argument("--seconds", type=int, default=10, help="dnsperf: at most this many seconds per run; default 10")
    cli.add_argument("--runs", type=int, default=3, help="runs per path and client, medians reported; default 3")
    cli.add_argument("--clients", type=int, default=4, help="dnsperf -c; default 4")
    cli.add_argument("--outstanding", type=int, default=32, help="dnsperf -q (queries in flight); default 32")
    cli.add_argument("--lookups", type=int, default=10000, help="resolver-style lookups per run; default 10000")
    cli.add_argument("--rate", type=int, default=1000, help="resolver-style lookups per second; default 1000")
    cli.add_argument("--chart", type=Path, default=DEFAULT_CHART, help=f"PNG to write; default {DEFAULT_CHART}")
    args = cli.parse_args()
    for name in ("queries", "seconds", "runs", "clients", "outstanding", "lookups", "rate"):
        if getattr(args, name) < 1:
            cli.error(f"--{name} must be at least 1")
    require_root()
    binary = find_node_cache_binary()
    if binary is None:
        print(f"error: {NODE_CACHE_MISSING}", file=sys.stderr)
        return 2

    sweep_stale()
    with tempfile.TemporaryDirectory(prefix="nld-bench-") as tmp:
        by_mode, mix = measure_all(binary, Path(tmp), args)

    kinds = Counter(q.kind for q in mix)
    print(
        f"node-cache: {binary}, on a real node (kubelet and kube-proxy v1.34.4). dnsperf mix per pass ({len(mix)}): "
        f"{kinds['cluster']} cluster (AAAA/SRV/PTR), {kinds['external']} external, {kinds['nxdomain']} NXDOMAIN; "
        f"-c {args.clients} -q {args.outstanding}, ≤ {args.queries} queries and ≤ {args.seconds} s per run, "
        f"{args.runs} runs per path (medians), a new pod (cold cache) before each with NLD. Resolver-style: "
        f"{args.runs} runs of {args.lookups} lookups at {args.rate}/s, a fresh socket each, of the 5 cluster AAAA "
        "names, latency medians over the runs; conntrack over the first run.\n"
    )
    print(
        "| path | kube-proxy | dnsperf queries/s | dnsperf p50 ms | dnsperf p99 ms | reached cluster CoreDNS "
        "| resolver p50 ms | resolver p99 ms | resolver failed | conntrack entries per 10,000 lookups |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    failed = False
    for proxy, results in by_mode.items():
        for label, path in results.items():
            sent = sum(r.sent for r in path.runs)
            lost = sum(r.lost for r in path.runs)
            wrong = sum(r.wrong for r in path.runs)
            failed |= wrong > 0 or lost > 0.01 * sent or path.lookups.failed > 0
            print(
                f"| {label} | {proxy} | {median_of(path.runs, lambda r: r.qps):,.0f} "
                f"| {median_of(path.runs, lambda r: r.p50_ms):.3f} | {median_of(path.runs, lambda r: r.p99_ms):.3f} "
                f"| {median_of(path.runs, lambda r: r.reached_cluster):.3%} "
                f"| {path.lookups.latency_ms(50):.3f} | {path.lookups.latency_ms(99):.3f} "
                f"| {path.lookups.failed} | {path.lookups.per_10k:,.0f} |"
            )
    print("\n| goal | kube-proxy | (iii) ClusterIP via node-cache | (iv) fd00::10 | met |")
    print("|---|---|---|---|---|")
    for proxy, results in by_mode.items():
        goals = goals_for(results[NO_NLD])
        for goal, shown, met in goals:
            verdict = all(met(results[label]) for label in (INTERCEPTED, LOCAL))
            print(
                f"| {goal} | {proxy} | {shown(results[INTERCEPTED])} | {shown(results[LOCAL])} "
                f"| {'yes' if verdict else 'NO'} |"
            )
    rcodes = {
        f"{label}, {proxy}": dict(sum((r.rcodes for r in path.runs), Counter()))
        for proxy, results in by_mode.items()
        for label, path in results.items()
    }
    print(f"\nRCODEs of dnsperf over all runs: {rcodes}")
    chart(by_mode[PROXY_MODES[0]], args.chart)
    print(f"chart ({PROXY_MODES[0]} mode): {args.chart}")
    if failed:
        print("error: wrong RCODEs, more than 1% of dnsperf queries lost, or failed resolver lookups", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
