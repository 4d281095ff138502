"""Benchmark warm ``python main.py`` wall time against the floors it cannot beat.

Cases, each a fresh subprocess timed end to end (median of ``--runs`` after one warm-up),
interleaved run by run so that load on the machine hits every case alike:

- ``python main.py``: the synth, written to a temporary ``CDK8S_OUTDIR``, on the Node.js
  first on ``PATH`` (``make bench`` puts 24 there), with jsii's package cache warm (jsii's
  default: the assemblies extracted once into ``~/.cache/aws/jsii/package-cache``, with the
  runtime index of jsii 1.136 and later);
- the same with the package cache off (``JSII_RUNTIME_PACKAGE_CACHE=disabled``: every
  assembly extracted from its tarball at each start), and on each other Node.js line found
  (``.cache/node/22``, and the machine's own ``node`` when it is another line);
- PyYAML floor: Python start-up plus loading the committed ``dist/*.yaml`` with
  ``yaml.safe_load_all`` and dumping them to a temporary directory (the cost of producing
  the same output with no cdk8s at all);
- jsii floor: ``python -c "import cdk8s"`` (Python start-up plus the jsii Node runtime), and
  the same with cdk8s-plus-28 loaded too (the assembly of the typed Kubernetes classes the
  constructs use): what loading it lazily could save at most.

Prints a markdown table with each case's ratio to the PyYAML floor, then PASS or FAIL for
``python main.py`` by its ratio to the jsii floor measured in the same run (never by an
absolute time: the machines are shared). Exits 0 either way unless ``--strict``.

Usage: ``python bench/synth.py [--runs N] [--max-ratio R] [--strict]``
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
MAX_RATIO_TO_JSII = 3.0
"""``python main.py`` may take at most this many times ``import cdk8s``: the synth's own work
(constructs, validation, writing) stays within twice the jsii start-up it cannot avoid."""

_PYYAML_ROUND_TRIP = """\
import pathlib, sys, yaml
source, target = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
for path in sorted(source.glob("*.yaml")):
    docs = list(yaml.safe_load_all(path.read_text()))
    (target / path.name).write_text(yaml.safe_dump_all(docs, sort_keys=False))
"""


@dataclass(frozen=True)
class Case:
    """One command to time, and how to prepare its output directory."""

    name: str
    """Row label in the table."""

    argv: tuple[str, ...]
    """Command line; ``{out}`` in an argument is replaced by a fresh empty directory."""

    sets_outdir: bool = False
    """Whether to point ``CDK8S_OUTDIR`` at the fresh directory."""

    extra_env: tuple[tuple[str, str], ...] = ()
    """Variables added to the environment."""


@dataclass(frozen=True)
class Result:
    """Wall times of one case."""

    case: Case
    """What was timed."""

    seconds: tuple[float, ...]
    """One wall time per measured run, warm-up excluded."""

    @property
    def median(self) -> float:
        """Median wall time."""
        return statistics.median(self.seconds)


def _environment(case: Case, outdir: Path) -> dict[str, str]:
    """This environment, minus anything that would change the synth, plus the case's variables."""
    env = {key: value for key, value in os.environ.items() if key not in ("KUBE_DNS_CLUSTER_IP", "CDK8S_OUTDIR")}
    env.update(case.extra_env)
    if case.sets_outdir:
        env["CDK8S_OUTDIR"] = str(outdir)
    return env


def time_once(case: Case, scratch: Path, index: int) -> float:
    """Run ``case`` once in the repo root and return its wall time; raise if it fails."""
    out = scratch / f"{case.name.replace(' ', '-')}-{index}"
    out.mkdir()
    argv = [arg.replace("{out}", str(out)) for arg in case.argv]
    env = _environment(case, out)
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=REPO_ROOT, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{case.name} exited {done.returncode}: {done.stderr.strip()}")
    return elapsed


