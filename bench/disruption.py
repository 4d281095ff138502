"""Benchmark what a pod's DNS suffers while node-cache restarts, is killed, or crash-loops, in each interception mode.

The pod sends resolver-style lookups (a fresh socket each, ``tests/e2e/resolver.py``) to the
kube-dns ClusterIP at a fixed rate for the whole window, while the synthesized pod — on a
fresh node of the e2e test bed, node-cache 1.26.8 and, in the fallthrough mode, the rule
keeper (``tests/e2e/pod.py``) — goes through:

(a) **rolling update**: the pod deleted (SIGTERM to its containers: node-cache or the keeper
    removes the rules), the gap until the new pod starts (``--gap``), start;
(b) **SIGKILL** of node-cache (an OOM kill): kubelet restarts the container after its
    back-off (``--backoff``). The spec's mode leaves its rules behind; the keeper's rules
    stay too, and apply to nothing while nothing listens;
(c) **crash loop on a bad Corefile**: the ConfigMap gets the preview Corefile (its
    ``__KUBE_DNS_CLUSTER_IP__`` placeholder in ``bind``), the rollout deletes the running
    pod, and every new node-cache container exits; kubelet restarts it at its next sync, then
    after 10 s, 20 s, 40 s (CrashLoopBackOff).

Each case runs in both modes: ``node-cache`` (the spec's) and ``fallthrough``.

Then, on a real node (``tests/e2e/realnode.py``: kubelet v1.34.4 on containerd, the real
kube-proxy v1.34.4 in each of its modes, the simulated cluster's DaemonSet controller), in
both interception modes and both kube-proxy modes: (a) a **rolling update** as a template
change makes one (the controller deletes the pod, kubelet stops it within its grace period,
the controller makes the next, kubelet starts it) and (b) a **SIGKILL** of node-cache that
kubelet restarts as it does (at once after a first crash). A lookup fails
when no answer with records comes within ``--timeout`` (one attempt) or the node refuses it
(ICMP port unreachable). An outage is a run of failed lookups, from the first failed one sent
to the next successful one sent. A failed lookup is **still failing after one resolver
timeout** when the first lookup sent ``--timeout`` seconds after it fails too: a resolver's
retry would fail as well, and the application sees the error. Goal: none, in every case.

Run as root, with the node-cache binary. Prints a markdown table and writes a chart
(``bench/results/disruption.png``).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from constructs_nld import NodeLocalDNSProps  # noqa: E402
from constructs_nld.props import Interception  # noqa: E402
from tests.e2e.netns import Testbed, require_root, sweep_stale  # noqa: E402
from tests.e2e.nodecache import NODE_CACHE_MISSING, NodeCache, find_node_cache_binary  # noqa: E402
from tests.e2e.pod import NodeLocalDNSPod  # noqa: E402
from tests.e2e.realnode import SERVED_NAMES, node_images, real_node  # noqa: E402
from tests.e2e.resolver import LoadResult, ResolverLoad  # noqa: E402
from tests.harness.node import PROXY_MODES, ProxyMode  # noqa: E402

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
MODES: tuple[Interception, ...] = ("node-cache", "fallthrough")
REAL_TAIL = 12.0
"""Seconds of load after the disruption on the real node: the new pod is Ready within a few."""


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
    disrupt: Callable[[NodeLocalDNSPod, Timeline, argparse.Namespace], None]


def start(pod: NodeLocalDNSPod, timeline: Timeline) -> None:
    """Start the pod's containers and wait until node-cache serves with the rules in place."""
    timeline.mark("start")
    pod.start()
    pod.node_cache.wait_serving()
    timeline.mark("serving")
    pod.wait_ready()
    timeline.mark("rules in place")


def restart_node_cache(pod: NodeLocalDNSPod, timeline: Timeline) -> None:
    """Start a new node-cache container (the keeper, if any, runs on) and wait until it intercepts."""
    timeline.mark("start")
    pod.node_cache.start()
    pod.node_cache.wait_serving()
    timeline.mark("serving")
    pod.wait_ready()
    timeline.mark("rules in place")


def rolling_update(pod: NodeLocalDNSPod, timeline: Timeline, args: argparse.Namespace) -> None:
    """(a) The pod deleted, the gap of a new pod, start."""
    timeline.mark("SIGTERM")
    pod.stop()
    timeline.mark("exited")
    time.sleep(args.gap)
    start(pod, timeline)


