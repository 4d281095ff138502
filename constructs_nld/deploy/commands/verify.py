"""``verify``: the spec's smoke tests and its "Common Failure Modes" table, as checks on a live cluster.

It checks what the user's app configures — namespace, names, tolerations, ports,
PodMonitor — read from the same synthesized app ``deploy`` applies
(:mod:`constructs_nld.deploy.session`), never from defaults. Each check
(:mod:`constructs_nld.deploy.checks`) reports pass, fail or warn with what it saw; a
failure also says the likely cause and the fix, as the spec's table does.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Final

from constructs_nld.deploy.access import check_access, served_refs
from constructs_nld.deploy.checks import CHECKS, UNINSTALLED_CHECKS, Check, CheckResult, Cluster, format_result
from constructs_nld.deploy.command import Command, Outcome, reads
from constructs_nld.deploy.documents import DocumentSchema, array, boolean, enum, integer, record, string
from constructs_nld.deploy.exitcodes import ExitCode
from constructs_nld.deploy.options import VerifyOptions
from constructs_nld.deploy.session import Session

__all__ = ["COMMAND", "DOCUMENT", "document", "run", "verify", "verify_uninstalled"]

DOCUMENT: Final = DocumentSchema(
    "verify",
    "verify -o json",
    "The checks of verify (or verify --uninstalled) on one cluster, in the order they ran.",
    {
        "cluster": string("The cluster's name: its clusters-file name, else its context; empty for the current one."),
        "uninstalled": boolean("Whether these are the checks of verify --uninstalled."),
        "passed": integer("Checks that passed."),
        "failed": integer(f"Checks that failed: any makes the exit code {int(ExitCode.CHECKS_FAILED)}."),
        "warned": integer("Checks that warned: what they saw needs a look, but fails nothing."),
        "checks": array(
            "One entry per check, in the order they ran.",
            record(
                "One check's result.",
                {
                    "name": string("The check's name, as docs/commands.md lists it."),
                    "status": enum("What it found.", "pass", "fail", "warn"),
                    "detail": string("What it saw."),
                    "cause": string("For a failure or warning, the likely cause; else empty."),
                    "fix": string("For a failure or warning, the fix; else empty."),
                },
            ),
        ),
    },
)
"""``verify -o json``: the document's schema (``docs/schemas/verify.schema.json``)."""


def _run(session: Session, checks: Sequence[Check], now: datetime | None) -> list[CheckResult]:
    client, component = session.kube, session.component
    cluster = Cluster(client, component, session.kube_dns, now or datetime.now(UTC), session.charts)
    check_access(
        client,
        "verify",
        served_refs(client, component),
        namespace=component.namespace,
        monitoring_served="prometheusrules" in cluster.monitoring_served,
        upstream_endpoints=component.traffic_distribution is not None and checks is CHECKS,
    )
    return [check(cluster) for check in checks]


def verify(session: Session, *, now: datetime | None = None) -> list[CheckResult]:
    """Run every check against the session's cluster, for its app."""
    return _run(session, CHECKS, now)


def verify_uninstalled(session: Session) -> list[CheckResult]:
    """After ``uninstall``: no object of the app's NodeLocal DNS, no node-cache pod left, kube-dns intact."""
    return _run(session, UNINSTALLED_CHECKS, None)


def document(cluster: str, results: Sequence[CheckResult], *, uninstalled: bool) -> dict[str, Any]:
    """The checks' results as ``verify -o json`` prints them."""

    def count(status: str) -> int:
        return sum(1 for result in results if result.status == status)

    return DOCUMENT.document(
        cluster=cluster,
        uninstalled=uninstalled,
        passed=count("pass"),
        failed=count("fail"),
        warned=count("warn"),
        checks=[
            {
                "name": result.name,
                "status": result.status,
                "detail": result.detail,
                "cause": "" if result.status == "pass" else result.diagnosis,
                "fix": "" if result.status == "pass" else result.fix,
            }
            for result in results
        ],
    )


def run(session: Session, options: VerifyOptions) -> Outcome:
    """``verify`` (or ``verify --uninstalled``) on one cluster: a line per check, then the count; its document."""
    results = (verify_uninstalled if options.uninstalled else verify)(session)
    failed = sum(1 for result in results if result.status == "fail")
    warned = sum(1 for result in results if result.status == "warn")
    also = f", {warned} warned" if warned else ""
    passed = len(results) - failed - warned
    lines = (*(format_result(result) for result in results), f"{passed} passed{also}, {failed} failed")
    shown = document(session.target.name, results, uninstalled=options.uninstalled)
    if failed:
        return Outcome(f"{failed} of {len(results)} failed", ExitCode.CHECKS_FAILED, lines=lines, document=shown)
    return Outcome(f"{passed} passed{also}", lines=lines, document=shown)


COMMAND: Final = Command(VerifyOptions, run, reads("installed"))
