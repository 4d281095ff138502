"""Cluster operations: resolve the kube-dns ClusterIP, apply the charts in order, restart, verify.

Separate from synthesis: it takes synthesized objects and a client, and holds the
apply order as data.
"""

from __future__ import annotations

from constructs_nld.deploy.deployer import APPLY_ORDER, DeployOptions, DeployReport, ObjectResult, deploy
from constructs_nld.deploy.errors import DeployError, ExitCode
from constructs_nld.deploy.kube import FIELD_MANAGER, KubeClient, ObjectRef, load_client
from constructs_nld.deploy.verify import CheckResult, format_result, verify

__all__ = [
    "APPLY_ORDER",
    "FIELD_MANAGER",
    "CheckResult",
    "DeployError",
    "DeployOptions",
    "DeployReport",
    "ExitCode",
    "KubeClient",
    "ObjectRef",
    "ObjectResult",
    "deploy",
    "format_result",
    "load_client",
    "verify",
]
