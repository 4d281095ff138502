"""Runs one command on its targets: one cluster or a fleet, the same way.

For an :class:`~constructs_nld.deploy.options.Invocation` it:

1. reads the app's command (``cdk8s.yaml``, or ``--app``) and the command's registry entry
   (:mod:`constructs_nld.deploy.commands`), and says in one line when the app's synth would run
   on a Node.js jsii does not support (:mod:`constructs_nld.nodejs`);
2. selects the targets (:mod:`constructs_nld.deploy.targets`) and refuses what does not fit
   them (``--waves`` for one cluster, ``cutover`` across several, a soak without Prometheus);
3. connects to each: with several clusters, every one's credentials are tried before any is
   written to, so that a refused context stops the run before it starts;
4. runs the command on each (:mod:`constructs_nld.deploy.fleet`): per cluster, a session
   reads what the command needs and synthesizes the app once, with the cluster's ClusterIP
   and identity (``$NLD_CLUSTER``, ``$NLD_CONTEXT``); with waves, each cluster is verified
   on the same charts after its deploy;
5. reports through one reporter (:mod:`constructs_nld.deploy.report`) and returns the exit
   code: the command's, or the worst cluster's. With ``-o json`` standard output carries the
   run's one JSON document and every other line goes to standard error; ``verify --junit``
   writes its file once every cluster is done.

Every refusal is one line and an exit code (:mod:`constructs_nld.deploy.exitcodes`); none
writes anything.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, TextIO

from kubernetes.client.exceptions import ApiException

from constructs_nld import defaults
from constructs_nld.deploy.command import Command, Outcome, Tool
from constructs_nld.deploy.errors import ApiUnreachableError, DeployError, InvalidConfigError, KubeconfigError
from constructs_nld.deploy.exitcodes import ExitCode
from constructs_nld.deploy.fleet import Row, parse_waves, run_fleet, summary_code, unexpected
from constructs_nld.deploy.fleetview import FleetBoard, FleetRollout, PlainFleetDisplay, TtyFleetDisplay
from constructs_nld.deploy.junit import write_junit
from constructs_nld.deploy.kube import KubeClient
from constructs_nld.deploy.kubeconfig import load_client
from constructs_nld.deploy.manifest import selector
from constructs_nld.deploy.options import (
    Connection,
    CutoverOptions,
    DeployOptions,
    Invocation,
    Selection,
    VerifyOptions,
)
from constructs_nld.deploy.progress import PlainProgress
from constructs_nld.deploy.redact import redacting
from constructs_nld.deploy.report import ClusterReporter, FleetReporter, stderr
from constructs_nld.deploy.rollout import Progress
from constructs_nld.deploy.session import open_session
from constructs_nld.deploy.source import AppCommand
from constructs_nld.deploy.targets import Target, select
from constructs_nld.nodejs import node_version, node_warning
from constructs_nld.roles import Role, role_labels

__all__ = ["connect", "run"]


def connect(targets: Sequence[Target], connection: Connection, *, check_credentials: bool) -> dict[str, KubeClient]:
    """A client per target; with ``check_credentials``, each one's credentials tried first, before any write.

    A refused credential is one line naming the context. An unreachable API server is not
    refused, nor waited for: that cluster's run will fail (after its own retries), not the fleet.
    """
    clients: dict[str, KubeClient] = {}
    for target in targets:
        try:
            client = load_client(
                connection.kubeconfig,
                target.context,
                timeout=connection.api_timeout,
                timeout_flag=connection.api_timeout_flag,
                qps=connection.qps,
                burst=connection.burst,
            )
        except KubeconfigError as error:
            if not check_credentials or repr(target.context) in str(error):
                raise
            raise KubeconfigError(f"context {target.context!r}: {error}") from None
        if check_credentials:
            try:
                client.version(retry=False)
            except ApiException as error:
                if error.status in (401, 403):
                    why = f"{error.status} {error.reason}"
                    raise KubeconfigError(
                        f"context {target.context!r}: the API server refused its credentials ({why})"
                    ) from None
                raise
            except ApiUnreachableError:
                pass
        clients[target.name] = client
    return clients


def _pods(client: KubeClient) -> str:
    """``ready/desired`` of the node-cache DaemonSet (``-`` when there is none), for a fleet's summary."""
    found = client.list(
        "apps/v1", "DaemonSet", defaults.NAMESPACE, label_selector=selector(role_labels(Role.NODE_CACHE))
    )
    if not found:
        return "-"
    status = found[0].get("status") or {}
    return f"{status.get('numberReady', 0)}/{status.get('desiredNumberScheduled', 0)}"


