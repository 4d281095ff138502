"""A simulated cluster: the real control plane, controllers and scheduler, with kwok as every kubelet.

Why: the integration suite's :class:`~tests.controlplane.ControlPlane` stores objects and
nothing acts on them. Here the real kube-controller-manager (DaemonSet controller,
garbage collector, node lifecycle, pod GC, ServiceAccounts) and kube-scheduler, from the
same release as the API server, do what they do on EKS: create a DaemonSet's pods, roll
them out ``maxUnavailable`` at a time, place them where taints allow, delete a deleted
DaemonSet's pods. kwok (``sigs.k8s.io/kwok``) plays every kubelet: its nodes report
Ready (a NotReady node is created so and left alone), their pods go Running and Ready, or
fail as a test says (:class:`PodFate`), and a deleted pod goes away.

Each process is a small :class:`Component` (arguments, health check, log file, start,
stop); :class:`SimulatedCluster` starts them in order on one control plane and resets
them between tests. All of it runs on loopback; nothing is mocked.

kwok reads its Stages from a config file when it starts (never from the API), so a
health check answering means every Stage is in force; changing the fates restarts kwok
(about a second), which keeps "from now on, pods crash" exact.
"""

from __future__ import annotations

import atexit
import json
import os
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, ClassVar, Final, Literal, Self

import yaml

from tests.controlplane import (
    REPO_ROOT,
    ControlPlane,
    _free_port,
    _terminate,
    _wait_for,
    spawn_logged,
    wait_started,
)
from tests.fleet import KWOK_ANNOTATION, NOT_READY_ANNOTATION, FleetNode, node_manifest

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
)
"""The controllers a DaemonSet's life needs: its pods and rollouts, cascading deletion, the
taints of NotReady and cordoned nodes, pods of deleted nodes, default ServiceAccounts."""

CLIENT_QPS: Final = 200
"""Client rate of the controllers and the scheduler (defaults: 20 and 50). EKS runs them
faster than the defaults too; here it keeps a 700-node rollout about our tool, not about a
client-side rate limiter."""

StartFate = Literal["ready", "crash-loop", "image-pull-backoff"]


class Component:
    """One process of the simulated cluster: its arguments, health check and log; start and stop.

    Subclasses say how to run the binary (:meth:`args`) and when it is up (:meth:`healthy`).
    """

    binary_name: ClassVar[str]
    health_over_tls: ClassVar[bool] = True
    """Whether ``/healthz`` is served over TLS (a self-signed certificate on loopback)."""

    def __init__(self, control_plane: ControlPlane, *, startup_timeout: float, stop_timeout: float) -> None:
        """Configure the component against ``control_plane``; nothing runs until :meth:`start`."""
        self.control_plane = control_plane
        self.binary = control_plane.cache_dir / "bin" / self.binary_name
        self.workdir = control_plane.tmp_dir
        self.startup_timeout = startup_timeout
        self.stop_timeout = stop_timeout
        self.port = 0
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def log_path(self) -> Path:
        """stdout and stderr of the process (appended across restarts)."""
        return self.workdir / f"{self.binary_name}.log"

    @property
    def running(self) -> bool:
        """True while the process is alive."""
        return self._process is not None and self._process.poll() is None

    def args(self) -> list[str]:
        """The command line, binary first."""
        raise NotImplementedError

    def healthy(self) -> bool:
        """``/healthz`` on its port answers ok: the process serves what the cluster needs from it."""
        if self.health_over_tls:
            return self._get(f"https://127.0.0.1:{self.port}/healthz", _insecure_tls())
        return self._get(f"http://127.0.0.1:{self.port}/healthz")

    def start(self) -> None:
        """Start the process and wait until :meth:`healthy`; raise with its log if it exits or times out."""
        if not (self.binary.is_file() and os.access(self.binary, os.X_OK)):
            raise RuntimeError(
                f"{self.binary_name} binary not found at {self.binary}; build it with "
                f"`bash tools/build-binaries.sh {self.binary_name}` from {REPO_ROOT}"
            )
        if self.running:
            return
        self.port = _free_port()
        self._process = spawn_logged(self.args(), self.log_path)
        wait_started(
            self._process,
            self.binary_name,
            self.log_path,
            self.healthy,
            timeout=self.startup_timeout,
            stop_timeout=self.stop_timeout,
        )

    def stop(self) -> None:
        """SIGTERM the process, SIGKILL it after ``stop_timeout``; safe when not running."""
        _terminate(self._process, self.stop_timeout)
        self._process = None

    def _get(self, url: str, context: ssl.SSLContext | None = None) -> bool:
        try:
            with urllib.request.urlopen(url, timeout=2.0, context=context) as response:
                return bool(response.status == 200 and response.read().strip() == b"ok")
        except (OSError, urllib.error.URLError):
            return False


