"""Benchmark one node's DNS data plane: kube-proxy's path to cluster CoreDNS vs our Corefile on CoreDNS.

dnsperf runs in the pod namespace of the e2e test bed (``tests/e2e/netns.py``) with a fixed
query mix — cluster names (AAAA, SRV, PTR), external names, NXDOMAIN — bounded by a query
count and a time limit, against:

(i)  the kube-dns ClusterIP: kube-proxy's DNAT to cluster CoreDNS, every pod's path without
     NodeLocal DNS (and its fallthrough path);
(ii) ``fd00::10``: the synthesized Corefile, rendered as node-cache renders it, on CoreDNS
     v1.13.2 — the CoreDNS node-cache embeds, NOT node-cache, which cannot be built here. No
     NOTRACK rules exist, so the client addresses ``fd00::10`` itself instead of the ClusterIP.

Latency percentiles come from dnsperf's own per-query latencies (``-v`` prints one line per
response). "Reached cluster CoreDNS" is the rise of cluster CoreDNS's
``coredns_dns_requests_total`` over the run divided by the queries dnsperf sent. Every
response's RCODE is checked against what the mix expects; a wrong one fails the run.

Run as root. Prints a markdown table and writes a chart (``bench/results/dataplane.png``).
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
from tests.e2e.netns import Namespace, Testbed, require_root, sweep_stale  # noqa: E402
from tests.e2e.nodecache import runtime_corefile, synthesized_objects, upstream_ports  # noqa: E402

NLD_LABEL = "Corefile on CoreDNS 1.13.2 (node-cache unavailable)"
BASELINE_LABEL = "kube-dns ClusterIP → kube-proxy DNAT → cluster CoreDNS (no NLD)"
SHORT_LABELS = {
    BASELINE_LABEL: "(i) ClusterIP → kube-proxy DNAT\n→ cluster CoreDNS (no NLD)",
    NLD_LABEL: "(ii) Corefile on CoreDNS 1.13.2\n(node-cache unavailable)",
}
LOCAL_IP = "fd00::10"
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
    url = bed.cluster_coredns_metrics_url()

    def cluster_total() -> float:
        return probes.scrape(bed.node, url).total("coredns_dns_requests_total")

    before = cluster_total()
    stats, latencies, wrong, rcodes = dnsperf(bed.pod, server, datafile, mix, args)
    return Run(
        sent=int(stats["Queries sent"]),
        completed=int(stats["Queries completed"]),
        lost=int(stats["Queries lost"]),
        qps=stats["Queries per second"],
        latencies=latencies,
        wrong=wrong,
        rcodes=rcodes,
        cluster_requests=cluster_total() - before,
    )


def median_of(runs: list[Run], metric: Callable[[Run], float]) -> float:
    """Median of ``metric`` over ``runs``."""
    return statistics.median(metric(run) for run in runs)


def chart(results: dict[str, list[Run]], path: Path) -> None:
    """Bar charts of throughput, latency and the share reaching cluster CoreDNS."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = list(results)
    short = [SHORT_LABELS[label] for label in labels]
    colors = ["#7f7f7f", "#1f77b4"]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.8))
    qps = [median_of(results[k], lambda r: r.qps) for k in labels]
    axes[0].bar(short, qps, color=colors)
    axes[0].set_title("Throughput (queries/s, median run)")
    for i, value in enumerate(qps):
        axes[0].annotate(f"{value:,.0f}", (i, value), ha="center", va="bottom")
    width = 0.38
    latency: tuple[tuple[str, Callable[[Run], float]], ...] = (("p50", lambda r: r.p50_ms), ("p99", lambda r: r.p99_ms))
    for offset, (name, metric) in enumerate(latency):
        values = [median_of(results[k], metric) for k in labels]
        xs = [i + (offset - 0.5) * width for i in range(len(labels))]
        bars = axes[1].bar(xs, values, width, label=name, color=colors, alpha=0.55 if name == "p50" else 1.0)
        axes[1].bar_label(bars, fmt="%.2f")
    axes[1].set_xticks(range(len(labels)), short)
    axes[1].set_title("Latency (ms): p50 light, p99 dark")
    fractions = [median_of(results[k], lambda r: r.reached_cluster) * 100 for k in labels]
    axes[2].bar(short, fractions, color=colors)
    axes[2].set_ylim(0, 110)
    axes[2].set_title("Client queries that reached cluster CoreDNS (%)")
    for i, value in enumerate(fractions):
        axes[2].annotate(f"{value:.3f}%", (i, value), ha="center", va="bottom")
    for ax in axes:
        ax.tick_params(axis="x", labelsize=8)
    fig.suptitle("DNS data plane of one node (network namespaces, dnsperf from the pod)")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> int:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("--queries", type=int, default=100000, help="at most this many queries per run; default 100000")
    cli.add_argument("--seconds", type=int, default=10, help="at most this many seconds per run; default 10")
    cli.add_argument("--runs", type=int, default=3, help="runs per path, medians reported; default 3")
    cli.add_argument("--clients", type=int, default=4, help="dnsperf -c; default 4")
    cli.add_argument("--outstanding", type=int, default=32, help="dnsperf -q (queries in flight); default 32")
    cli.add_argument("--chart", type=Path, default=DEFAULT_CHART, help=f"PNG to write; default {DEFAULT_CHART}")
    args = cli.parse_args()
    for name in ("queries", "seconds", "runs", "clients", "outstanding"):
        if getattr(args, name) < 1:
            cli.error(f"--{name} must be at least 1")
    require_root()

    sweep_stale()
    results: dict[str, list[Run]] = {BASELINE_LABEL: [], NLD_LABEL: []}
    with tempfile.TemporaryDirectory(prefix="nld-bench-") as tmp:
        workdir = Path(tmp)
        with Testbed(workdir=workdir, upstream_ports=upstream_ports(synthesized_objects(None))) as bed:
            mix = query_mix(bed)
            datafile = workdir / "queries.txt"
            datafile.write_text("".join(f"{q.name} {q.rtype}\n" for q in mix))
            for _ in range(args.runs):
                results[BASELINE_LABEL].append(measure(bed, bed.ips.kube_dns, datafile, mix, args))
            corefile = runtime_corefile(
                kube_dns_cluster_ip=bed.ips.kube_dns, kube_dns_upstream_ip=bed.ips.kube_dns_upstream
            )
            for run in range(args.runs):
                # A fresh CoreDNS per run: every run starts with a cold cache.
                with bed.coredns(bed.node, corefile, f"nld-run-{run}"):
                    probes.wait_for_loop_self_check(
                        bed.node, NODE_METRICS_URL, listener=f"dns://[{LOCAL_IP}]:53", blocks=4
                    )
                    results[NLD_LABEL].append(measure(bed, LOCAL_IP, datafile, mix, args))

    kinds = Counter(q.kind for q in mix)
    print(
        f"Query mix per pass ({len(mix)}): {kinds['cluster']} cluster (AAAA/SRV/PTR), {kinds['external']} external, "
        f"{kinds['nxdomain']} NXDOMAIN; dnsperf -c {args.clients} -q {args.outstanding}, "
        f"≤ {args.queries} queries and ≤ {args.seconds} s per run, {args.runs} runs per path (medians), cold cache.\n"
    )
    print(
        "| path | queries sent | lost | wrong RCODE | queries/s | p50 ms | p99 ms "
        "| cluster CoreDNS requests | reached cluster CoreDNS |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    failed = False
    for label, runs in results.items():
        sent = sum(r.sent for r in runs)
        lost = sum(r.lost for r in runs)
        wrong = sum(r.wrong for r in runs)
        failed |= wrong > 0 or lost > 0.01 * sent
        print(
            f"| {label} | {sent} | {lost} | {wrong} | {median_of(runs, lambda r: r.qps):,.0f} "
            f"| {median_of(runs, lambda r: r.p50_ms):.3f} | {median_of(runs, lambda r: r.p99_ms):.3f} "
            f"| {median_of(runs, lambda r: r.cluster_requests):,.0f} "
            f"| {median_of(runs, lambda r: r.reached_cluster):.3%} |"
        )
    rcodes = {label: dict(sum((r.rcodes for r in runs), Counter())) for label, runs in results.items()}
    print(f"\nRCODEs over all runs: {rcodes}")
    print("Medians per run; cluster CoreDNS requests = rise of its coredns_dns_requests_total during a run.")
    chart(results, args.chart)
    print(f"chart: {args.chart}")
    if failed:
        print("error: wrong RCODEs or more than 1% of queries lost", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
