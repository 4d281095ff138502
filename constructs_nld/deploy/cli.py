"""``python deploy.py [deploy|verify|uninstall|soak|cutover]``: argument parsing and exit codes around the commands.

Every command works on the project's cdk8s app — the ``app:`` of ``./cdk8s.yaml``, the
command ``cdk8s synth`` runs — or the one ``--app`` names (:mod:`constructs_nld.deploy.commands`).

Several ``--context`` (or ``--all-contexts``, ``--contexts-from``) make a fleet: each command
runs per cluster (:mod:`constructs_nld.deploy.fleet`, :mod:`constructs_nld.deploy.fleetcli`).

This module imports only what parsing needs: ``--help`` and a bad argument answer at once,
and the kubernetes client and the commands load only when one runs. No command starts jsii
here: the app runs in a process of its own, the one synth.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final, NoReturn

from constructs_nld.defaults import (
    API_BURST,
    API_QPS,
    DEPLOY_TIMEOUT,
    FLEET_PARALLEL,
    PROGRESS_MODES,
    SOAK_BASELINE_WINDOW,
    SOAK_MIN_QPS_DROP,
    SOAK_WINDOW,
    STALL_AFTER,
)
from constructs_nld.deploy.exitcodes import COMMANDS, ExitCode, epilog
from constructs_nld.durations import duration_seconds

if TYPE_CHECKING:
    from kubernetes.client.exceptions import ApiException

    from constructs_nld.deploy.kube import KubeClient
    from constructs_nld.deploy.source import AppCommand, AppSource

__all__ = ["main", "parser"]

_SOAK_SIGNALS = f"""signals (the spec's soak gate), over the window ending now:
  node-cache setup errors   coredns_nodecache_setup_errors_total flat at 0
  DaemonSet unavailable     0 outside rollouts, and at least one rollout in the window
  cluster CoreDNS QPS       at least {SOAK_MIN_QPS_DROP:.0%} below its rate before node-cache's first scrape
  node-cache restarts       kube_pod_container_status_restarts_total flat

"""

_COMMON_WITH_VALUE: Final = (
    "--app",
    "--kubeconfig",
    "--context",
    "--timeout",
    "--contexts-from",
    "--parallel",
    "--qps",
    "--burst",
)


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, as every other refusal of deploy.py."""

    def error(self, message: str) -> NoReturn:
        """Print ``error: …`` and exit with the documented code for bad arguments."""
        self.exit(ExitCode.INVALID, f"error: {message} (see {self.prog} --help)\n")


def _positive(unit: str) -> Callable[[str], float]:
    """A parser of a positive, finite number of ``unit`` (seconds, queries per second, …)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a number of {unit}, got {text!r}") from None
        if not math.isfinite(value) or value <= 0:
            raise argparse.ArgumentTypeError(f"must be a positive, finite number of {unit}, got {text!r}")
        return value

    return parse


def _at_least_one(unit: str) -> Callable[[str], int]:
    """A parser of a whole number of ``unit``, at least 1."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a whole number of {unit}, got {text!r}") from None
        if value < 1:
            raise argparse.ArgumentTypeError(f"must be at least 1, got {text!r}")
        return value

    return parse


_timeout = _positive("seconds")
_rate = _positive("queries per second")
_qps = _positive("requests per second")
_burst = _at_least_one("requests")
_count = _at_least_one("nodes")


def _progress(text: str) -> str:
    if text not in PROGRESS_MODES:
        raise argparse.ArgumentTypeError(
            f"must be {', '.join(PROGRESS_MODES[:-1])} or {PROGRESS_MODES[-1]}, got {text!r}"
        )
    return text


def _stall_after(command: argparse.ArgumentParser, what: str) -> None:
    command.add_argument(
        "--stall-after",
        type=_timeout,
        default=None,
        metavar="S",
        help=f"stop when {what} for S seconds (default: {STALL_AFTER:g})",
    )


def _duration(text: str) -> float:
    try:
        return duration_seconds("duration", text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix("duration: ")) from None


