"""The Stages kwok plays as every kubelet of the simulated cluster, and the pod fates a test sets.

Pure data: :func:`kwok_stages` turns :class:`PodFate` s into kwok ``Stage`` objects — nodes get
Ready (not those annotated NotReady) and keep the addresses they were created with, pods Ready
or crash-looping or stuck pulling their image as a fate says, deleted pods go away (at once,
after a delay, or never). kwok reads them from its config file when it starts (:class:`tests.harness.components.Kwok`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from tests.fleet import NOT_READY_ANNOTATION

__all__ = ["PodFate", "StartFate", "kwok_stages"]

StartFate = Literal["ready", "crash-loop", "image-pull-backoff"]


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
{{ with .status.addresses }}
{{ YAML . 1 }}
{{ else }}
{{ with NodeIP }}
- {address: {{ . | Quote }}, type: InternalIP}
{{ end }}
- {address: {{ .metadata.name | Quote }}, type: Hostname}
{{ end }}
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
