"""The deploy CLI's argument layer: flags in, one typed :class:`~constructs_nld.deploy.options.Invocation` out.

``nld-deploy [deploy|verify|uninstall|soak|cutover|convert]`` (also ``python deploy.py``,
``python -m constructs_nld.deploy``). Every command but ``convert`` works on the project's cdk8s app — the
``app:`` of ``./cdk8s.yaml``, the command ``cdk8s synth`` runs — or the one ``--app`` names,
on the clusters the flags name (:mod:`constructs_nld.deploy.targets`). This module is the
only one that sees ``argparse``: :func:`parse` turns the command line into options once,
and :mod:`constructs_nld.deploy.runner` runs them.

It imports only what parsing needs: ``--help`` and a bad argument answer at once, and the
kubernetes client and the commands load only when one runs. No command starts jsii here:
the app runs in a process of its own, the one synth.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, Final, NoReturn, cast

from constructs_nld.defaults import (
    API_BURST,
    API_QPS,
    DEPLOY_TIMEOUT,
    FLEET_PARALLEL,
    HISTORY_MAX,
    PROGRESS_MODES,
    SOAK_BASELINE_WINDOW,
    SOAK_MIN_QPS_DROP,
    SOAK_WINDOW,
    STALL_AFTER,
)
from constructs_nld.deploy.exitcodes import COMMANDS, ExitCode, epilog
from constructs_nld.deploy.options import (
    HELM_DRIVERS,
    OUTPUT_FORMATS,
    CommandOptions,
    Connection,
    ConvertOptions,
    CutoverOptions,
    DeployOptions,
    FleetOptions,
    HelmDriver,
    HistoryOptions,
    Invocation,
    OutputFormat,
    ProgressMode,
    PrometheusAuth,
    RollbackOptions,
    Selection,
    SoakOptions,
    UninstallOptions,
    VerifyOptions,
    check_release_name,
)
from constructs_nld.deploy.program import Program, invoked_as, use
from constructs_nld.durations import duration_seconds

__all__ = ["main", "parse", "parser"]

_SOAK_SIGNALS = f"""signals (the spec's soak gate), over the window ending now:
  node-cache setup errors   coredns_nodecache_setup_errors_total flat at 0
  DaemonSet unavailable     0 outside rollouts, and at least one rollout in the window
  cluster CoreDNS QPS       at least {SOAK_MIN_QPS_DROP:.0%} below its rate before node-cache's first scrape
  node-cache restarts       kube_pod_container_status_restarts_total flat

"""

_COMMON_WITH_VALUE: Final = (
    "--app",
    "--values",
    "-f",
    "--set",
    "--kubeconfig",
    "--context",
    "--timeout",
    "--api-timeout",
    "--contexts-from",
    "--parallel",
    "--qps",
    "--burst",
    "-o",
    "--output",
)

_COMMON_FLAGS: Final = ("--all-contexts", "--fail-fast")

_TIMEOUTS: Final = {
    "api_timeout": ("--api-timeout", "each API request, its retries included (while the server throttles or restarts)"),
    "clusterip_timeout": ("--clusterip-timeout", "the wait for kube-dns-upstream's ClusterIP"),
    "restart_timeout": ("--restart-timeout", "the restart, decided again while the DaemonSet keeps changing"),
    "lease_timeout": ("--lease-timeout", "the wait while another deploy of the cluster holds its Lease"),
    "prometheus_timeout": ("--prometheus-timeout", "each Prometheus query"),
}
"""Each timed wait's flag and what it bounds; ``--timeout`` sets them all (:mod:`constructs_nld.deploy.options`)."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, as every other refusal of the CLI."""

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


_seconds = _positive("seconds")
_rate = _positive("queries per second")
_qps = _positive("requests per second")
_burst = _at_least_one("requests")
_count = _at_least_one("nodes")
_revisions = _at_least_one("revisions")


def _history_max(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--history-max",
        type=_revisions,
        metavar="N",
        default=None,
        help=f"keep the newest N revisions of the release history after this one (default: {HISTORY_MAX})",
    )


def _progress(text: str) -> str:
    if text not in PROGRESS_MODES:
        raise argparse.ArgumentTypeError(
            f"must be {', '.join(PROGRESS_MODES[:-1])} or {PROGRESS_MODES[-1]}, got {text!r}"
        )
    return text


def _output(parser: argparse.ArgumentParser, *, suppress: bool) -> None:
    """``-o/--output``: text for people, or one JSON document for machines."""
    parser.add_argument(
        "-o",
        "--output",
        choices=OUTPUT_FORMATS,
        default=argparse.SUPPRESS if suppress else "text",
        help="'json': standard output carries one JSON document only (verify, soak, cutover status, history: theirs; "
        "otherwise and for a fleet, the run's summary), every other line goes to standard error; "
        "schemas in docs/schemas/ (default: text)",
    )


def _junit_file(text: str) -> str:
    folder = os.path.dirname(os.path.abspath(text))
    if not os.path.isdir(folder):
        raise argparse.ArgumentTypeError(f"{text!r}: its directory {folder!r} does not exist")
    if os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"{text!r} is a directory: name the file to write")
    return text


