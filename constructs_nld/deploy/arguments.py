"""Each command's options, read from its parsed command line: one place for one cluster and for a fleet.

:mod:`constructs_nld.deploy.cli` runs a command on one cluster, :mod:`constructs_nld.deploy.fleetcli`
on each of a fleet; both take the command's options from here, so that a flag means the same
in both.
"""

from __future__ import annotations

import argparse

from constructs_nld.defaults import STALL_AFTER
from constructs_nld.deploy.options import SPEC_WINDOW, CutoverOptions, DeployOptions, SoakOptions, UninstallOptions

__all__ = ["cutover_options", "deploy_options", "soak_options", "stall_after", "uninstall_options"]


def stall_after(args: argparse.Namespace) -> float:
    """``--stall-after``, or its default where the command has it unset (or has no such flag)."""
    return float(getattr(args, "stall_after", None) or STALL_AFTER)


def deploy_options(args: argparse.Namespace) -> DeployOptions:
    """``deploy``'s options."""
    return DeployOptions(
        dry_run=args.dry_run,
        diff=args.diff,
        skip_monitoring=args.skip_monitoring,
        timeout=args.timeout,
        wait=args.wait,
        stall_after=stall_after(args),
    )


def uninstall_options(args: argparse.Namespace) -> UninstallOptions:
    """``uninstall``'s options."""
    return UninstallOptions(stall_after=stall_after(args))


def soak_options(args: argparse.Namespace) -> SoakOptions:
    """``soak``'s options."""
    return SoakOptions(window=args.window, baseline_window=args.baseline_window, baseline_qps=args.baseline_qps)


def cutover_options(args: argparse.Namespace) -> CutoverOptions:
    """The options of the ``cutover`` step ``args.step``: each step has its own flags, the others keep defaults."""
    return CutoverOptions(
        canary_nodes=getattr(args, "canary_nodes", None),
        canary_selector=getattr(args, "canary_selector", ""),
        window=getattr(args, "window", None) or SPEC_WINDOW,
        force=getattr(args, "force", False),
        timeout=args.timeout,
        stall_after=stall_after(args),
    )
