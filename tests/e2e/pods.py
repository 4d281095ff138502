"""Processes run as pods run: in a node's network namespace, with their service account's in-cluster credentials.

The monitoring stack of the e2e suite — prometheus-operator, Prometheus, kube-state-metrics —
reaches the test kube-apiserver the way a pod does, through ``rest.InClusterConfig()``: the
``KUBERNETES_SERVICE_HOST``/``_PORT`` variables and the token and CA files at
``/var/run/secrets/kubernetes.io/serviceaccount``. :func:`pod_argv` gives a process exactly
that, in a private mount namespace (a directory bind-mounted over ``/run``, where
``/var/run`` points), so nothing on the machine changes. The token is a real one, issued by
the API server's TokenRequest API for a real ServiceAccount, and RBAC decides what it may do.

The API server listens on 127.0.0.1 of the root network namespace, which a process in a node
namespace cannot reach: :class:`Bridge` joins a TCP port in one namespace to a TCP address in
another through a Unix socket (Unix sockets are not network-namespaced) with two ``socat``
processes, so no interface is ever added to the root namespace.
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import count
from pathlib import Path
from typing import TYPE_CHECKING

from tests.harness.process import MissingBinaryError, Process

if TYPE_CHECKING:
    from tests.e2e.netns import Namespace

__all__ = ["SERVICE_ACCOUNT_DIR", "Bridge", "InCluster", "InClusterCredentials", "Socat", "pod_argv", "require_socat"]

SERVICE_ACCOUNT_DIR = "secrets/kubernetes.io/serviceaccount"
"""Where a pod's token, CA and namespace are, below ``/run`` (``/var/run`` on a pod)."""

_MOUNT_SCRIPT = """\
set -e
while [ "$1" != -- ]; do mount --bind "$1" "$2"; shift 2; done
shift
exec "$@"
"""


def require_socat() -> str:
    """The ``socat`` binary, or fail naming the package."""
    found = shutil.which("socat")
    if found is None:
        raise MissingBinaryError("socat not found: apt-get install socat (make system installs it)")
    return found


@dataclass(frozen=True, kw_only=True)
class InCluster:
    """What ``rest.InClusterConfig()`` reads: the API server's address and the service account's files."""

    host: str
    """``KUBERNETES_SERVICE_HOST``, as seen from inside the pod's network namespace."""

    port: int
    """``KUBERNETES_SERVICE_PORT``."""

    run_dir: Path
    """A directory mounted over ``/run``; its ``secrets/kubernetes.io/serviceaccount`` holds the files."""

    @property
    def environment(self) -> dict[str, str]:
        """The variables kubelet gives every pod for the ``kubernetes`` Service."""
        return {"KUBERNETES_SERVICE_HOST": self.host, "KUBERNETES_SERVICE_PORT": str(self.port)}


class InClusterCredentials:
    """A service account's token, the cluster CA and the namespace, laid out as kubelet mounts them."""

    def __init__(self, directory: Path, *, token: str, ca_pem: str, namespace: str) -> None:
        """Write the three files under ``directory/secrets/kubernetes.io/serviceaccount``."""
        self.directory = directory
        files = directory / SERVICE_ACCOUNT_DIR
        files.mkdir(parents=True, exist_ok=True)
        (files / "token").write_text(token)
        (files / "ca.crt").write_text(ca_pem)
        (files / "namespace").write_text(namespace)

    def at(self, host: str, port: int) -> InCluster:
        """These credentials, with the API server at ``host:port``."""
        return InCluster(host=host, port=port, run_dir=self.directory)


def pod_argv(
    command: Sequence[str],
    *,
    namespace: Namespace | None,
    in_cluster: InCluster | None = None,
    mounts: Mapping[str, Path] | None = None,
) -> list[str]:
    """``command`` run as a pod: in ``namespace`` (None: the root one), with its credentials and volumes.

    ``mounts`` maps a path inside the pod to a directory of the test; the pod's
    ``/run`` is the credentials' directory. The mounts are made in a private mount
    namespace of the process, and vanish with it.
    """
    binds: list[str] = []
    if in_cluster is not None:
        binds += [str(in_cluster.run_dir), "/run"]
    for target, source in (mounts or {}).items():
        binds += [str(source), target]
    argv = ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c", _MOUNT_SCRIPT, "sh", *binds, "--"]
    argv += list(command)
    return namespace.argv(*argv) if namespace is not None else argv


