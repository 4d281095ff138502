"""A real Kubernetes node in a network namespace: containerd and kubelet v1.34.4 running pods for real.

Each :class:`RealNode` is the node's network namespace (made by the caller, e.g. the data-plane
test bed's node) with, inside it:

- :class:`Containerd`: Debian 12's containerd 1.6 and runc, its own root, state and socket
  under the node's directory; a loopback-only CNI configuration (the DaemonSet's pods use the
  host network); ``restrict_oom_score_adj`` because this machine's capability bounding set
  lacks ``CAP_SYS_RESOURCE`` (runc fails writing ``oom_score_adj`` otherwise);
- :class:`Kubelet`: the real kubelet, registered as ``system:node:<name>``, cgroupfs on this
  machine's cgroup v1 hierarchies under a root of its own (:class:`CgroupRoot`, so several
  kubelets coexist), its pods' logs and volumes under the node's directory;
- :class:`KubeProxy`: the real kube-proxy, in iptables or nftables mode, from the real
  Services and EndpointSlices.

The API server listens on the root namespace's loopback; the caller bridges that address into
the node's namespace (:class:`tests.harness.socat.Bridge`), so kubelet and kube-proxy name
``https://127.0.0.1:PORT`` as everything else does and the serving certificate fits.

containerd and kubelet are started with ``nsenter --net=/run/netns/NAME``, not ``ip netns
exec``, which remounts ``/sys`` and hides ``/sys/fs/cgroup``. The images come from
:mod:`tests.harness.images`, imported before kubelet starts. Nothing here resolves a name:
the API server reaches no kubelet by hostname (``--kubelet-preferred-address-types=InternalIP``),
kubelet's ``resolvConf`` is the node's own file, and the CNI has no DNS.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final, Literal, get_args

import yaml

from tests.harness.images import PAUSE_IMAGE, ImageArchive
from tests.harness.process import Process, require_binary
from tests.harness.rest import Rest
from tests.harness.stack import Stack

__all__ = [
    "NODE_GROUP",
    "PROXY_MODES",
    "CgroupRoot",
    "Containerd",
    "KubeProxy",
    "Kubelet",
    "ProxyMode",
    "RealNode",
    "kube_proxy_user",
    "node_user",
]

NODE_GROUP: Final = "system:nodes"
"""The group of every kubelet's user, as the Node authorizer and ``system:node`` bindings know it."""

CNI_PLUGINS: Final = Path("/usr/lib/cni")
"""Debian's containernetworking-plugins."""

_CGROUP_ROOT: Final = Path("/sys/fs/cgroup")
_GET: Final = "import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)"
"""Exits 0 when the URL answers 2xx: run inside a node's namespace, where its loopback is."""


def node_user(name: str) -> str:
    """The user a node's kubelet authenticates as: ``system:node:<name>``."""
    return f"system:node:{name}"


def _nsenter(netns: str, *argv: str) -> list[str]:
    """``argv`` in the network namespace ``netns`` only (mounts stay the host's: cgroups visible)."""
    return ["nsenter", f"--net=/run/netns/{netns}", "--", *argv]


