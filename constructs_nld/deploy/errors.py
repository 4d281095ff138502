"""Why a deploy or a verify stopped, each with its documented exit code."""

from __future__ import annotations

from enum import IntEnum

__all__ = [
    "ApiUnreachableError",
    "ClusterIPError",
    "DeployError",
    "ExitCode",
    "InvalidConfigError",
    "KubeconfigError",
    "MonitoringUnavailableError",
    "PreconditionError",
    "StalledError",
    "WaitTimeoutError",
]


class ExitCode(IntEnum):
    """Exit codes of ``deploy.py`` (documented in the README)."""

    OK = 0
    """Done; for ``verify``, every check passed."""

    ERROR = 1
    """The API server (or, for ``soak``, Prometheus) refused a request or could not be reached."""

    INVALID = 2
    """Bad arguments, kubeconfig, app or props, or output that still holds a placeholder: nothing applied."""

    PRECONDITION = 3
    """kube-dns-upstream exists with a foreign selector: nothing applied."""

    CLUSTER_IP = 4
    """kube-dns is missing or its ClusterIP is not a usable IPv6 address: nothing applied."""

    NO_MONITORING = 5
    """The monitoring.coreos.com CRDs are absent and --skip-monitoring was not given: nothing applied."""

    TIMEOUT = 6
    """kube-dns-upstream got no ClusterIP within --timeout."""

    CHECKS_FAILED = 7
    """``verify`` found at least one failure."""

    SOAK_FAILED = 8
    """``soak``: a signal failed (setup errors, unavailability outside rollouts, CoreDNS QPS, restarts)."""

    SOAK_NO_DATA = 9
    """``soak``: no signal failed, but at least one lacks the data (or the rollout) to pass."""

    STALLED = 10
    """A wait made no progress for ``--stall-after`` seconds: ``deploy --wait``'s rollout (new pods
    never became ready) or ``uninstall``'s pods (they never went away)."""


class DeployError(Exception):
    """A deploy or verify stopped; the message says why and what to do."""

    exit_code: ExitCode = ExitCode.ERROR


class ApiUnreachableError(DeployError):
    """The API server could not be reached (or the kubeconfig not loaded)."""


class InvalidConfigError(DeployError):
    """Props or synthesized output are not fit to apply."""

    exit_code = ExitCode.INVALID


class KubeconfigError(DeployError):
    """The kubeconfig is missing or malformed, or lacks the context asked for."""

    exit_code = ExitCode.INVALID


class PreconditionError(DeployError):
    """A live object conflicts with what the deploy would write."""

    exit_code = ExitCode.PRECONDITION


class ClusterIPError(DeployError):
    """The kube-dns ClusterIP cannot be used."""

    exit_code = ExitCode.CLUSTER_IP


class MonitoringUnavailableError(DeployError):
    """The prometheus-operator CRDs are not installed."""

    exit_code = ExitCode.NO_MONITORING


class WaitTimeoutError(DeployError):
    """A condition the deploy waits for did not come true in time."""

    exit_code = ExitCode.TIMEOUT


class StalledError(DeployError):
    """A rollout or a removal made no progress for the stall window; the message says why and what to do."""

    exit_code = ExitCode.STALLED
