"""``deploy --wait``: follow the DaemonSet's rollout to the end, or stop when it stalls.

A DaemonSet rolls ``maxUnavailable`` pods at a time: the controller deletes old pods,
creates new ones, and takes the next batch when those are available. The rollout is
complete when the controller has seen the current template and every scheduled pod is
updated and available (what ``kubectl rollout status`` waits for). With ``updateStrategy:
OnDelete`` no pod is replaced until someone deletes it, so the wait ends once the controller
has seen the template and every pod is available, and says how many run it.

**Stall detection.** Progress is a pod becoming updated-and-available, read from the
DaemonSet's status as a new high of ``updatedNumberScheduled + numberAvailable`` (taking a
batch down and starting its replacements does not raise it; the replacements becoming
available does), or a change the controller reports about the rollout itself (a new
generation observed, nodes joining or leaving). The rollout stalls when there has been no
progress for ``stall_after`` seconds: new pods never become ready (a Corefile node-cache
rejects, an image that cannot be pulled), or the controller is not running. A slow rollout
that keeps progressing is never stopped, whatever its length. The default window
(:data:`~constructs_nld.defaults.STALL_AFTER`) is several times what a batch
takes when a cold node lazily pulls the image through the registry cache.

The status is polled (one GET of the DaemonSet per interval): a rollout of hundreds of
nodes costs one small request a second while it moves, and nothing is left to reconnect.
While the status stays the same the interval grows, up to
:data:`~constructs_nld.defaults.POLL_BACKOFF_CAP`, never past the moment the rollout would count
as stalled (:func:`~constructs_nld.deploy.wait.wait_for`, every command's one wait). A *wave* is an observed rise of
the updated count: a batch the controller started (at the poll interval, batches that start
between two polls count as one). Once a wave has completed, the waves' pace gives the time
left (:mod:`constructs_nld.deploy.eta`), which the progress display shows.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from constructs_nld.defaults import STALL_AFTER
from constructs_nld.deploy.errors import DeployError, StalledError
from constructs_nld.deploy.eta import RolloutEstimate
from constructs_nld.deploy.kube import KubeClient, Manifest, ObjectRef
from constructs_nld.deploy.manifest import is_ready, not_ready_reasons, selector, target_node
from constructs_nld.deploy.program import hint
from constructs_nld.deploy.wait import Poll, wait_for

__all__ = [
    "Progress",
    "RolloutReport",
    "RolloutStatus",
    "RolloutTracker",
    "follow_rollout",
    "not_ready_pods",
    "rollback_advice",
]

_LISTED_PODS: Final = 5


@dataclass(frozen=True)
class RolloutStatus:
    """What the DaemonSet controller reports about a rollout."""

    generation: int
    observed_generation: int
    desired: int
    updated: int
    ready: int
    available: int
    unavailable: int
    on_delete: bool = False
    """``updateStrategy: OnDelete``: pods take a new template only when deleted, so none is waited for."""

    @classmethod
    def of(cls, daemon_set: Mapping[str, Any]) -> RolloutStatus:
        """Read the status of a live DaemonSet."""
        status = daemon_set.get("status") or {}
        strategy = ((daemon_set.get("spec") or {}).get("updateStrategy") or {}).get("type")
        desired = int(status.get("desiredNumberScheduled", 0))
        available = int(status.get("numberAvailable", 0))
        return cls(
            generation=int(daemon_set["metadata"].get("generation", 0)),
            observed_generation=int(status.get("observedGeneration", 0)),
            desired=desired,
            updated=int(status.get("updatedNumberScheduled", 0)),
            ready=int(status.get("numberReady", 0)),
            available=available,
            unavailable=int(status.get("numberUnavailable", desired - available)),
            on_delete=strategy == "OnDelete",
        )

    @property
    def observed(self) -> bool:
        """The controller has seen the current pod template."""
        return self.observed_generation >= self.generation

    @property
    def complete(self) -> bool:
        """Every scheduled pod runs the current template and is available (with OnDelete: is available)."""
        updated = self.on_delete or self.updated >= self.desired
        return self.observed and updated and self.available >= self.desired

    def __str__(self) -> str:
        """``updated 14/700, ready 693/700, unavailable 7``, saying when the counts are of an older template."""
        lag = "" if self.observed else f"generation {self.generation} not yet observed; "
        return (
            f"{lag}updated {self.updated}/{self.desired}, ready {self.ready}/{self.desired}, "
            f"unavailable {self.unavailable}"
        )


@dataclass
class RolloutTracker:
    """Progress, waves and stalls of one rollout, from successive statuses (pure: no I/O, no clock)."""

    stall_after: float
    started: float
    waves: int = 0
    max_unavailable: int = 0
    last_progress: float = field(init=False)
    _key: tuple[int, int, int] | None = field(default=None, init=False)
    _best: int = field(default=-1, init=False)
    _updated: int = field(default=0, init=False)
    estimate: RolloutEstimate = field(default_factory=RolloutEstimate, init=False)
    """The time left, from the waves seen."""

    def __post_init__(self) -> None:
        """The stall window starts with the wait."""
        self.last_progress = self.started

    def observe(self, status: RolloutStatus, now: float) -> None:
        """Take one status read at ``now``."""
        key = (status.generation, status.observed_generation, status.desired)
        mark = status.updated + status.available
        if self._key is not None and status.updated > self._updated:
            self.waves += 1
        if key != self._key:
            if self._key is not None:
                self.last_progress = now
            self._key, self._best = key, mark
        elif mark > self._best:
            self._best, self.last_progress = mark, now
        self._updated = status.updated
        self.max_unavailable = max(self.max_unavailable, status.unavailable)
        self.estimate.observe(now, status.updated, status.desired)

    def left(self, now: float) -> float | None:
        """Seconds the rollout has left at ``now``, from the waves seen; None before one has completed."""
        return self.estimate.left(now)

    def idle(self, now: float) -> float:
        """Seconds since the last progress."""
        return now - self.last_progress

    def stalled(self, now: float) -> bool:
        """No progress for ``stall_after`` seconds."""
        return self.idle(now) >= self.stall_after


@dataclass(frozen=True)
class RolloutReport:
    """How a followed rollout went."""

    seconds: float
    waves: int
    max_unavailable: int
    status: RolloutStatus
    polls: int


class Progress(Protocol):
    """Shows a rollout while it is followed (see :mod:`constructs_nld.deploy.progress`)."""

    def update(
        self, ref: ObjectRef, status: RolloutStatus, tracker: RolloutTracker, *, elapsed: float, idle: float
    ) -> None:
        """Show one status read, ``elapsed`` seconds into the wait and ``idle`` seconds since the last progress."""

    def finish(self, line: str) -> None:
        """End the display with a closing line."""


def not_ready_pods(pods: list[Manifest]) -> str:
    """The newest pods that are not ready, with their node and why: ``pod on node (CrashLoopBackOff: …)``."""
    waiting = sorted(
        (pod for pod in pods if not is_ready(pod) and not pod["metadata"].get("deletionTimestamp")),
        key=lambda pod: str(pod["metadata"].get("creationTimestamp", "")),
        reverse=True,
    )
    listed = [
        f"{pod['metadata']['name']} on {target_node(pod) or 'no node'} "
        f"({'; '.join(not_ready_reasons(pod, detail=True)) or 'not ready'})"
        for pod in waiting[:_LISTED_PODS]
    ]
    if len(waiting) > _LISTED_PODS:
        listed.append(f"{len(waiting) - _LISTED_PODS} more")
    return ", ".join(listed) or "none listed"


def rollback_advice(ref: ObjectRef) -> str:
    """How to roll back a rollout that stalled, in one line."""
    return (
        f"to roll back, run {hint('rollback --wait')} (the previous revision of the release history), or restore "
        f"the previous version of your app (e.g. git revert) and run {hint('--wait')}: either reapplies the "
        "previous Corefile and pod template together "
        f"('kubectl rollout undo daemonset/{ref.name} -n {ref.namespace}' restores the pod template only, "
        "not the ConfigMap)"
    )


def follow_rollout(
    client: KubeClient,
    ref: ObjectRef,
    progress: Progress,
    *,
    stall_after: float = STALL_AFTER,
    poll_interval: float = 1.0,
) -> RolloutReport:
    """Poll the DaemonSet ``ref`` until its rollout completes; raise :class:`StalledError` when it stalls.

    The stall message names the newest pods that are not ready, with their node and
    reason, and says how to roll back.
    """
    tracker = RolloutTracker(stall_after=stall_after, started=0.0)
    read: list[tuple[float, Manifest, RolloutStatus]] = []

    def poll(now: float) -> Poll:
        daemon_set = client.get(ref)
        if daemon_set is None:
            raise DeployError(f"{ref} was deleted while its rollout was followed")
        status = RolloutStatus.of(daemon_set)
        if not read:
            tracker.started = tracker.last_progress = now
        changed = not read or read[-1][2] != status
        before = tracker.last_progress
        tracker.observe(status, now)
        read.append((now, daemon_set, status))
        progress.update(ref, status, tracker, elapsed=now - tracker.started, idle=tracker.idle(now))
        return Poll(done=status.complete, changed=changed, progressed=tracker.last_progress != before)

    def stalled(_: float) -> StalledError:
        at, daemon_set, status = read[-1]
        progress.finish(f"rollout stalled after {at - tracker.started:.1f}s: {status}")
        if not status.observed:
            why = (
                f"the DaemonSet controller has not observed generation {status.generation} "
                f"(observed {status.observed_generation}) for {stall_after:g}s: is kube-controller-manager running?"
            )
        else:
            match = selector(daemon_set["spec"]["selector"]["matchLabels"])
            pods = client.list("v1", "Pod", ref.namespace, label_selector=match)
            why = f"no pod became ready for {stall_after:g}s ({status}); not ready: {not_ready_pods(pods)}"
        return StalledError(f"rollout of {ref} stalled: {why}\n  {rollback_advice(ref)}")

    seconds = wait_for(poll, interval=poll_interval, stall_after=stall_after, stalled=stalled)
    status = read[-1][2]
    report = RolloutReport(seconds, tracker.waves, tracker.max_unavailable, status, len(read))
    if status.on_delete and status.updated < status.desired:
        progress.finish(
            f"OnDelete: {status.updated}/{status.desired} pods run the current template, all available; "
            "the others take it when they are deleted (kubectl delete pod, node by node)"
        )
    elif status.desired == 0:
        progress.finish(
            f"rollout complete in {report.seconds:.1f}s, but no node runs node-cache: the DaemonSet schedules "
            "no pod (nodes tainted beyond the tolerations, or outside its node selector or affinity?); "
            "verify names the nodes it leaves out"
        )
    else:
        progress.finish(
            f"rollout complete in {report.seconds:.1f}s: {status.updated}/{status.desired} pods updated "
            f"and available; {report.waves} wave(s) observed, at most {report.max_unavailable} unavailable"
        )
    return report