def _with_verify(deployed: Outcome, checked: Outcome) -> Outcome:
    """A wave's deploy followed by its verify, as one row (whose document, for ``-o json``, is the verify's)."""
    return replace(
        deployed,
        result=f"{deployed.result}, verify: {checked.result}",
        exit_code=checked.exit_code,
        lines=deployed.lines + checked.lines,
        document=checked.document,
    )


def _refuse(invocation: Invocation, command: Command[Any], targets: Sequence[Target]) -> tuple[int, ...]:
    """What the targets make of the invocation: the waves' sizes; refusals before anything is touched."""
    name, fleet = invocation.command, invocation.fleet
    if len(targets) > 1 and not command.across_fleet:
        raise InvalidConfigError(
            f"{name}: one cluster at a time (--context NAME); across a fleet, deploy --waves 1,rest puts a change "
            "on one cluster first"
        )
    if command.refuse is not None:
        command.refuse(targets, invocation.options)
    if not fleet.waves:
        return ()
    if len(targets) == 1:
        raise InvalidConfigError("--waves: only for a fleet (several --context, --all-contexts or --contexts-from)")
    options = invocation.options
    if isinstance(options, DeployOptions) and (options.dry_run or options.diff):
        raise InvalidConfigError("--waves: deploys and verifies each wave; not with --dry-run or --diff")
    return parse_waves(fleet.waves, len(targets))


