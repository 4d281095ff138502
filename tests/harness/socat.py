"""A TCP port of one network namespace joined to a TCP address of another by two ``socat`` processes.

The API server listens on 127.0.0.1 of the root network namespace, which a process in a node
namespace cannot reach: :class:`Bridge` joins a TCP port in one namespace to a TCP address in
another through a Unix socket (Unix sockets are not network-namespaced) with two ``socat``
processes (:class:`Socat`), so no interface is ever added to the root namespace. The same way,
a port of a node's namespace (Prometheus' API) is taken out to 127.0.0.1 of the root one.
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
from collections.abc import Callable
from itertools import count
from pathlib import Path
from typing import TYPE_CHECKING

from tests.harness.process import MissingBinaryError, Process
from tests.harness.stack import Stack

if TYPE_CHECKING:
    from tests.e2e.netns import Namespace

__all__ = ["Bridge", "Socat", "require_socat"]

_bridges = count()


def require_socat() -> str:
    """The ``socat`` binary, or fail naming the package."""
    found = shutil.which("socat")
    if found is None:
        raise MissingBinaryError("socat not found: apt-get install socat (make system installs it)")
    return found


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


class Bridge(Stack):
    """``listen`` in one network namespace forwarded to ``target`` in another, through a Unix socket.

    Two :class:`Socat` processes: one listening on the socket and connecting to ``target`` in
    ``target_namespace`` (None: the root namespace), up once the socket exists; one listening
    on TCP in ``listen_namespace`` and connecting to the socket, up once it accepts
    connections. Each connection is forked, so any number may be open at once. :meth:`start`
    returns once the listening side accepts connections; :meth:`stop` stops both processes and
    removes the socket.
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
        super().__init__()
        self.listen_namespace = listen_namespace
        self.listen = listen
        self.target_namespace = target_namespace
        self.target = target
        directory.mkdir(parents=True, exist_ok=True)
        self.socket_path = directory / f"bridge-{next(_bridges)}.sock"

    @staticmethod
    def _tcp(host: str, port: int) -> str:
        family = "TCP6" if ":" in host else "TCP4"
        return f"{family}:[{host}]:{port}" if ":" in host else f"{family}:{host}:{port}"

    def start_parts(self) -> None:
        """The socket's side, then the listening side."""
        socat = require_socat()
        host, port = self.listen
        family = "TCP6" if ":" in host else "TCP4"
        listen_bind = f"[{host}]" if ":" in host else host
        self.at_close(self._remove_socket)
        self.start_process(
            Socat(
                f"socat {self.socket_path.name} -> {self.target}",
                [socat, f"UNIX-LISTEN:{self.socket_path},fork,unlink-early", self._tcp(*self.target)],
                self.target_namespace,
                self.socket_path.with_suffix(".inner.log"),
                self.socket_path.exists,
            )
        )
        self.start_process(
            Socat(
                f"socat {self.listen} -> {self.socket_path.name}",
                [
                    socat,
                    f"{family}-LISTEN:{port},bind={listen_bind},fork,reuseaddr",
                    f"UNIX-CONNECT:{self.socket_path}",
                ],
                self.listen_namespace,
                self.socket_path.with_suffix(".outer.log"),
                self._listening,
            )
        )

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

    def _remove_socket(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.socket_path.unlink()