def _release(text: str) -> str:
    try:
        check_release_name(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix("adopt_helm_release: ")) from None
    return text


def _duration(text: str) -> float:
    try:
        return duration_seconds("duration", text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix("duration: ")) from None


def _stall_after(command: argparse.ArgumentParser, what: str) -> None:
    command.add_argument(
        "--stall-after",
        type=_seconds,
        default=None,
        metavar="S",
        help=f"stop when {what} for S seconds (default: {STALL_AFTER:g})",
    )


def _timeouts(command: argparse.ArgumentParser, *names: str, suppress: bool) -> None:
    """The named timeouts ``names`` (keys of :data:`_TIMEOUTS`) as flags of ``command``."""
    for name in names:
        flag, what = _TIMEOUTS[name]
        command.add_argument(
            flag,
            dest=name,
            type=_seconds,
            metavar="S",
            default=argparse.SUPPRESS if suppress else None,
            help=f"seconds for {what} (default: --timeout, else {DEPLOY_TIMEOUT:g})",
        )


def _all_timeouts(command: argparse.ArgumentParser, *, suppress: bool, only: str = "") -> None:
    command.add_argument(
        "--timeout",
        type=_seconds,
        metavar="S",
        default=argparse.SUPPRESS if suppress else None,
        help=f"seconds for every timed wait below at once{only} (default: {DEPLOY_TIMEOUT:g} each)",
    )


def _common(*, suppress: bool) -> _Parser:
    """The options every cluster command takes; ``suppress`` keeps a subcommand from resetting them."""
    common = _Parser(add_help=False)
    default = argparse.SUPPRESS if suppress else None
    common.add_argument(
        "--app",
        default=default,
        help="the cdk8s app command (default: the 'app:' of ./cdk8s.yaml, as cdk8s synth runs it)",
    )
    _values_options(common, suppress=suppress)
    common.add_argument(
        "--kubeconfig",
        default=default,
        help="one kubeconfig file (default: $KUBECONFIG's files merged, else ~/.kube/config, else in-cluster)",
    )
    _fleet_options(common, suppress=suppress)
    _output(common, suppress=suppress)
    _all_timeouts(common, suppress=suppress)
    _timeouts(common, "api_timeout", suppress=suppress)
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


def _values_options(parser: argparse.ArgumentParser, *, suppress: bool) -> None:
    """``--values`` and ``--set``: props for the app, layered over its own (docs/configuration.md).

    Before the command and after it they are kept apart (``*_before``), then joined in order:
    a subcommand's list would otherwise replace the one given before it.
    """
    default = argparse.SUPPRESS if suppress else None
    suffix = "" if suppress else "_before"
    parser.add_argument(
        "--values",
        "-f",
        action="append",
        dest=f"values{suffix}",
        metavar="FILE",
        default=default,
        help="a YAML or JSON values file of props, layered over the app's; repeat it: a later file wins",
    )
    parser.add_argument(
        "--set",
        action="append",
        dest=f"set{suffix}",
        metavar="KEY=VALUE",
        default=default,
        help="one prop, e.g. cache.success_capacity=20000 (a YAML value), applied after the values files; repeatable",
    )


