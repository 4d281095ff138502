"""Benchmark ``deploy.py soak``: how long the verdict takes over days of a fleet's history.

A fleet of ``--nodes`` node-cache pods (the series a real scrape writes, one sample a minute,
:mod:`tests.soakhistory`) is backfilled with ``promtool tsdb create-blocks-from openmetrics``
into Debian's Prometheus, then the soak is judged over 1 and 3 days, ``--runs`` times each.
The in-run baseline is the cheapest query a soak cannot do without: one range query of
``count(up{job=...})`` over the same window at the same step. The soak makes about a dozen
queries, several over every step of the window, so the ratio says what its work costs beyond
reading the window once; absolute seconds depend on the machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from constructs_nld.deploy.commands.soak import SoakTargets, soak  # noqa: E402
from constructs_nld.deploy.options import SoakOptions
from tests.harness.prometheus import Prometheus, backfill  # noqa: E402
from tests.soakhistory import STEP, Cluster, openmetrics  # noqa: E402

DAY = 86400


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--nodes", type=int, default=20, help="node-cache pods in the fleet (default: 20)")
    parser.add_argument("--runs", type=int, default=3, help="runs per case; medians are reported (default: 3)")
    args = parser.parse_args()

    end = float(int(time.time()) // STEP * STEP)
    nld_from = end - 3 * DAY - 3600
    fleet = Cluster(start=nld_from - DAY - 3600, end=end, nld_from=nld_from, rollouts=(end - DAY,), nodes=args.nodes)
    targets = SoakTargets(
        job=fleet.job,
        namespace=fleet.namespace,
        daemon_set=fleet.daemon_set,
        container="node-cache",
        scrape_interval=STEP,
        coredns_job=fleet.coredns_job,
    )
    with tempfile.TemporaryDirectory(prefix="nld-bench-soak-") as tmp:
        work = Path(tmp)
        began = time.perf_counter()
        history = openmetrics([fleet])
        backfill(history, work / "data", work)
        samples = history.count("\n") - 1
        print(f"backfilled {samples:,} samples ({args.nodes} nodes, 5 days) in {time.perf_counter() - began:.1f}s")
        with Prometheus.local(work, data_dir=work / "data") as server:
            print("| window | baseline: one range query of up, s | soak, s | ratio | verdict |")
            print("|---|---|---|---|---|")
            for days in (1, 3):
                window = days * DAY
                baseline, judged, verdict = [], [], ""
                for _ in range(args.runs):
                    started = time.perf_counter()
                    server.api.query_range(f'count(up{{job="{fleet.job}"}})', end - window, end, STEP)
                    baseline.append(time.perf_counter() - started)
                    started = time.perf_counter()
                    report = soak(server.api, targets, SoakOptions(window=window, end=end))
                    judged.append(time.perf_counter() - started)
                    verdict = report.verdict
                base, taken = statistics.median(baseline), statistics.median(judged)
                print(f"| {days}d | {base:.3f} | {taken:.3f} | {taken / base:.1f}x | {verdict} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
