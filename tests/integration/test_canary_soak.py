"""The cutover's canary soak on a real Prometheus (Debian's 2.42) holding a cutover's backfilled history.

The history (:class:`tests.soakhistory.CutoverHistory`) is written with ``promtool tsdb
create-blocks-from openmetrics``: a healthy cutover, where the canary pods answer and forward
as the baseline pods do, and beside it under names of their own one cutover per way the
canary goes wrong. Each is judged by :func:`~constructs_nld.deploy.canary.canary_signals`
with its names, over the history, as ``cutover status`` and ``promote`` judge it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, replace

import pytest

from constructs_nld import defaults
from constructs_nld.deploy.canary import canary_signals, window_signal
from constructs_nld.deploy.gate import SignalResult, SoakTargets, verdict_of
from tests.harness.prometheus import Prometheus, backfill
from tests.soakhistory import STEP, CutoverHistory, cutover_openmetrics

HOURS = 6
"""The history's length: the canary ran this long (the tests give the window they judge)."""


def histories(end: float) -> dict[str, CutoverHistory]:
    healthy = CutoverHistory(start=end - HOURS * 3600, end=end)
    return {
        "healthy": healthy,
        "setup-errors": replace(healthy, name="setup-errors", setup_errors_at=(end - 3600,)),
        "restarts": replace(healthy, name="restarts", restarts_at=(end - 2 * 3600,)),
        # 2% SERVFAIL against the baseline's 0.2%: the new image forwards worse.
        "forward-errors": replace(healthy, name="forward-errors", canary_servfail=0.02),
        "latency": replace(healthy, name="latency", canary_latency=0.040),
    }


@dataclass(frozen=True)
class Backfilled:
    prometheus: Prometheus
    end: float
    histories: dict[str, CutoverHistory]


@pytest.fixture(scope="module")
def backfilled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Backfilled]:
    work = tmp_path_factory.mktemp("canary")
    data = work / "data"
    end = float(int(time.time()) // STEP * STEP)
    found = histories(end)
    backfill(cutover_openmetrics(list(found.values())), data, work)
    with Prometheus.local(work, data_dir=data) as server:
        yield Backfilled(server, end, found)


def judged(backfilled: Backfilled, name: str) -> dict[str, SignalResult]:
    history = backfilled.histories[name]
    targets = SoakTargets(
        job=history.job,
        namespace=history.namespace,
        daemon_set="node-local-dns",
        container="node-cache",
        scrape_interval=STEP,
        coredns_job="monitoring/coredns",
    )
    signals = canary_signals(backfilled.prometheus.api, targets, history.canary_pods, history.start, history.end)
    return {signal.name: signal for signal in signals}


def outcomes(signals: dict[str, SignalResult]) -> dict[str, str]:
    return {name: signal.outcome for name, signal in signals.items()}


ALL_PASS = {
    "canary setup errors": "pass",
    "canary restarts": "pass",
    "canary forward errors": "pass",
    "canary forward latency": "pass",
}


def test_a_healthy_canary_passes_every_signal_against_the_baseline(backfilled: Backfilled) -> None:
    signals = judged(backfilled, "healthy")

    assert outcomes(signals) == ALL_PASS
    assert signals["canary setup errors"].observed == "0 on 2 pod(s)"
    assert signals["canary restarts"].observed == "0 on 2 pod(s)"
    assert signals["canary forward errors"].observed == (
        "nld-healthy-canary-0 0.20%, nld-healthy-canary-1 0.20% vs baseline 0.20% (bound 0.40%)"
    )
    # Each canary pod's mean upstream latency, 11 ms, under 1.5 x 10 ms + 5 ms.
    assert signals["canary forward latency"].observed == (
        "nld-healthy-canary-0 0.0110s, nld-healthy-canary-1 0.0110s vs baseline 0.0100s (bound 0.0200s)"
    )


def test_canary_setup_errors_fail_naming_the_pod(backfilled: Backfilled) -> None:
    signals = judged(backfilled, "setup-errors")

    assert outcomes(signals) == ALL_PASS | {"canary setup errors": "fail"}
    assert signals["canary setup errors"].observed == "nld-setup-errors-canary-0 1"


def test_canary_restarts_fail_naming_the_pod(backfilled: Backfilled) -> None:
    signals = judged(backfilled, "restarts")

    assert outcomes(signals) == ALL_PASS | {"canary restarts": "fail"}
    assert signals["canary restarts"].observed == "restarts: nld-restarts-canary-0 1"


def test_a_canary_whose_forward_errors_rise_above_the_baseline_fails(backfilled: Backfilled) -> None:
    signals = judged(backfilled, "forward-errors")

    assert outcomes(signals) == ALL_PASS | {"canary forward errors": "fail"}
    bound = 0.002 * defaults.CANARY_ERROR_RATIO + defaults.CANARY_ERROR_SLACK
    assert signals["canary forward errors"].observed == (
        f"nld-forward-errors-canary-0 2.00%, nld-forward-errors-canary-1 2.00% vs baseline 0.20% (bound {bound:.2%})"
    )
    assert verdict_of(tuple(signals.values())) == "fail"


def test_a_canary_that_forwards_slower_than_the_baseline_fails(backfilled: Backfilled) -> None:
    signals = judged(backfilled, "latency")

    assert outcomes(signals) == ALL_PASS | {"canary forward latency": "fail"}
    assert "nld-latency-canary-0 0.0400s" in signals["canary forward latency"].observed


def test_a_window_shorter_than_asked_is_not_enough_data_however_healthy(backfilled: Backfilled) -> None:
    history = backfilled.histories["healthy"]
    signals = (*judged(backfilled, "healthy").values(), window_signal(history.start, history.end, 3 * 86400))

    assert signals[-1].outcome == "no data" and signals[-1].observed == f"{HOURS}h since the start"
    assert verdict_of(signals) == "no data"
    assert window_signal(history.start, history.end, HOURS * 3600).outcome == "pass"


def test_pods_without_series_are_not_enough_data(backfilled: Backfilled) -> None:
    history = backfilled.histories["healthy"]
    targets = SoakTargets(history.job, history.namespace, "node-local-dns", "node-cache", STEP, "monitoring/coredns")

    signals = canary_signals(backfilled.prometheus.api, targets, ("nld-gone-0",), history.start, history.end)

    assert {signal.outcome for signal in signals} == {"no data"}
