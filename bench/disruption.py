"""Benchmark what a pod's DNS suffers while node-cache is rolled, killed, or crash-loops, in each interception mode.

Everything runs on a real node (``tests/e2e/realnode.py``): kubelet v1.34.4 on containerd, the
real kube-proxy v1.34.4 in each of its modes (a column set each), the simulated cluster's
DaemonSet controller, and the synthesized DaemonSet's pod (node-cache 1.26.8 and, in the
fallthrough mode, the rule keeper). The pod sends resolver-style lookups (a fresh socket each,
``tests/harness/resolver.py``) to the kube-dns ClusterIP at a fixed rate for the whole window,
while the synthesized pod goes through:

(a) **rolling update**, as a template change makes one: the controller deletes the pod,
    kubelet stops its containers within the grace period (node-cache or the keeper removes
    the rules), the controller makes the next pod, kubelet starts it;
(b) **SIGKILL** of node-cache (an OOM kill): kubelet restarts the container (at once after a
    first crash). The spec's mode leaves its rules behind meanwhile; the keeper's rules stay
    too, and apply to nothing while nothing listens;
(c) **crash loop on a bad Corefile**: the ConfigMap gets the preview Corefile (its
    ``__KUBE_DNS_CLUSTER_IP__`` placeholder in ``bind``), a rollout replaces the running pod,
    and every new node-cache container exits 1; kubelet restarts it with its back-off
    (10 s doubling, CrashLoopBackOff).

Each case runs in both interception modes, ``node-cache`` (the spec's) and ``fallthrough``,
from a fresh deploy. The timeline is what the pods' statuses said, polled every 0.2 s. A
lookup fails when no answer with records comes within ``--timeout`` (one attempt) or the node
refuses it (ICMP port unreachable). An outage is a run of failed lookups, from the first
failed one sent to the next successful one sent. A failed lookup is **still failing after one
resolver timeout** when the first lookup sent ``--timeout`` seconds after it fails too: a
resolver's retry would fail as well, and the application sees the error. Goal, fallthrough:
none, in every case and kube-proxy mode.

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
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from constructs_nld import NodeLocalDNSProps  # noqa: E402
from constructs_nld.props import Interception  # noqa: E402
from tests.e2e.netns import require_root, sweep_stale  # noqa: E402
from tests.e2e.nodecache import NODE_CACHE_MISSING, find_node_cache_binary  # noqa: E402
from tests.e2e.realnode import SERVED_NAMES, RealNodeBed, kubectl_objects, node_images, real_node  # noqa: E402
from tests.harness.node import PROXY_MODES, ProxyMode  # noqa: E402
from tests.harness.resolver import LoadResult, ResolverLoad  # noqa: E402

DEFAULT_CHART = Path(__file__).resolve().parent / "results" / "disruption.png"
LEAD = 5.0
"""Seconds of steady load before the disruption."""
TAIL = 12.0
"""Seconds of load after a rollout or a kill: the pod is back within a few."""
MODES: tuple[Interception, ...] = ("node-cache", "fallthrough")
POLL = 0.2
"""Seconds between two reads of the pods' statuses for the timeline."""
CHART_LABEL = 34
"""Characters of an event's label on the chart (the printed timeline has them whole)."""


@dataclass
class Timeline:
    """What happened to node-cache, when (``time.monotonic()``)."""

    events: list[tuple[float, str]] = field(default_factory=list)

    def mark(self, label: str) -> None:
        """Record ``label`` now."""
        self.events.append((time.monotonic(), label))


@dataclass(frozen=True)
class Case:
    """One disruption: its name, the load window after it, and what starts it."""

    name: str
    tail: Callable[[argparse.Namespace], float]
    disrupt: Callable[[RealNodeBed, NodeLocalDNSProps, Timeline], None]


def rolling_update(node: RealNodeBed, props: NodeLocalDNSProps, timeline: Timeline) -> None:
    """(a) A new template: the DaemonSet controller and kubelet roll the pod."""
    timeline.mark("template changed")
    node.roll()


