"""How each command runs: its options, validated, with the defaults of :mod:`constructs_nld.defaults`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from constructs_nld import defaults
from constructs_nld.durations import duration_seconds

__all__ = ["SPEC_WINDOW", "CutoverOptions", "DeployOptions", "ProgressMode", "SoakOptions", "UninstallOptions"]

ProgressMode = Literal["plain", "tty", "auto"]

SPEC_WINDOW: Final = duration_seconds("window", defaults.SOAK_WINDOW)
"""The spec's minimum soak, in seconds."""


def _positive(prop: str, value: float) -> None:
    if not value > 0:
        raise ValueError(f"{prop}: must be a positive number of seconds, got {value!r}")


@dataclass(frozen=True, kw_only=True)
class DeployOptions:
    """How to deploy."""

    dry_run: bool = False
    """Server-side dry run: every write is sent with ``dryRun=All`` and nothing persists."""

    diff: bool = False
    """Print what would change per object (and what would be pruned); write nothing."""

    skip_monitoring: bool = False
    """Leave out the prometheus-operator objects (their CRDs are not installed)."""

    timeout: float = defaults.DEPLOY_TIMEOUT
    """Seconds to wait for the kube-dns-upstream ClusterIP, and for the restart while the DaemonSet keeps changing."""

    poll_interval: float = 0.2
    """Seconds between polls while waiting for the ClusterIP."""

    wait: bool = False
    """After applying, follow the DaemonSet's rollout until it completes, or stop when it stalls."""

    stall_after: float = defaults.STALL_AFTER
    """With ``wait``: seconds without progress after which the rollout counts as stalled."""

    rollout_poll_interval: float = 1.0
    """With ``wait``: seconds between two reads of the DaemonSet's status."""

    def __post_init__(self) -> None:
        """Refuse options that contradict each other."""
        if self.dry_run and self.diff:
            raise ValueError("dry_run: cannot be combined with diff, got both")
        if self.wait and (self.dry_run or self.diff):
            raise ValueError("wait: a dry run or a diff starts no rollout to wait for, got wait with one")
        _positive("stall_after", self.stall_after)


@dataclass(frozen=True, kw_only=True)
class UninstallOptions:
    """How to uninstall."""

    stall_after: float = defaults.STALL_AFTER
    """Seconds without a node-cache pod going away after which the wait stops."""

    poll_interval: float = 1.0
    """Seconds between two reads of the remaining pods."""

    def __post_init__(self) -> None:
        """Refuse a window that could never be waited out."""
        _positive("stall_after", self.stall_after)


@dataclass(frozen=True, kw_only=True)
class SoakOptions:
    """How the soak looks: window, baseline, end."""

    window: float = SPEC_WINDOW
    """Seconds of history judged, ending at ``end``. Default: - the spec's minimum soak (``SOAK_WINDOW``)."""

    baseline_window: float = duration_seconds("baseline_window", defaults.SOAK_BASELINE_WINDOW)
    """Seconds before node-cache's first scrape that make the CoreDNS baseline. Default: - ``SOAK_BASELINE_WINDOW``."""

    baseline_qps: float | None = None
    """Cluster CoreDNS QPS before NodeLocal DNS, when Prometheus no longer holds it. Default: - measured."""

    end: float | None = None
    """Unix time the window ends. Default: - now."""


@dataclass(frozen=True, kw_only=True)
class CutoverOptions:
    """How a cutover step runs: the canary's choice (``start``), the gate (``status``, ``promote``), the waits."""

    canary_nodes: int | None = None
    """How many canary nodes, spread over the pools. Default: - one node of every pool."""

    canary_selector: str = ""
    """A label selector of the nodes the canary is chosen among (all of them without ``canary_nodes``)."""

    window: float = SPEC_WINDOW
    """Seconds the canary must have run before its soak can pass. Default: - the spec's 3 days."""

    force: bool = False
    """``promote``: promote although the canary soak did not pass; recorded on the DaemonSet."""

    timeout: float = defaults.DEPLOY_TIMEOUT
    """Seconds per API request, and for kube-dns-upstream's ClusterIP."""

    stall_after: float = defaults.STALL_AFTER
    """Seconds without a canary pod becoming ready (``start``) or the rollout progressing, after which it stops."""

    poll_interval: float = 1.0
    """Seconds between two reads of the pods or of the DaemonSet's status."""

    def __post_init__(self) -> None:
        """Refuse a canary of no node and windows that could never be waited out."""
        if self.canary_nodes is not None and self.canary_nodes < 1:
            raise ValueError(f"canary_nodes: must be at least 1, got {self.canary_nodes}")
        _positive("window", self.window)
        _positive("stall_after", self.stall_after)