def _insecure_tls() -> ssl.SSLContext:
    """TLS without verification, for the health endpoints' self-signed certificates on loopback."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


class ControllerManager(Component):
    """kube-controller-manager with the controllers of :data:`CONTROLLERS`, no leader election."""

    binary_name = "kube-controller-manager"

    def args(self) -> list[str]:
        """The command line."""
        kubeconfig = self.control_plane.kubeconfig_for(CONTROLLER_MANAGER_USER)
        return [
            str(self.binary),
            f"--kubeconfig={kubeconfig}",
            f"--authentication-kubeconfig={kubeconfig}",
            f"--authorization-kubeconfig={kubeconfig}",
            f"--controllers={','.join(CONTROLLERS)}",
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

    def args(self) -> list[str]:
        """The command line; client rate and leader election live in its config file."""
        kubeconfig = self.control_plane.kubeconfig_for(SCHEDULER_USER)
        config = self.workdir / "kube-scheduler.yaml"
        config.write_text(
            yaml.safe_dump(
                {
                    "apiVersion": "kubescheduler.config.k8s.io/v1",
                    "kind": "KubeSchedulerConfiguration",
                    "clientConnection": {"kubeconfig": str(kubeconfig), "qps": CLIENT_QPS, "burst": 2 * CLIENT_QPS},
                    "leaderElection": {"leaderElect": False},
                }
            )
        )
        return [
            str(self.binary),
            f"--config={config}",
            f"--authentication-kubeconfig={kubeconfig}",
            f"--authorization-kubeconfig={kubeconfig}",
            "--bind-address=127.0.0.1",
            f"--secure-port={self.port}",
            f"--cert-dir={self.workdir / 'scheduler-certs'}",
            "--v=1",
        ]


@dataclass(frozen=True, kw_only=True)
class PodFate:
    """How the simulated kubelets treat the pods it matches: what a test tells kwok.

    A pod matches when it is in ``namespace``, carries every label of ``labels`` and, when
    ``nodes`` is given, runs on one of them. Fates apply to pods that start (Pending) or
    stop (deleted) after they are set; pods already running keep their state.
    """

    labels: Mapping[str, str]
    namespace: str = "kube-system"
    nodes: tuple[str, ...] = ()
    start: StartFate = "ready"
    """``crash-loop``: the container exits at once, the pod never gets Ready (a Corefile
    CoreDNS rejects); ``image-pull-backoff``: the image cannot be pulled; ``ready``: as usual."""
    message: str = ""
    """What the container status says (``crash-loop``: its last error)."""
    containers: tuple[str, ...] = ()
    """The containers ``start`` befalls; the pod's others run and are ready (a failing
    sidecar). Empty: every container."""
    stop_seconds: float | None = 0.0
    """How long a deleted pod takes to go away (its SIGTERM cleanup); None: it never does."""

    def jq(self) -> str:
        """A JQ expression true for the pods this fate matches."""
        parts = [f".metadata.namespace == {json.dumps(self.namespace)}"]
        parts += [f".metadata.labels[{json.dumps(k)}] == {json.dumps(v)}" for k, v in self.labels.items()]
        if self.nodes:
            parts.append(f".spec.nodeName as $n | {json.dumps(list(self.nodes))} | any(.[]; . == $n)")
        return " and ".join(f"({part})" for part in parts)


_POD_PLACEMENT: Final = """
{{ $hostIPs := NodeIPsWith .spec.nodeName }}
{{ with $hostIPs }}
hostIP: {{ index . 0 | Quote }}
hostIPs:
{{ range . }}
- ip: {{ . | Quote }}
{{ end }}
{{ end }}
{{ $podIPs := PodIPsWith .spec.nodeName ( or .spec.hostNetwork false ) ( or .metadata.uid "" ) \
( or .metadata.name "" ) ( or .metadata.namespace "" ) }}
{{ with $podIPs }}
podIP: {{ index . 0 | Quote }}
podIPs:
{{ range . }}
- ip: {{ . | Quote }}
{{ end }}
{{ end }}
startTime: {{ $now | Quote }}
"""

_POD_READY: Final = (
    """{{ $now := Now }}
