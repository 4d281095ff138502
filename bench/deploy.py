"""Benchmark the deploy on the test control plane: wall time and API requests.

Cases: a fresh install (cluster reset before each run) and a no-op redeploy, each the
median of ``--runs``; beside them, measured in the same run, the baseline a naive
deploy would cost: server-side apply of every object, unconditionally, every time.
Requests are counted from the API server's audit log (our user only); "mutating" means
a write that is not a server-side dry run.

Goals (issue 3): no-op redeploy 0 mutating requests and <= 1 s; fresh install <= 15 requests.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from constructs_nld import NodeLocalDNSProps, synthesize  # noqa: E402
from constructs_nld.deploy import deploy, load_client  # noqa: E402
from constructs_nld.deploy.kube import KubeClient  # noqa: E402
from tests.controlplane import ControlPlane  # noqa: E402


@dataclass
class Sample:
    """One measured run."""

    seconds: float
    requests: int
    mutating: int


def measure(cluster: ControlPlane, action: Callable[[], object]) -> Sample:
    mark = cluster.audit_mark()
    started = time.perf_counter()
    action()
    seconds = time.perf_counter() - started
    return Sample(seconds, len(cluster.requests_since(mark)), len(cluster.mutating_requests_since(mark)))


def naive_apply(client: KubeClient, cluster_ip: str) -> None:
    for chart in synthesize(NodeLocalDNSProps(kube_dns_cluster_ip=cluster_ip)):
        for obj in chart.objects:
            client.apply(obj)


def main() -> int:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("--runs", type=int, default=5, help="runs per case (median reported); default 5")
    args = cli.parse_args()
    if args.runs < 1:
        cli.error("--runs must be at least 1")

    rows: dict[str, list[Sample]] = {"fresh install": [], "no-op redeploy": [], "baseline: apply all (no-op)": []}
    with ControlPlane() as cluster:
        client = load_client(str(cluster.kubeconfig_path), None, timeout=30)

        def run_deploy() -> None:
            deploy(client, NodeLocalDNSProps(), out=lambda line: None)

        for _ in range(args.runs):
            cluster.reset()
            rows["fresh install"].append(measure(cluster, run_deploy))
        run_deploy()  # warm the no-op path once
        for _ in range(args.runs):
            rows["no-op redeploy"].append(measure(cluster, run_deploy))
        cluster_ip = deploy(client, NodeLocalDNSProps(), out=lambda line: None).cluster_ip
        for _ in range(args.runs):
            rows["baseline: apply all (no-op)"].append(measure(cluster, lambda: naive_apply(client, cluster_ip)))

    print("| case | median s | min s | max s | requests | mutating | runs |\n|---|---|---|---|---|---|---|")
    for case, samples in rows.items():
        seconds = [s.seconds for s in samples]
        print(
            f"| {case} | {statistics.median(seconds):.3f} | {min(seconds):.3f} | {max(seconds):.3f} "
            f"| {statistics.median(s.requests for s in samples):g} "
            f"| {statistics.median(s.mutating for s in samples):g} | {len(samples)} |"
        )
    fresh, noop = rows["fresh install"], rows["no-op redeploy"]
    goals = {
        "no-op redeploy: 0 mutating requests": max(s.mutating for s in noop) == 0,
        "no-op redeploy: <= 1 s (median)": statistics.median(s.seconds for s in noop) <= 1.0,
        "fresh install: <= 15 requests": max(s.requests for s in fresh) <= 15,
    }
    for goal, met in goals.items():
        print(f"{'PASS' if met else 'FAIL'} {goal}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
