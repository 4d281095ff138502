"""Benchmark how fast the deploy CLI answers before it does anything: ``--help`` and a bad argument.

Cases, each a fresh subprocess timed end to end (median of ``--runs`` after one warm-up),
interleaved run by run so that load on the machine hits every case alike:

- the floor: ``python -c pass`` (the same interpreter and virtualenv);
- ``python deploy.py --help``, ``python deploy.py verify --help``;
- ``python deploy.py --no-such-flag`` (an argument error, exit 2);
- for scale: ``python -c "import cdk8s"``, which the CLI no longer pays before it runs a command.

Prints a markdown table with each case's ratio to the floor, then PASS or FAIL for the help
and the argument error by that ratio (at most ``--max-ratio``, default 3): never an absolute
time, the machines are shared. Exits 0 either way unless ``--strict``.

Usage: ``python bench/cli.py [--runs N] [--max-ratio R] [--strict]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
CASES: dict[str, tuple[str, ...]] = {
    "python -c pass (floor)": ("-c", "pass"),
    "deploy.py --help": ("deploy.py", "--help"),
    "deploy.py verify --help": ("deploy.py", "verify", "--help"),
    "deploy.py --no-such-flag (exit 2)": ("deploy.py", "--no-such-flag"),
    'python -c "import cdk8s" (for scale)': ("-c", "import constructs_nld.runtime"),
}
JUDGED = ("deploy.py --help", "deploy.py verify --help", "deploy.py --no-such-flag (exit 2)")


def _time(argv: tuple[str, ...]) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, *argv], cwd=REPO_ROOT, capture_output=True, check=False, env={**os.environ, "COLUMNS": "100"}
    )
    return time.perf_counter() - started


def main() -> int:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("--runs", type=int, default=20, help="runs per case (median reported); default 20")
    cli.add_argument("--max-ratio", type=float, default=3.0, help="the judged cases' bound, x the floor; default 3")
    cli.add_argument("--strict", action="store_true", help="exit 1 when a judged case fails")
    args = cli.parse_args()
    if args.runs < 1:
        cli.error("--runs must be at least 1")
    samples: dict[str, list[float]] = {name: [] for name in CASES}
    for argv in CASES.values():
        _time(argv)  # warm-up: bytecode caches, page cache
    for _ in range(args.runs):
        for name, argv in CASES.items():
            samples[name].append(_time(argv))
    floor = statistics.median(samples["python -c pass (floor)"])
    print("| case | median s | x floor | min s | max s | runs |\n|---|---|---|---|---|---|")
    for name, seconds in samples.items():
        median = statistics.median(seconds)
        spread = f"{min(seconds):.4f} | {max(seconds):.4f}"
        print(f"| {name} | {median:.4f} | {median / floor:.2f} | {spread} | {len(seconds)} |")
    failed = False
    for name in JUDGED:
        ratio = statistics.median(samples[name]) / floor
        met = ratio <= args.max_ratio
        failed |= not met
        print(f"{'PASS' if met else 'FAIL'} {name}: {ratio:.2f}x python -c pass (at most {args.max_ratio:g}x)")
    return 1 if failed and args.strict else 0


if __name__ == "__main__":
    raise SystemExit(main())