def _common(*, suppress: bool) -> _Parser:
    """The options every cluster command takes; ``suppress`` keeps a subcommand from resetting them."""
    common = _Parser(add_help=False)
    default = argparse.SUPPRESS if suppress else None
    common.add_argument(
        "--app",
        default=default,
        help="the cdk8s app command (default: the 'app:' of ./cdk8s.yaml, as cdk8s synth runs it)",
    )
    common.add_argument(
        "--kubeconfig", default=default, help="kubeconfig file (default: $KUBECONFIG or ~/.kube/config)"
    )
    _fleet_options(common, suppress=suppress)
    common.add_argument(
        "--timeout",
        type=_timeout,
        default=argparse.SUPPRESS if suppress else DEPLOY_TIMEOUT,
        help="seconds to wait for kube-dns-upstream's ClusterIP, per API request and its retries while the "
        "API server throttles it or is unreachable, and for the restart while the DaemonSet's status keeps "
        f"changing (default: {DEPLOY_TIMEOUT:g})",
    )
    common.add_argument(
        "--qps",
        type=_qps,
        default=argparse.SUPPRESS if suppress else API_QPS,
        help=f"API requests a second, after --burst, per cluster (default: {API_QPS:g}; docs/throttling.md)",
    )
    common.add_argument(
        "--burst",
        type=_burst,
        default=argparse.SUPPRESS if suppress else API_BURST,
        help=f"API requests sent at once before --qps paces them (default: {API_BURST})",
    )
    return common


def _fleet_options(parser: argparse.ArgumentParser, *, suppress: bool) -> None:
    """Which clusters: one context (the default), several, all of the kubeconfig's, or a file's; how many at once."""
    default = argparse.SUPPRESS if suppress else None
    parser.add_argument(
        "--context",
        action="append",
        default=default,
        help="kubeconfig context (default: the current one); give it again for a fleet of clusters",
    )
    parser.add_argument(
        "--all-contexts",
        action="store_true",
        default=argparse.SUPPRESS if suppress else False,
        help="every context of the kubeconfig, as a fleet",
    )
    parser.add_argument(
        "--contexts-from",
        metavar="FILE",
        default=default,
        help="the fleet a YAML file lists: context names, or 'clusters:' entries with 'context:' (see docs/fleet.md)",
    )
    parser.add_argument(
        "--parallel",
        type=_count,
        metavar="N",
        default=argparse.SUPPRESS if suppress else FLEET_PARALLEL,
        help=f"fleet: clusters worked on at once (default: {FLEET_PARALLEL})",
    )
    parser.add_argument(
        "--fail-fast",
        action="store_true",
        default=argparse.SUPPRESS if suppress else False,
        help="fleet: start no cluster after the first failure",
    )