conditions:
- {lastTransitionTime: {{ $now | Quote }}, status: "True", type: Initialized}
- {lastTransitionTime: {{ $now | Quote }}, status: "True", type: Ready}
- {lastTransitionTime: {{ $now | Quote }}, status: "True", type: ContainersReady}
- {lastTransitionTime: {{ $now | Quote }}, status: "True", type: PodScheduled}
containerStatuses:
{{ range .spec.containers }}
- image: {{ .image | Quote }}
  name: {{ .name | Quote }}
  ready: true
  started: true
  restartCount: 0
  state:
    running:
      startedAt: {{ $now | Quote }}
{{ end }}
phase: Running
"""
    + _POD_PLACEMENT
)

_POD_NOT_READY: Final = """{{ $now := Now }}
conditions:
- {lastTransitionTime: {{ $now | Quote }}, status: "True", type: Initialized}
- {lastTransitionTime: {{ $now | Quote }}, status: "False", type: Ready, reason: ContainersNotReady}
- {lastTransitionTime: {{ $now | Quote }}, status: "False", type: ContainersReady, reason: ContainersNotReady}
- {lastTransitionTime: {{ $now | Quote }}, status: "True", type: PodScheduled}
containerStatuses:
{{ range .spec.containers }}
- image: {{ .image | Quote }}
  name: {{ .name | Quote }}
{{ if %(failing)s }}
  ready: false
  started: false
%(container)s
{{ else }}
  ready: true
  started: true
  restartCount: 0
  state:
    running:
      startedAt: {{ $now | Quote }}
{{ end }}
{{ end }}
phase: %(phase)s
"""

_CRASH_LOOP: Final = """  restartCount: 5
  state:
    waiting:
      reason: CrashLoopBackOff
      message: back-off 2m40s restarting failed container
  lastState:
    terminated:
      exitCode: 1
      reason: Error
      message: %(message)s
      startedAt: {{ $now | Quote }}
      finishedAt: {{ $now | Quote }}"""

_IMAGE_PULL: Final = """  restartCount: 0
  state:
    waiting:
      reason: ImagePullBackOff
      message: %(message)s"""

_NODE_REST: Final = """addresses:
{{ with NodeIP }}
- {address: {{ . | Quote }}, type: InternalIP}
{{ end }}
- {address: {{ .metadata.name | Quote }}, type: Hostname}
allocatable:
{{ with .status.allocatable }}
{{ YAML . 1 }}
{{ else }}
  cpu: 1k
  memory: 1Ti
  pods: 1M
{{ end }}
capacity:
{{ with .status.capacity }}
{{ YAML . 1 }}
{{ else }}
  cpu: 1k
  memory: 1Ti
  pods: 1M
{{ end }}
nodeInfo:
  architecture: amd64
  containerRuntimeVersion: containerd://2.1.4
  kernelVersion: 6.12.40-64.114.amzn2023.x86_64
  kubeletVersion: v1.34.4-kwok
  kubeProxyVersion: v1.34.4-kwok
  operatingSystem: linux
  osImage: Amazon Linux 2023.9.20250929
  bootID: ""
  machineID: ""
  systemUUID: ""
