"""Benchmark deploy, verify, a rolling restart and uninstall on a 5,000-node simulated cluster beside a 700-node one.

The cluster is :class:`tests.simcluster.SimulatedCluster`: the real kube-apiserver,
kube-controller-manager and kube-scheduler, kwok playing the kubelets, nodes labelled and
tainted like an EKS fleet (:func:`tests.fleet.eks_fleet`). For each size — the baseline
(``--baseline-nodes``, default 700, the fleets this library is run on) and the fleet
(``--nodes``, default 5,000, the Kubernetes scalability limit), measured in the same run on
fresh clusters — the phases are:

- **deploy --wait**: a fresh install and its first-deploy restart, followed to the end (the
  status polled every 0.25 s, deploy.py's 1 s being too coarse to tell quick waves apart);
- **verify**: the checks against the live cluster, in-process with the app synthesized
  once (median of ``--runs``), so the number is what verify costs per node, not the
  app's start-up; and once through ``deploy.py verify`` (which runs the app);
- **rolling restart**: ``kube-dns-upstream`` recreated out of band, then ``deploy --wait``:
  the restart trigger rolls every pod, ``maxUnavailable: 1%`` at a time, to the end;
- **cutover** (unless ``--skip-cutover``): ``cutover start`` of a newer image (one canary node per pool), ``promote``
  (forced: no Prometheus here) rolling the rest at ``maxUnavailable: 1%``, and another cutover
  started and rolled back, against the plain rolling deploy (the rolling restart above);
- **uninstall**: the DaemonSet, its pods gone, the rest.

For each: wall time, API requests from the audit log (ours — the tool's user — and the
whole cluster's, controllers and kwok included; leases and events are not audited for
them), ours per minute and in the busiest second (what the client's pacing, ``--qps`` and
``--burst``, must leave alone), rollout waves observed, the most pods seen unavailable. The fleet is judged by
ratio against the baseline and by the goals printed at the end: verify well under a
second per 100 nodes, the tool's requests independent of the node count, a rollout never
seen with more pods unavailable than ``maxUnavailable`` allows.
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from constructs_nld import NodeLocalDNSProps  # noqa: E402
from constructs_nld.defaults import API_BURST, API_PAGE_SIZE, API_QPS  # noqa: E402
from constructs_nld.deploy import (  # noqa: E402
    CheckResult,
    DeployOptions,
    DeployReport,
    deploy,
    load_client,
    open_session,
    props_source,
    uninstall,
    verify,
    verify_uninstalled,
)
from constructs_nld.deploy.commands import cutover  # noqa: E402
from constructs_nld.deploy.kube import KubeClient  # noqa: E402
from constructs_nld.deploy.options import CutoverOptions, UninstallOptions  # noqa: E402
from constructs_nld.deploy.session import ClusterRead, Session  # noqa: E402
from constructs_nld.deploy.source import AppChart  # noqa: E402
from tests.controlplane import ADMIN_USER, FIXTURE_USER  # noqa: E402
from tests.fleet import eks_fleet  # noqa: E402
from tests.simcluster import SimulatedCluster  # noqa: E402

UPSTREAM = "/api/v1/namespaces/kube-system/services/kube-dns-upstream"


@dataclass
class Phase:
    """One measured phase at one size."""

    seconds: float
    ours: int
    cluster: int
    peak: int = 0
    """Our requests in the busiest second."""
    waves: int | None = None
    max_unavailable: int | None = None
    memory: int | None = None
    """The peak resident memory of the process that ran the phase (bytes), where it ran as one."""
    extra: dict[str, Any] = field(default_factory=dict)


def measure(sim: SimulatedCluster, action: Callable[[], Any]) -> tuple[Phase, Any]:
    """Run ``action``; its wall time and the API requests made meanwhile."""
    plane = sim.control_plane
    mark = plane.audit_mark()
    started = time.perf_counter()
    result = action()
    seconds = time.perf_counter() - started
    events = plane.requests_since(mark, user=None)
    mine = [e for e in events if e.get("user", {}).get("username") == ADMIN_USER]
    everyone = sum(1 for e in events if e.get("user", {}).get("username") != FIXTURE_USER)
    per_second = Counter(e["requestReceivedTimestamp"][:19] for e in mine)
    return Phase(seconds, len(mine), everyone, max(per_second.values(), default=0)), result


def with_rollout(phase: Phase, report: DeployReport) -> Phase:
    assert report.rollout is not None
    phase.waves, phase.max_unavailable = report.rollout.waves, report.rollout.max_unavailable
    phase.extra["desired"] = report.rollout.status.desired
    return phase


def cli_peak_memory(*args: str) -> tuple[int, int]:
    """Run ``deploy.py ARGS`` as a process of its own: its exit code and peak resident memory (bytes).

    The peak is the kernel's ``ru_maxrss`` of that process alone, read by ``wait4`` as it
    exits: what a CI runner must leave free for the command, the app's synth included.
    """
    process = subprocess.Popen([sys.executable, "deploy.py", *args], stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return process.returncode, usage.ru_maxrss * 1024


def run_size(nodes: int, runs: int, log: Callable[[str], None], *, cutover: bool = True) -> dict[str, Phase]:
    """Every phase on a fresh simulated cluster of ``nodes`` nodes."""
    phases: dict[str, Phase] = {}
    with SimulatedCluster(startup_timeout=120.0) as sim:
        started = time.perf_counter()
        sim.add_nodes(eks_fleet(nodes))
        log(f"{nodes} nodes: created and Ready/NotReady in {time.perf_counter() - started:.1f}s")
        kubeconfig = str(sim.control_plane.kubeconfig_path)
        client = load_client(kubeconfig, None, timeout=60)
        props = NodeLocalDNSProps()
        # Polled 4 times a second (deploy.py: once), so that quick waves are seen apart.
        wait = DeployOptions(wait=True, stall_after=120.0, rollout_poll_interval=0.25)

        def deploy_wait() -> DeployReport:
            return deploy(
                open_session(
                    load_client(kubeconfig, None, timeout=60),
                    props_source(props),
                    read="deployable",
                    out=lambda _: None,
                ),
                wait,
            )

        phase, report = measure(sim, deploy_wait)
        phases["deploy --wait (fresh install)"] = with_rollout(phase, report)
        log(f"{nodes} nodes: deploy --wait {phase.seconds:.1f}s")

        charts: tuple[AppChart, ...] = tuple(props_source(props)(report.cluster_ip))
        later = datetime.now(UTC) + timedelta(days=1)  # every node settled
        samples = []
        for _ in range(runs):
            # A client per run, as each deploy.py has: nothing discovered is carried over.
            fresh = load_client(kubeconfig, None, timeout=60)

            def checked(client: KubeClient = fresh) -> list[CheckResult]:
                return verify(open_session(client, lambda _ip: charts, read="installed"), now=later)

            phase, results = measure(sim, checked)
            failed = [r.name for r in results if r.status == "fail"]
            assert failed == [], failed
            samples.append(phase)
        phases["verify (in-process)"] = sorted(samples, key=lambda sample: sample.seconds)[len(samples) // 2]
        log(f"{nodes} nodes: verify {phases['verify (in-process)'].seconds:.3f}s (median of {runs})")

        phase, (code, peak) = measure(sim, lambda: cli_peak_memory("verify", "--kubeconfig", kubeconfig))
        assert code == 0, code
        phase.memory = peak
        phases["verify via deploy.py (runs the app)"] = phase

        rest = sim.control_plane.fixture_api()
        upstream = rest.get(UPSTREAM)
        assert upstream is not None
        rest.request("DELETE", UPSTREAM)
        sim.wait_for("kube-dns-upstream deleted", lambda: rest.get(UPSTREAM) is None)
        spec = {k: v for k, v in upstream["spec"].items() if k not in ("clusterIP", "clusterIPs")}
        metadata = {k: upstream["metadata"][k] for k in ("name", "namespace", "labels")}
        time.sleep(1.1)  # restart stamps have one-second resolution
        rest.request(
            "POST", "/api/v1/namespaces/kube-system/services", body={**upstream, "metadata": metadata, "spec": spec}
        )
        phase, report = measure(sim, deploy_wait)
        assert report.restarted, "the recreated kube-dns-upstream did not trigger a restart"
        phases["rolling restart (deploy --wait)"] = with_rollout(phase, report)
        log(f"{nodes} nodes: rolling restart {phase.seconds:.1f}s, {report.rollout and report.rollout.waves} waves")

        if cutover:
            cutover_phases(sim, client, phases, log, nodes)

        phase, done = measure(
            sim,
            lambda: uninstall(
                open_session(client, lambda _ip: charts, read="installed", out=lambda _: None),
                UninstallOptions(poll_interval=0.5),
            ),
        )
        phase.extra["pods"] = done.pods_waited_for
        phases["uninstall"] = phase
        left = [
            r.name
            for r in verify_uninstalled(open_session(client, lambda _ip: charts, read="installed"))
            if r.status == "fail"
        ]
        assert left == [], left
        log(f"{nodes} nodes: uninstall {phase.seconds:.1f}s")
    return phases


def cutover_phases(
    sim: SimulatedCluster, client: KubeClient, phases: dict[str, Phase], log: Callable[[str], None], nodes: int
) -> None:
    """A cutover to a newer image: start, promote (forced: no Prometheus), then another started and rolled back.

    The rollouts are polled 4 times a second, as deploy --wait's above.
    """
    options = CutoverOptions(
        stall_after=120.0, poll_interval=0.25, force=True, cluster_ip_timeout=60.0, restart_timeout=60.0
    )

    def bumped(tag: str, read: ClusterRead = "deployable") -> Session:
        source = props_source(NodeLocalDNSProps(image=f"registry.k8s.io/dns/k8s-dns-node-cache:{tag}"))
        return open_session(client, source, read=read, out=lambda _: None)

    phase, state = measure(sim, lambda: cutover.start(bumped("1.26.9"), options))
    phase.extra["canary"] = len(state.canary)
    phases["cutover start"] = phase
    phase, report = measure(sim, lambda: cutover.promote(bumped("1.26.9"), options))
    phases["cutover promote (the rest)"] = with_rollout(phase, report)
    log(f"{nodes} nodes: cutover start {phases['cutover start'].seconds:.1f}s, promote {phase.seconds:.1f}s")
    cutover.start(bumped("1.26.10"), options)
    phase, rolled = measure(sim, lambda: cutover.rollback(bumped("1.26.10", "installed"), options))
    assert rolled is not None
    phase.waves, phase.max_unavailable = rolled.waves, rolled.max_unavailable
    phases["cutover rollback (the canary)"] = phase
    log(f"{nodes} nodes: cutover rollback {phase.seconds:.1f}s")


def main() -> int:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("--nodes", type=int, default=5000, help="nodes of the fleet (default 5000)")
    cli.add_argument("--baseline-nodes", type=int, default=700, help="nodes of the in-run baseline (default 700)")
    cli.add_argument(
        "--skip-cutover", action="store_true", help="leave out the cutover phases (start, promote, rollback)"
    )
    cli.add_argument("--runs", type=int, default=5, help="verify runs per size, median reported (default 5)")
    args = cli.parse_args()
    if args.baseline_nodes < 6 or args.nodes < args.baseline_nodes or args.runs < 1:
        cli.error("need 6 <= --baseline-nodes <= --nodes and --runs >= 1")
    os.chdir(Path(__file__).resolve().parents[1])  # deploy.py verify reads ./cdk8s.yaml

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    baseline = run_size(args.baseline_nodes, args.runs, log, cutover=not args.skip_cutover)
    fleet = run_size(args.nodes, args.runs, log, cutover=not args.skip_cutover)

    small, big = args.baseline_nodes, args.nodes
    print(
        "| phase | nodes | seconds | x baseline | s per 100 nodes | our requests | ours per minute "
        "| ours in the busiest second | all requests | waves | max unavailable | peak memory (MiB) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name in fleet:
        for nodes, phases in ((small, baseline), (big, fleet)):
            p = phases[name]
            ratio = p.seconds / baseline[name].seconds
            print(
                f"| {name} | {nodes} | {p.seconds:.2f} | {ratio:.1f} | {100 * p.seconds / nodes:.3f} | {p.ours} "
                f"| {60 * p.ours / p.seconds:.0f} | {p.peak} | {p.cluster} | {'' if p.waves is None else p.waves} "
                f"| {'' if p.max_unavailable is None else p.max_unavailable} "
                f"| {'' if p.memory is None else f'{p.memory / 2**20:.0f}'} |"
            )
    per_100 = 100 * fleet["verify (in-process)"].seconds / big
    restart = fleet["rolling restart (deploy --wait)"]
    allowed = math.ceil(restart.extra["desired"] / 100)
    # Each list is read API_PAGE_SIZE objects at a time: the fleet's Nodes and pods take more pages.
    pages = 2 * (math.ceil(big / API_PAGE_SIZE) - math.ceil(small / API_PAGE_SIZE))
    extra_requests = fleet["verify (in-process)"].ours - baseline["verify (in-process)"].ours
    goals = {
        f"verify: under 0.1 s per 100 nodes at {big} nodes ({per_100:.3f} s)": per_100 < 0.1,
        f"verify: more requests at {big} nodes only by the extra pages of its two lists (Nodes, pods; "
        f"{pages} more allowed, {extra_requests} made)": 0 <= extra_requests <= pages,
        f"rolling restart: at most maxUnavailable 1% = {allowed} pods seen unavailable": (
            restart.max_unavailable is not None and restart.max_unavailable <= allowed
        ),
        "rolling restart: waves observed at both sizes": bool(restart.waves)
        and bool(baseline["rolling restart (deploy --wait)"].waves),
    }
    by_cli = "verify via deploy.py (runs the app)"
    small_memory, big_memory = baseline[by_cli].memory or 0, fleet[by_cli].memory or 0
    goals[
        f"memory: deploy.py verify's peak grows less than the node count ({big_memory / small_memory:.2f}x the "
        f"memory for {big / small:.2f}x the nodes)"
    ] = big_memory / small_memory < big / small
    busiest = max(p.peak for p in fleet.values())
    rate = 60 * restart.ours / restart.seconds
    goals[
        f"pacing: no phase's busiest second ({busiest} requests) reaches --burst {API_BURST}, and the "
        f"{big}-node rollout's {rate:.0f} requests a minute are under --qps {API_QPS:g} ({60 * API_QPS:.0f} a minute)"
    ] = busiest < API_BURST and rate < 60 * API_QPS
    if "cutover start" in fleet:
        goals |= {
            f"cutover start: one canary node per pool ({fleet['cutover start'].extra['canary']} at {big} nodes, "
            f"{baseline['cutover start'].extra['canary']} at {small})": fleet["cutover start"].extra["canary"]
            == baseline["cutover start"].extra["canary"],
            f"cutover promote: at most maxUnavailable 1% = {allowed} pods seen unavailable": (
                fleet["cutover promote (the rest)"].max_unavailable or 0
            )
            <= allowed,
            "cutover rollback: faster than the promote (the canary only)": fleet[
                "cutover rollback (the canary)"
            ].seconds
            < fleet["cutover promote (the rest)"].seconds,
        }
        promote = fleet["cutover promote (the rest)"].seconds / restart.seconds
        print(f"cutover promote / plain rolling deploy at {big} nodes: {promote:.2f}")
    for goal, met in goals.items():
        print(f"{'PASS' if met else 'FAIL'} {goal}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
