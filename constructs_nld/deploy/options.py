"""What a run was asked to do, as typed values: parsed once from the command line, validated, then read-only.

The CLI (:mod:`constructs_nld.deploy.cli`) is the only module that sees ``argparse``: it
builds an :class:`Invocation` and hands it to :mod:`constructs_nld.deploy.runner`. The
commands take their own options class and nothing else of the command line. A program
that embeds the deploy builds these classes itself; each default is
:mod:`constructs_nld.defaults`'.

Timed waits are named, each with its own flag (``--timeout`` sets them all at once):

========================  =======================================================================
``api_timeout``           one API request, its retries included (``--api-timeout``)
``cluster_ip_timeout``    deploy: kube-dns-upstream getting its ClusterIP (``--clusterip-timeout``)
``restart_timeout``       deploy: the restart, while the DaemonSet keeps changing (``--restart-timeout``)
``lease_timeout``         deploy: the wait for another deploy of the cluster to finish (``--lease-timeout``)
``prometheus_timeout``    one Prometheus query (``--prometheus-timeout``)
``stall_after``           a rollout, uninstall or canary wait without progress (``--stall-after``)
========================  =======================================================================
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Literal

from constructs_nld import defaults
from constructs_nld.durations import duration_seconds

__all__ = [
    "HELM_DRIVERS",
    "OUTPUT_FORMATS",
    "SPEC_WINDOW",
    "CommandOptions",
    "Connection",
    "ConvertOptions",
    "CutoverOptions",
    "CutoverStep",
    "DeployOptions",
    "FleetOptions",
    "HelmDriver",
    "HistoryOptions",
    "Invocation",
    "OutputFormat",
    "ProgressMode",
    "PrometheusAuth",
    "RollbackOptions",
    "Selection",
    "SoakOptions",
    "UninstallOptions",
    "VerifyOptions",
    "check_release_name",
]

ProgressMode = Literal["plain", "tty", "auto"]

OutputFormat = Literal["text", "json"]
"""``-o``: lines for people, or one JSON document on standard output (:mod:`constructs_nld.deploy.documents`)."""

OUTPUT_FORMATS: Final[tuple[OutputFormat, ...]] = ("text", "json")

CutoverStep = Literal["start", "status", "promote", "rollback"]

SPEC_WINDOW: Final = duration_seconds("window", defaults.SOAK_WINDOW)
"""The spec's minimum soak, in seconds."""


HelmDriver = Literal["secret", "configmap"]
"""Helm's storage drivers that keep records in the cluster (``HELM_DRIVER``; ``secret`` is Helm's default)."""
HELM_DRIVERS: Final[tuple[HelmDriver, ...]] = ("secret", "configmap")
_RELEASE_NAME: Final = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def check_release_name(name: str) -> None:
    """Refuse a name Helm would not give a release: a DNS-1123 subdomain of at most 53 characters."""
    if not 0 < len(name) <= 53 or not _RELEASE_NAME.match(name):
        raise ValueError(
            f"adopt_helm_release: {name!r} is not a Helm release name "
            "(lowercase letters, digits, '-' and '.', at most 53 characters)"
        )


def _positive(prop: str, value: float) -> None:
    if not value > 0:
        raise ValueError(f"{prop}: must be a positive number of seconds, got {value!r}")


def _history_max(value: int) -> None:
    if value < 1:
        raise ValueError(f"history_max: must keep at least 1 revision, got {value!r}")


@dataclass(frozen=True, kw_only=True)
class Connection:
    """How to reach each cluster's API server."""

    kubeconfig: str | None = None
    """One kubeconfig file, alone.

    Default: - ``$KUBECONFIG`` (its files merged), else ``~/.kube/config``, else in-cluster.
    """

    api_timeout: float = defaults.DEPLOY_TIMEOUT
    """Seconds one API request may take, its retries included. Default: - ``DEPLOY_TIMEOUT``."""

    api_timeout_flag: str = "--timeout"
    """The flag the messages name when a request runs out of time: the one the user gave (``--timeout`` sets it too)."""

    qps: float = defaults.API_QPS
    """API requests a second, per cluster, after the burst. Default: - ``API_QPS``."""

    burst: int = defaults.API_BURST
    """API requests sent at once before ``qps`` paces them. Default: - ``API_BURST``."""

    def __post_init__(self) -> None:
        """Refuse a timeout or pacing that could never let a request through."""
        _positive("api_timeout", self.api_timeout)
        if not self.qps > 0:
            raise ValueError(f"qps: must be a positive number of requests per second, got {self.qps!r}")
        if self.burst < 1:
            raise ValueError(f"burst: must be at least 1, got {self.burst!r}")


