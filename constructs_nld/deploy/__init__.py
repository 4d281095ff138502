"""Cluster operations on the user's cdk8s app: deploy (and follow the rollout), verify, soak, uninstall.

Separate from synthesis: it runs the app as ``cdk8s synth`` does (:mod:`.source`), finds
NodeLocal DNS in it (:mod:`.component`), and talks to the cluster through a small client
(:mod:`.kube`); ``soak`` asks Prometheus instead (:mod:`.promapi`).
"""

from __future__ import annotations

from constructs_nld.deploy.component import Component, locate
from constructs_nld.deploy.deployer import DeployOptions, DeployReport, ObjectResult, deploy
from constructs_nld.deploy.errors import DeployError, ExitCode
from constructs_nld.deploy.kube import FIELD_MANAGER, KubeClient, ObjectRef, load_client
from constructs_nld.deploy.promapi import PrometheusAPI, PrometheusError
from constructs_nld.deploy.rollout import RolloutReport, RolloutStatus
from constructs_nld.deploy.soak import SoakOptions, SoakReport, format_report, soak, soak_app
from constructs_nld.deploy.source import AppChart, AppCommand, AppSource, props_source
from constructs_nld.deploy.uninstall import UninstallOptions, UninstallReport, uninstall
from constructs_nld.deploy.verify import CheckResult, format_result, verify, verify_uninstalled

__all__ = [
    "FIELD_MANAGER",
    "AppChart",
    "AppCommand",
    "AppSource",
    "CheckResult",
    "Component",
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
    "SoakOptions",
    "SoakReport",
    "UninstallOptions",
    "UninstallReport",
    "deploy",
    "format_report",
    "format_result",
    "load_client",
    "locate",
    "props_source",
    "soak",
    "soak_app",
    "uninstall",
    "verify",
    "verify_uninstalled",
]