phase: Running
"""

_NODE_READY: Final = (
    """{{ $now := Now }}
conditions:
{{ range NodeConditions }}
- lastHeartbeatTime: {{ $now | Quote }}
  lastTransitionTime: {{ $now | Quote }}
  message: {{ .message | Quote }}
  reason: {{ .reason | Quote }}
  status: {{ .status | Quote }}
  type: {{ .type | Quote }}
{{ end }}
"""
    + _NODE_REST
)

_READY_CONDITION: Final = '.status.conditions.[] | select( .type == "Ready" ) | .status'


def _stage(name: str, kind: str, expressions: list[dict[str, Any]], next_: dict[str, Any]) -> dict[str, Any]:
    stage: dict[str, Any] = {
        "apiVersion": "kwok.x-k8s.io/v1alpha1",
        "kind": "Stage",
        "metadata": {"name": name},
        "spec": {"resourceRef": {"apiGroup": "v1", "kind": kind}, "selector": {"matchExpressions": expressions}},
    }
    delay = next_.pop("delay", None)
    if delay is not None:
        stage["spec"]["delay"] = delay
    stage["spec"]["next"] = next_
    return stage


def _is(expression: str, value: str = "true") -> dict[str, Any]:
    return {"key": expression, "operator": "In", "values": [value]}


def _none_of(fates: Sequence[PodFate]) -> list[dict[str, Any]]:
    if not fates:
        return []
    return [_is("(" + " or ".join(f"({fate.jq()})" for fate in fates) + ") | not")]


_PENDING: Final[list[dict[str, Any]]] = [
    {"key": ".metadata.deletionTimestamp", "operator": "DoesNotExist"},
    {"key": ".status.phase", "operator": "In", "values": ["Pending"]},
]
_DELETED: Final[list[dict[str, Any]]] = [{"key": ".metadata.deletionTimestamp", "operator": "Exists"}]


def kwok_stages(fates: Sequence[PodFate]) -> list[dict[str, Any]]:
    """Every Stage kwok plays: nodes get Ready (not NotReady ones); pods Ready or per ``fates``; deleted pods go.

    Selectors never overlap (kwok would pick among overlapping Stages at random): a pod
    matches the first fate that matches it, and the plain Stages only pods no fate takes.
    """
    stages = [
        _stage(
            "node-initialize",
            "Node",
            [
                {"key": _READY_CONDITION, "operator": "NotIn", "values": ["True"]},
                {"key": f'.metadata.annotations["{NOT_READY_ANNOTATION}"]', "operator": "DoesNotExist"},
            ],
            {"statusTemplate": _NODE_READY},
        ),
    ]
    starting = [fate for fate in fates if fate.start != "ready"]
    stages.append(
        _stage(
            "pod-ready",
            "Pod",
            [*_PENDING, {"key": _READY_CONDITION, "operator": "NotIn", "values": ["True"]}, *_none_of(starting)],
            {"statusTemplate": _POD_READY},
        )
    )
    for index, fate in enumerate(starting):
        container = (
            _CRASH_LOOP % {"message": json.dumps(fate.message or "exit status 1")}
            if fate.start == "crash-loop"
            else _IMAGE_PULL % {"message": json.dumps(fate.message or "Back-off pulling image")}
        )
        names = " ".join(json.dumps(name) for name in fate.containers)
        status = _POD_NOT_READY % {
            "failing": f"eq .name {names}" if fate.containers else "true",
            "container": container,
            "phase": "Running" if fate.start == "crash-loop" else "Pending",
        }
        stages.append(
            _stage(
                f"pod-{fate.start}-{index}",
                "Pod",
                [
                    *_PENDING,
                    {"key": ".status.containerStatuses", "operator": "DoesNotExist"},
                    _is(fate.jq()),
                    *_none_of(starting[:index]),
                ],
                {"statusTemplate": status + _POD_PLACEMENT.replace("startTime: {{ $now | Quote }}\n", "")},
            )
        )
    stopping = [fate for fate in fates if fate.stop_seconds != 0.0]
    stages.append(_stage("pod-delete", "Pod", [*_DELETED, *_none_of(stopping)], {"delete": True}))
    for index, fate in enumerate(stopping):
        if fate.stop_seconds is None:
            continue  # never goes away: no Stage deletes it
        delay = {"durationMilliseconds": int(fate.stop_seconds * 1000)}
        expressions = [*_DELETED, _is(fate.jq()), *_none_of(stopping[:index])]
        stages.append(_stage(f"pod-stop-{index}", "Pod", expressions, {"delete": True, "delay": delay}))
    return stages


class Kwok(Component):
    """kwok playing the kubelet of every node annotated ``kwok.x-k8s.io/node: fake``."""

    binary_name = "kwok"

    health_over_tls = False
    """kwok serves ``/healthz`` in plain HTTP, and only once its Stage controllers run."""

    def __init__(self, control_plane: ControlPlane, **kwargs: Any) -> None:
        """Run against ``control_plane`` as :data:`KWOK_USER`, with no fate set."""
        super().__init__(control_plane, **kwargs)
        self.fates: tuple[PodFate, ...] = ()

    def args(self) -> list[str]:
        """The command line; the Stages are in its config file."""
        config = self.workdir / "kwok.yaml"
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
        config.write_text(yaml.safe_dump_all([configuration, *kwok_stages(self.fates)], sort_keys=False))
        return [
            str(self.binary),
            f"--config={config}",
            f"--kubeconfig={self.control_plane.kubeconfig_for(KWOK_USER)}",
            # No node leases: their renewals would be most of a 700-node cluster's traffic.
            "--node-lease-duration-seconds=0",
        ]


class SimulatedCluster:
    """A control plane with controllers, a scheduler and kwok's simulated kubelets.

    Use as a context manager or call :meth:`start` / :meth:`stop`. :meth:`add_nodes`
    creates nodes (see :mod:`tests.fleet`); :meth:`set_pod_fates` says how their pods
    behave; :meth:`reset` returns to an empty cluster between tests.

    Parameters:
        cache_dir: Cache root holding the binaries (default as :class:`ControlPlane`).
        startup_timeout: Seconds to wait for each component to be healthy. Default: 60.
    """

    def __init__(self, *, cache_dir: Path | None = None, startup_timeout: float = 60.0) -> None:
        """Configure the cluster; nothing runs until :meth:`start`."""
        self.control_plane = ControlPlane(
            cache_dir=cache_dir,
            startup_timeout=startup_timeout,
            component_users=(CONTROLLER_MANAGER_USER, SCHEDULER_USER, KWOK_USER),
        )
        self.startup_timeout = startup_timeout
        self.components: list[Component] = []
        self.startup_seconds: float | None = None

    def __enter__(self) -> Self:
        """Start the cluster and return it."""
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        """Stop the cluster."""
        self.stop()

    @property
    def kwok(self) -> Kwok:
        """The simulated kubelets."""
        return next(c for c in self.components if isinstance(c, Kwok))

    @property
    def controller_manager(self) -> ControllerManager:
        """kube-controller-manager."""
        return next(c for c in self.components if isinstance(c, ControllerManager))

    def start(self) -> Self:
        """Start the control plane, then kube-controller-manager, kube-scheduler and kwok; return self."""
        began = time.monotonic()
        self.control_plane.start()
        atexit.register(self.stop)
        options = {"startup_timeout": self.startup_timeout, "stop_timeout": 15.0}
        try:
            self.components = [
                ControllerManager(self.control_plane, **options),
                Scheduler(self.control_plane, **options),
                Kwok(self.control_plane, **options),
            ]
            for component in self.components:
                component.start()
        except BaseException:
            self.stop()
            raise
        self.startup_seconds = time.monotonic() - began
        return self

    def stop(self) -> None:
        """Stop kwok, the scheduler, the controllers, then the control plane; safe to repeat."""
        atexit.unregister(self.stop)
        for component in reversed(self.components):
            component.stop()
        self.components = []
        self.control_plane.stop()

    # ----------------------------------------------------------------------- state --

    def reset(self) -> None:
        """Return to an empty cluster: no fates, no DaemonSet, pod or node, no NodeLocal DNS object.

        DaemonSets go first, with foreground deletion, and are waited for: the DaemonSet
        controller makes no pod for a DaemonSet being deleted, whereas one deleted at once
        may still get a pod from a controller a moment behind — a pod that the next test's
        node of the same name would then run.
        """
        self.set_pod_fates()
        rest = self.control_plane.fixture_api()
        collection = "/apis/apps/v1/namespaces/kube-system/daemonsets"
        for item in (rest.get(collection) or {}).get("items") or []:
            rest.request(
                "DELETE",
                f"{collection}/{item['metadata']['name']}",
                body={"apiVersion": "v1", "kind": "DeleteOptions", "propagationPolicy": "Foreground"},
                ok=(200, 202, 404),
            )
        _wait_for(
            "DaemonSets and their pods to be deleted",
            lambda: not (rest.get(collection) or {}).get("items"),
            timeout=self.startup_timeout,
            interval=0.1,
        )
        self.control_plane.reset()

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
        """Create ``nodes`` and wait until kwok reports each Ready or NotReady, and NotReady ones are tainted.

        Waiting for the ``not-ready:NoSchedule`` taint of NotReady nodes (DaemonSet pods
        tolerate the ``NoExecute`` one) keeps a DaemonSet applied right after from making a
        pod for such a node: that pod would stay Pending, and count against
        ``maxUnavailable`` in every later rollout.
        """
        rest = self.control_plane.fixture_api()
        wanted = {node.name: node for node in nodes}
        for node in wanted.values():
            rest.request("POST", "/api/v1/nodes", body=node_manifest(node))

        def settled() -> bool:
            listed = rest.get("/api/v1/nodes") or {}
            done = 0
            for item in listed.get("items") or []:
                node = wanted.get(item["metadata"]["name"])
                if node is None:
                    continue
                ready = {c["type"]: c["status"] for c in item.get("status", {}).get("conditions") or []}.get("Ready")
                taints = {(t["key"], t["effect"]) for t in item.get("spec", {}).get("taints") or []}
                if node.ready and ready == "True":
                    done += 1
                elif not node.ready and ready == "False" and ("node.kubernetes.io/not-ready", "NoSchedule") in taints:
                    done += 1
            return done == len(wanted)

        _wait_for(f"{len(wanted)} node(s) to settle", settled, timeout=self.startup_timeout + len(wanted) / 10)

    def pods(self, namespace: str, selector: Mapping[str, str]) -> list[dict[str, Any]]:
        """The pods in ``namespace`` carrying every label of ``selector``."""
        query = ",".join(f"{key}={value}" for key, value in selector.items())
        listed = self.control_plane.fixture_api().get(f"/api/v1/namespaces/{namespace}/pods", labelSelector=query)
        return list((listed or {}).get("items") or [])

    def wait_for(self, what: str, check: Callable[[], bool], *, timeout: float = 60.0) -> None:
        """Poll ``check`` until true; fail naming ``what`` after ``timeout`` seconds."""
        _wait_for(what, check, timeout=timeout, interval=0.1)