def run(
    invocation: Invocation, *, write: Callable[[str], None] = print, write_error: Callable[[str], None] = stderr
) -> int:
    """Run the invocation's command on its targets; the exit code. Every line it writes is redacted first."""
    from constructs_nld.deploy.commands import COMMANDS, TOOLS

    write, write_error = redacting(write), redacting(write_error)
    as_json = invocation.output == "json"
    lines = write_error if as_json else write  # with -o json, stdout carries the document alone

    if invocation.command in TOOLS:
        return _run_tool(invocation, TOOLS[invocation.command], write, write_error)
    command = COMMANDS[invocation.command]
    if not isinstance(invocation.options, command.options):
        raise TypeError(f"{invocation.command}: takes {command.options.__name__}, got {invocation.options!r}")
    options = invocation.options
    read = command.read(options)
    warning = node_warning(node_version(os.environ))  # the app's synth runs on it: said once, not per cluster
    if warning is not None and read != "recorded":
        write_error(warning)
    try:
        # history and rollback read the revisions the cluster keeps: no app to run.
        app = (
            None
            if read == "recorded"
            else AppCommand.from_project(command=invocation.app, values=invocation.values, sets=invocation.sets)
        )
        targets = select(invocation.selection, invocation.connection.kubeconfig, needs_cluster=read != "offline")
        waves = _refuse(invocation, command, targets)
        fleet = len(targets) > 1
        clients = {} if read == "offline" else connect(targets, invocation.connection, check_credentials=fleet)
    except DeployError as error:
        write_error(f"error: {error}")
        return error.exit_code
    except Exception as error:  # one line, whatever it is (a malformed kubeconfig the loader chokes on, a bug)
        write_error(f"error: {unexpected(error)}")
        return ExitCode.ERROR
    display = _display(options, sys.stderr if as_json else sys.stdout) if fleet else None
    if (fleet or as_json) and hasattr(options, "progress"):
        # a redrawn line would mix the clusters' lines, or go to the standard output a document owns
        options = replace(options, progress="plain")
    verify = COMMANDS["verify"]
    label = invocation.command + (f" {options.step}" if isinstance(options, CutoverOptions) else "")
    document = write if as_json else None
    reporter: ClusterReporter | FleetReporter = ClusterReporter(lines, write_error, document=document, command=label)
    if fleet:
        board = FleetBoard([target.name for target in targets], invocation.command)
        tty = TtyFleetDisplay(board, display, _columns) if display is not None else None
        reporter = FleetReporter(lines, document=document, command=label, board=board, tty=tty)
        if tty is None:
            reporter.plain = PlainFleetDisplay(board, reporter.say)

    def shown(target: Target, out: Callable[[str], None]) -> Progress | None:
        """A fleet's rollout: on the board, and printed too in a CI log."""
        if not isinstance(reporter, FleetReporter) or reporter.board is None:
            return None
        printed = PlainProgress(out) if reporter.tty is None else None
        return FleetRollout(reporter.board, target.name, printed, reporter.refresh)

    def task(target: Target, out: Callable[[str], None]) -> Outcome:
        client = clients.get(target.name)
        source = None if app is None else replace(app, cluster=target.name or None, context=target.context)
        results, progress = reporter.results_of(target), shown(target, out)
        if client is None:
            session = open_session(None, source, read=read, target=target, out=out)
            outcome = _finished(command.run(replace(session, progress=progress), options), results)
        else:
            with client.reporting_retries(out):
                session = replace(open_session(client, source, read=read, target=target, out=out), progress=progress)
                outcome = _finished(command.run(session, options), results)
                if waves:
                    outcome = _with_verify(outcome, _finished(verify.run(session, VerifyOptions()), results))
                outcome = replace(outcome, pods=_pods(client)) if fleet else outcome
        reporter.finished(target, outcome)
        return outcome

    sizes = ", ".join(str(size) for size in waves)
    reporter.start(
        invocation.command, targets, f"in waves of {sizes}" if waves else f"{invocation.fleet.parallel} at a time"
    )
    with reporter.running():
        rows: list[Row] = run_fleet(
            targets,
            task,
            reporter,
            parallel=invocation.fleet.parallel,
            fail_fast=invocation.fleet.fail_fast,
            waves=waves,
        )
    reporter.finish(rows)
    if isinstance(options, VerifyOptions) and options.junit:
        try:
            write_junit(options.junit, rows)
        except OSError as error:
            write_error(f"error: --junit: cannot write {options.junit!r}: {error.strerror or error}")
            return ExitCode.ERROR
    return summary_code(rows)


def _run_tool(
    invocation: Invocation, tool: Tool[Any], write: Callable[[str], None], write_error: Callable[[str], None]
) -> int:
    """A command of files alone: refused with a flag that names the app or a cluster, which it never reads."""
    if not isinstance(invocation.options, tool.options):
        raise TypeError(f"{invocation.command}: takes {tool.options.__name__}, got {invocation.options!r}")
    if (
        invocation.app is not None
        or invocation.connection.kubeconfig is not None
        or invocation.selection != Selection()
        or invocation.values
        or invocation.sets
    ):
        write_error(
            f"error: {invocation.command}: reads a file and touches neither the app nor a cluster: --app, "
            "--values, --set, --kubeconfig, --context, --all-contexts and --contexts-from do not apply"
        )
        return ExitCode.INVALID
    return tool.run(invocation.options, write, write_error)


def _display(options: object, stream: TextIO) -> TextIO | None:
    """The terminal a fleet's block is drawn on: ``--progress tty``, or ``auto`` on a terminal; None: a CI log."""
    mode = getattr(options, "progress", "auto")
    if mode == "auto":
        mode = "tty" if stream.isatty() and os.environ.get("TERM", "") != "dumb" else "plain"
    return stream if mode == "tty" else None


def _columns() -> int:
    return shutil.get_terminal_size((80, 24)).columns


def _finished(outcome: Outcome, out: Callable[[str], None]) -> Outcome:
    """Print what the command left to print once done; the outcome."""
    for line in outcome.lines:
        out(line)
    return outcome
