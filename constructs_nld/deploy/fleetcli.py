"""Every command across a fleet of clusters: the task each cluster runs, as the CLI parsed it.

:mod:`constructs_nld.deploy.fleet` chooses the clusters and runs the tasks; this module
makes the task of each command from the CLI's arguments. Each cluster gets its own client and
its own synth of the app, with its live kube-dns ClusterIP and ``$NLD_CONTEXT`` set to its
context, so that an app keeps per-cluster props in a dict keyed by context. The commands load
only when one runs, as in :mod:`constructs_nld.deploy.cli`.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace

from constructs_nld import defaults
from constructs_nld.deploy.arguments import deploy_options, soak_options, uninstall_options
from constructs_nld.deploy.errors import InvalidConfigError
from constructs_nld.deploy.exitcodes import ExitCode
from constructs_nld.deploy.fleet import (
    ClusterOutcome,
    Member,
    Task,
    format_summary,
    parse_waves,
    preflight,
    run_fleet,
    summary_code,
)
from constructs_nld.deploy.kube import KubeClient
from constructs_nld.deploy.manifest import selector
from constructs_nld.deploy.source import AppCommand, AppSource
from constructs_nld.roles import Role, role_labels

__all__ = ["run_fleet_command"]

_CHANGED = ("created", "configured", "pruned")


def _pods(client: KubeClient) -> str:
    """``ready/desired`` of the node-cache DaemonSet, read after the task (``-`` when there is none)."""
    found = client.list(
        "apps/v1", "DaemonSet", defaults.NAMESPACE, label_selector=selector(role_labels(Role.NODE_CACHE))
    )
    if not found:
        return "-"
    status = found[0].get("status") or {}
    return f"{status.get('numberReady', 0)}/{status.get('desiredNumberScheduled', 0)}"


def _verify(
    client: KubeClient, source: AppSource, out: Callable[[str], None], *, uninstalled: bool = False
) -> tuple[int, int]:
    """Run ``verify`` (or ``verify --uninstalled``), printing each check; (checks, failures)."""
    from constructs_nld.deploy.checks import format_result
    from constructs_nld.deploy.commands.verify import verify, verify_uninstalled

    results = (verify_uninstalled if uninstalled else verify)(client, source)
    for result in results:
        out(format_result(result))
    return len(results), sum(1 for r in results if r.status == "fail")


def _deploy_task(args: argparse.Namespace, source: AppCommand, clients: dict[str, KubeClient], waves: bool) -> Task:
    from constructs_nld.deploy.commands.deploy import deploy
    from constructs_nld.deploy.progress import PlainProgress

    options = deploy_options(args)

    def task(member: Member, out: Callable[[str], None]) -> ClusterOutcome:
        client = clients[member.name]
        # One synth for the deploy and a wave's verify: both read the same kube-dns ClusterIP.
        mine: AppSource = functools.cache(replace(source, context=member.context))
        report = deploy(client, mine, options, out=out, progress=PlainProgress(out))
        for text in report.diffs.values():
            out(text)
        changed = sum(1 for result in report.objects if result.action in _CHANGED)
        if options.diff:
            result = f"{len(report.diffs)} would change"
        else:
            result = ("deployed" if changed else "unchanged") + (" (dry run)" if options.dry_run else "")
        if not waves:
            return ClusterOutcome(result, ExitCode.OK, changed, _pods(client))
        checks, failed = _verify(client, mine, out)
        if failed:
            return ClusterOutcome(f"{result}, verify: {failed} failed", ExitCode.CHECKS_FAILED, changed, _pods(client))
        return ClusterOutcome(f"{result}, verify: {checks} passed", ExitCode.OK, changed, _pods(client))

    return task


def _verify_task(args: argparse.Namespace, source: AppCommand, clients: dict[str, KubeClient]) -> Task:
    def task(member: Member, out: Callable[[str], None]) -> ClusterOutcome:
        client = clients[member.name]
        checks, failed = _verify(client, replace(source, context=member.context), out, uninstalled=args.uninstalled)
        if failed:
            return ClusterOutcome(f"{failed} of {checks} failed", ExitCode.CHECKS_FAILED, None, _pods(client))
        return ClusterOutcome(f"{checks} passed", ExitCode.OK, None, _pods(client))

    return task


def _uninstall_task(args: argparse.Namespace, source: AppCommand, clients: dict[str, KubeClient]) -> Task:
    from constructs_nld.deploy.commands.uninstall import uninstall

    options = uninstall_options(args)

    def task(member: Member, out: Callable[[str], None]) -> ClusterOutcome:
        client = clients[member.name]
        report = uninstall(client, replace(source, context=member.context), options, out)
        deleted = len(report.deleted)
        return ClusterOutcome("uninstalled" if deleted else "nothing installed", ExitCode.OK, deleted, _pods(client))

    return task


def _prometheus_of(args: argparse.Namespace, members: Sequence[Member]) -> dict[str, str]:
    """Each cluster's Prometheus: the file's, else ``--prometheus`` with ``{cluster}`` filled in; all, or refused."""
    urls: dict[str, str] = {}
    for member in members:
        url = member.prometheus or (args.prometheus.replace("{cluster}", member.name) if args.prometheus else "")
        if not url:
            raise InvalidConfigError(
                f"soak: no Prometheus for cluster {member.name!r}: give --prometheus URL ('{{cluster}}' is each "
                "cluster's name) or 'prometheus:' in the --contexts-from file"
            )
        urls[member.name] = url
    return urls


def _soak_task(args: argparse.Namespace, source: AppCommand, urls: dict[str, str]) -> Task:
    from constructs_nld.deploy.commands.soak import VERDICTS, format_report, soak_app
    from constructs_nld.deploy.gate import VERDICT_CODES
    from constructs_nld.deploy.promapi import PrometheusAPI

    options = soak_options(args)

    def task(member: Member, out: Callable[[str], None]) -> ClusterOutcome:
        api = PrometheusAPI(urls[member.name], timeout=args.timeout)
        report = soak_app(api, replace(source, context=member.context), options, coredns_job=args.coredns_job)
        out(format_report(report))
        return ClusterOutcome(VERDICTS[report.verdict], VERDICT_CODES[report.verdict])

    return task


def _reporting_retries(task: Task, clients: dict[str, KubeClient]) -> Task:
    """``task``, each cluster's retries reported among its lines, and counted at their end."""

    def reporting(member: Member, out: Callable[[str], None]) -> ClusterOutcome:
        with clients[member.name].reporting_retries(out):
            return task(member, out)

    return reporting