def _subcommand(
    commands: argparse._SubParsersAction[_Parser], name: str, help_text: str, description: str, *, cluster: bool = True
) -> _Parser:
    return commands.add_parser(
        name,
        parents=[_common(suppress=True)] if cluster else [],
        help=help_text,
        description=description,
        epilog=(_SOAK_SIGNALS if name == "soak" else "") + epilog(name),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


class _Version(argparse.Action):
    """``--version``: the library's version, read only when asked (``--help`` stays light)."""

    def __init__(self, option_strings: list[str], dest: str, help: str | None = None) -> None:  # noqa: A002
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from constructs_nld.release import DISTRIBUTION, version

        print(f"{DISTRIBUTION} {version()}")
        parser.exit()


def parser() -> argparse.ArgumentParser:
    """The command-line interface."""
    cli = _Parser(
        prog="deploy.py",
        description="Deploy the cdk8s app's NodeLocal DNSCache in apply order, or verify a live install.",
        epilog=epilog("deploy")
        + "verify, uninstall, soak, cutover: their exit codes are in deploy.py COMMAND --help\n"
        + "a fleet (several --context, --all-contexts, --contexts-from): the worst cluster's code, the highest\n",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[_common(suppress=False)],
    )
    cli.add_argument("--version", action=_Version, help="print the library's version and exit")
    commands = cli.add_subparsers(
        dest="command",
        metavar="{" + ",".join(COMMANDS) + "}",
        help="deploy (default), verify, uninstall, soak or cutover",
        parser_class=_Parser,
    )
    deploy_cli = _subcommand(
        commands,
        "deploy",
        "apply the app's charts in order (the default)",
        "Apply the app's charts in order with the spec's rules; prune what the app no longer defines.",
    )
    mode = deploy_cli.add_mutually_exclusive_group()
    mode.add_argument("--dry-run", action="store_true", help="server-side dry run: nothing is persisted")
    mode.add_argument(
        "--diff", action="store_true", help="show what would change (and be pruned) per object; apply nothing"
    )
    mode.add_argument(
        "--wait",
        action="store_true",
        help="after applying, follow the DaemonSet's rollout until every pod is updated and available",
    )
    deploy_cli.add_argument(
        "--skip-monitoring",
        action="store_true",
        help="leave out the prometheus-operator objects (PodMonitor, PrometheusRule: CRDs not installed)",
    )
    deploy_cli.add_argument(
        "--progress",
        type=_progress,
        default=None,
        metavar="{" + ",".join(PROGRESS_MODES) + "}",
        help="with --wait: 'tty' redraws one line, 'plain' logs a line per change (CI), "
        "'auto' is tty on a terminal (default: auto)",
    )
    _stall_after(deploy_cli, "--wait sees no pod become updated and available")
    deploy_cli.add_argument(
        "--waves",
        metavar="SIZES",
        help="fleet: deploy and verify the clusters in waves of these sizes, in order, stopping after a wave "
        "that fails (e.g. 1,rest)",
    )
    verify_cli = _subcommand(
        commands,
        "verify",
        "check a live install against the app",
        "Check a live install for every failure mode of the spec, against the app's configuration.",
    )
    verify_cli.add_argument(
        "--uninstalled",
        action="store_true",
        help="check instead that an uninstall is complete: no object of the app's NodeLocal DNS, no node-cache pod",
    )
    uninstall_cli = _subcommand(
        commands,
        "uninstall",
        "remove the app's NodeLocal DNS: the DaemonSet and its pods first, then the rest",
        "Remove the app's NodeLocal DNS objects in the order that keeps every node's DNS working: "
        "the DaemonSet, then (once its pods are gone) the rest.",
    )
    _stall_after(uninstall_cli, "no node-cache pod goes away")
    soak_cli = _subcommand(
        commands,
        "soak",
        "judge the spec's soak gate from Prometheus",
        "Judge the spec's soak gate: the four signals of the app's NodeLocal DNS, from Prometheus.",
        cluster=False,
    )
    soak_cli.add_argument(
        "--prometheus",
        metavar="URL",
        help="Prometheus, e.g. http://prometheus:9090; in a fleet, '{cluster}' is each cluster's name "
        "(default: the --contexts-from file's 'prometheus:')",
    )
    soak_cli.add_argument(
        "--kubeconfig",
        default=argparse.SUPPRESS,
        help="kubeconfig file, for --all-contexts (default: $KUBECONFIG or ~/.kube/config)",
    )
    _fleet_options(soak_cli, suppress=True)
    soak_cli.add_argument(
        "--window",
        type=_duration,
        default=SOAK_WINDOW,
        help=f"history judged, ending now (default: {SOAK_WINDOW})",
    )
    soak_cli.add_argument(
        "--baseline-window",
        type=_duration,
        default=SOAK_BASELINE_WINDOW,
        help=f"CoreDNS baseline: the rate over this much time before node-cache's first scrape "
        f"(default: {SOAK_BASELINE_WINDOW})",
    )
    soak_cli.add_argument(
        "--baseline-qps",
        type=_rate,
        help="cluster CoreDNS QPS before NodeLocal DNS, when Prometheus no longer holds it (default: measured)",
    )
    soak_cli.add_argument(
        "--coredns-job", help="job label of cluster CoreDNS's series (default: <the PodMonitor's namespace>/coredns)"
    )
    soak_cli.add_argument(
        "--app",
        default=argparse.SUPPRESS,
        help="the cdk8s app command (default: the 'app:' of ./cdk8s.yaml, as cdk8s synth runs it)",
    )
    soak_cli.add_argument(
        "--timeout",
        type=_timeout,
        default=argparse.SUPPRESS,
        help=f"seconds per Prometheus query (default: {DEPLOY_TIMEOUT:g})",
    )
    _cutover(commands)
    return cli


def _cutover(commands: argparse._SubParsersAction[_Parser]) -> None:
    """``cutover start|status|promote|rollback``: the staged cutover's four steps."""
    cutover_cli = _subcommand(
        commands,
        "cutover",
        "a new pod template on canary nodes first, the fleet only on a passing canary soak",
        "Carry out the spec's soak gate: start a cutover on canary nodes, judge its soak, promote it or roll it back.",
    )
    steps = cutover_cli.add_subparsers(dest="step", metavar="{start,status,promote,rollback}", parser_class=_Parser)
    steps.required = True

    def step(name: str, help_text: str) -> _Parser:
        return steps.add_parser(
            name, parents=[_common(suppress=True)], help=help_text, description=help_text[0].upper() + help_text[1:]
        )

    start = step("start", "apply the app with OnDelete and replace the pods of the canary nodes only")
    start.add_argument(
        "--canary-nodes",
        type=_count,
        metavar="N",
        help="N canary nodes, spread over the pools (default: one node of every pool)",
    )
    start.add_argument(
        "--canary-selector",
        default="",
        metavar="SELECTOR",
        help="choose the canary among the nodes of this label selector (all of them without --canary-nodes)",
    )
    _stall_after(start, "no canary pod becomes ready")
    status = step("status", "show the canary pods and judge the canary soak against the other nodes")
    promote = step("promote", "roll the rest of the fleet, if the canary soak passes")
    for judged in (status, promote):
        judged.add_argument(
            "--prometheus", metavar="URL", help="Prometheus, e.g. http://prometheus:9090 (without: not enough data)"
        )
        judged.add_argument(
            "--window",
            type=_duration,
            default=SOAK_WINDOW,
            help=f"how long the canary must have run (default: {SOAK_WINDOW}, the spec's soak)",
        )
    promote.add_argument(
        "--force", action="store_true", help="promote although the canary soak did not pass (recorded on the DaemonSet)"
    )
    rollback = step("rollback", "put the old template back on the canary nodes; nothing to do without a cutover")
    for rolling in (promote, rollback):
        _stall_after(rolling, "the rollout makes no progress")
        rolling.add_argument(
            "--progress", type=_progress, default=None, metavar="{" + ",".join(PROGRESS_MODES) + "}",
            help="'tty' redraws one line, 'plain' logs a line per change (default: auto)",
        )  # fmt: skip


def _with_command(argv: Sequence[str]) -> list[str]:
    """``argv`` with ``deploy`` inserted where no command is named (``deploy`` is the default)."""
    args = list(argv)
    index = 0
    while index < len(args):
        token = args[index]
        if token in COMMANDS or token in ("-h", "--help", "--version"):
            return args
        if token in _COMMON_WITH_VALUE:
            index += 2
        elif token.split("=", 1)[0] in _COMMON_WITH_VALUE:
            index += 1
        else:
            break
    return [*args[:index], "deploy", *args[index:]]


def _api_error(error: ApiException) -> str:
    import json

    try:
        message = json.loads(error.body or "{}").get("message", "")
    except ValueError:
        message = error.body or ""
    return f"error: the API server answered {error.status} {error.reason}: {message}".rstrip(": ")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; return the exit code."""
    try:
        args = parser().parse_args(_with_command(sys.argv[1:] if argv is None else argv))
    except SystemExit as stop:  # --help, or a bad argument already reported on one line
        return int(stop.code or 0)
    if args.command == "deploy" and not args.wait:
        given = [flag for flag, value in (("--progress", args.progress), ("--stall-after", args.stall_after)) if value]
        if given:
            print(f"error: {' and '.join(given)}: only with --wait (see deploy.py deploy --help)", file=sys.stderr)
            return ExitCode.INVALID
    from kubernetes.client.exceptions import ApiException

    from constructs_nld.deploy.errors import DeployError

    try:
        return _run(args)
    except DeployError as error:
        print(f"error: {error}", file=sys.stderr)
        return error.exit_code
    except ApiException as error:
        print(_api_error(error), file=sys.stderr)
        return ExitCode.ERROR


def _run(args: argparse.Namespace) -> int:
    """Load the command ``args`` names and run it; the exit code."""
    from constructs_nld.deploy.source import AppCommand

    source = AppCommand.from_project(command=args.app)
    from constructs_nld.deploy.fleet import select

    members = select(args.kubeconfig, args.context or [], all_contexts=args.all_contexts, from_file=args.contexts_from)
    if members is not None:
        from constructs_nld.deploy.fleetcli import run_fleet_command

        return run_fleet_command(args, source, members)
    if getattr(args, "waves", None):
        print(
            "error: --waves: only for a fleet (several --context, --all-contexts or --contexts-from)", file=sys.stderr
        )
        return ExitCode.INVALID
    if args.command == "soak":
        if not args.prometheus:
            print("error: soak: --prometheus URL is required (see deploy.py soak --help)", file=sys.stderr)
            return ExitCode.INVALID
        return _soak(args, source)
    from constructs_nld.deploy.kube import load_client

    client = load_client(
        args.kubeconfig, args.context[0] if args.context else None, timeout=args.timeout, qps=args.qps, burst=args.burst
    )
    with client.reporting_retries(print):
        return _on_cluster(args, client, source)


def _on_cluster(args: argparse.Namespace, client: KubeClient, source: AppSource) -> int:
    """Run the cluster command ``args`` names through ``client``; its exit code."""
    from constructs_nld.deploy import arguments

    if args.command == "verify":
        from constructs_nld.deploy.checks import format_result
        from constructs_nld.deploy.commands.verify import verify, verify_uninstalled

        results = (verify_uninstalled if args.uninstalled else verify)(client, source)
        for result in results:
            print(format_result(result))
        failed = [r for r in results if r.status == "fail"]
        print(f"{len(results) - len(failed)} passed, {len(failed)} failed")
        return ExitCode.CHECKS_FAILED if failed else ExitCode.OK
    if args.command == "cutover":
        return _run_cutover(args, client, source)
    if args.command == "uninstall":
        from constructs_nld.deploy.commands.uninstall import uninstall

        uninstall(client, source, arguments.uninstall_options(args))
        return ExitCode.OK
    from constructs_nld.deploy.commands.deploy import deploy
    from constructs_nld.deploy.progress import make_progress

    progress = make_progress(args.progress or "auto", print)
    report = deploy(client, source, arguments.deploy_options(args), progress=progress)
    for text in report.diffs.values():
        print(text)
    return ExitCode.OK


def _soak(args: argparse.Namespace, source: AppCommand) -> int:
    """Run the soak; print its table; the exit code says the verdict."""
    from constructs_nld.deploy.arguments import soak_options
    from constructs_nld.deploy.commands.soak import format_report, soak_app
    from constructs_nld.deploy.gate import VERDICT_CODES
    from constructs_nld.deploy.promapi import PrometheusAPI

    api = PrometheusAPI(args.prometheus, timeout=getattr(args, "timeout", DEPLOY_TIMEOUT))
    report = soak_app(api, source, soak_options(args), coredns_job=args.coredns_job)
    print(format_report(report))
    return VERDICT_CODES[report.verdict]


def _run_cutover(args: argparse.Namespace, client: KubeClient, source: AppSource) -> int:
    """Run the cutover step ``args`` names; its exit code."""
    from constructs_nld.deploy.arguments import cutover_options
    from constructs_nld.deploy.commands import cutover
    from constructs_nld.deploy.gate import VERDICT_CODES
    from constructs_nld.deploy.progress import make_progress
    from constructs_nld.deploy.promapi import PrometheusAPI

    options = cutover_options(args)
    url = getattr(args, "prometheus", None)
    prometheus = PrometheusAPI(url, timeout=args.timeout) if url else None
    progress = make_progress(getattr(args, "progress", None) or "auto", print)
    if args.step == "start":
        cutover.start(client, source, options)
    elif args.step == "status":
        return VERDICT_CODES[cutover.status(client, source, options, prometheus).verdict]
    elif args.step == "promote":
        cutover.promote(client, source, options, prometheus, progress=progress)
    else:
        cutover.rollback(client, source, options, progress=progress)
    return ExitCode.OK
