"""Benchmark the deploy on the test control plane: wall time and API requests, against the spec's deploy.sh.

Cases, each the median of ``--runs``: a fresh install (cluster reset before each run), a
no-op redeploy, the same two through the CLI (which runs the project's app, ``python
main.py``, in its own process as ``cdk8s synth`` does), and the migration of an install made
as the spec's deploy.sh makes it (client-side ``kubectl apply``). Beside them, measured in
the same run: the spec's ``deploy.sh`` itself, its seven steps with the real kubectl and
its ``sleep 3``; the app's synth alone (``python main.py``); and what a naive deploy would
cost, server-side apply of every object, unconditionally, every time. Requests are counted
from the API server's audit log (our user only); "mutating" means a write that is not a
server-side dry run. Times are judged as ratios to baselines of the same run, never as
absolute numbers.

Goals: a fresh install through the CLI at least 3x faster than deploy.sh; a no-op redeploy
through the CLI within the app's own synth time plus 0.3 s, with 0 mutating requests; a
migration that writes each object once at most (its take-over patch and its apply) plus
the ApplySet parent, and nothing on the rerun.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from constructs_nld import NodeLocalDNSProps, synthesize  # noqa: E402
from constructs_nld.deploy import deploy, load_client, open_session, props_source  # noqa: E402
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
        "fresh install via deploy.py (runs the app)": [],
        "baseline: the spec's deploy.sh (kubectl, sleep 3)": [],
        "no-op redeploy": [],
        "no-op redeploy via deploy.py (runs the app)": [],
        "baseline: the app's synth alone (python main.py)": [],
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
            deploy(open_session(fresh, source, read="deployable", out=lambda line: None))

        def run_cli() -> None:
            with contextlib.redirect_stdout(io.StringIO()):
                assert deploy_cli(["--kubeconfig", str(cluster.kubeconfig_path)]) == 0

        def run_synth() -> None:
            with tempfile.TemporaryDirectory() as out:
                subprocess.run(
                    [sys.executable, "main.py"],
                    cwd=repo,
                    env={**os.environ, "CDK8S_OUTDIR": out},
                    check=True,
                    capture_output=True,
                )

        os.chdir(repo)
        for _ in range(args.runs):
            cluster.reset()
            rows["fresh install"].append(measure(cluster, run_deploy))
            cluster.reset()
            rows["fresh install via deploy.py (runs the app)"].append(measure(cluster, run_cli))
            cluster.reset()
            rows["baseline: the spec's deploy.sh (kubectl, sleep 3)"].append(
                measure(cluster, lambda: install_like_deploy_sh(cluster, monitoring=True, pause=3.0))
            )
        cluster.reset()
        run_deploy()  # warm the no-op path once
        for _ in range(args.runs):
            rows["no-op redeploy"].append(measure(cluster, run_deploy))
        for _ in range(args.runs):
            rows["no-op redeploy via deploy.py (runs the app)"].append(measure(cluster, run_cli))
            rows["baseline: the app's synth alone (python main.py)"].append(measure(cluster, run_synth))
        cluster_ip = deploy(open_session(client, source, read="deployable", out=lambda line: None)).cluster_ip
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
    noop = rows["no-op redeploy"]
    objects = sum(len(chart.objects) for chart in synthesize(NodeLocalDNSProps()))

    def median(case: str) -> float:
        return statistics.median(s.seconds for s in rows[case])

    deploy_sh = median("baseline: the spec's deploy.sh (kubectl, sleep 3)")
    fresh_cli = median("fresh install via deploy.py (runs the app)")
    synth = median("baseline: the app's synth alone (python main.py)")
    noop_cli = median("no-op redeploy via deploy.py (runs the app)")
    print(f"fresh install via deploy.py: {deploy_sh / fresh_cli:.2f}x faster than deploy.sh")
    print(f"no-op via deploy.py: {noop_cli - synth:+.3f} s beside the app's synth ({synth:.3f} s)")
    goals = {
        "fresh install via deploy.py: at least 3x faster than deploy.sh": deploy_sh / fresh_cli >= 3.0,
        "no-op via deploy.py: within the app's synth + 0.3 s": noop_cli <= synth + 0.3,
        "no-op redeploy: 0 mutating requests": max(s.mutating for s in noop) == 0,
        "no-op via deploy.py: 0 mutating requests": max(
            s.mutating for s in rows["no-op redeploy via deploy.py (runs the app)"]
        )
        == 0,
        f"migration: <= 2 writes per object, and the ApplySet parent ({2 * objects + 1})": max(
            s.mutating for s in rows["migrate from a deploy.sh install"]
        )
        <= 2 * objects + 1,
        "rerun after the migration: 0 mutating requests": max(s.mutating for s in rows["rerun after the migration"])
        == 0,
    }
    for goal, met in goals.items():
        print(f"{'PASS' if met else 'FAIL'} {goal}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
