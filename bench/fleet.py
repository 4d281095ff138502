"""Benchmark a fleet command across 1, 3 and 6 control planes: parallel against sequential, in the same run.

Each size gets fresh control planes of the suite (etcd and kube-apiserver, each with its own
kube-dns ClusterIP) in one kubeconfig. Per size, through ``deploy.py`` as a user runs it:

- **deploy**: a fresh install on every cluster;
- **no-op deploy**: the same again, which writes nothing;
- **verify**: the checks on every cluster (they fail here: a control plane alone has no node,
  so no node-cache pod; the checks cost the same);

each once with ``--parallel N`` (N = the clusters, up to the default bound) and once with
``--parallel 1``, the fleet uninstalled between the two deploys. The table gives the wall
times and the ratio sequential / parallel: how much the bound buys. The app synthesizes once
per cluster and command (a second of CPU each), so the gain is bounded by the cores.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from constructs_nld.defaults import FLEET_PARALLEL  # noqa: E402
from constructs_nld.deploy.cli import main as deploy_cli  # noqa: E402
from tests.controlplane import ControlPlane  # noqa: E402
from tests.multicluster import merged_kubeconfig  # noqa: E402

PHASES = ("deploy", "no-op deploy", "verify")


def timed(kubeconfig: Path, names: list[str], parallel: int, *args: str) -> tuple[float, int]:
    """Seconds and exit code of ``deploy.py`` across ``names``, its output swallowed."""
    argv = ["--kubeconfig", str(kubeconfig), *[a for n in names for a in ("--context", n)], "--parallel", str(parallel)]
    started = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = deploy_cli([*argv, *args])
    return time.perf_counter() - started, code


def run_size(size: int, log: Callable[[str], None]) -> dict[str, dict[int, float]]:
    """Every phase at ``size`` clusters, parallel and sequential: seconds by phase and --parallel."""
    planes: dict[str, ControlPlane] = {}
    found: dict[str, dict[int, float]] = {phase: {} for phase in PHASES}
    with tempfile.TemporaryDirectory(prefix="nld-bench-fleet-") as tmp:
        try:
            for index in range(size):
                planes[f"c{index}"] = ControlPlane().start()
            kubeconfig = merged_kubeconfig(planes, Path(tmp) / "kubeconfig")
            names = list(planes)
            for parallel in sorted({min(size, FLEET_PARALLEL), 1}, reverse=True):
                seconds, code = timed(kubeconfig, names, parallel)
                assert code == 0, f"deploy across {size} exited {code}"
                found["deploy"][parallel] = seconds
                found["no-op deploy"][parallel], code = timed(kubeconfig, names, parallel)
                assert code == 0, f"no-op deploy across {size} exited {code}"
                found["verify"][parallel], _ = timed(kubeconfig, names, parallel, "verify")
                seconds, code = timed(kubeconfig, names, parallel, "uninstall")
                assert code == 0, f"uninstall across {size} exited {code}"
                log(f"{size} cluster(s), --parallel {parallel}: deploy {found['deploy'][parallel]:.1f}s")
        finally:
            for plane in planes.values():
                plane.stop()
    return found


def main() -> int:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("--sizes", default="1,3,6", help="fleet sizes (default 1,3,6)")
    args = cli.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    results = {size: run_size(size, log) for size in sizes}
    print("| phase | clusters | --parallel N: s | --parallel 1: s | sequential / parallel |")
    print("|---|---|---|---|---|")
    for phase in PHASES:
        for size in sizes:
            times = results[size][phase]
            parallel = times[min(size, FLEET_PARALLEL)]
            sequential = times[1]
            print(f"| {phase} | {size} | {parallel:.2f} | {sequential:.2f} | {sequential / parallel:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