def oom_kill(pod: NodeLocalDNSPod, timeline: Timeline, args: argparse.Namespace) -> None:
    """(b) SIGKILL of node-cache, kubelet's back-off, start."""
    timeline.mark("SIGKILL")
    pod.node_cache.kill()
    time.sleep(args.backoff)
    restart_node_cache(pod, timeline)


def crash_loop(pod: NodeLocalDNSPod, timeline: Timeline, args: argparse.Namespace) -> None:
    """(c) A bad Corefile rolled out: the pod deleted, then node-cache containers that exit, restarted with back-off."""
    preview = NodeCache(pod.node_cache.bed, NodeLocalDNSProps(), binary=pod.node_cache.binary).invocation
    mount, files = next((m, f) for m, f in preview.volumes.items() if "Corefile.base" in f)
    pod.node_cache.write_config_map(mount, files)
    timeline.mark("bad ConfigMap; SIGTERM")
    pod.stop()
    timeline.mark("exited")
    time.sleep(args.gap)
    timeline.mark("start")
    pod.start()
    for delay in CRASH_LOOP_DELAYS:
        code = pod.node_cache.wait_exit()
        timeline.mark(f"exit {code}")
        if time.monotonic() + delay > timeline.events[0][0] + args.crash_window:
            return
        time.sleep(delay)
        timeline.mark("start")
        pod.node_cache.start()


@dataclass(frozen=True)
class Outcome:
    """A case's lookups and node-cache's timeline, in one mode."""

    case: Case
    mode: Interception
    result: LoadResult
    timeline: Timeline

    @property
    def start(self) -> float:
        """When the first lookup was sent."""
        return self.result.lookups[0].sent


def still_failing(result: LoadResult, timeout: float) -> int:
    """Failed lookups whose retry one resolver timeout later would fail too: the first lookup sent then failed."""
    lookups = result.lookups
    count = 0
    for index, lookup in enumerate(lookups):
        if lookup.ok:
            continue
        later = next((other for other in lookups[index:] if other.sent >= lookup.sent + timeout), None)
        if later is not None and not later.ok:
            count += 1
    return count


def run_case(case: Case, mode: Interception, binary: Path, workdir: Path, args: argparse.Namespace) -> Outcome:
    """One case on a fresh node: the pod intercepting, steady load, the disruption, the rest of the window."""
    props = NodeLocalDNSProps(kube_dns_cluster_ip="fd00:ec2::a", interception=mode)
    timeline = Timeline()
    with Testbed(workdir=workdir) as bed:
        pod = NodeLocalDNSPod(bed, props, binary=binary)
        pod.start()
        pod.wait_ready()
        load = ResolverLoad(
            bed.pod, bed.ips.kube_dns, NAMES, rate=args.rate, count=int(args.rate * case.seconds), timeout=args.timeout
        )
        try:
            time.sleep(LEAD)
            case.disrupt(pod, timeline, args)
            result = load.result()
        finally:
            load.stop()
    return Outcome(case, mode, result, timeline)


@dataclass(frozen=True)
class RealOutcome:
    """A case's lookups on the real node, in one interception mode and one kube-proxy mode."""

    case: str
    proxy: ProxyMode
    mode: Interception
    result: LoadResult


def real_node_outcomes(binary: Path, workdir: Path, args: argparse.Namespace) -> list[RealOutcome]:
    """(a) and (b) on a real node per kube-proxy mode, in each interception mode, each from a fresh deploy."""
    images = node_images(workdir / "images", binary)
    outcomes = []
    for proxy in PROXY_MODES:
        with real_node(workdir / proxy, images, proxy_mode=proxy) as node:
            for mode in MODES:
                for case in ("(a) rolling update", "(b) SIGKILL, kubelet's restart"):
                    node.deploy(NodeLocalDNSProps(interception=mode), wait=True, stall_after=60)
                    node.wait_intercepting()
                    count = int(args.rate * (LEAD + REAL_TAIL))
                    load = ResolverLoad(
                        node.bed.pod,
                        node.bed.ips.kube_dns,
                        SERVED_NAMES,
                        rate=args.rate,
                        count=count,
                        timeout=args.timeout,
                    )
                    try:
                        time.sleep(LEAD)
                        if case.startswith("(a)"):
                            node.roll()
                        else:
                            os.kill(node.container_pid(node.node_cache_pod()), signal.SIGKILL)
                        result = load.result()
                    finally:
                        load.stop()
                    outcomes.append(RealOutcome(case, proxy, mode, result))
                    node.reset()
    return outcomes


