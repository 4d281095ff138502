"""The simulated cluster's processes beside the control plane: controllers, scheduler, kwok.

Each is a :class:`Component`: a :class:`~tests.harness.process.Process` run from the control
plane's cache with a kubeconfig of its own user, on a free loopback port, up once its
``/healthz`` answers ``ok``. kube-controller-manager runs the controllers of
:data:`CONTROLLERS`, kube-scheduler the default profile, kwok plays every kubelet with the
Stages of :mod:`tests.harness.kwokstages`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Final, Self

import yaml

from tests.fleet import KWOK_ANNOTATION
from tests.harness.controlplane import REPO_ROOT, ControlPlane
from tests.harness.health import http_ok, insecure_tls
from tests.harness.kwokstages import PodFate, kwok_stages
from tests.harness.process import Process, free_port, require_binary

__all__ = [
    "CLIENT_QPS",
    "CONTROLLERS",
    "CONTROLLER_MANAGER_USER",
    "KWOK_USER",
    "SCHEDULER_USER",
    "TTL_ANNOTATION",
    "Component",
    "ControllerManager",
    "Kwok",
    "Scheduler",
]

CONTROLLER_MANAGER_USER: Final = "system:kube-controller-manager"
SCHEDULER_USER: Final = "system:kube-scheduler"
KWOK_USER: Final = "kwok"

CONTROLLERS: Final = (
    "daemonset-controller",
    "garbage-collector-controller",
    "node-lifecycle-controller",
    "pod-garbage-collector-controller",
    "serviceaccount-controller",
    "ttl-controller",
)
"""The controllers a DaemonSet's life needs: its pods and rollouts, cascading deletion, the
taints of NotReady and cordoned nodes, pods of deleted nodes, default ServiceAccounts. The
TTL controller's node annotation is the sign that the controllers' shared node cache holds a
node (:meth:`tests.simcluster.SimulatedCluster.add_nodes` waits for it)."""

TTL_ANNOTATION: Final = "node.alpha.kubernetes.io/ttl"
"""The annotation the TTL controller puts on every node it has seen."""

CLIENT_QPS: Final = 200
"""Client rate of the controllers and the scheduler (defaults: 20 and 50). EKS runs them
faster than the defaults too; here it keeps a 700-node rollout about our tool, not about a
client-side rate limiter."""


class Component(Process):
    """One process of the simulated cluster, on ``control_plane``: its binary, port and health check.

    Subclasses say how to run the binary (:meth:`argv`); it is up once ``/healthz`` on its
    port answers ``ok``. Each start takes a new free port.
    """

    binary_name: ClassVar[str]
    health_over_tls: ClassVar[bool] = True
    """Whether ``/healthz`` is served over TLS (a self-signed certificate on loopback)."""

    start_attempts = 3

    def __init__(self, control_plane: ControlPlane, *, startup_timeout: float, stop_timeout: float) -> None:
        """Configure the component against ``control_plane``; nothing runs until :meth:`start`."""
        super().__init__(
            self.binary_name,
            control_plane.tmp_dir / f"{self.binary_name}.log",
            grace_period=stop_timeout,
            startup_timeout=startup_timeout,
        )
        self.control_plane = control_plane
        self.binary = control_plane.cache_dir / "bin" / self.binary_name
        self.workdir = control_plane.tmp_dir
        self.stop_timeout = stop_timeout
        self.port = 0

    def prepare(self, attempt: int) -> None:
        """A new free port for this start."""
        self.port = free_port()

    def healthy(self) -> bool:
        """``/healthz`` on its port answers ok: the process serves what the cluster needs from it."""
        if self.health_over_tls:
            return http_ok(f"https://127.0.0.1:{self.port}/healthz", body=b"ok", tls=insecure_tls())
        return http_ok(f"http://127.0.0.1:{self.port}/healthz", body=b"ok")

    def start(self, *, wait: bool = True, attempts: int | None = None) -> Self:
        """Start the process and wait until :meth:`healthy`; raise with its log if it exits or times out."""
        require_binary(
            self.binary,
            f"build it with `bash tools/build-binaries.sh {self.binary_name}` from {REPO_ROOT}",
            name=self.binary_name,
        )
        return super().start(wait=wait, attempts=attempts)


class ControllerManager(Component):
    """kube-controller-manager with the controllers of :data:`CONTROLLERS` (or those given), no leader election."""

    binary_name = "kube-controller-manager"

    def __init__(
        self, control_plane: ControlPlane, *, controllers: tuple[str, ...] = CONTROLLERS, **kwargs: Any
    ) -> None:
        """Run ``controllers`` (default :data:`CONTROLLERS`) against ``control_plane``."""
        super().__init__(control_plane, **kwargs)
        self.controllers = controllers

    def argv(self) -> list[str]:
        """The command line."""
        kubeconfig = self.control_plane.kubeconfig_for(CONTROLLER_MANAGER_USER)
        return [
            str(self.binary),
            f"--kubeconfig={kubeconfig}",
            f"--authentication-kubeconfig={kubeconfig}",
            f"--authorization-kubeconfig={kubeconfig}",
            f"--controllers={','.join(self.controllers)}",
            "--leader-elect=false",
            "--bind-address=127.0.0.1",
            f"--secure-port={self.port}",
            f"--cert-dir={self.workdir / 'kcm-certs'}",
            f"--kube-api-qps={CLIENT_QPS}",
            f"--kube-api-burst={2 * CLIENT_QPS}",
            # kwok sends no heartbeats (no leases, no status refresh: at 700 nodes they would
            # be most of the traffic); nodes are never presumed dead within a test run.
            "--node-monitor-grace-period=24h",
            "--node-startup-grace-period=24h",
            "--v=1",
        ]


class Scheduler(Component):
    """kube-scheduler with the default profile, no leader election."""

    binary_name = "kube-scheduler"

    def prepare(self, attempt: int) -> None:
        """A new port, and the config file holding the client rate and leader election."""
        super().prepare(attempt)
        self.config_path.write_text(
            yaml.safe_dump(
                {
                    "apiVersion": "kubescheduler.config.k8s.io/v1",
                    "kind": "KubeSchedulerConfiguration",
                    "clientConnection": {
                        "kubeconfig": str(self.control_plane.kubeconfig_for(SCHEDULER_USER)),
                        "qps": CLIENT_QPS,
                        "burst": 2 * CLIENT_QPS,
                    },
                    "leaderElection": {"leaderElect": False},
                }
            )
        )

    @property
    def config_path(self) -> Path:
        """The scheduler's ``--config``."""
        return self.workdir / "kube-scheduler.yaml"

    def argv(self) -> list[str]:
        """The command line; client rate and leader election live in its config file."""
        kubeconfig = self.control_plane.kubeconfig_for(SCHEDULER_USER)
        return [
            str(self.binary),
            f"--config={self.config_path}",
            f"--authentication-kubeconfig={kubeconfig}",
            f"--authorization-kubeconfig={kubeconfig}",
            "--bind-address=127.0.0.1",
            f"--secure-port={self.port}",
            f"--cert-dir={self.workdir / 'scheduler-certs'}",
            "--v=1",
        ]


