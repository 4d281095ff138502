"""The canary soak of a cutover: the spec's gate judged on the canary nodes, against the rest of the fleet.

``cutover status`` and ``cutover promote`` judge, over the time since the cutover started:

1. **canary pods available**: every canary node runs a ready pod of the new template (read
   from the cluster, not from Prometheus: it is what the node has now);
2. **canary setup errors**: ``coredns_nodecache_setup_errors_total`` of the canary pods at 0;
3. **canary restarts**: ``kube_pod_container_status_restarts_total`` of their node-cache
   container flat;
4. **canary forward errors**: each canary pod's share of SERVFAIL answers
   (``coredns_dns_responses_total``: what node-cache answers when forwarding fails) at most
   :data:`~constructs_nld.defaults.CANARY_ERROR_RATIO` times the baseline pods' share, plus
   :data:`~constructs_nld.defaults.CANARY_ERROR_SLACK`;
5. **canary forward latency**: each canary pod's mean upstream latency
   (``coredns_proxy_request_duration_seconds`` sum over count; the PodMonitor drops its
   buckets, so no quantile) at most :data:`~constructs_nld.defaults.CANARY_LATENCY_RATIO`
   times the baseline's, plus :data:`~constructs_nld.defaults.CANARY_LATENCY_SLACK`;
6. **canary window**: the cutover started at least ``window`` ago (the spec's 3 days).

The baseline is every other pod of the app's PodMonitor job: the nodes still on the old
template. Each signal passes, fails or lacks data as the soak's do, and the verdict is the
soak's: ``FAIL`` if one failed, else ``NOT ENOUGH DATA`` if one lacked data, else ``PASS``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from constructs_nld import defaults
from constructs_nld.deploy.gate import SignalResult, SoakTargets, Verdict, verdict_of
from constructs_nld.deploy.promapi import PrometheusAPI
from constructs_nld.durations import format_duration

__all__ = ["CanaryPod", "CanaryReport", "canary_signals", "window_signal"]

_POD_NAME: Final = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
"""The pod names a DaemonSet gives (no dot: the names go into a PromQL regular expression as they are)."""


@dataclass(frozen=True)
class CanaryPod:
    """One canary node as ``status`` shows it."""

    node: str
    pool: str
    pod: str
    """The pod on the node ("" when there is none)."""
    image: str
    ready: bool
    new: bool
    """It runs the cutover's new template."""
    why: str = ""
    """Why it is not ready, when it is not."""


@dataclass(frozen=True)
class CanaryReport:
    """What ``cutover status`` found: the canary nodes, each signal, the verdict."""

    pods: tuple[CanaryPod, ...]
    signals: tuple[SignalResult, ...]
    joined: tuple[str, ...] = ()
    """Nodes outside the canary that run the new template: they joined during the cutover."""

    @property
    def verdict(self) -> Verdict:
        """The verdict of the canary soak."""
        return verdict_of(self.signals)


def _bound(baseline: float, ratio: float, slack: float) -> float:
    return baseline * ratio + slack


