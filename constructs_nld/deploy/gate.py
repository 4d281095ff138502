"""What a gate judges and how: the signals' rows, the verdict's rule, the series of the app's NodeLocal DNS.

Shared by ``soak`` (the spec's four signals, :mod:`constructs_nld.deploy.commands.soak`) and
the cutover's canary soak (:mod:`constructs_nld.deploy.canary`): each signal passes, fails
or lacks data, and the verdict follows one rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from constructs_nld.deploy.component import Component
from constructs_nld.deploy.documents import Schema, array, enum, nullable, number, record, string
from constructs_nld.deploy.errors import InvalidConfigError
from constructs_nld.deploy.exitcodes import ExitCode
from constructs_nld.durations import duration_seconds

__all__ = [
    "DEFAULT_SCRAPE_INTERVAL",
    "SIGNALS_SCHEMA",
    "VERDICT_SCHEMA",
    "VERDICTS",
    "VERDICT_CODES",
    "Verdict",
    "SignalResult",
    "SoakTargets",
    "targets_of",
    "signals_document",
    "verdict_of",
]

Verdict = Literal["pass", "fail", "no data"]

VERDICTS: Final[dict[Verdict, str]] = {"pass": "PASS", "fail": "FAIL", "no data": "NOT ENOUGH DATA"}
"""How the last line of the report says each verdict."""

VERDICT_CODES: Final[dict[Verdict, ExitCode]] = {
    "pass": ExitCode.OK,
    "fail": ExitCode.SOAK_FAILED,
    "no data": ExitCode.SOAK_NO_DATA,
}
"""The exit code of each verdict: ``soak``'s, ``cutover status``'s and, for a refusal, ``cutover promote``'s."""

DEFAULT_SCRAPE_INTERVAL: Final = 60.0


@dataclass(frozen=True)
class SoakTargets:
    """Whose series the soak reads: all of it from the app, but the cluster CoreDNS job."""

    job: str
    """``job`` of node-cache's series: ``<namespace>/<name>`` of the app's PodMonitor."""

    namespace: str
    """The DaemonSet's namespace (kube-state-metrics' ``namespace`` label)."""

    daemon_set: str
    """The DaemonSet's name."""

    container: str
    """The node-cache container's name."""

    scrape_interval: float
    """Seconds between scrapes of node-cache (the PodMonitor's longest endpoint interval)."""

    coredns_job: str
    """``job`` of cluster CoreDNS's series (the spec's ``coredns`` PodMonitor)."""


def targets_of(component: Component, coredns_job: str | None) -> SoakTargets:
    """The soak's targets for the NodeLocal DNS of an app; ``coredns_job`` defaults to the ``coredns`` PodMonitor's.

    The default puts that PodMonitor beside the app's (``<its namespace>/coredns``).
    """
    monitor = component.pod_monitor
    if monitor is None:
        raise InvalidConfigError(
            "the app has no PodMonitor for the node-cache pods: soak reads their metrics by its job "
            "(keep NodeLocalDNSProps(monitoring=True))"
        )
    namespace = monitor["metadata"]["namespace"]
    intervals = [
        duration_seconds("interval", endpoint["interval"])
        for endpoint in monitor.get("spec", {}).get("podMetricsEndpoints") or []
        if endpoint.get("interval")
    ]
    return SoakTargets(
        job=f"{namespace}/{monitor['metadata']['name']}",
        namespace=component.namespace,
        daemon_set=component.daemon_set["metadata"]["name"],
        container=str(component.container["name"]),
        scrape_interval=max(intervals, default=DEFAULT_SCRAPE_INTERVAL),
        coredns_job=coredns_job or f"{namespace}/coredns",
    )


@dataclass(frozen=True)
class SignalResult:
    """One row of the soak table."""

    name: str
    expected: str
    observed: str
    coverage: float | None
    """Share of the steps with data, or None where it was not measured."""
    outcome: Verdict


def verdict_of(signals: Sequence[SignalResult]) -> Verdict:
    """The gate's rule: ``fail`` if a signal failed, else ``no data`` if one lacked data, else ``pass``."""
    outcomes = {signal.outcome for signal in signals}
    if "fail" in outcomes:
        return "fail"
    return "no data" if "no data" in outcomes else "pass"


VERDICT_SCHEMA: Final = enum(
    "The verdict: fail if a signal failed, else no data if one lacked data, else pass.", *VERDICTS
)
"""A verdict in a JSON document: as :data:`Verdict` spells it (``no data``, not ``NOT ENOUGH DATA``)."""

SIGNALS_SCHEMA: Final[Schema] = array(
    "One entry per signal, in the order of the table.",
    record(
        "One signal of the gate.",
        {
            "name": string("The signal."),
            "expected": string("What passes."),
            "observed": string("What was seen."),
            "coverage": nullable(number("Share of the window's steps with data, 0 to 1; null where not measured.")),
            "result": VERDICT_SCHEMA,
        },
    ),
)
"""The signals of a gate in a JSON document (``soak``, ``cutover status``)."""


def signals_document(signals: Sequence[SignalResult]) -> list[dict[str, object]]:
    """The signals as :data:`SIGNALS_SCHEMA` lists them."""
    return [
        {
            "name": signal.name,
            "expected": signal.expected,
            "observed": signal.observed,
            "coverage": signal.coverage,
            "result": signal.outcome,
        }
        for signal in signals
    ]
