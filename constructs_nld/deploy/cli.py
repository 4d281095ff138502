"""``python deploy.py [verify]``: argument parsing and exit codes around :func:`deploy` and :func:`verify`."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from kubernetes.client.exceptions import ApiException

from constructs_nld.deploy.deployer import DeployOptions, deploy
from constructs_nld.deploy.errors import DeployError, ExitCode
from constructs_nld.deploy.kube import load_client
from constructs_nld.deploy.verify import format_result, verify
from constructs_nld.nodelocaldns import NodeLocalDNSProps

__all__ = ["main", "parser"]

_EPILOG = """exit codes:
  0  done (verify: every check passed)
  1  the API server refused a request or could not be reached
  2  bad arguments or props, or output still holding a placeholder (nothing applied)
  3  kube-dns-upstream exists with a foreign selector (nothing applied)
  4  kube-dns missing, or its ClusterIP not a usable IPv6 address (nothing applied)
  5  monitoring.coreos.com CRDs absent without --skip-monitoring (nothing applied)
  6  kube-dns-upstream got no ClusterIP within --timeout
  7  verify found a failure
"""


def parser() -> argparse.ArgumentParser:
    """The command-line interface."""
    cli = argparse.ArgumentParser(
        prog="deploy.py",
        description="Deploy NodeLocal DNSCache in apply order, or verify a live install.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    cli.add_argument(
        "command", nargs="?", choices=("deploy", "verify"), default="deploy", help="deploy (default) or verify"
    )
    cli.add_argument("--kubeconfig", help="kubeconfig file (default: $KUBECONFIG or ~/.kube/config)")
    cli.add_argument("--context", help="kubeconfig context (default: the current one)")
    mode = cli.add_mutually_exclusive_group()
    mode.add_argument("--dry-run", action="store_true", help="server-side dry run: nothing is persisted")
    mode.add_argument("--diff", action="store_true", help="show what would change per object; apply nothing")
    cli.add_argument(
        "--skip-monitoring",
        action="store_true",
        help="do not apply the PodMonitor and PrometheusRule (CRDs not installed)",
    )
    cli.add_argument(
        "--timeout",
        type=float,
        default=30.0,
        help="seconds to wait for kube-dns-upstream's ClusterIP and per API request (default: 30)",
    )
    return cli


def _api_error(error: ApiException) -> str:
    try:
        message = json.loads(error.body or "{}").get("message", "")
    except ValueError:
        message = error.body or ""
    return f"error: the API server answered {error.status} {error.reason}: {message}".rstrip(": ")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; return the exit code."""
    args = parser().parse_args(argv)
    if args.timeout <= 0:
        print(f"error: --timeout must be positive, got {args.timeout:g}", file=sys.stderr)
        return ExitCode.INVALID
    if args.command == "verify" and (args.dry_run or args.diff):
        print("error: --dry-run and --diff apply to deploy, not verify", file=sys.stderr)
        return ExitCode.INVALID
    try:
        client = load_client(args.kubeconfig, args.context, timeout=args.timeout)
        props = NodeLocalDNSProps()
        if args.command == "verify":
            results = verify(client, props)
            for result in results:
                print(format_result(result))
            failed = [r for r in results if r.status == "fail"]
            print(f"{len(results) - len(failed)} passed, {len(failed)} failed")
            return ExitCode.CHECKS_FAILED if failed else ExitCode.OK
        options = DeployOptions(
            dry_run=args.dry_run, diff=args.diff, skip_monitoring=args.skip_monitoring, timeout=args.timeout
        )
        report = deploy(client, props, options)
        for text in report.diffs.values():
            print(text)
        return ExitCode.OK
    except DeployError as error:
        print(f"error: {error}", file=sys.stderr)
        return error.exit_code
    except ApiException as error:
        print(_api_error(error), file=sys.stderr)
        return ExitCode.ERROR