class _Canary:
    def __init__(self, api: PrometheusAPI, targets: SoakTargets, pods: Sequence[str], start: float, end: float):
        self.api = api
        self.t = targets
        self.end = end
        self.range = f"{max(round(end - start), round(targets.scrape_interval))}s"
        names = "|".join(pods)
        self.canary = f'job="{targets.job}", pod=~"{names}"'
        self.baseline = f'job="{targets.job}", pod!~"{names}"'
        self.restarts = (
            f'kube_pod_container_status_restarts_total{{namespace="{targets.namespace}", '
            f'container="{targets.container}", pod=~"{names}"}}'
        )

    def _by_pod(self, expr: str) -> dict[str, float]:
        return {s.labels.get("pod", "?"): s.samples[0][1] for s in self.api.query(expr, self.end) if s.samples}

    def setup_errors(self) -> SignalResult:
        name, expected = "canary setup errors", "0"
        metric = f"coredns_nodecache_setup_errors_total{{{self.canary}}}"
        worst = self._by_pod(f"max by (pod) (max_over_time({metric}[{self.range}]))")
        failing = {pod: value for pod, value in worst.items() if value > 0}
        if failing:
            observed = ", ".join(f"{pod} {value:g}" for pod, value in sorted(failing.items()))
            return SignalResult(name, expected, observed, None, "fail")
        if not worst:
            return SignalResult(name, expected, "no series of the canary pods", None, "no data")
        return SignalResult(name, expected, f"0 on {len(worst)} pod(s)", None, "pass")

    def restarts_signal(self) -> SignalResult:
        name, expected = "canary restarts", "flat"
        increase = self._by_pod(f"sum by (pod) (increase({self.restarts}[{self.range}]))")
        restarted = {pod: value for pod, value in increase.items() if value > 0}
        if restarted:
            observed = ", ".join(f"{pod} {value:.0f}" for pod, value in sorted(restarted.items()))
            return SignalResult(name, expected, f"restarts: {observed}", None, "fail")
        if not increase:
            return SignalResult(name, expected, "no kube-state-metrics series of the canary pods", None, "no data")
        return SignalResult(name, expected, f"0 on {len(increase)} pod(s)", None, "pass")

    def _ratios(self, numerator: str, denominator: str) -> tuple[dict[str, float], float | None]:
        """Per canary pod and for the baseline: ``numerator``'s increase over ``denominator``'s in the window."""
        by_pod = self._by_pod(
            f"sum by (pod) (increase({numerator.format(selector=self.canary)}[{self.range}])) "
            f"/ sum by (pod) (increase({denominator.format(selector=self.canary)}[{self.range}]))"
        )
        baseline = self.api.value(
            f"sum(increase({numerator.format(selector=self.baseline)}[{self.range}])) "
            f"/ sum(increase({denominator.format(selector=self.baseline)}[{self.range}]))",
            self.end,
        )
        return {pod: value for pod, value in by_pod.items() if value == value}, baseline  # NaN: nothing counted

    def _against_baseline(
        self,
        name: str,
        ratios: tuple[dict[str, float], float | None],
        ratio: float,
        slack: float,
        show: Mapping[str, str],
    ) -> SignalResult:
        by_pod, baseline = ratios
        expected = f"<= {ratio:g} x baseline + {show['slack']}"
        if baseline is None or baseline != baseline:
            return SignalResult(name, expected, "no baseline: no other pod counted any", None, "no data")
        if not by_pod:
            return SignalResult(name, expected, "the canary pods counted none", None, "no data")
        bound = _bound(baseline, ratio, slack)
        fmt = show["format"]
        worse = {pod: value for pod, value in by_pod.items() if value > bound}
        values = ", ".join(f"{pod} {fmt.format(value)}" for pod, value in sorted((worse or by_pod).items()))
        observed = f"{values} vs baseline {fmt.format(baseline)} (bound {fmt.format(bound)})"
        return SignalResult(name, expected, observed, None, "fail" if worse else "pass")

    def forward_errors(self) -> SignalResult:
        return self._against_baseline(
            "canary forward errors",
            self._ratios(
                'coredns_dns_responses_total{{{selector}, rcode="SERVFAIL"}}',
                "coredns_dns_responses_total{{{selector}}}",
            ),
            defaults.CANARY_ERROR_RATIO,
            defaults.CANARY_ERROR_SLACK,
            {"slack": f"{defaults.CANARY_ERROR_SLACK:.1%}", "format": "{:.2%}"},
        )

    def latency(self) -> SignalResult:
        return self._against_baseline(
            "canary forward latency",
            self._ratios(
                "coredns_proxy_request_duration_seconds_sum{{{selector}}}",
                "coredns_proxy_request_duration_seconds_count{{{selector}}}",
            ),
            defaults.CANARY_LATENCY_RATIO,
            defaults.CANARY_LATENCY_SLACK,
            {"slack": f"{defaults.CANARY_LATENCY_SLACK * 1000:g} ms", "format": "{:.4f}s"},
        )


def canary_signals(
    api: PrometheusAPI | None, targets: SoakTargets, pods: Sequence[str], start: float, end: float
) -> tuple[SignalResult, ...]:
    """Signals 2-5 for the canary ``pods`` from ``start`` to ``end``; without Prometheus (None), no data."""
    names = ("canary setup errors", "canary restarts", "canary forward errors", "canary forward latency")
    if api is None:
        return tuple(SignalResult(name, "-", "no --prometheus given", None, "no data") for name in names)
    bad = [pod for pod in pods if not _POD_NAME.fullmatch(pod)]
    if bad or not pods:
        reason = f"not pod names: {', '.join(bad)}" if bad else "no canary pod"
        return tuple(SignalResult(name, "-", reason, None, "no data") for name in names)
    run = _Canary(api, targets, pods, start, end)
    return (run.setup_errors(), run.restarts_signal(), run.forward_errors(), run.latency())


def window_signal(started: float, now: float, window: float) -> SignalResult:
    """Signal 6: the canary has run at least ``window`` seconds."""
    ran = max(0.0, now - started)
    observed = f"{format_duration(ran)} since the start"
    return SignalResult(
        "canary window", f">= {format_duration(window)}", observed, None, "pass" if ran >= window else "no data"
    )