def run_fleet_command(args: argparse.Namespace, source: AppCommand, members: Sequence[Member]) -> int:
    """Run ``args.command`` on every cluster of ``members``; print each cluster's lines, then the summary."""
    waves = getattr(args, "waves", None)
    if args.command == "cutover":
        raise InvalidConfigError(
            "cutover: one cluster at a time (--context NAME); across a fleet, deploy --waves 1,rest puts a change "
            "on one cluster first"
        )
    if waves and (args.dry_run or args.diff):
        raise InvalidConfigError("--waves: deploys and verifies each wave; not with --dry-run or --diff")
    sizes = parse_waves(waves, len(members)) if waves else ()
    if args.command == "soak":
        task = _soak_task(args, source, _prometheus_of(args, members))
    else:
        clients = preflight(args.kubeconfig, members, timeout=args.timeout, qps=args.qps, burst=args.burst)
        if args.command == "verify":
            task = _verify_task(args, source, clients)
        elif args.command == "uninstall":
            task = _uninstall_task(args, source, clients)
        else:
            task = _deploy_task(args, source, clients, waves=bool(sizes))
        task = _reporting_retries(task, clients)
    names = ", ".join(member.name for member in members)
    how = f"in waves of {', '.join(str(size) for size in sizes)}" if sizes else f"{args.parallel} at a time"
    print(f"[fleet] {args.command} on {len(members)} clusters ({names}), {how}")
    rows = run_fleet(members, task, parallel=args.parallel, fail_fast=args.fail_fast, waves=sizes, write=_print)
    print(format_summary(rows))
    return summary_code(rows)


def _print(line: str) -> None:
    print(line, file=sys.stdout, flush=True)
