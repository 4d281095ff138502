"""Processes run as pods run: in a node's network namespace, with their service account's in-cluster credentials.

The monitoring stack of the e2e suite — prometheus-operator, Prometheus, kube-state-metrics —
reaches the test kube-apiserver the way a pod does, through ``rest.InClusterConfig()``: the
``KUBERNETES_SERVICE_HOST``/``_PORT`` variables and the token and CA files at
``/var/run/secrets/kubernetes.io/serviceaccount``. :func:`pod_argv` gives a process exactly
that, in a private mount namespace (a directory bind-mounted over ``/run``, where
``/var/run`` points), so nothing on the machine changes. The token is a real one, issued by
the API server's TokenRequest API for a real ServiceAccount, and RBAC decides what it may do.

The API server listens on 127.0.0.1 of the root network namespace, which a process in a node
namespace cannot reach: a :class:`~tests.harness.socat.Bridge` takes it there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.e2e.netns import Namespace

__all__ = ["SERVICE_ACCOUNT_DIR", "InCluster", "InClusterCredentials", "pod_argv"]

SERVICE_ACCOUNT_DIR = "secrets/kubernetes.io/serviceaccount"
"""Where a pod's token, CA and namespace are, below ``/run`` (``/var/run`` on a pod)."""

_MOUNT_SCRIPT = """\
set -e
while [ "$1" != -- ]; do mount --bind "$1" "$2"; shift 2; done
shift
exec "$@"
"""


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