def measure(to_time: Sequence[Case], runs: int, scratch: Path) -> list[Result]:
    """One warm-up run of each case, then ``runs`` rounds timing every case once per round."""
    for case in to_time:
        time_once(case, scratch, 0)
    seconds: list[list[float]] = [[] for _ in to_time]
    for index in range(1, runs + 1):
        for times, case in zip(seconds, to_time, strict=True):
            times.append(time_once(case, scratch, index))
    return [Result(case, tuple(times)) for case, times in zip(to_time, seconds, strict=True)]


def _node_lines() -> list[tuple[str, str]]:
    """Other Node.js lines to synthesize on: (label, the directory of their ``node``), the first on PATH excluded."""
    first = shutil.which("node")
    found: list[tuple[str, str]] = []
    seen = {_major(first)} if first else set()
    candidates = [str(REPO_ROOT / ".cache" / "node" / "22" / "bin" / "node"), "/usr/bin/node", "/usr/local/bin/node"]
    for node in candidates:
        major = _major(node) if os.access(node, os.X_OK) else None
        if major is not None and major not in seen:
            seen.add(major)
            found.append((f"Node.js {major}", str(Path(node).parent)))
    return found


def _major(node: str | None) -> str | None:
    if node is None:
        return None
    done = subprocess.run([node, "--version"], capture_output=True, text=True, check=False)
    return done.stdout.strip().removeprefix("v").split(".")[0] if done.returncode == 0 else None


def cases(python: str) -> list[Case]:
    """The synth, its variants, and its floors, all run with ``python``: the synth first, the floors last."""
    on_path = _major(shutil.which("node"))
    synth = (python, "main.py")
    variants = [
        Case(f"python main.py (Node.js {on_path}, package cache warm)", synth, sets_outdir=True),
        Case(
            "python main.py, jsii package cache off",
            synth,
            sets_outdir=True,
            extra_env=(("JSII_RUNTIME_PACKAGE_CACHE", "disabled"),),
        ),
    ]
    for label, directory in _node_lines():
        path = os.pathsep.join((directory, os.environ.get("PATH", "")))
        variants.append(Case(f"python main.py on {label}", synth, sets_outdir=True, extra_env=(("PATH", path),)))
    return [
        *variants,
        Case("jsii floor + cdk8s-plus-28", (python, "-c", "import cdk8s, cdk8s_plus_28")),
        Case("PyYAML floor", (python, "-c", _PYYAML_ROUND_TRIP, str(REPO_ROOT / "dist"), "{out}")),
        Case("jsii floor (import cdk8s)", (python, "-c", "import cdk8s")),
    ]


def table(results: Sequence[Result], floor: Result) -> str:
    """The results as a markdown table, with each median's ratio to the PyYAML floor's."""
    lines = [
        "| case | median s | min s | max s | runs | ratio to PyYAML floor |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for result in results:
        lines.append(
            f"| {result.case.name} | {result.median:.3f} | {min(result.seconds):.3f} | "
            f"{max(result.seconds):.3f} | {len(result.seconds)} | {result.median / floor.median:.1f}x |"
        )
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=5, help="timed runs per case, after one warm-up (default: 5)")
    parser.add_argument(
        "--max-ratio",
        type=float,
        default=MAX_RATIO_TO_JSII,
        help=f"main.py's median allowed, in jsii floors (default: {MAX_RATIO_TO_JSII:g})",
    )
    parser.add_argument("--strict", action="store_true", help="exit 1 when the ratio is exceeded")
    parser.add_argument("--python", default=sys.executable, help="interpreter to run (default: this one)")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark, print the table and the verdict; return the exit code."""
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="nld-bench-") as tmp:
        scratch = Path(tmp)
        results = measure(cases(args.python), args.runs, scratch)
    synth, floor, jsii = results[0], results[-2], results[-1]
    print(table(results, floor))
    print()
    ratio = synth.median / jsii.median
    passed = ratio <= args.max_ratio
    verdict = "PASS" if passed else "FAIL"
    print(f"{verdict}: python main.py takes {ratio:.2f}x the jsii floor (at most {args.max_ratio:g}x)")
    return 1 if args.strict and not passed else 0


if __name__ == "__main__":
    raise SystemExit(main())