_bridges = count()


class Socat(Process):
    """One ``socat`` of a :class:`Bridge`, in ``namespace`` (None: the root one), up once ``ready`` holds."""

    def __init__(
        self, name: str, argv: list[str], namespace: Namespace | None, log_path: Path, ready: Callable[[], bool]
    ) -> None:
        """Plan ``socat ARGS``; :meth:`start` runs it."""
        super().__init__(name, log_path, grace_period=5, startup_timeout=10)
        self.command = argv
        self.namespace = namespace
        self.ready = ready

    def argv(self) -> list[str]:
        """The command, inside the namespace."""
        return self.namespace.argv(*self.command) if self.namespace is not None else list(self.command)

    def healthy(self) -> bool:
        """What the bridge waits for on this side."""
        return self.ready()


class Bridge:
    """``listen`` in one network namespace forwarded to ``target`` in another, through a Unix socket.

    Two :class:`Socat` processes: one listening on the socket and connecting to ``target`` in
    ``target_namespace`` (None: the root namespace), up once the socket exists; one listening
    on TCP in ``listen_namespace`` and connecting to the socket, up once it accepts
    connections. Each connection is forked, so any number may be open at once.
    """

    def __init__(
        self,
        *,
        listen_namespace: Namespace | None,
        listen: tuple[str, int],
        target_namespace: Namespace | None,
        target: tuple[str, int],
        directory: Path,
    ) -> None:
        """Plan the bridge; :meth:`start` runs it."""
        self.listen_namespace = listen_namespace
        self.listen = listen
        self.target_namespace = target_namespace
        self.target = target
        directory.mkdir(parents=True, exist_ok=True)
        self.socket_path = directory / f"bridge-{next(_bridges)}.sock"
        self.processes: list[Socat] = []

    @staticmethod
    def _tcp(host: str, port: int) -> str:
        family = "TCP6" if ":" in host else "TCP4"
        return f"{family}:[{host}]:{port}" if ":" in host else f"{family}:{host}:{port}"

    def start(self) -> Bridge:
        """Start both ``socat`` processes; return once the listening side accepts connections."""
        socat = require_socat()
        host, port = self.listen
        family = "TCP6" if ":" in host else "TCP4"
        listen_bind = f"[{host}]" if ":" in host else host
        inner = Socat(
            f"socat {self.socket_path.name} -> {self.target}",
            [socat, f"UNIX-LISTEN:{self.socket_path},fork,unlink-early", self._tcp(*self.target)],
            self.target_namespace,
            self.socket_path.with_suffix(".inner.log"),
            self.socket_path.exists,
        )
        outer = Socat(
            f"socat {self.listen} -> {self.socket_path.name}",
            [socat, f"{family}-LISTEN:{port},bind={listen_bind},fork,reuseaddr", f"UNIX-CONNECT:{self.socket_path}"],
            self.listen_namespace,
            self.socket_path.with_suffix(".outer.log"),
            self._listening,
        )
        for process in (inner, outer):
            self.processes.append(process)
            process.start()
        return self

    def _listening(self) -> bool:
        host, port = self.listen
        if self.listen_namespace is None:
            family = socket.AF_INET6 if ":" in host else socket.AF_INET
            with socket.socket(family, socket.SOCK_STREAM) as probe:
                probe.settimeout(1)
                return probe.connect_ex((host, port)) == 0
        listening = subprocess.run(
            self.listen_namespace.argv("ss", "-Hltn", f"sport = :{port}"),
            capture_output=True,
            text=True,
            check=False,
        )
        return bool(listening.stdout.strip())

    def stop(self) -> None:
        """Stop both processes and remove the socket; idempotent."""
        for process in self.processes:
            process.stop()
        self.processes = []
        with contextlib.suppress(FileNotFoundError):
            self.socket_path.unlink()
