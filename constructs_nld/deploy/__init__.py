"""Cluster operations on the user's cdk8s app: deploy (and follow the rollout), verify, soak, uninstall, cutover.

Separate from synthesis: it runs the app as ``cdk8s synth`` does (:mod:`.source`), once per
cluster (:mod:`.session`), finds NodeLocal DNS in it by its labels (:mod:`.component`), and
talks to the cluster through a small client (:mod:`.kube`); ``soak`` asks Prometheus instead
(:mod:`.promapi`). Each command is a module of :mod:`.commands`, and none imports another; the
runner (:mod:`.runner`) runs one on a list of clusters, one cluster being a fleet of one.

The names below load on first use (PEP 562), so the CLI in this package starts without
the kubernetes client.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from constructs_nld.lazy import lazy_names

if TYPE_CHECKING:
    from constructs_nld.deploy.canary import CanaryPod, CanaryReport
    from constructs_nld.deploy.checks import CheckResult, format_result
    from constructs_nld.deploy.commands.cutover import promote, rollback, start, status
    from constructs_nld.deploy.commands.deploy import deploy
    from constructs_nld.deploy.commands.soak import SoakReport, format_report, soak
    from constructs_nld.deploy.commands.uninstall import UninstallReport, uninstall
    from constructs_nld.deploy.commands.verify import verify, verify_uninstalled
    from constructs_nld.deploy.component import Component, locate
    from constructs_nld.deploy.cutover import CanaryNode, CutoverState
    from constructs_nld.deploy.errors import DeployError
    from constructs_nld.deploy.exitcodes import ExitCode
    from constructs_nld.deploy.kube import FIELD_MANAGER, KubeClient, ObjectRef
    from constructs_nld.deploy.kubeconfig import load_client
    from constructs_nld.deploy.options import (
        CutoverOptions,
        DeployOptions,
        SoakOptions,
        UninstallOptions,
        VerifyOptions,
    )
    from constructs_nld.deploy.promapi import PrometheusAPI, PrometheusError
    from constructs_nld.deploy.rollout import RolloutReport, RolloutStatus
    from constructs_nld.deploy.session import Session, open_session
    from constructs_nld.deploy.source import AppChart, AppCommand, AppSource, props_source
    from constructs_nld.deploy.steps import DeployReport, ObjectResult

_HOMES: dict[str, tuple[str, ...]] = {
    "constructs_nld.deploy.checks": ("CheckResult", "format_result"),
    "constructs_nld.deploy.canary": ("CanaryPod", "CanaryReport"),
    "constructs_nld.deploy.commands.cutover": ("promote", "rollback", "start", "status"),
    "constructs_nld.deploy.commands.deploy": ("deploy",),
    "constructs_nld.deploy.commands.soak": ("SoakReport", "format_report", "soak"),
    "constructs_nld.deploy.commands.uninstall": ("UninstallReport", "uninstall"),
    "constructs_nld.deploy.commands.verify": ("verify", "verify_uninstalled"),
    "constructs_nld.deploy.component": ("Component", "locate"),
    "constructs_nld.deploy.cutover": ("CanaryNode", "CutoverState"),
    "constructs_nld.deploy.errors": ("DeployError",),
    "constructs_nld.deploy.exitcodes": ("ExitCode",),
    "constructs_nld.deploy.kube": ("FIELD_MANAGER", "KubeClient", "ObjectRef"),
    "constructs_nld.deploy.kubeconfig": ("load_client",),
    "constructs_nld.deploy.options": (
        "CutoverOptions",
        "DeployOptions",
        "SoakOptions",
        "UninstallOptions",
        "VerifyOptions",
    ),
    "constructs_nld.deploy.promapi": ("PrometheusAPI", "PrometheusError"),
    "constructs_nld.deploy.rollout": ("RolloutReport", "RolloutStatus"),
    "constructs_nld.deploy.session": ("Session", "open_session"),
    "constructs_nld.deploy.source": ("AppChart", "AppCommand", "AppSource", "props_source"),
    "constructs_nld.deploy.steps": ("DeployReport", "ObjectResult"),
}

__all__ = [
    "FIELD_MANAGER",
    "AppChart",
    "AppCommand",
    "AppSource",
    "CanaryNode",
    "CanaryPod",
    "CanaryReport",
    "CheckResult",
    "Component",
    "CutoverOptions",
    "CutoverState",
    "DeployError",
    "DeployOptions",
    "DeployReport",
    "ExitCode",
    "KubeClient",
    "ObjectRef",
    "ObjectResult",
    "PrometheusAPI",
    "PrometheusError",
    "RolloutReport",
    "RolloutStatus",
    "Session",
    "SoakOptions",
    "SoakReport",
    "UninstallOptions",
    "UninstallReport",
    "VerifyOptions",
    "deploy",
    "format_report",
    "format_result",
    "load_client",
    "locate",
    "open_session",
    "promote",
    "props_source",
    "rollback",
    "soak",
    "start",
    "status",
    "uninstall",
    "verify",
    "verify_uninstalled",
]


__getattr__, __dir__ = lazy_names("constructs_nld.deploy", _HOMES, globals())
