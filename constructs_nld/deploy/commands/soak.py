"""``soak``: the spec's soak gate before a cutover, as a verdict from Prometheus.

The spec's four signals, for the NodeLocal DNS of the user's app (its PodMonitor's job, its
DaemonSet's namespace, name and container), over a window ending now:

1. ``coredns_nodecache_setup_errors_total`` flat at 0;
2. ``kube_daemonset_status_number_unavailable`` 0 except during rollouts — and at least one
   rollout, since the spec's soak includes a planned mid-soak rollout. A rollout starts when
   updated pods fall behind desired ones, or when the DaemonSet's ``metadata.generation``
   grows: on a real node a pod may be replaced between two scrapes, so that no scrape sees
   it behind, only its new pod not yet available. It ends once the DaemonSet has stayed
   whole for :data:`~constructs_nld.defaults.SOAK_ROLLOUT_SETTLE`;
3. cluster CoreDNS QPS (``coredns_dns_requests_total`` of the ``coredns`` PodMonitor's job)
   at least :data:`~constructs_nld.defaults.SOAK_MIN_QPS_DROP` below its pre-NodeLocal-DNS baseline: the rate over the
   ``baseline_window`` before node-cache's first scrape, or a rate given by hand;
4. ``kube_pod_container_status_restarts_total`` of the node-cache container flat.

Each signal passes, fails, or has not enough data: its series must have a current value
(a sample in the last five minutes) at :data:`MIN_COVERAGE` of the window's steps (one step
per scrape interval of the app's PodMonitor, coarser for long windows), else the soak
cannot say. A failure is conclusive
even on partial data. The verdict is ``FAIL`` if any signal failed, else ``NOT ENOUGH DATA``
if any lacked data, else ``PASS``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final
from urllib.parse import quote

from constructs_nld import defaults
from constructs_nld.deploy.command import Command, Outcome, reads
from constructs_nld.deploy.documents import DocumentSchema, array, number, string
from constructs_nld.deploy.errors import InvalidConfigError
from constructs_nld.deploy.gate import (
    SIGNALS_SCHEMA,
    VERDICT_CODES,
    VERDICT_SCHEMA,
    VERDICTS,
    SignalResult,
    SoakTargets,
    Verdict,
    signals_document,
    targets_of,
    verdict_of,
)
from constructs_nld.deploy.options import SPEC_WINDOW, SoakOptions
from constructs_nld.deploy.program import invoked_as
from constructs_nld.deploy.promapi import PrometheusAPI
from constructs_nld.deploy.session import Session
from constructs_nld.deploy.tables import format_table
from constructs_nld.deploy.targets import Target
from constructs_nld.durations import format_duration

__all__ = [
    "COMMAND",
    "DOCUMENT",
    "MIN_COVERAGE",
    "VERDICTS",
    "Verdict",
    "Rollouts",
    "SignalResult",
    "SoakReport",
    "SoakTargets",
    "document",
    "format_report",
    "prometheus_url",
    "refuse_unreachable",
    "rollouts",
    "run",
    "soak",
    "targets_of",
    "verdict_of",
]

MIN_COVERAGE: Final = 0.95
"""Share of a window's steps at which a signal's series must be present for the soak to judge it."""
MAX_STEPS: Final = 10_000
"""Prometheus refuses range queries of more than 11,000 points per series."""
SEARCH: Final = 30 * 86400.0
"""How far back node-cache's first scrape is looked for (beyond Prometheus' usual 15-day retention)."""
LOOKBACK: Final = 300.0
"""Prometheus' lookback: a series with a sample this recent has a current value."""