@dataclass(frozen=True, kw_only=True)
class Selection:
    """Which clusters: the current context, named contexts, every context, or a ``clusters.yaml``."""

    contexts: tuple[str, ...] = ()
    """Contexts named with ``--context``; with ``contexts_from``, the file's entries to take.

    Default: - the current one.
    """

    all_contexts: bool = False
    """Every context of the kubeconfig."""

    contexts_from: str | None = None
    """A YAML file listing the clusters (:mod:`constructs_nld.deploy.targets`)."""


@dataclass(frozen=True, kw_only=True)
class FleetOptions:
    """How several clusters are worked on; one cluster ignores all but the check that it is one."""

    parallel: int = defaults.FLEET_PARALLEL
    """Clusters worked on at once. Default: - ``FLEET_PARALLEL``."""

    fail_fast: bool = False
    """Start no cluster after the first failure."""

    waves: str | None = None
    """``deploy`` only: the sizes of the waves (``1,rest``); each wave is deployed and verified before the next."""

    def __post_init__(self) -> None:
        """Refuse a fleet that could run no cluster."""
        if self.parallel < 1:
            raise ValueError(f"parallel: must be at least 1, got {self.parallel!r}")


@dataclass(frozen=True, kw_only=True)
class DeployOptions:
    """How to deploy."""

    dry_run: bool = False
    """Server-side dry run: every write is sent with ``dryRun=All`` and nothing persists."""

    diff: bool = False
    """Print what would change per object (and what would be pruned); write nothing."""

    skip_monitoring: bool = False
    """Leave out the prometheus-operator objects (their CRDs are not installed)."""

    cluster_ip_timeout: float = defaults.DEPLOY_TIMEOUT
    """Seconds to wait for the kube-dns-upstream ClusterIP. Default: - ``DEPLOY_TIMEOUT``."""

    restart_timeout: float = defaults.DEPLOY_TIMEOUT
    """Seconds the restart may be decided again while the DaemonSet keeps changing. Default: - ``DEPLOY_TIMEOUT``."""

    lease_timeout: float = defaults.DEPLOY_TIMEOUT
    """Seconds to wait while another deploy of the cluster holds its Lease. Default: - ``DEPLOY_TIMEOUT``."""

    poll_interval: float = defaults.CLUSTER_IP_POLL
    """Seconds between the first two reads while waiting for the ClusterIP (it grows while nothing changes)."""

    wait: bool = False
    """After applying, follow the DaemonSet's rollout until it completes, or stop when it stalls."""

    stall_after: float = defaults.STALL_AFTER
    """With ``wait``: seconds without progress after which the rollout counts as stalled."""

    rollout_poll_interval: float = 1.0
    """With ``wait``: seconds between the first two reads of the DaemonSet's status."""

    progress: ProgressMode = "auto"
    """With ``wait``: how the rollout is shown (:mod:`constructs_nld.deploy.progress`)."""

    history_max: int = defaults.HISTORY_MAX
    """Revisions the release history keeps after this one (:mod:`constructs_nld.deploy.history`).

    Default: - ``HISTORY_MAX``.
    """

    adopt_helm_release: str | None = None
    """The Helm release whose objects this deploy takes over in place (:mod:`constructs_nld.deploy.helm`).

    Without it, a deploy that finds an object of the app in a Helm release refuses. Default: - none.
    """

    helm_driver: HelmDriver = "secret"
    """Where that release's records are: Helm's ``HELM_DRIVER``, ``secret`` or ``configmap``. Default: - secret."""

    def __post_init__(self) -> None:
        """Refuse options that contradict each other."""
        if self.adopt_helm_release is not None:
            check_release_name(self.adopt_helm_release)
        if self.helm_driver not in HELM_DRIVERS:
            raise ValueError(f"helm_driver: must be one of {', '.join(HELM_DRIVERS)}, got {self.helm_driver!r}")
        if self.dry_run and self.diff:
            raise ValueError("dry_run: cannot be combined with diff, got both")
        if self.wait and (self.dry_run or self.diff):
            raise ValueError("wait: a dry run or a diff starts no rollout to wait for, got wait with one")
        _history_max(self.history_max)
        _positive("cluster_ip_timeout", self.cluster_ip_timeout)
        _positive("restart_timeout", self.restart_timeout)
        _positive("lease_timeout", self.lease_timeout)
        _positive("stall_after", self.stall_after)