class Kwok(Component):
    """kwok playing the kubelet of every node annotated ``kwok.x-k8s.io/node: fake``."""

    binary_name = "kwok"

    health_over_tls = False
    """kwok serves ``/healthz`` in plain HTTP, and only once its Stage controllers run."""

    def __init__(self, control_plane: ControlPlane, **kwargs: Any) -> None:
        """Run against ``control_plane`` as :data:`KWOK_USER`, with no fate set."""
        super().__init__(control_plane, **kwargs)
        self.fates: tuple[PodFate, ...] = ()

    @property
    def config_path(self) -> Path:
        """kwok's ``--config``: its options and every Stage."""
        return self.workdir / "kwok.yaml"

    def prepare(self, attempt: int) -> None:
        """A new port, and the config file with the Stages of :attr:`fates`."""
        super().prepare(attempt)
        configuration = {
            "apiVersion": "config.kwok.x-k8s.io/v1alpha1",
            "kind": "KwokConfiguration",
            "options": {
                "manageNodesWithAnnotationSelector": "=".join(KWOK_ANNOTATION),
                "serverAddress": f"127.0.0.1:{self.port}",
                "nodeIP": "fd00:ec2:1::1",
                "cidr": "fd00:ec2:2::/64",
                # kwok applies its defaults only to a configuration it makes itself.
                "podPlayStageParallelism": 4,
                "nodePlayStageParallelism": 4,
                "nodeLeaseParallelism": 4,
                "podsOnNodeSyncParallelism": 1,
                "enablePodsOnNodeSyncListPager": True,
                "enablePodsOnNodeSyncStreamWatch": False,
            },
        }
        self.config_path.write_text(yaml.safe_dump_all([configuration, *kwok_stages(self.fates)], sort_keys=False))

    def argv(self) -> list[str]:
        """The command line; the Stages are in its config file."""
        return [
            str(self.binary),
            f"--config={self.config_path}",
            f"--kubeconfig={self.control_plane.kubeconfig_for(KWOK_USER)}",
            # No node leases: their renewals would be most of a 700-node cluster's traffic.
            "--node-lease-duration-seconds=0",
        ]