def oom_kill(node: RealNodeBed, props: NodeLocalDNSProps, timeline: Timeline) -> None:
    """(b) SIGKILL of node-cache's process; kubelet restarts the container."""
    pid = node.container_pid(node.node_cache_pod())
    timeline.mark("SIGKILL")
    os.kill(pid, signal.SIGKILL)


def crash_loop(node: RealNodeBed, props: NodeLocalDNSProps, timeline: Timeline) -> None:
    """(c) The preview's Corefile applied to the ConfigMap, then a rollout: every new node-cache exits 1."""
    preview = NodeLocalDNSProps(interception=props.interception)
    (config_map,) = [
        o for o in kubectl_objects(preview) if (o["kind"], o["metadata"]["name"]) == ("ConfigMap", "node-local-dns")
    ]
    node.apply([config_map])
    timeline.mark("bad ConfigMap, template changed")
    node.roll()


def _states(pods: list[dict[str, Any]]) -> dict[str, str]:
    """What the timeline follows of each pod, by uid: deleting, Ready, and each container's state."""
    states = {}
    for pod in pods:
        status = pod["status"]
        words = ["deleting" if pod["metadata"].get("deletionTimestamp") else ""]
        ready = any(c["type"] == "Ready" and c["status"] == "True" for c in status.get("conditions") or [])
        words.append("Ready" if ready else "not Ready")
        for container in status.get("containerStatuses") or []:
            state = container["state"]
            if "running" in state:
                words.append(f"{container['name']} running #{container['restartCount']}")
            elif "terminated" in state:
                words.append(f"{container['name']} exited {state['terminated']['exitCode']}")
            else:
                words.append(f"{container['name']} {state.get('waiting', {}).get('reason', 'waiting')}")
        states[pod["metadata"]["uid"]] = ", ".join(word for word in words if word)
    return states


def follow(node: RealNodeBed, timeline: Timeline, until: float) -> None:
    """Mark each change of the pods' statuses until ``until`` (``time.monotonic()``)."""
    names: dict[str, str] = {}
    before: dict[str, str] = {}
    while time.monotonic() < until:
        now = _states(node.pods())
        for uid, state in now.items():
            name = names.setdefault(uid, f"pod {len(names) + 1}")
            if before.get(uid) != state:
                timeline.mark(f"{name}: {state}")
        for uid in before.keys() - now.keys():
            timeline.mark(f"{names[uid]}: gone")
        before = now
        time.sleep(POLL)


@dataclass(frozen=True)
class Outcome:
    """A case's lookups and the pods' timeline, in one interception mode and one kube-proxy mode."""

    case: Case
    proxy: ProxyMode
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


def run_case(node: RealNodeBed, case: Case, mode: Interception, args: argparse.Namespace) -> Outcome:
    """One case from a fresh deploy: the pod intercepting, steady load, the disruption, the rest of the window."""
    props = NodeLocalDNSProps(interception=mode)
    node.deploy(props, wait=True, stall_after=60)
    node.wait_intercepting()
    timeline = Timeline()
    seconds = LEAD + case.tail(args)
    load = ResolverLoad(
        node.bed.pod,
        node.bed.ips.kube_dns,
        SERVED_NAMES,
        rate=args.rate,
        count=int(args.rate * seconds),
        timeout=args.timeout,
    )
    try:
        time.sleep(LEAD)
        case.disrupt(node, props, timeline)
        follow(node, timeline, time.monotonic() + case.tail(args))
        result = load.result()
    finally:
        load.stop()
    node.reset()
    return Outcome(case, node.proxy_mode, mode, result, timeline)


