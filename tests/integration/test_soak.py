"""``deploy.py soak`` on a real Prometheus (Debian's 2.42) holding days of backfilled history.

The history (:mod:`tests.soakhistory`) is written with ``promtool tsdb create-blocks-from
openmetrics`` into one data directory: a passing install under the app's own names
(``monitoring/nodelocaldns``, ``kube-system/node-local-dns``, ``monitoring/coredns``) and,
beside it under names of their own, one install per way a soak goes wrong. The command runs
against the app of this repository; the other installs are judged by :func:`soak` with
their names as targets, over the same window.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml

from constructs_nld.deploy.commands.soak import SoakReport, SoakTargets, soak
from constructs_nld.deploy.options import SoakOptions
from tests.controlplane import REPO_ROOT
from tests.documents import validated
from tests.harness.prometheus import Prometheus, backfill
from tests.soakhistory import STEP, Cluster, openmetrics

DAY = 86400
WINDOW = 3 * DAY


def installs(end: float) -> tuple[Cluster, dict[str, Cluster]]:
    """The passing install and one variant per way to fail or lack data, their history ending at ``end``."""
    nld_from = end - WINDOW - 2 * 3600  # two hours before the window, a day of CoreDNS history before that
    # Three days of node-cache with a mid-soak rollout, CoreDNS down from 200/s to 20/s: what the gate wants.
    passing = Cluster(start=nld_from - DAY - 3600, end=end, nld_from=nld_from, rollouts=(end - 36 * 3600,))

    def variant(name: str, **changes: object) -> Cluster:
        """The passing install under names of its own, with ``changes``."""
        return replace(
            passing,
            job=f"monitoring/nodelocaldns-{name}",
            coredns_job=f"monitoring/coredns-{name}",
            daemon_set=f"node-local-dns-{name}",
            namespace=f"kube-system-{name}",
            **changes,  # type: ignore[arg-type]
        )

    return passing, {
        "setup-errors": variant("setup-errors", setup_errors_at=(end - DAY, end - DAY + 60)),
        "unavailable": variant("unavailable", unavailable=((end - 50 * 3600, end - 50 * 3600 + 600),)),
        "qps": variant("qps", qps_after=150.0),
        "restarts": variant("restarts", restarts_at=(end - 12 * 3600,)),
        "too-short": variant("too-short", start=end - DAY, nld_from=end - DAY + 3600, rollouts=(end - 12 * 3600,)),
        "no-rollout": variant("no-rollout", rollouts=()),
        # The new pod never becomes available: the rollout never ends.
        "stuck-rollout": variant(
            "stuck-rollout", rollouts=(end - 1800,), unavailable=((end - 1800 + 3 * STEP, end + STEP),)
        ),
        "no-baseline": variant("no-baseline", coredns_from=nld_from),
        # node-cache's first scrape is the history's last: less than a coarse search step before the end.
        "just-deployed": variant("just-deployed", nld_from=end, rollouts=()),
    }


@dataclass(frozen=True)
class Backfilled:
    """A Prometheus holding the installs' history, which ends at ``end`` (the fixture's "now")."""

    prometheus: Prometheus
    end: float
    variants: dict[str, Cluster]

    @property
    def url(self) -> str:
        return self.prometheus.url


def targets(cluster: Cluster) -> SoakTargets:
    return SoakTargets(
        job=cluster.job,
        namespace=cluster.namespace,
        daemon_set=cluster.daemon_set,
        container="node-cache",
        scrape_interval=STEP,
        coredns_job=cluster.coredns_job,
    )


@pytest.fixture(scope="module")
def soaked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Backfilled]:
    work = tmp_path_factory.mktemp("soak")
    data = work / "data"
    end = float(int(time.time()) // STEP * STEP)
    passing, variants = installs(end)
    began = time.monotonic()
    backfill(openmetrics([passing, *variants.values()]), data, work)
    print(f"backfilled {len(variants) + 1} installs in {time.monotonic() - began:.1f}s")
    with Prometheus.local(work, data_dir=data) as server:
        yield Backfilled(server, end, variants)


def judged(soaked: Backfilled, name: str) -> SoakReport:
    return soak(soaked.prometheus.api, targets(soaked.variants[name]), SoakOptions(window=WINDOW, end=soaked.end))


def outcomes(report: SoakReport) -> dict[str, str]:
    return {signal.name: signal.outcome for signal in report.signals}


def observed(report: SoakReport, name: str) -> str:
    (signal,) = [s for s in report.signals if s.name == name]
    return signal.observed


ALL_PASS = {
    "node-cache setup errors": "pass",
    "DaemonSet unavailable": "pass",
    "cluster CoreDNS QPS": "pass",
    "node-cache restarts": "pass",
}


def run_soak(soaked: Backfilled, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "deploy.py", "soak", "--prometheus", soaked.url, *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_passing_soak_of_the_apps_install_prints_its_table_and_exits_0(soaked: Backfilled) -> None:
    done = run_soak(soaked)

    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("soak of kube-system/node-local-dns (job monitoring/nodelocaldns) from ")
    assert lines[0].endswith("(3d, one point per 1m)")
    assert lines[1].split() == ["signal", "expected", "observed", "data", "result"]
    rows = lines[2:6]
    assert rows[0].split() == ["node-cache", "setup", "errors", "flat", "at", "0", "0", "100%", "PASS"]
    assert "0 outside 1 rollout (longest 3m)" in rows[1] and rows[1].endswith("100%  PASS")
    # The command's "now" is a little after the history ends, which can shave a tenth off the rate.
    assert re.search(r" (20\.0|19\.9)/s vs 200\.0/s before .* \(-90%\) ", rows[2]) and rows[2].endswith("PASS"), rows[2]
    assert rows[3].split()[-3:] == ["0", "100%", "PASS"]
    assert lines[-1] == "verdict: PASS"

    as_json = run_soak(soaked, "-o", "json")

    document = validated(as_json.stdout, "soak")  # the whole of stdout
    assert as_json.returncode == 0, as_json.stderr
    assert [document["daemon_set"], document["job"], document["verdict"]] == [
        "kube-system/node-local-dns",
        "monitoring/nodelocaldns",
        "pass",
    ]
    assert [(s["name"], s["result"]) for s in document["signals"]] == list(ALL_PASS.items())
    assert all(0.99 <= s["coverage"] <= 1 for s in document["signals"]), document["signals"]  # the table's 100%
    assert document["step_seconds"] == 60 and document["notes"] == []
    assert "verdict: PASS" in as_json.stderr


def test_a_coredns_rate_that_did_not_drop_fails_the_command_with_exit_8(soaked: Backfilled) -> None:
    done = run_soak(soaked, "--coredns-job", "monitoring/coredns-qps")

    assert done.returncode == 8, done.stdout + done.stderr
    assert re.search(r" (150\.0|149\.\d)/s vs 200\.0/s before .* \(-25%\) ", done.stdout), done.stdout
    assert done.stdout.splitlines()[-1] == "verdict: FAIL"


def test_a_coredns_job_without_series_is_not_enough_data_with_exit_9(soaked: Backfilled) -> None:
    done = run_soak(soaked, "--coredns-job", "monitoring/no-such-job")

    assert done.returncode == 9, done.stdout + done.stderr
    assert "monitoring/no-such-job series at 0% of the window, 95% needed" in done.stdout
    assert done.stdout.splitlines()[-1] == "verdict: NOT ENOUGH DATA"


def test_a_short_window_passes_with_a_note_that_the_spec_wants_three_days(soaked: Backfilled) -> None:
    done = run_soak(soaked, "--window", "2d")

    assert done.returncode == 0, done.stdout + done.stderr
    assert "note: a 2d window is shorter than the spec's 3-day soak" in done.stdout


def test_a_given_baseline_replaces_the_measured_one(soaked: Backfilled) -> None:
    done = run_soak(soaked, "--baseline-qps", "30")

    assert done.returncode == 8, done.stdout + done.stderr
    assert "20.0/s vs 30.0/s given (-33%)" in done.stdout


def test_setup_errors_fail_the_soak_naming_the_errortype(soaked: Backfilled) -> None:
    report = judged(soaked, "setup-errors")

    assert outcomes(report) == {**ALL_PASS, "node-cache setup errors": "fail"}
    assert observed(report, "node-cache setup errors") == "iptables up to 2"
    assert report.verdict == "fail"


def test_unavailability_outside_a_rollout_fails_the_soak(soaked: Backfilled) -> None:
    report = judged(soaked, "unavailable")

    assert outcomes(report) == {**ALL_PASS, "DaemonSet unavailable": "fail"}
    # Ten minutes down; a 1m max_over_time step that ends on a sample also sees the one
    # before it (both ends of a range are inclusive before Prometheus 3), hence 10-11m.
    began = datetime.fromtimestamp(soaked.end - 50 * 3600, UTC)
    found = observed(report, "DaemonSet unavailable")
    assert re.fullmatch(r"1[01]m unavailable outside rollouts, first at \d{4}-\d\d-\d\d \d\d:\d\d UTC", found), found
    assert found.endswith(f"first at {began:%Y-%m-%d %H:%M} UTC") or found.endswith(
        f"first at {began - timedelta(minutes=1):%Y-%m-%d %H:%M} UTC"
    )
    assert report.verdict == "fail"


def test_a_coredns_rate_that_did_not_halve_fails_the_soak(soaked: Backfilled) -> None:
    report = judged(soaked, "qps")

    assert outcomes(report) == {**ALL_PASS, "cluster CoreDNS QPS": "fail"}
    assert report.verdict == "fail"


def test_restarts_fail_the_soak_naming_the_pod(soaked: Backfilled) -> None:
    report = judged(soaked, "restarts")

    assert outcomes(report) == {**ALL_PASS, "node-cache restarts": "fail"}
    assert observed(report, "node-cache restarts") == "1 restarts (node-local-dns-restarts-00001 1)"


def test_a_day_of_history_is_not_enough_data_for_a_three_day_soak(soaked: Backfilled) -> None:
    report = judged(soaked, "too-short")

    assert set(outcomes(report).values()) == {"no data"}
    assert observed(report, "node-cache setup errors") == "scrapes of node-cache at 32% of the window, 95% needed"
    assert report.verdict == "no data"


def test_a_soak_without_a_rollout_is_not_enough(soaked: Backfilled) -> None:
    report = judged(soaked, "no-rollout")

    assert outcomes(report) == {**ALL_PASS, "DaemonSet unavailable": "no data"}
    assert observed(report, "DaemonSet unavailable") == "0, but no rollout in the window: the spec's soak includes one"


def test_a_rollout_still_going_at_the_end_is_not_a_pass(soaked: Backfilled) -> None:
    report = judged(soaked, "stuck-rollout")

    assert outcomes(report)["DaemonSet unavailable"] == "no data"
    assert observed(report, "DaemonSet unavailable").startswith("a rollout still going at the end")


def test_without_coredns_history_before_node_cache_the_baseline_must_be_given(soaked: Backfilled) -> None:
    report = judged(soaked, "no-baseline")

    assert outcomes(report) == {**ALL_PASS, "cluster CoreDNS QPS": "no data"}
    assert "give --baseline-qps" in observed(report, "cluster CoreDNS QPS")


def test_a_first_scrape_at_the_end_of_the_history_is_found_for_the_baseline(soaked: Backfilled) -> None:
    report = soak(
        soaked.prometheus.api,
        targets(soaked.variants["just-deployed"]),
        SoakOptions(window=2 * STEP, end=soaked.end),
    )

    qps = observed(report, "cluster CoreDNS QPS")
    assert "already scraped" not in qps
    assert "vs 200.0/s before" in qps, qps


def test_a_fleet_soak_judges_each_cluster_on_its_own_prometheus_and_exits_with_the_worst(
    soaked: Backfilled, tmp_path: Path
) -> None:
    listed = tmp_path / "clusters.yaml"
    listed.write_text(
        yaml.safe_dump(
            {
                "clusters": [
                    {"context": "ci-east", "prometheus": soaked.url},
                    {"context": "ci-west", "name": "west", "prometheus": soaked.url},
                    {"context": "ci-lost", "prometheus": "http://[::1]:9"},  # nothing listens there
                ]
            }
        )
    )

    done = subprocess.run(
        [sys.executable, "deploy.py", "--contexts-from", str(listed), "soak"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )

    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert "[ci-east] verdict: PASS" in lines and "[west] verdict: PASS" in lines, done.stdout
    assert any(line.startswith("[ci-lost] error: ") for line in lines), done.stdout
    header = next(index for index, line in enumerate(lines) if line.startswith("cluster "))
    table = {line.split()[0]: line.split()[1:3] for line in lines[header + 1 : -1]}
    assert table == {"ci-east": ["PASS", "0"], "west": ["PASS", "0"], "ci-lost": ["failed", "1"]}
    assert lines[-1] == "exit 1: ci-lost (failed); 1 of 3 failed"
