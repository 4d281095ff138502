"""Benchmark what a pod's DNS suffers while node-cache restarts, is killed, or crash-loops.

The pod sends resolver-style lookups (a fresh socket each, ``tests/e2e/resolver.py``) to the
kube-dns ClusterIP at a fixed rate for the whole window, while node-cache 1.26.8 — started
as the synthesized DaemonSet starts it, on a fresh node of the e2e test bed — goes through:

(a) **rolling update**: SIGTERM (node-cache removes its rules, then stops), the gap until
    the new pod's container starts (``--gap``), start;
(b) **SIGKILL** (an OOM kill): the rules stay behind; kubelet restarts the container after
    its back-off (``--backoff``);
(c) **crash loop on a bad Corefile**: the ConfigMap gets the preview Corefile (its
    ``__KUBE_DNS_CLUSTER_IP__`` placeholder in ``bind``), the rollout SIGTERMs the running
    pod, and every new container exits; kubelet restarts it at its next sync, then after
    10 s, 20 s, 40 s (CrashLoopBackOff).

A lookup fails when no answer with records comes within ``--timeout`` (one attempt) or the
node refuses it (ICMP port unreachable). An outage is a run of failed lookups, from the
first failed one sent to the next successful one sent. No published figure exists for
these; they set the goal of the next round.

Run as root, with the node-cache binary. Prints a markdown table and writes a chart
(``bench/results/disruption.png``).
"""

from __future__ import annotations

import argparse
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from constructs_nld import NodeLocalDNSProps  # noqa: E402
from tests.e2e.netns import require_root, sweep_stale  # noqa: E402
from tests.e2e.nodecache import NODE_CACHE_MISSING, NodeCache, bed_for, find_node_cache_binary  # noqa: E402
from tests.e2e.resolver import LoadResult, ResolverLoad  # noqa: E402

DEFAULT_CHART = Path(__file__).resolve().parent / "results" / "disruption.png"
NAMES = (
    "kubernetes.default.svc.cluster.local",
    "kube-dns.kube-system.svc.cluster.local",
    "web.shop.svc.cluster.local",
)
LEAD = 5.0
"""Seconds of steady load before the disruption."""
CRASH_LOOP_DELAYS = (1.0, 10.0, 20.0, 40.0)
"""Kubelet's restarts of a crashing container: at its next pod sync (about 1 s), then 10 s doubling."""


@dataclass
class Timeline:
    """What happened to node-cache, when (``time.monotonic()``)."""

    events: list[tuple[float, str]] = field(default_factory=list)

    def mark(self, label: str) -> None:
        """Record ``label`` now."""
        self.events.append((time.monotonic(), label))


@dataclass(frozen=True)
class Case:
    """One disruption: its name, the load window and what happens in it."""

    name: str
    seconds: float
    disrupt: Callable[[NodeCache, Timeline, argparse.Namespace], None]


def start(node_cache: NodeCache, timeline: Timeline) -> None:
    """Start a container and wait until it serves with its rules in place."""
    timeline.mark("start")
    node_cache.start()
    node_cache.wait_serving()
    timeline.mark("serving")
    node_cache.wait_rules()
    timeline.mark("rules in place")


def rolling_update(node_cache: NodeCache, timeline: Timeline, args: argparse.Namespace) -> None:
    """(a) SIGTERM, the gap of a new pod, start."""
    timeline.mark("SIGTERM")
    node_cache.signal(signal.SIGTERM)
    node_cache.wait_exit(node_cache.invocation.grace_period)
    timeline.mark("exited")
    time.sleep(args.gap)
    start(node_cache, timeline)


def oom_kill(node_cache: NodeCache, timeline: Timeline, args: argparse.Namespace) -> None:
    """(b) SIGKILL, kubelet's back-off, start."""
    timeline.mark("SIGKILL")
    node_cache.kill()
    time.sleep(args.backoff)
    start(node_cache, timeline)


def crash_loop(node_cache: NodeCache, timeline: Timeline, args: argparse.Namespace) -> None:
    """(c) A bad Corefile rolled out: SIGTERM, then containers that exit, restarted with back-off."""
    preview = NodeCache(node_cache.bed, NodeLocalDNSProps(), binary=node_cache.binary).invocation
    mount, files = next((m, f) for m, f in preview.volumes.items() if "Corefile.base" in f)
    node_cache.write_config_map(mount, files)
    timeline.mark("bad ConfigMap; SIGTERM")
    node_cache.signal(signal.SIGTERM)
    node_cache.wait_exit(node_cache.invocation.grace_period)
    timeline.mark("exited")
    time.sleep(args.gap)
    for delay in CRASH_LOOP_DELAYS:
        timeline.mark("start")
        node_cache.start()
        code = node_cache.wait_exit()
        timeline.mark(f"exit {code}")
        if time.monotonic() + delay > timeline.events[0][0] + args.crash_window:
            return
        time.sleep(delay)


@dataclass(frozen=True)
class Outcome:
    """A case's lookups and node-cache's timeline."""

    case: Case
    result: LoadResult
    timeline: Timeline

    @property
    def start(self) -> float:
        """When the first lookup was sent."""
        return self.result.lookups[0].sent