def print_table(outcomes: list[Outcome], args: argparse.Namespace) -> None:
    """A row per case and kube-proxy mode, columns per interception mode."""
    header = " | ".join(
        f"{mode}: failed | {mode}: longest outage s | {mode}: still failing after {args.timeout:g} s" for mode in MODES
    )
    print(f"| case | kube-proxy | lookups | {header} |")
    print("|---|---|---|" + "---|" * 3 * len(MODES))
    rows: dict[tuple[str, str], dict[str, LoadResult]] = {}
    for outcome in outcomes:
        rows.setdefault((outcome.case.name, outcome.proxy), {})[outcome.mode] = outcome.result
    for (case, proxy), results in rows.items():
        cells = []
        for mode in MODES:
            result = results[mode]
            failed = len(result.failed)
            cells += [
                f"{failed} ({failed / len(result.lookups):.2%})",
                f"{result.longest_outage():.2f}",
                str(still_failing(result, args.timeout)),
            ]
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
            text = "; ".join(labels)
            text = text if len(text) <= CHART_LABEL else text[: CHART_LABEL - 1] + "…"
            ax.annotate(text, (x, ax.get_ylim()[1]), rotation=90, va="top", ha="right", fontsize=7)
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
    fig.suptitle("Pod lookups to the kube-dns ClusterIP while node-cache 1.26.8 is disrupted, on a real node")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> int:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("--rate", type=float, default=200, help="lookups per second from the pod; default 200")
    cli.add_argument("--timeout", type=float, default=2.0, help="seconds a lookup waits for its answer; default 2")
    cli.add_argument(
        "--crash-window", type=float, default=35.0, help="(c): seconds of crash loop after the rollout; default 35"
    )
    cli.add_argument("--chart", type=Path, default=DEFAULT_CHART, help=f"PNG to write; default {DEFAULT_CHART}")
    args = cli.parse_args()
    for name in ("rate", "timeout", "crash_window"):
        if getattr(args, name) <= 0:
            cli.error(f"--{name.replace('_', '-')} must be positive")
    require_root()
    binary = find_node_cache_binary()
    if binary is None:
        print(f"error: {NODE_CACHE_MISSING}", file=sys.stderr)
        return 2

    cases = (
        Case("(a) rolling update", lambda _: TAIL, rolling_update),
        Case("(b) SIGKILL, kubelet's restart", lambda _: TAIL, oom_kill),
        Case("(c) crash loop on a bad Corefile", lambda a: float(a.crash_window), crash_loop),
    )
    sweep_stale()
    outcomes = []
    with tempfile.TemporaryDirectory(prefix="nld-disruption-") as tmp:
        images = node_images(Path(tmp) / "images", binary)
        for proxy in PROXY_MODES:
            with real_node(Path(tmp) / proxy, images, proxy_mode=proxy) as node:
                for case in cases:
                    for mode in MODES:
                        outcomes.append(run_case(node, case, mode, args))

    print(
        f"node-cache: {binary}, on a real node (kubelet and kube-proxy v1.34.4). Resolver-style lookups from the "
        f"pod to the kube-dns ClusterIP at {args.rate:g}/s ({len(SERVED_NAMES)} cluster names, one attempt, "
        f"{args.timeout:g} s timeout), {LEAD:g} s before the disruption; events in seconds after the first lookup.\n"
    )
    print_table(outcomes, args)
    goal = all(still_failing(o.result, args.timeout) == 0 for o in outcomes if o.mode == "fallthrough")
    verdict = "met" if goal else "missed"
    print(f"\nGoal, fallthrough: no lookup still failing after one resolver timeout in any case: {verdict}")
    print("\nTimelines:")
    for outcome in outcomes:
        events = "; ".join(f"{when - outcome.start:.2f} {label}" for when, label in outcome.timeline.events)
        print(f"- {outcome.case.name}, kube-proxy {outcome.proxy}, {outcome.mode}: {events}")
    reasons = {
        f"{o.case.name}, {o.proxy}, {o.mode}": sorted({lookup.outcome for lookup in o.result.failed}) for o in outcomes
    }
    print(f"\nHow the failed lookups failed: {reasons}")
    chart([o for o in outcomes if o.proxy == PROXY_MODES[0]], args.chart)
    print(f"chart ({PROXY_MODES[0]} mode): {args.chart}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
