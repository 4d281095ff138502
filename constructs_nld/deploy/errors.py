"""Why a command stopped, each with its exit code (:mod:`constructs_nld.deploy.exitcodes` documents them)."""

from __future__ import annotations

from constructs_nld.deploy.exitcodes import ExitCode

__all__ = [
    "AdmissionError",
    "ApiUnreachableError",
    "ClusterIPError",
    "CutoverError",
    "DeployError",
    "ForbiddenError",
    "GateError",
    "InvalidConfigError",
    "KubeconfigError",
    "MalformedAnswerError",
    "MonitoringUnavailableError",
    "PreconditionError",
    "StalledError",
    "StoppedError",
    "ThrottledError",
    "WaitTimeoutError",
    "printable",
]


class DeployError(Exception):
    """A deploy or verify stopped; the message says why and what to do."""

    exit_code: ExitCode = ExitCode.ERROR


class ApiUnreachableError(DeployError):
    """The API server could not be reached (or the kubeconfig not loaded)."""


class MalformedAnswerError(DeployError):
    """A server answered with something that is not what its API returns (not JSON, the wrong shape, too large)."""


class StoppedError(DeployError):
    """SIGINT or SIGTERM asked the command to stop: it stopped between two requests."""

    def __init__(self, signal_name: str, exit_code: ExitCode) -> None:
        """The signal, and its exit code (128 + its number, as a shell reports it)."""
        super().__init__(f"stopped by {signal_name} between two requests: every write made was whole; rerun to go on")
        self.exit_code = exit_code


class InvalidConfigError(DeployError):
    """Props or synthesized output are not fit to apply."""

    exit_code = ExitCode.INVALID


class KubeconfigError(DeployError):
    """The kubeconfig is missing or malformed, or lacks the context asked for."""

    exit_code = ExitCode.INVALID


class PreconditionError(DeployError):
    """A live object conflicts with what the deploy would write."""

    exit_code = ExitCode.PRECONDITION


class AdmissionError(PreconditionError):
    """The API server's admission refuses an object in a dry run (a policy, a webhook, a quota): nothing applied."""


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


class ForbiddenError(DeployError):
    """The kubeconfig's user lacks a permission the command needs (checked before its first write)."""

    exit_code = ExitCode.FORBIDDEN


class CutoverError(DeployError):
    """A cutover is in progress where none may be (a deploy, a second start), or none is where one must be."""

    exit_code = ExitCode.CUTOVER


class GateError(DeployError):
    """``cutover promote`` refused: the canary soak did not pass; the exit code is the soak's verdict's."""

    def __init__(self, message: str, exit_code: ExitCode) -> None:
        """The refusal, and the code of the verdict that caused it."""
        super().__init__(message)
        self.exit_code = exit_code


class ThrottledError(DeployError):
    """The API server kept answering "come back later" (429, 503) for longer than ``--timeout``.

    Like every interruption, it leaves what a rerun continues: each write is whole or not made.
    """

    exit_code = ExitCode.THROTTLED


def printable(text: str) -> str:
    """``text`` with every control character (a newline, an escape sequence) escaped: one line, as sent."""
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)