@dataclass(frozen=True, kw_only=True)
class RollbackOptions(DeployOptions):
    """How to roll back: a deploy's options, and the revision whose objects it applies again."""

    revision: int | None = None
    """The revision to restore. Default: - the newest successful revision before the latest."""

    def __post_init__(self) -> None:
        """A deploy's refusals, and a revision number that could exist."""
        super().__post_init__()
        if self.revision is not None and self.revision < 1:
            raise ValueError(f"revision: must be a revision number (1 or more), got {self.revision!r}")


@dataclass(frozen=True, kw_only=True)
class HistoryOptions:
    """How to list the release history: nothing to choose yet, beside the clusters."""


@dataclass(frozen=True, kw_only=True)
class VerifyOptions:
    """What to verify."""

    uninstalled: bool = False
    """Check that an uninstall is complete instead: no object of the app's NodeLocal DNS, no node-cache pod."""

    junit: str | None = None
    """A file to write the checks to as JUnit XML, a testcase per check (:mod:`constructs_nld.deploy.junit`).

    Default: - none.
    """


@dataclass(frozen=True, kw_only=True)
class UninstallOptions:
    """How to uninstall."""

    stall_after: float = defaults.STALL_AFTER
    """Seconds without a node-cache pod going away after which the wait stops."""

    poll_interval: float = 1.0
    """Seconds between the first two reads of the remaining pods."""

    history_max: int = defaults.HISTORY_MAX
    """Revisions the release history keeps after this one. Default: - ``HISTORY_MAX``."""

    def __post_init__(self) -> None:
        """Refuse a window that could never be waited out."""
        _positive("stall_after", self.stall_after)
        _history_max(self.history_max)


@dataclass(frozen=True, kw_only=True)
class PrometheusAuth:
    """How to reach a Prometheus that asks for credentials, or whose certificate a private CA signs."""

    bearer_token_file: str | None = None
    """A file holding the bearer token (``--prometheus-bearer-token-file``), read at each query."""
    basic_auth_file: str | None = None
    """A file holding ``user:password`` on one line (``--prometheus-basic-auth-file``)."""
    ca_file: str | None = None
    """PEM CA bundle the server's certificate is checked against (``--prometheus-ca-file``). Default: - the system's."""

    @property
    def credentials(self) -> bool:
        """Whether a token or a password is sent."""
        return bool(self.bearer_token_file or self.basic_auth_file)


@dataclass(frozen=True, kw_only=True)
class SoakOptions:
    """How the soak looks: window, baseline, end, and where Prometheus is."""

    window: float = SPEC_WINDOW
    """Seconds of history judged, ending at ``end``. Default: - the spec's minimum soak (``SOAK_WINDOW``)."""

    baseline_window: float = duration_seconds("baseline_window", defaults.SOAK_BASELINE_WINDOW)
    """Seconds before node-cache's first scrape that make the CoreDNS baseline. Default: - ``SOAK_BASELINE_WINDOW``."""

    baseline_qps: float | None = None
    """Cluster CoreDNS QPS before NodeLocal DNS, when Prometheus no longer holds it. Default: - measured."""

    end: float | None = None
    """Unix time the window ends. Default: - now."""

    prometheus: str | None = None
    """Prometheus' URL; in a fleet ``{cluster}`` is each cluster's name. Default: - the clusters file's."""

    prometheus_timeout: float = defaults.DEPLOY_TIMEOUT
    """Seconds one Prometheus query may take. Default: - ``DEPLOY_TIMEOUT``."""

    prometheus_auth: PrometheusAuth = PrometheusAuth()
    """Prometheus' credentials and CA. Default: - none, the system's CAs."""

    coredns_job: str | None = None
    """The ``job`` label of cluster CoreDNS's series. Default: - ``<the PodMonitor's namespace>/coredns``."""


