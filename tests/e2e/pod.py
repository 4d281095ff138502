"""The node-local-dns pod of the test bed's node: node-cache, and in the fallthrough mode the rule keeper.

:class:`RuleKeeper` runs the synthesized ``keeper`` container as kubelet would:
its ``command`` from the synth, the ``node-local-dns-keeper`` ConfigMap projected at its
mount in kubelet's layout, the image's ``PATH``, its securityContext (``setpriv``), in the
node's network namespace. Nothing of it is retyped: the script and the rules are the
ConfigMap's. The only substitutions are paths — the mount relocated into the test's
directory — and the tools: ``/bin/sh`` and ``ip6tables*`` are Debian 12's dash and
iptables 1.8.9, the same programs of the same Debian release the image ships (README,
"What the node-cache image contains"). ``backend="legacy"`` puts ``ip6tables``,
``ip6tables-save`` and ``ip6tables-restore`` on ``PATH`` as links to
``xtables-legacy-multi``, as the image's iptables-wrapper links them on a legacy node.

:class:`NodeLocalDNSPod` starts the pod's containers in the spec's order and stops them
together, as kubelet does on a pod deletion.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import count
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from constructs_nld import NodeLocalDNSProps
from tests.e2e.netns import Testbed
from tests.e2e.nodecache import (
    CONTAINER_PATH,
    ContainerProcess,
    NodeCache,
    Security,
    config_map_volumes,
    node_cache_container,
    synthesized_objects,
    write_config_map,
)
from tests.harness.process import wait_until

__all__ = ["Backend", "KeeperContainer", "NodeLocalDNSPod", "RuleKeeper", "keeper_container"]

Backend = Literal["nft", "legacy"]
"""Which ip6tables the image's iptables-wrapper would pick on the node."""

LEGACY_LINKS = ("ip6tables", "ip6tables-save", "ip6tables-restore")
"""What the iptables-wrapper relinks to ``xtables-<mode>-multi`` at its first run."""
LEGACY_MULTI = "/usr/sbin/xtables-legacy-multi"


@dataclass(frozen=True, kw_only=True)
class KeeperContainer:
    """The synthesized keeper container, as kubelet reads it."""

    command: tuple[str, ...]
    readiness: tuple[str, ...]
    """The readiness probe's exec command."""
    volumes: Mapping[str, Mapping[str, str]]
    security: Security
    grace_period: int


def keeper_container(props: NodeLocalDNSProps) -> KeeperContainer | None:
    """The keeper container of the synth of ``props``, or None when the synth has none (the spec's mode)."""
    objects = synthesized_objects(props)
    (daemon_set,) = [o for o in objects if o["kind"] == "DaemonSet"]
    pod: dict[str, Any] = daemon_set["spec"]["template"]["spec"]
    node_cache = node_cache_container(pod)
    others = [c for c in pod["containers"] if c != node_cache]
    if not others:
        return None
    (container,) = others
    return KeeperContainer(
        command=tuple(container["command"]),
        readiness=tuple(container["readinessProbe"]["exec"]["command"]),
        volumes=config_map_volumes(objects, pod, container),
        security=Security.of(container),
        grace_period=int(pod["terminationGracePeriodSeconds"]),
    )


_instances = count()


class RuleKeeper(ContainerProcess):
    """The fallthrough keeper container on the test bed's node: start, stop, kill, its readiness probe."""

    def __init__(self, bed: Testbed, container: KeeperContainer, *, backend: Backend = "nft") -> None:
        """Project the container's ConfigMap volumes; nothing runs until :meth:`start`."""
        super().__init__("the keeper", bed.workdir / f"keeper-{next(_instances)}", container.grace_period)
        self.bed = bed
        self.container = container
        self._probe_output = ""
        self.volumes_dir = self.directory / "volumes"
        for mount, files in container.volumes.items():
            write_config_map(self._relocate(mount), files)
        self.path = CONTAINER_PATH
        if backend == "legacy":
            links = self.directory / "legacy-bin"
            links.mkdir(parents=True)
            for name in LEGACY_LINKS:
                (links / name).symlink_to(LEGACY_MULTI)
            self.path = f"{links}:{CONTAINER_PATH}"
        bed.at_close(self.close)

    def _relocate(self, path: str) -> Path:
        pure = PurePosixPath(path)
        for mount in self.container.volumes:
            if pure.is_relative_to(mount):
                return self.volumes_dir / PurePosixPath(mount).relative_to("/") / pure.relative_to(mount)
        return Path(path)

    def in_container(self, command: tuple[str, ...]) -> list[str]:
        """``command`` as the node runs it in the container: paths in its volumes relocated, its securityContext."""
        return self.bed.node.argv(*self.container.security.wrap([str(self._relocate(word)) for word in command]))

    def argv(self) -> list[str]:
        """The container's ``command``."""
        return self.in_container(self.container.command)

    def environment(self) -> Mapping[str, str]:
        """Only the image's ``PATH``."""
        return {"PATH": self.path}

    def check(self) -> tuple[bool, str]:
        """Run the readiness probe's command once, as kubelet execs it in the container: (ready, its output)."""
        result = subprocess.run(
            self.in_container(self.container.readiness),
            env={"PATH": self.path},
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        return result.returncode == 0, result.stdout + result.stderr

    def healthy(self) -> bool:
        """The readiness probe passes."""
        ready, self._probe_output = self.check()
        return ready

    def wait_ready(self, timeout: float = 20) -> None:
        """Wait until the readiness probe passes while the container runs."""
        wait_until("the keeper to be ready", self.healthy, timeout, watch=(self,), detail=lambda: self._probe_output)


class NodeLocalDNSPod:
    """The pod of the synth of ``props`` on the test bed's node: node-cache, and the keeper in the fallthrough mode."""

    def __init__(self, bed: Testbed, props: NodeLocalDNSProps, *, binary: Path, backend: Backend = "nft") -> None:
        """Plan both containers from the synth; nothing starts until :meth:`start`."""
        self.node_cache = NodeCache(bed, props, binary=binary)
        container = keeper_container(props)
        self.keeper = RuleKeeper(bed, container, backend=backend) if container is not None else None

    def start(self) -> None:
        """Start the containers in the pod spec's order (node-cache first), as kubelet does, without waiting."""
        self.node_cache.start()
        if self.keeper is not None:
            self.keeper.start()

    def wait_ready(self) -> None:
        """node-cache serving, and its rules in place: the keeper's (ready) or its own."""
        if self.keeper is None:
            self.node_cache.wait_ready()
            return
        self.node_cache.wait_serving()
        self.keeper.wait_ready()

    def stop(self) -> tuple[int, int | None]:
        """A pod deletion: SIGTERM to every container at once, each waited for; the exit codes."""
        self.node_cache.terminate()
        if self.keeper is not None:
            self.keeper.terminate()
        return self.node_cache.stop(), self.keeper.stop() if self.keeper is not None else None