def run_case(case: Case, binary: Path, workdir: Path, args: argparse.Namespace) -> Outcome:
    """One case on a fresh node: node-cache intercepting, steady load, the disruption, the rest of the window."""
    props = NodeLocalDNSProps(kube_dns_cluster_ip="fd00:ec2::a")
    timeline = Timeline()
    with bed_for(props, workdir) as bed:
        node_cache = NodeCache(bed, props, binary=binary)
        node_cache.start()
        node_cache.wait_ready()
        load = ResolverLoad(
            bed.pod, bed.ips.kube_dns, NAMES, rate=args.rate, count=int(args.rate * case.seconds), timeout=args.timeout
        )
        try:
            time.sleep(LEAD)
            case.disrupt(node_cache, timeline, args)
            result = load.result()
        finally:
            load.stop()
    return Outcome(case, result, timeline)


def chart(outcomes: list[Outcome], path: Path, bin_seconds: float = 0.25) -> None:
    """Per case: answered and failed lookups per time bin, with node-cache's events."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(outcomes), 1, figsize=(13, 3.2 * len(outcomes)), squeeze=False)
    for ax, outcome in zip(axes[:, 0], outcomes, strict=True):
        width = max(lookup.sent for lookup in outcome.result.lookups) - outcome.start
        bins = int(width / bin_seconds) + 1
        ok = [0] * bins
        failed = [0] * bins
        for lookup in outcome.result.lookups:
            index = int((lookup.sent - outcome.start) / bin_seconds)
            (ok if lookup.ok else failed)[index] += 1
        xs = [i * bin_seconds for i in range(bins)]
        ax.bar(xs, ok, width=bin_seconds, align="edge", color="#2ca02c", alpha=0.35, label="answered")
        ax.bar(xs, failed, width=bin_seconds, align="edge", bottom=ok, color="#d62728", label="failed")
        # Events less than half a second apart share one line and one label.
        groups: list[tuple[float, list[str]]] = []
        for when, label in outcome.timeline.events:
            if groups and when - outcome.start - groups[-1][0] < 0.5:
                groups[-1][1].append(label)
            else:
                groups.append((when - outcome.start, [label]))
        for x, labels in groups:
            ax.axvline(x, color="#333333", linewidth=0.8, linestyle="--")
            ax.annotate(", ".join(labels), (x, ax.get_ylim()[1]), rotation=90, va="top", ha="right", fontsize=7)
        ax.set_title(
            f"{outcome.case.name}: {len(outcome.result.failed)} of {len(outcome.result.lookups)} lookups failed, "
            f"longest outage {outcome.result.longest_outage():.2f} s",
            fontsize=10,
        )
        ax.set_ylabel(f"lookups per {bin_seconds:g} s")
        ax.set_xlim(0, width)
    axes[-1, 0].set_xlabel("seconds since the load started")
    axes[0, 0].legend(loc="lower left", fontsize=8)
    fig.suptitle("Pod lookups to the kube-dns ClusterIP while node-cache 1.26.8 is disrupted")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> int:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("--rate", type=float, default=200, help="lookups per second from the pod; default 200")
    cli.add_argument("--timeout", type=float, default=2.0, help="seconds a lookup waits for its answer; default 2")
    cli.add_argument("--gap", type=float, default=2.0, help="(a), (c): seconds until the new pod starts; default 2")
    cli.add_argument("--backoff", type=float, default=10.0, help="(b): kubelet's restart back-off; default 10")
    cli.add_argument(
        "--crash-window", type=float, default=35.0, help="(c): seconds of crash loop after the SIGTERM; default 35"
    )
    cli.add_argument("--chart", type=Path, default=DEFAULT_CHART, help=f"PNG to write; default {DEFAULT_CHART}")
    args = cli.parse_args()
    for name in ("rate", "timeout", "crash_window"):
        if getattr(args, name) <= 0:
            cli.error(f"--{name.replace('_', '-')} must be positive")
    for name in ("gap", "backoff"):
        if getattr(args, name) < 0:
            cli.error(f"--{name} must not be negative")
    require_root()
    binary = find_node_cache_binary()
    if binary is None:
        print(f"error: {NODE_CACHE_MISSING}", file=sys.stderr)
        return 2

    tail = 8.0
    cases = (
        Case("(a) rolling update", LEAD + args.gap + tail, rolling_update),
        Case("(b) SIGKILL, restart after back-off", LEAD + args.backoff + tail, oom_kill),
        Case("(c) crash loop on a bad Corefile", LEAD + args.crash_window + tail, crash_loop),
    )
    sweep_stale()
    outcomes = []
    with tempfile.TemporaryDirectory(prefix="nld-disruption-") as tmp:
        for n, case in enumerate(cases):
            outcomes.append(run_case(case, binary, Path(tmp) / str(n), args))

    print(
        f"node-cache: {binary}. Resolver-style lookups from the pod to the kube-dns ClusterIP at {args.rate:g}/s "
        f"(3 cluster names, one attempt, {args.timeout:g} s timeout); gap {args.gap:g} s, "
        f"back-off {args.backoff:g} s; events in seconds after the first lookup.\n"
    )
    print("| case | lookups | failed | failed % | longest outage s | node-cache timeline |")
    print("|---|---|---|---|---|---|")
    for outcome in outcomes:
        lookups = len(outcome.result.lookups)
        failed = len(outcome.result.failed)
        events = ", ".join(f"{label} {when - outcome.start:.2f}" for when, label in outcome.timeline.events)
        print(
            f"| {outcome.case.name} | {lookups} | {failed} | {failed / lookups:.2%} "
            f"| {outcome.result.longest_outage():.2f} | {events} |"
        )
    reasons = {outcome.case.name: sorted({lookup.outcome for lookup in outcome.result.failed}) for outcome in outcomes}
    print(f"\nHow the failed lookups failed: {reasons}")
    chart(outcomes, args.chart)
    print(f"chart: {args.chart}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