@dataclass(frozen=True, kw_only=True)
class CutoverOptions:
    """How a cutover step runs: the canary's choice (``start``), the gate (``status``, ``promote``), the waits."""

    step: CutoverStep = "status"
    """Which step of the cutover."""

    canary_nodes: int | None = None
    """How many canary nodes, spread over the pools. Default: - one node of every pool."""

    canary_selector: str = ""
    """A label selector of the nodes the canary is chosen among (all of them without ``canary_nodes``)."""

    window: float = SPEC_WINDOW
    """Seconds the canary must have run before its soak can pass. Default: - the spec's 3 days."""

    force: bool = False
    """``promote``: promote although the canary soak did not pass; recorded on the DaemonSet."""

    prometheus: str | None = None
    """``status``, ``promote``: Prometheus' URL (without it, the soak has not enough data)."""

    prometheus_timeout: float = defaults.DEPLOY_TIMEOUT
    """Seconds one Prometheus query may take."""

    prometheus_auth: PrometheusAuth = PrometheusAuth()
    """``status``, ``promote``: Prometheus' credentials and CA. Default: - none, the system's CAs."""

    cluster_ip_timeout: float = defaults.DEPLOY_TIMEOUT
    """``start``, ``promote``: seconds to wait for kube-dns-upstream's ClusterIP, as a deploy does."""

    restart_timeout: float = defaults.DEPLOY_TIMEOUT
    """``promote``: seconds the restart may be decided again, as a deploy does."""

    lease_timeout: float = defaults.DEPLOY_TIMEOUT
    """``promote``: seconds to wait while another deploy of the cluster holds its Lease, as a deploy does."""

    stall_after: float = defaults.STALL_AFTER
    """Seconds without a canary pod becoming ready (``start``) or the rollout progressing, after which it stops."""

    poll_interval: float = 1.0
    """Seconds between the first two reads of the pods or of the DaemonSet's status."""

    progress: ProgressMode = "auto"
    """``promote``, ``rollback``: how the rollout is shown."""

    history_max: int = defaults.HISTORY_MAX
    """``promote``: revisions the release history keeps after this one. Default: - ``HISTORY_MAX``."""

    def __post_init__(self) -> None:
        """Refuse a canary of no node and windows that could never be waited out."""
        if self.canary_nodes is not None and self.canary_nodes < 1:
            raise ValueError(f"canary_nodes: must be at least 1, got {self.canary_nodes}")
        _history_max(self.history_max)
        _positive("window", self.window)
        _positive("stall_after", self.stall_after)


@dataclass(frozen=True, kw_only=True)
class ConvertOptions:
    """What to convert: another deployer's values file, into this library's values (a file, or standard output)."""

    deployer: Literal["deliveryhero"] = "deliveryhero"
    """Whose values: ``deliveryhero``, the deliveryhero ``node-local-dns`` Helm chart's."""

    values: str
    """The values file to read."""

    output: str | None = None
    """The file to write the values to, only once the conversion succeeded. Default: - standard output."""


CommandOptions = (
    DeployOptions
    | VerifyOptions
    | UninstallOptions
    | SoakOptions
    | CutoverOptions
    | HistoryOptions
    | RollbackOptions
    | ConvertOptions
)
"""The options of one command."""


@dataclass(frozen=True, kw_only=True)
class Invocation:
    """One run of the CLI: the command with its options, the app, the clusters and how to reach them."""

    command: str
    """``deploy``, ``verify``, ``uninstall``, ``soak``, ``cutover``, ``history``, ``rollback`` or ``convert``."""

    options: CommandOptions
    """The command's own options."""

    app: str | None = None
    """The cdk8s app command. Default: - the ``app:`` of ``./cdk8s.yaml``, as ``cdk8s synth`` runs it."""

    values: tuple[str, ...] = ()
    """Values files layered over the app's props (``--values``), in order. Default: - none."""

    sets: tuple[str, ...] = ()
    """``key.path=value`` strings applied after them (``--set``), in order. Default: - none."""

    connection: Connection = Connection()
    selection: Selection = Selection()
    fleet: FleetOptions = FleetOptions()
    output: OutputFormat = "text"
    """``json``: standard output carries one JSON document only, the lines go to standard error. Default: - text."""
