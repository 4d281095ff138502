"""Benchmark the deploy on the test control plane: wall time and API requests.

Cases, each the median of ``--runs``: a fresh install (cluster reset before each run), a
no-op redeploy, the same no-op through the CLI (which runs the project's app, ``python
main.py``, as ``cdk8s synth`` does), and the migration of an install made as the spec's
deploy.sh makes it (client-side ``kubectl apply``). Beside them, measured in the same run,
the baseline a naive deploy would cost: server-side apply of every object,
unconditionally, every time. Requests are counted from the API server's audit log (our
user only); "mutating" means a write that is not a server-side dry run. Times are judged
as ratios to the baseline, never as absolute numbers.

Goals: no-op redeploy 0 mutating requests; fresh install <= 16 requests (issue 3's 15, plus
the read that confirms a restart is still due, issue 11); a migration
that writes each object once at most (its take-over patch and its apply) plus nothing on
the rerun.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from constructs_nld import NodeLocalDNSProps, synthesize  # noqa: E402
from constructs_nld.deploy import deploy, load_client, props_source  # noqa: E402
from constructs_nld.deploy.cli import main as deploy_cli  # noqa: E402
from constructs_nld.deploy.kube import KubeClient  # noqa: E402
from tests.controlplane import ControlPlane  # noqa: E402
from tests.deploysh import install_like_deploy_sh  # noqa: E402


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

    rows: dict[str, list[Sample]] = {
        "fresh install": [],
        "no-op redeploy": [],
        "no-op redeploy via deploy.py (runs the app)": [],
        "migrate from a deploy.sh install": [],
        "rerun after the migration": [],
        "baseline: apply all (no-op)": [],
    }
    repo = Path(__file__).resolve().parents[1]
    with ControlPlane() as cluster:
        client = load_client(str(cluster.kubeconfig_path), None, timeout=30)
        source = props_source(NodeLocalDNSProps())

        def run_deploy() -> None:
            # A client per run, as each deploy.py has: nothing discovered is carried over.
            fresh = load_client(str(cluster.kubeconfig_path), None, timeout=30)
            deploy(fresh, source, out=lambda line: None)

        def run_cli() -> None:
            with contextlib.redirect_stdout(io.StringIO()):
                assert deploy_cli(["--kubeconfig", str(cluster.kubeconfig_path)]) == 0

        for _ in range(args.runs):
            cluster.reset()
            rows["fresh install"].append(measure(cluster, run_deploy))
        run_deploy()  # warm the no-op path once
        for _ in range(args.runs):
            rows["no-op redeploy"].append(measure(cluster, run_deploy))
        os.chdir(repo)
        for _ in range(args.runs):
            rows["no-op redeploy via deploy.py (runs the app)"].append(measure(cluster, run_cli))
        cluster_ip = deploy(client, source, out=lambda line: None).cluster_ip
        for _ in range(args.runs):
            rows["baseline: apply all (no-op)"].append(measure(cluster, lambda: naive_apply(client, cluster_ip)))
        for _ in range(args.runs):
            cluster.reset()
            install_like_deploy_sh(cluster)
            rows["migrate from a deploy.sh install"].append(measure(cluster, run_deploy))
            rows["rerun after the migration"].append(measure(cluster, run_deploy))

    baseline = statistics.median(s.seconds for s in rows["baseline: apply all (no-op)"])
    print(
        "| case | median s | x baseline | min s | max s | requests | mutating | runs |\n"
        "|---|---|---|---|---|---|---|---|"
    )
    for case, samples in rows.items():
        seconds = [s.seconds for s in samples]
        print(
            f"| {case} | {statistics.median(seconds):.3f} | {statistics.median(seconds) / baseline:.1f} "
            f"| {min(seconds):.3f} | {max(seconds):.3f} "
            f"| {statistics.median(s.requests for s in samples):g} "
            f"| {statistics.median(s.mutating for s in samples):g} | {len(samples)} |"
        )
    fresh, noop = rows["fresh install"], rows["no-op redeploy"]
    objects = sum(len(chart.objects) for chart in synthesize(NodeLocalDNSProps()))
    goals = {
        "no-op redeploy: 0 mutating requests": max(s.mutating for s in noop) == 0,
        "no-op via deploy.py: 0 mutating requests": max(
            s.mutating for s in rows["no-op redeploy via deploy.py (runs the app)"]
        )
        == 0,
        "fresh install: <= 16 requests": max(s.requests for s in fresh) <= 16,
        f"migration: <= 2 writes per object ({2 * objects})": max(
            s.mutating for s in rows["migrate from a deploy.sh install"]
        )
        <= 2 * objects,
        "rerun after the migration: 0 mutating requests": max(s.mutating for s in rows["rerun after the migration"])
        == 0,
    }
    for goal, met in goals.items():
        print(f"{'PASS' if met else 'FAIL'} {goal}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
