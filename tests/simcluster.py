"""A simulated cluster: the real control plane, controllers and scheduler, with kwok as every kubelet.

Why: the integration suite's :class:`~tests.controlplane.ControlPlane` stores objects and
nothing acts on them. Here the real kube-controller-manager (DaemonSet controller,
garbage collector, node lifecycle, pod GC, ServiceAccounts) and kube-scheduler, from the
same release as the API server, do what they do on EKS: create a DaemonSet's pods, roll
them out ``maxUnavailable`` at a time, place them where taints allow, delete a deleted
DaemonSet's pods. kwok (``sigs.k8s.io/kwok``) plays every kubelet: its nodes report
Ready (a NotReady node is created so and left alone), their pods go Running and Ready, or
fail as a test says (:class:`PodFate`), and a deleted pod goes away.

Each process is a :class:`~tests.harness.components.Component` (:mod:`tests.harness.components`);
:class:`SimulatedCluster` starts them in order on one control plane and resets them between
tests. All of it runs on loopback; nothing is mocked.

kwok reads its Stages (:mod:`tests.harness.kwokstages`) from a config file when it starts
(never from the API), so a health check answering means every Stage is in force; changing
the fates restarts kwok (about a second), which keeps "from now on, pods crash" exact.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from tests.fleet import FleetNode, node_manifest
from tests.harness.components import (
    CONTROLLER_MANAGER_USER,
    CONTROLLERS,
    KWOK_USER,
    SCHEDULER_USER,
    TTL_ANNOTATION,
    Component,
    ControllerManager,
    Kwok,
    Scheduler,
)
from tests.harness.controlplane import ControlPlane
from tests.harness.kwokstages import PodFate, kwok_stages
from tests.harness.process import wait_until
from tests.harness.stack import Stack

NOT_READY = "node.kubernetes.io/not-ready"
"""The taint the node lifecycle controller keeps on a node while it is not Ready."""

__all__ = [
    "CONTROLLER_MANAGER_USER",
    "KWOK_USER",
    "SCHEDULER_USER",
    "Component",
    "ControllerManager",
    "Kwok",
    "PodFate",
    "Scheduler",
    "SimulatedCluster",
    "kwok_stages",
]


class SimulatedCluster(Stack):
    """A control plane with controllers, a scheduler and kwok's simulated kubelets.

    Use as a context manager or call :meth:`start` / :meth:`stop` (a :class:`~tests.harness.stack.Stack`).
    :meth:`add_nodes` creates nodes (see :mod:`tests.fleet`); :meth:`set_pod_fates` says how
    their pods behave; :meth:`reset` returns to an empty cluster between tests.

    Parameters:
        cache_dir: Cache root holding the binaries (default as :class:`ControlPlane`).
        startup_timeout: Seconds to wait for each component to be healthy. Default: 60.
    """

    def __init__(
        self,
        *,
        cache_dir: Path | None = None,
        startup_timeout: float = 60.0,
        node_users: tuple[str, ...] = (),
        controllers: tuple[str, ...] = CONTROLLERS,
    ) -> None:
        """Configure the cluster; nothing runs until :meth:`start`.

        ``node_users`` are the users of real nodes' kubelets and kube-proxies
        (:mod:`tests.harness.node`), each with a kubeconfig of its own. ``controllers``: those
        kube-controller-manager runs (default :data:`~tests.harness.components.CONTROLLERS`).
        """
        super().__init__()
        self.control_plane = ControlPlane(
            cache_dir=cache_dir,
            startup_timeout=startup_timeout,
            component_users=(CONTROLLER_MANAGER_USER, SCHEDULER_USER, KWOK_USER, *node_users),
        )
        self.startup_timeout = startup_timeout
        self.controllers = controllers
        self.components: list[Component] = []

    @property
    def kwok(self) -> Kwok:
        """The simulated kubelets."""
        return next(c for c in self.components if isinstance(c, Kwok))

    @property
    def controller_manager(self) -> ControllerManager:
        """kube-controller-manager."""
        return next(c for c in self.components if isinstance(c, ControllerManager))

    def start_parts(self) -> None:
        """Start the control plane, then kube-controller-manager, kube-scheduler and kwok.

        They stop in the reverse order: kwok, the scheduler, the controllers, then the control plane.
        """
        self.enter_context(self.control_plane)
        options = {"startup_timeout": self.startup_timeout, "stop_timeout": 15.0}
        self.components = [
            ControllerManager(self.control_plane, controllers=self.controllers, **options),
            Scheduler(self.control_plane, **options),
            Kwok(self.control_plane, **options),
        ]
        self.at_close(self.components.clear)
        for component in self.components:
            self.start_process(component)

    # ----------------------------------------------------------------------- state --

    def reset(self, *, nodes: bool = True) -> None:
        """Return to an empty cluster: no fates, no DaemonSet, pod or node, no NodeLocal DNS object.

        ``nodes=False`` keeps the Nodes (real nodes' kubelets register only when they start).

        DaemonSets go first, with foreground deletion, and are waited for: the DaemonSet
        controller makes no pod for a DaemonSet being deleted, whereas one deleted at once
        may still get a pod from a controller a moment behind — a pod that the next test's
        node of the same name would then run.
        """
        self.set_pod_fates()
        rest = self.control_plane.fixture_api()
        collection = "/apis/apps/v1/namespaces/kube-system/daemonsets"
        for item in rest.items(collection):
            rest.request(
                "DELETE",
                f"{collection}/{item['metadata']['name']}",
                body={"apiVersion": "v1", "kind": "DeleteOptions", "propagationPolicy": "Foreground"},
                ok=(200, 202, 404),
            )
        wait_until(
            "DaemonSets and their pods to be deleted", lambda: not rest.items(collection), self.startup_timeout, 0.1
        )
        self.control_plane.reset(nodes=nodes)

    def restart_controllers(self) -> None:
        """Restart kube-controller-manager, the scheduler and kwok: what a control-plane restart restarts too.

        A test that restarts the API server calls this once it is back. Their informers back
        off on every failed watch, up to a minute after a few restarts in a row, and meanwhile
        see neither new nodes nor deletions: the next test's setup would wait on them.
        """
        for component in self.components:
            component.stop()
            component.start()

    def set_pod_fates(self, *fates: PodFate) -> None:
        """From now on, treat starting and stopping pods as ``fates`` say (none: every pod gets Ready, stops at once).

        Restarts kwok when the fates change; pods already running keep their state.
        """
        if tuple(fates) == self.kwok.fates:
            return
        self.kwok.stop()
        self.kwok.fates = tuple(fates)
        self.kwok.start()

    def add_nodes(self, nodes: Iterable[FleetNode]) -> None:
        """Create ``nodes`` and wait until each has settled as the DaemonSet controller will see it.

        A Ready node must report Ready and be rid of the node lifecycle controller's
        ``not-ready`` taint, which it puts on a node that registers before reporting Ready and
        lifts a moment later: a DaemonSet applied meanwhile does not count that node (its pods
        tolerate ``not-ready:NoExecute``, not ``NoSchedule``), and its ``desiredNumberScheduled``
        is short. A NotReady node must carry that ``NoSchedule`` taint: a DaemonSet applied
        right after would otherwise make it a pod that stays Pending, and counts against
        ``maxUnavailable`` in every later rollout. Each node must also carry the TTL
        controller's annotation: the controllers' shared node cache holds it.
        """
        rest = self.control_plane.fixture_api()
        wanted = {node.name: node for node in nodes}
        for node in wanted.values():
            rest.request("POST", "/api/v1/nodes", body=node_manifest(node))

        def settled() -> bool:
            done = 0
            for item in rest.items("/api/v1/nodes"):
                node = wanted.get(item["metadata"]["name"])
                if node is None:
                    continue
                ready = {c["type"]: c["status"] for c in item.get("status", {}).get("conditions") or []}.get("Ready")
                taints = {(t["key"], t["effect"]) for t in item.get("spec", {}).get("taints") or []}
                if TTL_ANNOTATION not in (item["metadata"].get("annotations") or {}):
                    continue
                if node.ready and ready == "True" and not any(key == NOT_READY for key, _ in taints):
                    done += 1
                elif not node.ready and ready == "False" and (NOT_READY, "NoSchedule") in taints:
                    done += 1
            return done == len(wanted)

        wait_until(f"{len(wanted)} node(s) to settle", settled, self.startup_timeout + len(wanted) / 10)

    def pods(self, namespace: str, selector: Mapping[str, str]) -> list[dict[str, Any]]:
        """The pods in ``namespace`` carrying every label of ``selector``."""
        query = ",".join(f"{key}={value}" for key, value in selector.items())
        return self.control_plane.fixture_api().items(f"/api/v1/namespaces/{namespace}/pods", labelSelector=query)

    def wait_for(self, what: str, check: Callable[[], bool], *, timeout: float = 60.0) -> None:
        """Poll ``check`` until true; fail naming ``what`` after ``timeout`` seconds."""
        wait_until(what, check, timeout, 0.1)