class CgroupRoot:
    """A cgroup of its own in every cgroup v1 hierarchy, for one kubelet's ``cgroupRoot``.

    kubelet wants the root present in each hierarchy before it starts; cpuset's needs the
    parent's CPUs and memory nodes before a task may join it. :meth:`remove` takes the tree
    away, leaves first, once nothing runs in it.
    """

    def __init__(self, name: str) -> None:
        """Plan ``/<name>`` in each hierarchy; :meth:`create` makes it."""
        self.name = name

    @staticmethod
    def hierarchies() -> list[Path]:
        """The mounted v1 hierarchies (``cpu``, ``memory``, ``name=systemd``…)."""
        found = []
        for line in Path("/proc/self/mounts").read_text().splitlines():
            fields = line.split()
            if fields[2] == "cgroup" and fields[1].startswith(str(_CGROUP_ROOT)):
                found.append(Path(fields[1]))
        return found

    def create(self) -> None:
        """``/<name>`` in every hierarchy, cpuset's seeded from its parent."""
        for hierarchy in self.hierarchies():
            path = hierarchy / self.name
            path.mkdir(exist_ok=True)
            for seeded in ("cpuset.cpus", "cpuset.mems"):
                if (hierarchy / seeded).exists():
                    (path / seeded).write_text((hierarchy / seeded).read_text())

    def remove(self) -> None:
        """Remove the tree in every hierarchy, deepest first; what still holds a task stays."""
        for hierarchy in self.hierarchies():
            top = hierarchy / self.name
            if not top.exists():
                continue
            for directory in sorted((p for p in top.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
                with contextlib.suppress(OSError):
                    directory.rmdir()
            with contextlib.suppress(OSError):
                top.rmdir()


class Containerd(Process):
    """containerd in a node's network namespace, with its own root, state, socket and CNI configuration."""

    health_interval = 0.2

    def __init__(self, netns: str, directory: Path) -> None:
        """Plan containerd for ``netns``, its files under ``directory``."""
        super().__init__("containerd", directory / "containerd.log", grace_period=10, startup_timeout=30)
        self.netns = netns
        self.directory = directory

    @property
    def socket(self) -> Path:
        """Its CRI and API socket."""
        return self.directory / "run" / "containerd.sock"

    @property
    def config_path(self) -> Path:
        """``--config``."""
        return self.directory / "config.toml"

    def prepare(self, attempt: int) -> None:
        """The configuration and the loopback-only CNI network."""
        cni = self.directory / "cni"
        cni.mkdir(parents=True, exist_ok=True)
        (cni / "10-loopback.conflist").write_text(
            json.dumps({"cniVersion": "1.0.0", "name": "loopback", "plugins": [{"type": "loopback"}]})
        )
        runtime = 'plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc'
        self.config_path.write_text(
            f"""version = 2
root = "{self.directory / "root"}"
state = "{self.directory / "state"}"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs",
  "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.zfs", "io.containerd.internal.v1.opt"]
[grpc]
  address = "{self.socket}"
[ttrpc]
  address = "{self.directory / "run" / "ttrpc.sock"}"
[debug]
  address = "{self.directory / "run" / "debug.sock"}"
[metrics]
  address = ""
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "{PAUSE_IMAGE}"
  restrict_oom_score_adj = true
  enable_selinux = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "{CNI_PLUGINS}"
    conf_dir = "{cni}"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
  [{runtime}]
    runtime_type = "io.containerd.runc.v2"
  [{runtime}.options]
    SystemdCgroup = false
"""
        )

    def argv(self) -> list[str]:
        """containerd in the node's network namespace."""
        return _nsenter(self.netns, "containerd", "--config", str(self.config_path))

    def ctr(self, *args: str, timeout: float = 60) -> str:
        """``ctr`` against this containerd, in the ``k8s.io`` namespace kubelet's pods live in."""
        done = subprocess.run(
            ["ctr", "--address", str(self.socket), "--namespace", "k8s.io", *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"ctr {' '.join(args)} exited {done.returncode}: {done.stderr.strip()}")
        return done.stdout

    def healthy(self) -> bool:
        """The socket answers ``ctr version``."""
        if not self.socket.exists():
            return False
        try:
            self.ctr("version", timeout=5)
        except (RuntimeError, subprocess.TimeoutExpired):
            return False
        return True

    def load(self, images: Sequence[ImageArchive]) -> None:
        """Import ``images`` under their names (``IfNotPresent`` pods then never pull)."""
        for image in images:
            self.ctr("images", "import", "--no-unpack=false", str(image.path))

    def remove_containers(self) -> None:
        """Kill and delete every container left behind (after kubelet has stopped)."""
        with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
            for task in self.ctr("tasks", "list", "--quiet").split():
                with contextlib.suppress(RuntimeError):
                    self.ctr("tasks", "kill", "--signal", "SIGKILL", task)
            deadline = time.monotonic() + 10
            while self.ctr("tasks", "list", "--quiet").split() and time.monotonic() < deadline:
                time.sleep(0.2)
            for task in self.ctr("tasks", "list", "--quiet").split():
                with contextlib.suppress(RuntimeError):
                    self.ctr("tasks", "delete", "--force", task)
            for container in self.ctr("containers", "list", "--quiet").split():
                with contextlib.suppress(RuntimeError):
                    self.ctr("containers", "delete", container)

    def stop(self) -> int | None:
        """Stop containerd, then every shim it started (a shim outlives its containerd by design)."""
        code = super().stop()
        for pid in _pids_with_argument(str(self.socket)):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        return code


def _pids_with_argument(argument: str) -> list[int]:
    """Processes whose command line holds ``argument`` (containerd's shims name their containerd's socket)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if argument.encode() in cmdline:
            found.append(int(entry.name))
    return found


def _rss_kib(pid: int) -> int:
    """``VmRSS`` of process ``pid``, in KiB (0 once it is gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    return next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")), 0)


def _command(pid: int) -> str:
    """The program name of process ``pid`` (empty once it is gone)."""
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


class Kubelet(Process):
    """kubelet in a node's network namespace, on its containerd, registered as ``name`` with ``node_ip``."""

    health_interval = 0.2

    def __init__(
        self,
        *,
        name: str,
        netns: str,
        node_ip: str,
        directory: Path,
        binary: Path,
        kubeconfig: Path,
        containerd: Containerd,
        cgroup_root: CgroupRoot,
        resolv_conf: Path,
        cluster_dns: str,
        rest: Rest,
        max_restart_period: int | None = None,
    ) -> None:
        """Plan kubelet; it is up once its Node reports Ready.

        ``max_restart_period``: the longest crash-loop back-off in seconds (kubelet's
        ``crashLoopBackOff.maxContainerRestartPeriod``, the ``KubeletCrashLoopBackOffMax`` gate,
        alpha in 1.34), which also caps the first one; default: kubelet's, 10 s doubling to 300 s.
        """
        super().__init__(f"kubelet {name}", directory / "kubelet.log", grace_period=15, startup_timeout=60)
        self.node_name = name
        self.netns = netns
        self.node_ip = node_ip
        self.directory = directory
        self.binary = binary
        self.kubeconfig = kubeconfig
        self.containerd = containerd
        self.cgroup_root = cgroup_root
        self.resolv_conf = resolv_conf
        self.cluster_dns = cluster_dns
        self.rest = rest
        self.max_restart_period = max_restart_period

    @property
    def config_path(self) -> Path:
        """``--config``: the KubeletConfiguration."""
        return self.directory / "kubelet.yaml"

    @property
    def pod_logs_dir(self) -> Path:
        """``podLogsDir``: kubelet's ``<namespace>_<pod>_<uid>/<container>/<restart>.log`` files."""
        return self.directory / "pod-logs"

    def configuration(self) -> dict[str, Any]:
        """What this machine needs of kubelet: cgroup v1 and cgroupfs, swap allowed, no eviction by disk."""
        return {
            "apiVersion": "kubelet.config.k8s.io/v1beta1",
            "kind": "KubeletConfiguration",
            "authentication": {"anonymous": {"enabled": False}, "webhook": {"enabled": False}},
            "authorization": {"mode": "AlwaysAllow"},
            "address": "127.0.0.1",
            "port": 10250,
            "readOnlyPort": 0,
            "healthzBindAddress": "127.0.0.1",
            "healthzPort": 10248,
            "containerRuntimeEndpoint": f"unix://{self.containerd.socket}",
            "cgroupDriver": "cgroupfs",
            "cgroupRoot": f"/{self.cgroup_root.name}",
            "failCgroupV1": False,
            "failSwapOn": False,
            "resolvConf": str(self.resolv_conf),
            "clusterDNS": [self.cluster_dns],
            "clusterDomain": "cluster.local",
            "podLogsDir": str(self.pod_logs_dir),
            # The test machine's disk and memory are shared with everything else: never evict.
            "evictionHard": {"memory.available": "1Mi", "nodefs.available": "0%", "imagefs.available": "0%"},
            "imageGCHighThresholdPercent": 100,
            "imageGCLowThresholdPercent": 99,
            "localStorageCapacityIsolation": False,
            "serializeImagePulls": False,
            "staticPodPath": "",
            "syncFrequency": "5s",
            "fileCheckFrequency": "5s",
            "nodeStatusUpdateFrequency": "5s",
        } | self._restart_back_off()

    def _restart_back_off(self) -> dict[str, Any]:
        """The crash-loop back-off's settings, when :attr:`max_restart_period` caps it."""
        if self.max_restart_period is None:
            return {}
        return {
            "featureGates": {"KubeletCrashLoopBackOffMax": True},
            "crashLoopBackOff": {"maxContainerRestartPeriod": f"{self.max_restart_period}s"},
        }

    def prepare(self, attempt: int) -> None:
        """The configuration and the directories kubelet works in."""
        (self.directory / "root").mkdir(parents=True, exist_ok=True)
        self.config_path.write_text(yaml.safe_dump(self.configuration(), sort_keys=False))

    def argv(self) -> list[str]:
        """kubelet in the node's network namespace."""
        return _nsenter(
            self.netns,
            str(self.binary),
            f"--config={self.config_path}",
            f"--kubeconfig={self.kubeconfig}",
            f"--hostname-override={self.node_name}",
            f"--node-ip={self.node_ip}",
            f"--root-dir={self.directory / 'root'}",
            f"--cert-dir={self.directory / 'pki'}",
            "--v=2",
            # Each probe's result in the log (prober.go logs successes at 3): tests count them.
            "--vmodule=prober=3",
        )

    def healthy(self) -> bool:
        """The Node exists and reports Ready."""
        node = self.rest.get(f"/api/v1/nodes/{self.node_name}")
        conditions = ((node or {}).get("status") or {}).get("conditions") or []
        return any(c["type"] == "Ready" and c["status"] == "True" for c in conditions)


ProxyMode = Literal["iptables", "nftables"]
"""kube-proxy's modes on Linux that the tests run (ipvs is deprecated upstream)."""

PROXY_MODES: Final[tuple[ProxyMode, ...]] = get_args(ProxyMode)
"""Every mode of :data:`ProxyMode`, in its order."""


def kube_proxy_user(name: str) -> str:
    """The user of node ``name``'s kube-proxy (its own kubeconfig, so the audit log tells it apart)."""
    return f"system:kube-proxy:{name}"


class KubeProxy(Process):
    """kube-proxy in a node's network namespace, in ``mode``, programming the node's Service rules.

    It watches Services and EndpointSlices as on any node; the conntrack sysctls it would
    tune machine-wide are left alone (``maxPerCore: 0`` and zero timeouts mean "do not set").
    Up once its ``/healthz`` (in the node's namespace) answers 200; :meth:`programs` tells when a Service is synced.
    """

    health_interval = 0.2

    def __init__(
        self, *, name: str, netns: str, mode: ProxyMode, directory: Path, binary: Path, kubeconfig: Path
    ) -> None:
        """Plan kube-proxy for node ``name``."""
        super().__init__(
            f"kube-proxy {name} ({mode})", directory / "kube-proxy.log", grace_period=10, startup_timeout=60
        )
        self.node_name = name
        self.netns = netns
        self.mode = mode
        self.directory = directory
        self.binary = binary
        self.kubeconfig = kubeconfig

    @property
    def config_path(self) -> Path:
        """``--config``: the KubeProxyConfiguration."""
        return self.directory / "kube-proxy.yaml"

    def prepare(self, attempt: int) -> None:
        """The configuration: the mode, kube-proxy's own sync periods, no machine-wide sysctl.

        The default periods (a full resync every 30 s, changes applied within the 1 s
        ``minSyncPeriod``) are a node's: a faster resync would hold the xtables lock that
        node-cache shares every second, and slow node-cache's own rule changes.
        """
        self.directory.mkdir(parents=True, exist_ok=True)
        self.config_path.write_text(
            yaml.safe_dump(
                {
                    "apiVersion": "kubeproxy.config.k8s.io/v1alpha1",
                    "kind": "KubeProxyConfiguration",
                    "clientConnection": {"kubeconfig": str(self.kubeconfig)},
                    "hostnameOverride": self.node_name,
                    "mode": self.mode,
                    "healthzBindAddress": "127.0.0.1:10256",
                    "metricsBindAddress": "127.0.0.1:10249",
                    "conntrack": {
                        "maxPerCore": 0,
                        "min": 0,
                        "tcpEstablishedTimeout": "0s",
                        "tcpCloseWaitTimeout": "0s",
                    },
                },
                sort_keys=False,
            )
        )

    def argv(self) -> list[str]:
        """kube-proxy in the node's network namespace."""
        return _nsenter(self.netns, str(self.binary), f"--config={self.config_path}", "--v=2")

    def ruleset(self) -> str:
        """The rules kube-proxy wrote: the ``nat`` table (iptables mode) or the ``ip6 kube-proxy`` table (nftables)."""
        if self.mode == "iptables":
            argv = ["ip6tables-save", "-t", "nat"]
        else:
            argv = ["nft", "list", "table", "ip6", "kube-proxy"]
        done = subprocess.run(["ip", "netns", "exec", self.netns, *argv], capture_output=True, text=True, check=False)
        return done.stdout

    def programs(self, address: str) -> bool:
        """Whether kube-proxy's rules name ``address`` (a Service's ClusterIP it has synced)."""
        return address in self.ruleset()

    def healthy(self) -> bool:
        """``/healthz`` in the node's namespace answers 200 (it does before the first sync: see :meth:`programs`)."""
        done = subprocess.run(
            _nsenter(self.netns, sys.executable, "-c", _GET, "http://127.0.0.1:10256/healthz"),
            capture_output=True,
            check=False,
        )
        return done.returncode == 0


class RealNode(Stack):
    """A node of the cluster that runs its pods for real: containerd, kubelet (and kube-proxy) in ``netns``.

    The API server must be reachable at the kubeconfigs' address from inside ``netns`` (the
    caller bridges it there). A context manager: :meth:`start` starts them (images
    imported before kubelet), and :meth:`close` stops kube-proxy and kubelet, removes what
    containers are left, stops containerd, deletes the Node and removes the cgroups and the
    directory's mounts.
    """

    def __init__(
        self,
        *,
        name: str,
        netns: str,
        node_ip: str,
        directory: Path,
        kubelet_binary: Path,
        kubeconfig: Path,
        rest: Rest,
        images: Sequence[ImageArchive],
        resolv_conf: Path,
        cluster_dns: str,
        proxy: KubeProxy | None = None,
        max_restart_period: int | None = None,
    ) -> None:
        """Plan the node; nothing runs until :meth:`start`. ``proxy``: its kube-proxy, if any.

        ``max_restart_period``: kubelet's longest crash-loop back-off (see :class:`Kubelet`).
        """
        require_binary(kubelet_binary, "run `bash tools/build-binaries.sh kubelet`", name="kubelet")
        for program in ("containerd", "runc", "ctr", "nsenter"):
            if shutil.which(program) is None:
                raise RuntimeError(f"{program} not found: `make system` installs containerd and runc")
        super().__init__()
        self.name = name
        self.directory = directory
        self.rest = rest
        self.images = tuple(images)
        self.containerd = Containerd(netns, directory / "containerd")
        self.cgroups = CgroupRoot(f"nld-{os.getpid()}-{name}")
        self.kubelet = Kubelet(
            name=name,
            netns=netns,
            node_ip=node_ip,
            directory=directory / "kubelet",
            binary=kubelet_binary,
            kubeconfig=kubeconfig,
            containerd=self.containerd,
            cgroup_root=self.cgroups,
            resolv_conf=resolv_conf,
            cluster_dns=cluster_dns,
            rest=rest,
            max_restart_period=max_restart_period,
        )
        self.proxy = proxy

    def start_parts(self) -> None:
        """Start containerd (with the images), kubelet and kube-proxy; wait for the Node to be Ready."""
        self.directory.mkdir(parents=True, exist_ok=True)
        self.at_close(self._remove_directory)
        self.cgroups.create()
        self.at_close(self.cgroups.remove)
        self.start_process(self.containerd)
        self.containerd.load(self.images)
        self.at_close(self._delete_node)
        self.at_close(self.containerd.remove_containers)
        self.start_process(self.kubelet)
        if self.proxy is not None:
            self.start_process(self.proxy)

    def memory(self) -> dict[str, int]:
        """Resident memory in KiB of what the node runs beside its pods' own processes.

        ``kubelet``, ``containerd`` and ``kube-proxy`` (if any), and ``shims``: all of
        containerd's shims together (one per pod sandbox), with their number as ``shim count``.
        """
        daemons: dict[str, Process] = {"kubelet": self.kubelet, "containerd": self.containerd}
        if self.proxy is not None:
            daemons["kube-proxy"] = self.proxy
        usage = {name: _rss_kib(process.process.pid) if process.process else 0 for name, process in daemons.items()}
        shims = [pid for pid in _pids_with_argument(str(self.containerd.socket)) if "shim" in _command(pid)]
        usage["shims"] = sum(_rss_kib(pid) for pid in shims)
        usage["shim count"] = len(shims)
        return usage

    def _delete_node(self) -> None:
        self.rest.request("DELETE", f"/api/v1/nodes/{self.name}", ok=(200, 202, 404))

    def _remove_directory(self) -> None:
        """Unmount what the pods left mounted under the directory (deepest first), then remove it."""
        mounts = [
            line.split()[1]
            for line in Path("/proc/self/mounts").read_text().splitlines()
            if line.split()[1].startswith(str(self.directory))
        ]
        for mount in sorted(mounts, key=len, reverse=True):
            subprocess.run(["umount", "-l", mount], capture_output=True, check=False)
        shutil.rmtree(self.directory, ignore_errors=True)
