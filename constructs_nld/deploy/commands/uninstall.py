"""``uninstall``: remove the app's NodeLocal DNS from a cluster without breaking any node's DNS.

It reads the same app as ``deploy`` and ``verify`` (:mod:`constructs_nld.deploy.source`)
and removes exactly the NodeLocal DNS objects :func:`~constructs_nld.deploy.component.locate`
finds in it — never the app's other charts, never kube-dns — in the order that keeps
every node resolving, which is the apply order's phases reversed
(:data:`~constructs_nld.roles.PHASES`), the DaemonSet first:

1. read which of them are live; refuse, before any write, while ``kube-dns-upstream``
   selects something else than the app's Service (the deploy's precondition: a stale or
   foreign install); with nothing live, stop: there is nothing to do;
2. the DaemonSet first, with foreground deletion, then wait until its pods are gone: on
   SIGTERM node-cache removes its NOTRACK rules and its interface, so each node falls
   back to the kube-dns ClusterIP as its pod stops, while ``kube-dns-upstream`` (where the
   remaining pods forward) and the Corefile are still there;
3. the rest, phase by phase in reverse (monitoring, the workload's ConfigMaps and
   ServiceAccount, the Services), then the ApplySet parent once no member of it is left.

The wait in step 2 stops with :class:`~constructs_nld.deploy.errors.StalledError` when no
pod has gone away for ``stall_after`` seconds; nothing of step 3 is deleted then, and a
rerun continues where it stopped. ``verify --uninstalled`` confirms nothing is left.

An uninstall that deletes something records a revision in the release history
(:mod:`constructs_nld.deploy.history`), which it keeps: ``rollback`` can put back what was
deployed before.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from constructs_nld.deploy.access import check_access, served_refs
from constructs_nld.deploy.applyset import ApplySet
from constructs_nld.deploy.command import Command, Outcome, reads
from constructs_nld.deploy.component import Component
from constructs_nld.deploy.cutover import state_of, summary
from constructs_nld.deploy.errors import StalledError
from constructs_nld.deploy.history import Recorder
from constructs_nld.deploy.kube import KubeClient, Manifest, ObjectRef
from constructs_nld.deploy.options import UninstallOptions
from constructs_nld.deploy.program import hint
from constructs_nld.deploy.session import Session
from constructs_nld.deploy.wait import Poll, wait_for
from constructs_nld.roles import PHASES, ROLES, Role

__all__ = ["COMMAND", "UninstallReport", "run", "uninstall"]

_STEPS: Final = 3


@dataclass
class UninstallReport:
    """What an uninstall did, for callers and tests."""

    deleted: list[ObjectRef] = field(default_factory=list)
    """Objects deleted by this run, in order."""

    pods_waited_for: int = 0
    """node-cache pods that were still there when the DaemonSet was deleted."""

    seconds_waiting: float = 0.0


def _owned_by_daemon_set(pod: Mapping[str, Any], name: str) -> bool:
    owners = pod.get("metadata", {}).get("ownerReferences") or []
    return any(o.get("kind") == "DaemonSet" and o.get("name") == name and o.get("controller") for o in owners)


class _Uninstall:
    def __init__(
        self,
        client: KubeClient,
        component: Component,
        options: UninstallOptions,
        out: Callable[[str], None],
        recorder: Recorder | None = None,
    ) -> None:
        self.client = client
        self.component = component
        self.options = options
        self.out = out
        self.recorder = recorder
        self.report = UninstallReport()

    def live_objects(self, refs: list[ObjectRef]) -> list[tuple[ObjectRef, Manifest]]:
        """Those of ``refs`` (the served objects, in apply order) that exist, with their live manifests."""
        found: list[tuple[ObjectRef, Manifest]] = []
        for ref in refs:
            live = self.client.get(ref)
            if live is not None:
                found.append((ref, live))
        return found

    def delete(self, ref: ObjectRef, live: Manifest, propagation: str = "Background") -> None:
        if self.client.delete(ref, uid=live["metadata"].get("uid"), propagation=propagation) is not None:
            self.report.deleted.append(ref)

    def pods(self) -> list[Manifest]:
        return self.client.list_metadata(
            "v1", "Pod", self.component.namespace, label_selector=self.component.pod_selector
        )

    def remove_daemon_set(self, ref: ObjectRef, live: Manifest | None) -> None:
        """Step 2: delete the DaemonSet (foreground) and wait until none of its pods is left."""
        name = ref.name
        state = state_of(live)
        if state is not None:
            self.out(f"[2/{_STEPS}] ending the cutover of {ref} ({summary(state)}): its state goes with the DaemonSet")
        if live is not None and not live["metadata"].get("deletionTimestamp"):
            self.delete(ref, live, propagation="Foreground")
        what = "deleted" if ref in self.report.deleted else ("being deleted" if live is not None else "already gone")
        pods = self.pods()
        self.report.pods_waited_for = len(pods)
        self.out(
            f"[2/{_STEPS}] {ref} {what}; waiting for {len(pods)} node-cache pod(s) to stop "
            "(on SIGTERM node-cache removes its rules: each node falls back to kube-dns)"
        )
        gone = live is None
        remaining = len(pods)
        read: list[tuple[float, list[Manifest]]] = []

        def poll(now: float) -> Poll:
            nonlocal gone, remaining
            left = self.pods() if read else pods
            read.append((now, left))
            if not left:
                return Poll(done=True)
            gone = gone or self.client.get(ref) is None
            if gone:
                # The DaemonSet is gone: a pod it no longer controls (orphaned) would keep
                # intercepting with nothing to forward to once the Services go; stop it too.
                for pod in left:
                    if not pod["metadata"].get("deletionTimestamp") and not _owned_by_daemon_set(pod, name):
                        pod_ref = ObjectRef("v1", "Pod", self.component.namespace, pod["metadata"]["name"])
                        self.delete(pod_ref, pod)
            progressed = len(left) < remaining
            if progressed:
                remaining = len(left)
                self.out(f"[2/{_STEPS}] {len(left)} pod(s) left after {now - read[0][0]:.1f}s")
            return Poll(progressed=progressed)

        def stalled(_: float) -> StalledError:
            left = read[-1][1]
            names = ", ".join(sorted(p["metadata"]["name"] for p in left)[:5])
            return StalledError(
                f"{len(left)} node-cache pod(s) did not go away for {self.options.stall_after:g}s ({names}): "
                f"their nodes may be down or their cleanup hangs; nothing else was deleted. See "
                f"'kubectl describe pod -n {self.component.namespace} -l {self.component.pod_selector}', "
                f"then rerun {hint('uninstall')} to continue"
            )

        self.report.seconds_waiting = wait_for(
            poll, interval=self.options.poll_interval, stall_after=self.options.stall_after, stalled=stalled
        )
        self.out(f"[2/{_STEPS}] every node-cache pod is gone ({self.report.seconds_waiting:.1f}s)")

    def remove_parent(self) -> str:
        """Delete the ApplySet parent once nothing belongs to it; otherwise say what still does."""
        applyset = ApplySet(self.component.namespace)
        parent = self.client.get(applyset.ref)
        if parent is None:
            return ""
        kinds, namespaces = ApplySet.recorded(parent)
        left = applyset.live_members(self.client, kinds, namespaces)
        if left:
            return f"; kept {applyset.ref}: {len(left)} object(s) of the app's other charts still belong to it"
        self.delete(applyset.ref, parent)
        return ""

    def run(self) -> UninstallReport:
        upstream_ref = ObjectRef.of(self.component.upstream_service)
        daemon_set_ref = ObjectRef.of(self.component.daemon_set)
        refs = served_refs(self.client, self.component)
        check_access(self.client, "uninstall", refs, namespace=self.component.namespace)
        if self.recorder is not None:
            self.recorder.read()  # a malformed history refuses before anything is deleted
        live = self.live_objects(refs)
        by_ref = dict(live)
        self.component.check_upstream(by_ref.get(upstream_ref), refusing="to remove it")
        total = len(self.component.objects())
        pods = [] if daemon_set_ref in by_ref else self.pods()
        if not live and not pods:
            self.out(f"[1/{_STEPS}] none of the app's {total} NodeLocal DNS object(s) is installed: nothing to do")
            self.remove_parent()
            return self.report
        self.out(f"[1/{_STEPS}] {len(live)} of the app's {total} NodeLocal DNS object(s) installed")
        self.remove_daemon_set(daemon_set_ref, by_ref.get(daemon_set_ref))
        rest = [
            (ref, obj)
            for phase in reversed(PHASES)
            for ref, obj in reversed(live)
            if ref != daemon_set_ref and ROLES[self._role(ref)].phase == phase
        ]
        for ref, obj in rest:
            self.delete(ref, obj)
        deleted = [str(ref) for ref, _ in rest if ref in self.report.deleted]
        kept = self.remove_parent()
        self.out(f"[3/{_STEPS}] deleted: {', '.join(deleted) or 'nothing else was left'}{kept}")
        self.out(f"uninstalled; {hint('verify --uninstalled')} checks that nothing is left")
        return self.report

    def _role(self, ref: ObjectRef) -> Role:
        role = self.component.role(ref)
        assert role is not None  # every object of live_objects() is one of the component's
        return role


def uninstall(session: Session, options: UninstallOptions | None = None) -> UninstallReport:
    """Remove the NodeLocal DNS objects of the session's app; one line per step to the session's output.

    The app is synthesized with the live kube-dns ClusterIP when there is a usable one (a
    preview otherwise): which objects to remove does not depend on it. Raises a
    :class:`~constructs_nld.deploy.errors.DeployError` (``PreconditionError`` before any
    write, ``ForbiddenError`` before any write when the user lacks a permission it needs,
    ``StalledError`` when the pods do not go away) or ``ApiException``.
    """
    return _Uninstall(session.kube, session.component, options or UninstallOptions(), session.out).run()


def run(session: Session, options: UninstallOptions) -> Outcome:
    """``uninstall`` on one cluster, recorded once it deletes: whether anything was installed, how much it deleted."""
    recorder = Recorder.of(session, "uninstall", options.history_max, charts=())
    removal = _Uninstall(session.kube, session.component, options, session.out, recorder)
    with recorder.recording(lambda: bool(removal.report.deleted)):
        removal.run()
    deleted = len(removal.report.deleted)
    return Outcome("uninstalled" if deleted else "nothing installed", changed=deleted)


COMMAND: Final = Command(UninstallOptions, run, reads("installed"))