def _fleet_options(parser: argparse.ArgumentParser, *, suppress: bool) -> None:
    """Which clusters: one context (the default), several, all of the kubeconfig's, or a file's; how many at once."""
    default = argparse.SUPPRESS if suppress else None
    parser.add_argument(
        "--context",
        action="append",
        default=default,
        help="kubeconfig context (default: the current one); give it again for a fleet of clusters; with "
        "--contexts-from, the file's clusters to take (by name or context)",
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
        help="the fleet a YAML file lists: context names, or 'clusters:' entries with 'context:' and a "
        "stable 'name:' (see docs/fleet.md)",
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
    """The command-line interface, named as this process was invoked (:mod:`constructs_nld.deploy.program`)."""
    program = invoked_as().usage
    cli = _Parser(
        prog=program,
        description="Deploy the cdk8s app's NodeLocal DNSCache in apply order, or verify a live install.",
        epilog=epilog("deploy")
        + f"verify, uninstall, soak, cutover: their exit codes are in {program} COMMAND --help\n"
        + "a fleet (several --context, --all-contexts, --contexts-from): the worst cluster's code, the highest\n",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[_common(suppress=False)],
    )
    cli.add_argument("--version", action=_Version, help="print the library's version and exit")
    commands = cli.add_subparsers(
        dest="command",
        metavar="{" + ",".join(COMMANDS) + "}",
        help="deploy (default), verify, uninstall, soak, cutover, history, rollback or convert",
        parser_class=_Parser,
    )
    deploy_cli = _subcommand(
        commands,
        "deploy",
        "apply the app's charts in order (the default)",
        "Apply the app's charts in order with the spec's rules; prune what the app no longer defines.",
    )
    _timeouts(deploy_cli, "clusterip_timeout", "restart_timeout", "lease_timeout", suppress=True)
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
    _history_max(deploy_cli)
    deploy_cli.add_argument(
        "--adopt-helm-release",
        type=_release,
        metavar="RELEASE",
        help="take over the app's objects that this Helm release holds, in place, so that a later "
        "'helm uninstall RELEASE' keeps them (docs/from-deliveryhero.md)",
    )
    deploy_cli.add_argument(
        "--helm-driver",
        choices=HELM_DRIVERS,
        default=None,
        help="with --adopt-helm-release: where Helm keeps the release's records, as its HELM_DRIVER (default: secret)",
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
    verify_cli.add_argument(
        "--junit",
        type=_junit_file,
        metavar="FILE",
        help="also write the checks to FILE as JUnit XML for CI: one testcase per check (a failure as <failure>), "
        "one testsuite per cluster",
    )
    uninstall_cli = _subcommand(
        commands,
        "uninstall",
        "remove the app's NodeLocal DNS: the DaemonSet and its pods first, then the rest",
        "Remove the app's NodeLocal DNS objects in the order that keeps every node's DNS working: "
        "the DaemonSet, then (once its pods are gone) the rest.",
    )
    _stall_after(uninstall_cli, "no node-cache pod goes away")
    _history_max(uninstall_cli)
    _soak(commands)
    _cutover(commands)
    _history(commands)
    _convert(commands)
    return cli


def _prometheus_access(parser: _Parser) -> None:
    """The flags of Prometheus' credentials and CA, named as Prometheus' own ``http_config`` names them."""
    parser.add_argument(
        "--prometheus-bearer-token-file",
        metavar="FILE",
        help="send the token in FILE as 'Authorization: Bearer' (read at each query; https only)",
    )
    parser.add_argument(
        "--prometheus-basic-auth-file",
        metavar="FILE",
        help="send basic auth from FILE, one line 'user:password' (https only)",
    )
    parser.add_argument(
        "--prometheus-ca-file", metavar="FILE", help="check Prometheus' certificate against this PEM CA bundle"
    )


def _soak(commands: argparse._SubParsersAction[_Parser]) -> None:
    """``soak``: Prometheus only, so none of the API server's flags but the ones that name clusters."""
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
    _prometheus_access(soak_cli)
    soak_cli.add_argument(
        "--kubeconfig",
        default=argparse.SUPPRESS,
        help="kubeconfig file, for --all-contexts and the current context's name (default: $KUBECONFIG or "
        "~/.kube/config)",
    )
    _fleet_options(soak_cli, suppress=True)
    _output(soak_cli, suppress=True)
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
    _values_options(soak_cli, suppress=True)
    _all_timeouts(soak_cli, suppress=True, only=" (here: --prometheus-timeout)")
    _timeouts(soak_cli, "prometheus_timeout", suppress=True)


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
    _timeouts(start, "clusterip_timeout", suppress=True)
    _stall_after(start, "no canary pod becomes ready")
    status = step("status", "show the canary pods and judge the canary soak against the other nodes")
    promote = step("promote", "roll the rest of the fleet, if the canary soak passes")
    for judged in (status, promote):
        judged.add_argument(
            "--prometheus", metavar="URL", help="Prometheus, e.g. http://prometheus:9090 (without: not enough data)"
        )
        _prometheus_access(judged)
        judged.add_argument(
            "--window",
            type=_duration,
            default=SOAK_WINDOW,
            help=f"how long the canary must have run (default: {SOAK_WINDOW}, the spec's soak)",
        )
        _timeouts(judged, "prometheus_timeout", suppress=True)
    promote.add_argument(
        "--force", action="store_true", help="promote although the canary soak did not pass (recorded on the DaemonSet)"
    )
    _timeouts(promote, "clusterip_timeout", "restart_timeout", "lease_timeout", suppress=True)
    _history_max(promote)
    rollback = step("rollback", "put the old template back on the canary nodes; nothing to do without a cutover")
    for rolling in (promote, rollback):
        _stall_after(rolling, "the rollout makes no progress")
        rolling.add_argument(
            "--progress", type=_progress, default=None, metavar="{" + ",".join(PROGRESS_MODES) + "}",
            help="'tty' redraws one line, 'plain' logs a line per change (default: auto)",
        )  # fmt: skip


def _history(commands: argparse._SubParsersAction[_Parser]) -> None:
    """``history`` and ``rollback [REVISION]``: the release history the recording commands keep in the cluster."""
    _subcommand(
        commands,
        "history",
        "list the revisions of the release history",
        "List the revisions the cluster keeps: each deploy, cutover promote, uninstall and rollback, with when, "
        "by whom, from which app, and how it ended.",
    )
    rollback_cli = _subcommand(
        commands,
        "rollback",
        "apply a revision of the release history again, as a deploy",
        "Apply the objects of a revision again, with every rule of a deploy (Services first, the restart, the "
        "prune to that revision's objects); recorded as a new revision. The app is not run.",
    )
    rollback_cli.add_argument(
        "revision",
        nargs="?",
        type=_revisions,
        metavar="REVISION",
        help="the revision to restore (default: the newest successful one before the latest)",
    )
    _timeouts(rollback_cli, "clusterip_timeout", "restart_timeout", "lease_timeout", suppress=True)
    mode = rollback_cli.add_mutually_exclusive_group()
    mode.add_argument("--dry-run", action="store_true", help="server-side dry run: nothing is persisted or recorded")
    mode.add_argument("--diff", action="store_true", help="show what the rollback would change; apply nothing")
    mode.add_argument(
        "--wait", action="store_true", help="after applying, follow the DaemonSet's rollout until it completes"
    )
    rollback_cli.add_argument(
        "--progress",
        type=_progress,
        default=None,
        metavar="{" + ",".join(PROGRESS_MODES) + "}",
        help="with --wait: 'tty' redraws one line, 'plain' logs a line per change (default: auto)",
    )
    _stall_after(rollback_cli, "--wait sees no pod become updated and available")
    _history_max(rollback_cli)


def _convert(commands: argparse._SubParsersAction[_Parser]) -> None:
    """``convert DEPLOYER VALUES_FILE``: files alone, so none of the flags that name the app or a cluster."""
    convert_cli = _subcommand(
        commands,
        "convert",
        "write another deployer's values file as this library's values, listing what cannot be carried",
        "Convert the values file of the deliveryhero node-local-dns Helm chart into this library's values "
        "(docs/from-deliveryhero.md): the values to stdout (or --output), each key not carried to stderr with why.",
        cluster=False,
    )
    convert_cli.add_argument("deployer", choices=("deliveryhero",), help="whose values: the deliveryhero chart's")
    convert_cli.add_argument(
        "values_file", metavar="VALUES_FILE", help="the chart's values file (helm get values -o yaml)"
    )
    convert_cli.add_argument(
        "--output",
        dest="output_file",
        metavar="FILE",
        help="write the values to FILE, only once the conversion succeeded (default: stdout)",
    )


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
        elif token in _COMMON_FLAGS or token.split("=", 1)[0] in _COMMON_WITH_VALUE:
            index += 1
        else:
            break
    return [*args[:index], "deploy", *args[index:]]


class _Flags:
    """The parsed namespace, read by name; a flag a command does not have reads as None (or its default)."""

    def __init__(self, namespace: argparse.Namespace) -> None:
        self._values: dict[str, Any] = vars(namespace)

    def __getitem__(self, name: str) -> Any:
        return self._values.get(name)

    def timeout(self, name: str) -> float:
        """A named timeout: its own flag, else ``--timeout``, else the default."""
        return float(self[name] or self["timeout"] or DEPLOY_TIMEOUT)

    def api_timeout_flag(self) -> str:
        """The flag that set the API timeout, for the messages that name it."""
        return "--api-timeout" if self["api_timeout"] else "--timeout"


def _auth_of(flags: _Flags) -> PrometheusAuth:
    """Prometheus' credentials and CA, from their flags."""
    return PrometheusAuth(
        bearer_token_file=flags["prometheus_bearer_token_file"],
        basic_auth_file=flags["prometheus_basic_auth_file"],
        ca_file=flags["prometheus_ca_file"],
    )


def _options(command: str, flags: _Flags) -> CommandOptions:
    """The options of ``command``, from its flags."""
    stall_after = float(flags["stall_after"] or STALL_AFTER)
    progress = cast(ProgressMode, flags["progress"] or "auto")  # one of PROGRESS_MODES: _progress checked it
    history_max = int(flags["history_max"] or HISTORY_MAX)
    if command == "deploy":
        return DeployOptions(
            dry_run=bool(flags["dry_run"]),
            diff=bool(flags["diff"]),
            skip_monitoring=bool(flags["skip_monitoring"]),
            cluster_ip_timeout=flags.timeout("clusterip_timeout"),
            restart_timeout=flags.timeout("restart_timeout"),
            lease_timeout=flags.timeout("lease_timeout"),
            wait=bool(flags["wait"]),
            stall_after=stall_after,
            progress=progress,
            history_max=history_max,
            adopt_helm_release=flags["adopt_helm_release"],
            helm_driver=cast(HelmDriver, flags["helm_driver"] or "secret"),  # one of HELM_DRIVERS: argparse checked it
        )
    if command == "rollback":
        return RollbackOptions(
            revision=flags["revision"],
            dry_run=bool(flags["dry_run"]),
            diff=bool(flags["diff"]),
            cluster_ip_timeout=flags.timeout("clusterip_timeout"),
            restart_timeout=flags.timeout("restart_timeout"),
            lease_timeout=flags.timeout("lease_timeout"),
            wait=bool(flags["wait"]),
            stall_after=stall_after,
            progress=progress,
            history_max=history_max,
        )
    if command == "history":
        return HistoryOptions()
    if command == "verify":
        return VerifyOptions(uninstalled=bool(flags["uninstalled"]), junit=flags["junit"])
    if command == "uninstall":
        return UninstallOptions(stall_after=stall_after, history_max=history_max)
    if command == "convert":
        return ConvertOptions(deployer=flags["deployer"], values=flags["values_file"], output=flags["output_file"])
    if command == "soak":
        return SoakOptions(
            window=flags["window"],
            baseline_window=flags["baseline_window"],
            baseline_qps=flags["baseline_qps"],
            prometheus=flags["prometheus"],
            prometheus_timeout=flags.timeout("prometheus_timeout"),
            prometheus_auth=_auth_of(flags),
            coredns_job=flags["coredns_job"],
        )
    return CutoverOptions(
        step=flags["step"],
        canary_nodes=flags["canary_nodes"],
        canary_selector=flags["canary_selector"] or "",
        window=flags["window"] or duration_seconds("window", SOAK_WINDOW),
        force=bool(flags["force"]),
        prometheus=flags["prometheus"],
        prometheus_timeout=flags.timeout("prometheus_timeout"),
        prometheus_auth=_auth_of(flags),
        cluster_ip_timeout=flags.timeout("clusterip_timeout"),
        restart_timeout=flags.timeout("restart_timeout"),
        lease_timeout=flags.timeout("lease_timeout"),
        stall_after=stall_after,
        progress=progress,
        history_max=history_max,
    )


def parse(argv: Sequence[str]) -> Invocation:
    """The invocation ``argv`` asks for; a bad argument exits with one line (``SystemExit``, code 2)."""
    cli = parser()
    namespace = cli.parse_args(_with_command(argv))
    flags = _Flags(namespace)
    command = str(flags["command"])
    if command in ("deploy", "rollback") and not flags["wait"]:
        given = [flag for flag, name in (("--progress", "progress"), ("--stall-after", "stall_after")) if flags[name]]
        if given:
            cli.exit(
                ExitCode.INVALID, f"error: {' and '.join(given)}: only with --wait (see {cli.prog} {command} --help)\n"
            )
    if flags["all_contexts"] and (flags["context"] or flags["contexts_from"]):
        cli.exit(
            ExitCode.INVALID,
            "error: --context, --all-contexts and --contexts-from: give one of them (--context may pick clusters "
            "of --contexts-from)\n",
        )
    return Invocation(
        command=command,
        options=_options(command, flags),
        app=flags["app"],
        values=(*(flags["values_before"] or ()), *(flags["values"] or ())),
        sets=(*(flags["set_before"] or ()), *(flags["set"] or ())),
        connection=Connection(
            kubeconfig=flags["kubeconfig"],
            api_timeout=flags.timeout("api_timeout"),
            api_timeout_flag=flags.api_timeout_flag(),
            qps=float(flags["qps"] or API_QPS),
            burst=int(flags["burst"] or API_BURST),
        ),
        selection=Selection(
            contexts=tuple(flags["context"] or ()),
            all_contexts=bool(flags["all_contexts"]),
            contexts_from=flags["contexts_from"],
        ),
        fleet=FleetOptions(
            parallel=int(flags["parallel"] or FLEET_PARALLEL),
            fail_fast=bool(flags["fail_fast"]),
            waves=flags["waves"],
        ),
        output=cast(OutputFormat, flags["output"] or "text"),  # one of OUTPUT_FORMATS: argparse checked it
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; return the exit code. The program's name comes from ``sys.argv[0]``."""
    use(Program.of(sys.argv[0]))
    try:
        invocation = parse(sys.argv[1:] if argv is None else argv)
    except SystemExit as exiting:  # --help, or a bad argument already reported on one line
        return int(exiting.code or 0)
    from constructs_nld.deploy import stop
    from constructs_nld.deploy.errors import StoppedError
    from constructs_nld.deploy.runner import run

    with stop.handling():
        code = run(invocation)
        try:  # a signal after the last request: the work is done, but the job was stopped, and says so
            stop.check()
        except StoppedError as error:
            if code not in (ExitCode.SIGINT, ExitCode.SIGTERM):
                print(f"error: {error}", file=sys.stderr, flush=True)
            return error.exit_code
        return code
