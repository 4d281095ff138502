"""Benchmark resolving the kinds a deploy uses: KubeClient's kind table and discovery, or the official DynamicClient.

The question (issue 32): should ``kubernetes.dynamic.DynamicClient`` replace the hand-written
discovery and kind table of :mod:`constructs_nld.deploy.kube`? Each case starts, as a
``deploy.py`` process does, from the loaded kubeconfig with a new ``ApiClient`` (so a new
connection) and ends with the six kinds a deploy writes resolved to their resource (plural,
scope): Service, ServiceAccount, ConfigMap, DaemonSet, PodMonitor, PrometheusRule.

Cases, run by run interleaved so that load on the machine hits each alike, each the median of
``--runs``, on the test control plane (the monitoring CRDs installed):

- baseline: ``KubeClient.resource_type``, the kind table and discovery of the group versions
  the table lacks;
- the same client's discovery alone, without the table (``served_resources`` of each group
  version): what the table saves;
- ``DynamicClient(...).resources.get(...)`` with a new discovery cache file (in a temporary
  directory, never the default one in ``/tmp``), as a process that keeps no cache has it: it
  reads ``/version``, ``/apis``, ``/api/v1`` and every group version the server serves;
- the same with the cache file a previous process wrote (what a cache across runs buys);
- for scale: one ``GET /version`` on a new connection.

Requests are counted from the API server's audit log (our user only). Times are judged as
ratios to the baseline of the same run, never as absolute numbers.

Usage: ``python bench/discovery.py [--runs N]``
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kubernetes.client import ApiClient  # noqa: E402
from kubernetes.dynamic import DynamicClient  # noqa: E402

from constructs_nld.deploy.kube import KubeClient  # noqa: E402
from constructs_nld.deploy.kubeconfig import client_config  # noqa: E402
from tests.controlplane import ControlPlane  # noqa: E402

KINDS = (
    ("v1", "Service"),
    ("v1", "ServiceAccount"),
    ("v1", "ConfigMap"),
    ("apps/v1", "DaemonSet"),
    ("monitoring.coreos.com/v1", "PodMonitor"),
    ("monitoring.coreos.com/v1", "PrometheusRule"),
)
"""The kinds of the objects a deploy writes."""

Resolved = dict[tuple[str, str], tuple[str, bool]]
"""Each kind's plural and whether it is namespaced."""


@dataclass
class Sample:
    """One measured run."""

    seconds: float
    requests: int


def main() -> int:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("--runs", type=int, default=10, help="runs per case (median reported); default 10")
    args = cli.parse_args()
    if args.runs < 1:
        cli.error("--runs must be at least 1")

    with ControlPlane() as cluster, tempfile.TemporaryDirectory(prefix="nld-bench-discovery-") as scratch:
        configuration = client_config(str(cluster.kubeconfig_path), None).configuration
        caches = Path(scratch)
        warm_cache = caches / "warm.json"
        results: dict[str, Resolved] = {}

        def table() -> Resolved:
            with ApiClient(configuration) as api:
                client = KubeClient(api)
                found = {kind: client.resource_type(*kind) for kind in KINDS}
            return {kind: (t.plural, t.namespaced) for kind, t in found.items()}

        def discovery_only() -> Resolved:
            with ApiClient(configuration) as api:
                client = KubeClient(api)
                for api_version in dict.fromkeys(api_version for api_version, _ in KINDS):
                    assert client.served_resources(api_version)
            return {}

        def dynamic(cache: Path) -> Resolved:
            with ApiClient(configuration) as api:
                resources = DynamicClient(api, cache_file=str(cache)).resources  # type: ignore[no-untyped-call]
                found = {kind: resources.get(api_version=kind[0], kind=kind[1]) for kind in KINDS}
            return {kind: (str(r.name), bool(r.namespaced)) for kind, r in found.items()}

        def dynamic_fresh() -> Resolved:
            cache = caches / f"fresh-{time.monotonic_ns()}.json"
            try:
                return dynamic(cache)
            finally:
                cache.unlink(missing_ok=True)

        def version() -> Resolved:
            with ApiClient(configuration) as api:
                KubeClient(api).version(retry=False)
            return {}

        cases: dict[str, Callable[[], Resolved]] = {
            "baseline: KubeClient.resource_type (kind table + discovery)": table,
            "KubeClient discovery alone (no table)": discovery_only,
            "DynamicClient, new cache file": dynamic_fresh,
            "DynamicClient, cache file of a previous process": lambda: dynamic(warm_cache),
            "for scale: one GET /version, new connection": version,
        }
        dynamic(warm_cache)  # the previous process: writes the cache file
        for action in cases.values():
            action()  # warm-up: imports, page cache
        samples: dict[str, list[Sample]] = {name: [] for name in cases}
        for _ in range(args.runs):
            for name, action in cases.items():
                mark = cluster.audit_mark()
                started = time.perf_counter()
                results[name] = action()
                took = time.perf_counter() - started
                samples[name].append(Sample(took, len(cluster.requests_since(mark))))
        leftover = sorted(path.name for path in caches.iterdir() if path != warm_cache)

    baseline_name = next(iter(cases))
    baseline = statistics.median(s.seconds for s in samples[baseline_name])
    print("| case | median s | x baseline | min s | max s | requests | runs |\n|---|---|---|---|---|---|---|")
    for name, runs in samples.items():
        seconds = [s.seconds for s in runs]
        requests = sorted({s.requests for s in runs})
        print(
            f"| {name} | {statistics.median(seconds):.4f} | {statistics.median(seconds) / baseline:.1f} "
            f"| {min(seconds):.4f} | {max(seconds):.4f} | {'/'.join(str(r) for r in requests)} | {len(runs)} |"
        )
    same = results[baseline_name] == results["DynamicClient, new cache file"]
    print(f"both resolve the six kinds alike: {'yes' if same else 'NO: ' + repr(results)}")
    fresh = statistics.median(s.seconds for s in samples["DynamicClient, new cache file"])
    print(f"DynamicClient with a new cache: {fresh / baseline:.1f}x the time of KubeClient's table")
    print(f"cache files left behind by the fresh runs: {len(leftover)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