def _when(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%d %H:%M UTC")


@dataclass(frozen=True)
class SoakReport:
    """Everything the soak found; :func:`format_report` prints it."""

    targets: SoakTargets
    start: float
    end: float
    step: float
    signals: tuple[SignalResult, ...]
    notes: tuple[str, ...]

    @property
    def verdict(self) -> Verdict:
        """``fail`` if a signal failed, else ``no data`` if one lacked data, else ``pass``."""
        return verdict_of(self.signals)


@dataclass(frozen=True)
class Rollouts:
    """DaemonSet unavailability, split into rollouts and the rest (:func:`rollouts`)."""

    count: int
    """Rollouts that started in the window."""

    longest: float
    """Seconds of the longest rollout."""

    unavailable_outside: tuple[float, ...]
    """Times of the steps where pods were unavailable outside a rollout."""

    rolling_at_end: bool
    """A rollout was still going at the window's end."""


def rollouts(
    unavailable: Mapping[float, float],
    behind: Mapping[float, float],
    step: float,
    generation: Mapping[float, float] | None = None,
    settle: float = defaults.SOAK_ROLLOUT_SETTLE,
) -> Rollouts:
    """Walk the steps with data: a rollout starts when updated pods fall behind desired ones (``behind > 0``).

    ``unavailable``, ``behind`` and ``generation`` (the DaemonSet's ``metadata.generation``)
    map step times to values. A rollout also starts at a step whose generation is above the
    last one seen: a template change whose pod was replaced between two scrapes. It ends at
    the first step where no pod is behind *and* none is unavailable (the last pod updated may
    still be starting), once the DaemonSet has stayed so for ``settle`` seconds: a new pod
    that crash-loops is available for a moment at each start, and its unavailability after
    that moment is still the rollout's. Unavailability at any other step counts against the
    soak. A DaemonSet whole at the window's end has ended its rollout.
    """
    generations = generation or {}
    count, longest = 0, 0.0
    started: float | None = None
    whole_since: float | None = None
    last_generation: float | None = None
    outside: list[float] = []
    steps = sorted(unavailable)
    for at in steps:
        down, lag = unavailable[at], behind.get(at, 0.0)
        current = generations.get(at)
        changed = current is not None and last_generation is not None and current > last_generation
        if current is not None:
            last_generation = current
        begins = lag > 0 or changed
        if started is not None and whole_since is not None and begins:
            longest, started, whole_since = max(longest, whole_since - started), None, None
        if started is None and begins:
            started, count = at, count + 1
        if started is None:
            if down > 0:
                outside.append(at)
            continue
        if lag > 0 or down > 0:
            whole_since = None
        elif whole_since is None:
            whole_since = at
        if whole_since is not None and at - whole_since >= settle:
            longest, started, whole_since = max(longest, whole_since - started), None, None
    rolling = started is not None and whole_since is None
    if started is not None:
        longest = max(longest, (whole_since if whole_since is not None else steps[-1] + step) - started)
    return Rollouts(count, longest, tuple(outside), rolling)


class _Soak:
    def __init__(self, api: PrometheusAPI, targets: SoakTargets, options: SoakOptions, now: float) -> None:
        self.api = api
        self.t = targets
        self.options = options
        self.end = options.end if options.end is not None else now
        self.start = self.end - options.window
        self.step = float(max(math.ceil(targets.scrape_interval), math.ceil(options.window / MAX_STEPS)))

    def _series(self, expr: str, start: float | None = None, end: float | None = None) -> dict[float, float]:
        """One aggregated series over the window (or ``start``-``end``): value by step time."""
        result = self.api.query_range(expr, start or self.start, end or self.end, self.step)
        return {t: v for series in result for t, v in series.samples if not math.isnan(v)}

    def _coverage(self, present: dict[float, float], start: float | None = None, end: float | None = None) -> float:
        first, last = start or self.start, end or self.end
        expected = int((last - first) // self.step) + 1
        return min(1.0, len(present) / expected) if expected else 0.0

    def _present(self, selector: str) -> str:
        """Whether ``selector`` has a sample in the last :data:`LOOKBACK` (or two steps) at each step.

        Prometheus' own notion of a current value. Range functions skip the staleness
        markers written when a target goes, so the seconds between a pod's replacement and
        its successor's first scrape are not a gap; hours without a sample are.
        """
        return f"count(last_over_time({selector}[{round(max(LOOKBACK, 2 * self.step))}s]))"

    def _enough(self, coverage: float) -> bool:
        return coverage >= MIN_COVERAGE

    @property
    def _nld(self) -> str:
        return f'job="{self.t.job}"'

    @property
    def _ds(self) -> str:
        return f'namespace="{self.t.namespace}", daemonset="{self.t.daemon_set}"'

    @property
    def _restarts(self) -> str:
        selector = f'namespace="{self.t.namespace}", container="{self.t.container}"'
        return f"kube_pod_container_status_restarts_total{{{selector}}}"

    def _range(self) -> str:
        return f"{round(self.end - self.start)}s"

    def setup_errors(self) -> SignalResult:
        name, expected = "node-cache setup errors", "flat at 0"
        metric = f"coredns_nodecache_setup_errors_total{{{self._nld}}}"
        coverage = self._coverage(self._series(self._present(metric)))
        worst = self.api.query(f"max by (errortype) (max_over_time({metric}[{self._range()}]))", self.end)
        errors = {s.labels.get("errortype", "?"): s.samples[0][1] for s in worst if s.samples[0][1] > 0}
        if errors:
            observed = ", ".join(f"{kind} up to {value:g}" for kind, value in sorted(errors.items()))
            return SignalResult(name, expected, observed, coverage, "fail")
        if not self._enough(coverage):
            return SignalResult(name, expected, _missing(coverage, "scrapes of node-cache"), coverage, "no data")
        return SignalResult(name, expected, "0", coverage, "pass")

    def daemon_set(self) -> SignalResult:
        name, expected = "DaemonSet unavailable", "0 outside rollouts"
        s = f"{format_duration(self.step)}"
        unavailable = self._series(f"max(max_over_time(kube_daemonset_status_number_unavailable{{{self._ds}}}[{s}]))")
        behind = self._series(
            f"max(max_over_time(kube_daemonset_status_desired_number_scheduled{{{self._ds}}}[{s}]))"
            f" - min(min_over_time(kube_daemonset_status_updated_number_scheduled{{{self._ds}}}[{s}]))"
        )
        generation = self._series(f"max(max_over_time(kube_daemonset_metadata_generation{{{self._ds}}}[{s}]))")
        coverage = self._coverage(unavailable)
        found = rollouts(unavailable, behind, self.step, generation)
        plural = "rollout" if found.count == 1 else "rollouts"
        if found.unavailable_outside:
            observed = (
                f"{format_duration(len(found.unavailable_outside) * self.step)} unavailable outside rollouts, "
                f"first at {_when(found.unavailable_outside[0])}"
            )
            return SignalResult(name, expected, observed, coverage, "fail")
        if not self._enough(coverage):
            return SignalResult(name, expected, _missing(coverage, "kube-state-metrics series"), coverage, "no data")
        if found.rolling_at_end:
            observed = f"a rollout still going at the end ({format_duration(found.longest)} so far): rerun after it"
            return SignalResult(name, expected, observed, coverage, "no data")
        if found.count == 0:
            observed = "0, but no rollout in the window: the spec's soak includes one"
            return SignalResult(name, expected, observed, coverage, "no data")
        observed = f"0 outside {found.count} {plural} (longest {format_duration(found.longest)})"
        return SignalResult(name, expected, observed, coverage, "pass")

    def first_scrape(self) -> float | None:
        """When node-cache was first scraped, within :data:`SEARCH` before the end; None if before that."""
        coarse = max(self.step, math.ceil(SEARCH / MAX_STEPS))
        # Steps counted back from the end, so that the end is one: a first scrape less than a
        # coarse step before it is seen.
        search_start = self.end - coarse * math.ceil(SEARCH / coarse)
        points = self.api.query_range(f"count(up{{{self._nld}}})", search_start, self.end, coarse)
        times = sorted(t for series in points for t, _ in series.samples)
        if not times or times[0] <= search_start:
            return None
        fine = self.api.query_range(f"count(up{{{self._nld}}})", times[0] - coarse, times[0], self.step)
        return min((t for series in fine for t, _ in series.samples), default=times[0])

    def coredns_qps(self) -> SignalResult:
        name = "cluster CoreDNS QPS"
        expected = f">= {defaults.SOAK_MIN_QPS_DROP:.0%} below pre-NLD"
        metric = f'coredns_dns_requests_total{{job="{self.t.coredns_job}"}}'
        coverage = self._coverage(self._series(self._present(metric)))
        if not self._enough(coverage):
            return SignalResult(name, expected, _missing(coverage, f"{self.t.coredns_job} series"), coverage, "no data")
        now_qps = self.api.value(f"sum(rate({metric}[{self._range()}]))", self.end) or 0.0
        baseline = self.options.baseline_qps
        source = "given"
        if baseline is None:
            first = self.first_scrape()
            if first is None:
                observed = (
                    f"{now_qps:.1f}/s; node-cache was already scraped {format_duration(SEARCH)} before the end: "
                    "give --baseline-qps"
                )
                return SignalResult(name, expected, observed, coverage, "no data")
            width = self.options.baseline_window
            before = self._series(self._present(metric), first - width, first)
            baseline_coverage = self._coverage(before, first - width, first)
            coverage = min(coverage, baseline_coverage)
            if not self._enough(baseline_coverage):
                observed = (
                    f"{now_qps:.1f}/s; {_missing(baseline_coverage, self.t.coredns_job + ' series')} "
                    f"in the {format_duration(width)} before node-cache's first scrape ({_when(first)}): "
                    "give --baseline-qps"
                )
                return SignalResult(name, expected, observed, coverage, "no data")
            baseline = self.api.value(f"sum(rate({metric}[{round(width)}s]))", first) or 0.0
            source = f"before {_when(first)}"
        if baseline <= 0:
            observed = f"{now_qps:.1f}/s; the baseline ({source}) is 0/s"
            return SignalResult(name, expected, observed, coverage, "no data")
        drop = 1 - now_qps / baseline
        observed = f"{now_qps:.1f}/s vs {baseline:.1f}/s {source} ({-drop:+.0%})"
        return SignalResult(
            name, expected, observed, coverage, "pass" if drop >= defaults.SOAK_MIN_QPS_DROP else "fail"
        )

    def restarts(self) -> SignalResult:
        name, expected = "node-cache restarts", "flat"
        coverage = self._coverage(self._series(self._present(self._restarts)))
        by_pod = self.api.query(f"sum by (pod) (increase({self._restarts}[{self._range()}]))", self.end)
        restarted = sorted(
            ((s.samples[0][1], s.labels.get("pod", "?")) for s in by_pod if s.samples[0][1] > 0), reverse=True
        )
        if restarted:
            total = sum(count for count, _ in restarted)
            pods = ", ".join(f"{pod} {count:.0f}" for count, pod in restarted[:3])
            more = f" and {len(restarted) - 3} more pods" if len(restarted) > 3 else ""
            return SignalResult(name, expected, f"{total:.0f} restarts ({pods}{more})", coverage, "fail")
        if not self._enough(coverage):
            return SignalResult(name, expected, _missing(coverage, "kube-state-metrics series"), coverage, "no data")
        return SignalResult(name, expected, "0", coverage, "pass")


def _missing(coverage: float, what: str) -> str:
    return f"{what} at {coverage:.0%} of the window, {MIN_COVERAGE:.0%} needed"


def soak(
    api: PrometheusAPI, targets: SoakTargets, options: SoakOptions, clock: Callable[[], float] = time.time
) -> SoakReport:
    """Judge the four signals; every query goes to ``api``."""
    run = _Soak(api, targets, options, clock())
    signals = (run.setup_errors(), run.daemon_set(), run.coredns_qps(), run.restarts())
    notes = []
    if options.window < SPEC_WINDOW:
        notes.append(f"note: a {format_duration(options.window)} window is shorter than the spec's 3-day soak")
    return SoakReport(targets, run.start, run.end, run.step, signals, tuple(notes))


def prometheus_url(target: Target, options: SoakOptions) -> str:
    """The cluster's Prometheus: the clusters file's, else ``options.prometheus``, ``{cluster}`` filled in quoted."""
    if target.prometheus:
        return target.prometheus
    return (options.prometheus or "").replace("{cluster}", quote(target.name, safe=""))


def refuse_unreachable(targets: Sequence[Target], options: SoakOptions) -> None:
    """Refuse, before any cluster is judged, a target with no Prometheus to ask."""
    for target in targets:
        if prometheus_url(target, options):
            continue
        if len(targets) == 1:
            raise InvalidConfigError(f"soak: --prometheus URL is required (see {invoked_as().usage} soak --help)")
        raise InvalidConfigError(
            f"soak: no Prometheus for cluster {target.name!r}: give --prometheus URL ('{{cluster}}' is each "
            "cluster's name) or 'prometheus:' in the --contexts-from file"
        )


DOCUMENT: Final = DocumentSchema(
    "soak",
    "soak -o json",
    "The spec's soak gate for one cluster's NodeLocal DNS: the four signals and the verdict.",
    {
        "cluster": string("The cluster's name: its clusters-file name, else its context; empty for the current one."),
        "daemon_set": string("The node-cache DaemonSet judged, as namespace/name."),
        "job": string("The job label of node-cache's series."),
        "coredns_job": string("The job label of cluster CoreDNS's series."),
        "start": string("The window's start, RFC 3339 in UTC."),
        "end": string("The window's end, RFC 3339 in UTC."),
        "step_seconds": number("Seconds between two points of the window."),
        "signals": SIGNALS_SCHEMA,
        "notes": array("What the verdict should be read with (a window shorter than the spec's).", string("A note.")),
        "verdict": VERDICT_SCHEMA,
    },
)
"""``soak -o json``: the document's schema (``docs/schemas/soak.schema.json``)."""


def _rfc3339(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def document(cluster: str, report: SoakReport) -> dict[str, Any]:
    """The report as ``soak -o json`` prints it."""
    t = report.targets
    return DOCUMENT.document(
        cluster=cluster,
        daemon_set=f"{t.namespace}/{t.daemon_set}",
        job=t.job,
        coredns_job=t.coredns_job,
        start=_rfc3339(report.start),
        end=_rfc3339(report.end),
        step_seconds=report.step,
        signals=signals_document(report.signals),
        notes=list(report.notes),
        verdict=report.verdict,
    )


def run(session: Session, options: SoakOptions) -> Outcome:
    """``soak`` of the session's app (a preview: no API server is asked) against its cluster's Prometheus."""
    api = PrometheusAPI(
        prometheus_url(session.target, options), timeout=options.prometheus_timeout, auth=options.prometheus_auth
    )
    report = soak(api, targets_of(session.component, options.coredns_job), options)
    return Outcome(
        VERDICTS[report.verdict],
        VERDICT_CODES[report.verdict],
        lines=(format_report(report),),
        document=document(session.target.name, report),
    )


def format_report(report: SoakReport) -> str:
    """The table, one row per signal, then the notes and the verdict."""
    t = report.targets
    lines = [
        f"soak of {t.namespace}/{t.daemon_set} (job {t.job}) from {_when(report.start)} to {_when(report.end)} "
        f"({format_duration(report.end - report.start)}, one point per {format_duration(report.step)})"
    ]
    header = ("signal", "expected", "observed", "data", "result")
    rows = [
        (
            s.name,
            s.expected,
            s.observed,
            "-" if s.coverage is None else f"{s.coverage:.0%}",
            s.outcome.upper(),
        )
        for s in report.signals
    ]
    lines += format_table(header, rows)
    lines += list(report.notes)
    lines.append(f"verdict: {VERDICTS[report.verdict]}")
    return "\n".join(lines)


COMMAND: Final = Command(SoakOptions, run, reads("offline"), refuse=refuse_unreachable)