def print_real_node(outcomes: list[RealOutcome], args: argparse.Namespace) -> None:
    """The real node's table: a row per case and kube-proxy mode, columns per interception mode."""
    print(f"\nOn a real node (kubelet and kube-proxy v1.34.4), {args.rate:g} lookups/s for {LEAD + REAL_TAIL:g} s:\n")
    header = " | ".join(f"{mode}: failed | {mode}: longest outage s" for mode in MODES)
    print(f"| case | kube-proxy | lookups | {header} |")
    print("|---|---|---|" + "---|" * 2 * len(MODES))
    rows: dict[tuple[str, str], dict[str, LoadResult]] = {}
    for outcome in outcomes:
        rows.setdefault((outcome.case, outcome.proxy), {})[outcome.mode] = outcome.result
    for (case, proxy), results in rows.items():
        cells = []
        for mode in MODES:
            failed = len(results[mode].failed)
            cells += [f"{failed} ({failed / len(results[mode].lookups):.2%})", f"{results[mode].longest_outage():.2f}"]
        print(f"| {case} | {proxy} | {len(results[MODES[0]].lookups)} | {' | '.join(cells)} |")


def chart(outcomes: list[Outcome], path: Path, bin_seconds: float = 0.25) -> None:
    """Per case (rows) and mode (columns): answered and failed lookups per time bin, with node-cache's events."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = len(outcomes) // len(MODES)
    fig, axes = plt.subplots(rows, len(MODES), figsize=(9 * len(MODES), 3.2 * rows), squeeze=False)
    for ax, outcome in zip(axes.flatten(), outcomes, strict=True):
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
            f"{outcome.case.name}, {outcome.mode}: {len(outcome.result.failed)} of {len(outcome.result.lookups)} "
            f"lookups failed, longest outage {outcome.result.longest_outage():.2f} s",
            fontsize=10,
        )
        ax.set_ylabel(f"lookups per {bin_seconds:g} s")
        ax.set_xlim(0, width)
    for ax in axes[-1, :]:
        ax.set_xlabel("seconds since the load started")
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
            for mode in MODES:
                outcomes.append(run_case(case, mode, binary, Path(tmp) / f"{n}-{mode}", args))

    print(
        f"node-cache: {binary}. Resolver-style lookups from the pod to the kube-dns ClusterIP at {args.rate:g}/s "
        f"(3 cluster names, one attempt, {args.timeout:g} s timeout); gap {args.gap:g} s, "
        f"back-off {args.backoff:g} s; events in seconds after the first lookup.\n"
    )
    header = " | ".join(
        f"{mode}: failed | {mode}: longest outage s | {mode}: still failing after {args.timeout:g} s" for mode in MODES
    )
    print(f"| case | lookups | {header} |")
    print("|---|---|" + "---|" * 3 * len(MODES))
    by_case: dict[str, dict[str, Outcome]] = {}
    for outcome in outcomes:
        by_case.setdefault(outcome.case.name, {})[outcome.mode] = outcome
    for name, modes in by_case.items():
        cells = []
        for mode in MODES:
            result = modes[mode].result
            failed = len(result.failed)
            cells += [
                f"{failed} ({failed / len(result.lookups):.2%})",
                f"{result.longest_outage():.2f}",
                str(still_failing(result, args.timeout)),
            ]
        print(f"| {name} | {len(modes[MODES[0]].result.lookups)} | {' | '.join(cells)} |")
    goal = all(still_failing(o.result, args.timeout) == 0 for o in outcomes if o.mode == "fallthrough")
    verdict = "met" if goal else "missed"
    print(f"\nGoal, fallthrough: no lookup still failing after one resolver timeout in any case: {verdict}")
    print("\nTimelines:")
    for outcome in outcomes:
        events = ", ".join(f"{label} {when - outcome.start:.2f}" for when, label in outcome.timeline.events)
        print(f"- {outcome.case.name}, {outcome.mode}: {events}")
    reasons = {f"{o.case.name}, {o.mode}": sorted({lookup.outcome for lookup in o.result.failed}) for o in outcomes}
    print(f"\nHow the failed lookups failed: {reasons}")
    chart(outcomes, args.chart)
    print(f"chart: {args.chart}")
    with tempfile.TemporaryDirectory(prefix="nld-disruption-real-") as tmp:
        print_real_node(real_node_outcomes(binary, Path(tmp), args), args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
