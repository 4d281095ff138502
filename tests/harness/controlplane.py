"""A real, throwaway control plane (etcd + kube-apiserver) for integration tests.

Why: the deploy tool talks to the Kubernetes API with the official Python client; mocks of
that client would test our assumptions about the API, not the API. :class:`ControlPlane`
starts the real binaries built by ``tools/build-binaries.sh`` on loopback
(:mod:`tests.harness.apiserver`), with users of their own (:mod:`tests.harness.credentials`),
bootstraps the objects an EKS-like IPv6 cluster has (:mod:`tests.harness.bootstrap`) and
records every API request in an audit log (:mod:`tests.harness.audit`), so tests can count
what the tool really sent.

There is no controller-manager, scheduler or kubelet here: objects are stored and validated,
nothing reconciles them (:mod:`tests.simcluster` adds them, and kwok for the kubelets, on a
control plane of its own). Consequences the fixture handles for you: the ``default``
ServiceAccounts are created here (the ServiceAccount admission plugin rejects Pods without
them), deletions use ``gracePeriodSeconds=0`` and ``Background`` propagation, and namespaces
are never deleted (no namespace controller).

Two users exist. ``ADMIN_USER`` is the one in :attr:`ControlPlane.kubeconfig_path` and
:meth:`ControlPlane.api_client`, for the code under test. ``FIXTURE_USER`` is used by the
fixture's own bootstrap/reset requests, so the audit helpers, which filter on ``ADMIN_USER``
by default, never count them; the apiserver's internal loopback requests appear as user
``system:apiserver`` and are filtered out the same way.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, cast

from kubernetes import client as k8s_client
from kubernetes import config as k8s_config

from tests.harness.apiserver import Etcd, KubeApiserver
from tests.harness.audit import AuditLog
from tests.harness.bootstrap import ClusterState
from tests.harness.credentials import ADMIN_USER, Credentials
from tests.harness.process import require_binary
from tests.harness.rest import Rest
from tests.harness.stack import Stack

__all__ = ["DEFAULT_CRD_DIR", "REPO_ROOT", "ControlPlane"]

REPO_ROOT: Final = Path(__file__).resolve().parents[2]
"""Root of this repository (``tests/harness/`` is two levels below it)."""

DEFAULT_CRD_DIR: Final = REPO_ROOT.parent / "shared" / "crds"
"""Where the prometheus-operator CRDs live; read in place, never copied."""

_BUILD_COMMAND: Final = "bash tools/build-binaries.sh etcd kube-apiserver"


@dataclass
class _Running:
    """What exists between :meth:`ControlPlane.start` and :meth:`ControlPlane.stop`."""

    directory: Path
    credentials: Credentials
    etcd: Etcd
    apiserver: KubeApiserver
    audit: AuditLog
    state: ClusterState | None = None


class ControlPlane(Stack):
    """A real etcd + kube-apiserver on loopback, bootstrapped like an IPv6 EKS cluster.

    Use as a context manager or call :meth:`start` / :meth:`stop` (a :class:`~tests.harness.stack.Stack`).
    All state (etcd data, certificates, tokens, logs, audit log, kubeconfig) lives in a
    temporary directory that :meth:`stop` removes. Both processes are stopped at interpreter
    exit if a run forgets, and are killed by the kernel if this process dies abruptly.

    Parameters:
        cache_dir: Cache root holding ``bin/etcd`` and ``bin/kube-apiserver``.
            Default: ``$NLD_CACHE_DIR``, else ``<repo>/.cache`` (as
            tools/build-binaries.sh).
        crd_dir: Directory holding :data:`~tests.harness.bootstrap.CRD_FILES`.
            Default: ``<repo>/../shared/crds``.
        startup_timeout: Seconds to wait for etcd health, apiserver ``/readyz`` and
            bootstrap steps. Default: 60.
        stop_timeout: Seconds between SIGTERM and SIGKILL when stopping a process.
            Default: 15.
        component_users: Users for the components started beside the control plane
            (controllers, scheduler, kwok), each in group ``system:masters`` with its own
            kubeconfig (:meth:`kubeconfig_for`), so the audit log tells their requests
            apart from the code under test's. Default: none.
    """

    def __init__(
        self,
        *,
        cache_dir: Path | None = None,
        crd_dir: Path | None = None,
        startup_timeout: float = 60.0,
        stop_timeout: float = 15.0,
        component_users: tuple[str, ...] = (),
        apiserver_flags: tuple[str, ...] = (),
    ) -> None:
        """Configure the control plane; nothing is started until :meth:`start`.

        ``apiserver_flags``: kube-apiserver's beyond its own, e.g. ``--emulated-version=1.33``, for an
        older Kubernetes as the same binary serves it.
        """
        super().__init__()
        env_cache = os.environ.get("NLD_CACHE_DIR")
        self.cache_dir: Path = cache_dir or (Path(env_cache) if env_cache else REPO_ROOT / ".cache")
        self.crd_dir: Path = crd_dir or DEFAULT_CRD_DIR
        self.startup_timeout = startup_timeout
        self.stop_timeout = stop_timeout
        self.component_users = component_users
        self.apiserver_flags = apiserver_flags
        self._running: _Running | None = None

    # ------------------------------------------------------------------ lifecycle --
    def binary(self, name: str) -> Path:
        """``<cache_dir>/bin/<name>``, or fail naming the build command."""
        return require_binary(
            self.cache_dir / "bin" / name,
            f"build it with `{_BUILD_COMMAND}` from {REPO_ROOT} (set NLD_CACHE_DIR to use another cache root)",
            name=name,
        )

    def start_parts(self) -> None:
        """Start etcd and kube-apiserver in a new temporary directory, wait until ready, bootstrap.

        Raises:
            RuntimeError: A binary is missing (names the file and the build command) or a
                process exited during startup (with the last 40 lines of its log).
            TimeoutError: A readiness or bootstrap wait exceeded ``startup_timeout``.
        """
        etcd_bin, apiserver_bin = self.binary("etcd"), self.binary("kube-apiserver")
        directory = Path(tempfile.mkdtemp(prefix="nld-controlplane-"))
        self.at_close(shutil.rmtree, directory, ignore_errors=True)
        credentials = Credentials(directory, self.component_users)
        timeouts = {"startup_timeout": self.startup_timeout, "grace_period": self.stop_timeout}
        etcd = Etcd(etcd_bin, directory, **timeouts)
        apiserver = KubeApiserver(
            apiserver_bin, directory, etcd=etcd, credentials=credentials, flags=self.apiserver_flags, **timeouts
        )
        running = self._running = _Running(directory, credentials, etcd, apiserver, AuditLog(apiserver.audit_log_path))
        self.at_close(self._forget)
        credentials.write()
        self.start_process(etcd)
        self.start_process(apiserver)
        running.state = ClusterState(apiserver.rest, self.crd_dir, timeout=self.startup_timeout)
        running.state.bootstrap()

    def _forget(self) -> None:
        self._running = None

    def stop_apiserver(self) -> None:
        """Stop kube-apiserver only; etcd (and so all stored objects) keeps running.

        Why: lets a test interrupt the deploy tool between two steps. The port,
        certificates, tokens and kubeconfig stay valid for :meth:`start_apiserver`.
        """
        self._require().apiserver.stop()

    def start_apiserver(self, *, wait: bool = True) -> None:
        """Start kube-apiserver again against the same etcd, port and certificates.

        No start if it is running. Returns once ``/readyz`` answers ``ok``; with ``wait=False``
        at once, while it starts (a client under test meets it coming up). Call it from the
        thread that will outlive the process: the kernel stops a child whose parent thread ends.
        """
        apiserver = self._require().apiserver
        self.binary("kube-apiserver")
        if not apiserver.alive():
            # One attempt: another port would invalidate the kubeconfigs clients hold.
            apiserver.start(attempts=1, wait=False)
        if wait:
            apiserver.wait_healthy()

    def _require(self) -> _Running:
        if self._running is None:
            raise RuntimeError("ControlPlane is not started; call start() first")
        return self._running

    # ----------------------------------------------------------------- properties --
    @property
    def tmp_dir(self) -> Path:
        """Temporary directory holding all state and logs of this control plane."""
        return self._require().directory

    @property
    def server(self) -> str:
        """Apiserver URL, ``https://127.0.0.1:PORT``."""
        return self._require().apiserver.server

    @property
    def etcd_url(self) -> str:
        """etcd client URL, ``http://127.0.0.1:PORT``."""
        return self._require().etcd.client_url

    @property
    def token(self) -> str:
        """Bearer token of :data:`ADMIN_USER` (group ``system:masters``)."""
        return self._require().credentials.tokens[ADMIN_USER]

    @property
    def kubeconfig_path(self) -> Path:
        """Kubeconfig for :data:`ADMIN_USER`; verifies the self-signed serving cert."""
        return self._require().credentials.kubeconfig(ADMIN_USER)

    def kubeconfig_for(self, user: str) -> Path:
        """Kubeconfig of one of :attr:`component_users`."""
        if user not in self.component_users:
            raise ValueError(f"user: must be one of {self.component_users}, got {user!r}")
        return self._require().credentials.kubeconfig(user)

    @property
    def ca_path(self) -> Path:
        """PEM bundle that verifies the apiserver's serving certificate."""
        return self._require().apiserver.ca_path

    @property
    def audit_log_path(self) -> Path:
        """JSON-lines audit log (one ``ResponseComplete`` event per request)."""
        return self._require().apiserver.audit_log_path

    @property
    def etcd_log_path(self) -> Path:
        """stdout+stderr of etcd."""
        return self._require().etcd.log_path

    @property
    def apiserver_log_path(self) -> Path:
        """stdout+stderr of kube-apiserver (appended across restarts)."""
        return self._require().apiserver.log_path

    @property
    def apiserver_running(self) -> bool:
        """True while the kube-apiserver process is alive."""
        return self._running is not None and self._running.apiserver.alive()

    def api_client(self) -> k8s_client.ApiClient:
        """Return a new official-client ``ApiClient`` built from the kubeconfig.

        Why a new one each call: tests close theirs without affecting others.
        """
        return cast(
            "k8s_client.ApiClient",
            k8s_config.new_client_from_config(  # type: ignore[no-untyped-call]
                config_file=str(self.kubeconfig_path)
            ),
        )

    # ------------------------------------------------------------ fixture requests --
    def fixture_api(self) -> Rest:
        """The fixture's own REST client (:data:`FIXTURE_USER`), for harness setup the audit counts leave out."""
        return self._require().apiserver.rest

    def request(
        self,
        method: str,
        path: str,
        *,
        body: Mapping[str, Any] | None = None,
        content_type: str = "application/json",
        ok: Iterable[int] = (200, 201, 202),
    ) -> Any:
        """Send one request as :data:`FIXTURE_USER`; return the parsed body, raise on another status.

        For harnesses that set a cluster up around the code under test (the e2e monitoring
        stack): their requests never count in :meth:`requests_since`.
        """
        return self.fixture_api().request(method, path, body=body, content_type=content_type, ok=ok)[1]

    def get(self, path: str) -> dict[str, Any] | None:
        """GET ``path`` as :data:`FIXTURE_USER`; None on 404."""
        return self.fixture_api().get(path)

    # ---------------------------------------------------------------------- audit --
    def audit_events(self, user: str | None = None) -> list[dict[str, Any]]:
        """Return the parsed audit events written so far, oldest first.

        Args:
            user: Keep only events of this username; None keeps every event, so that
                indexes match :meth:`audit_mark`.
        """
        return self._require().audit.events(user)

    def audit_mark(self) -> int:
        """Return the number of audit events so far, for :meth:`requests_since`."""
        return self._require().audit.mark()

    def requests_since(self, mark: int, user: str | None = ADMIN_USER) -> list[dict[str, Any]]:
        """Return the audit events written after `mark` (from :meth:`audit_mark`).

        Args:
            mark: Event count returned by :meth:`audit_mark` before the requests.
            user: Keep only this user's events; default :data:`ADMIN_USER`, which leaves
                out the fixture's own requests and the apiserver's internal ones.
                None keeps all.
        """
        return self._require().audit.since(mark, user)

    def mutating_requests_since(self, mark: int, user: str | None = ADMIN_USER) -> list[dict[str, Any]]:
        """Return :meth:`requests_since` events for which :func:`~tests.harness.audit.is_mutating` holds."""
        return self._require().audit.mutating_since(mark, user)

    # ---------------------------------------------------------------- cluster state --
    def _state(self) -> ClusterState:
        state = self._require().state
        if state is None:
            raise RuntimeError("ControlPlane: apiserver was never started")
        return state

    def reset(self, *, nodes: bool = True) -> None:
        """Return the cluster to its bootstrap state (:meth:`~tests.harness.bootstrap.ClusterState.reset`).

        ``nodes=False`` keeps the Nodes: a real node's kubelet registers only when it starts.
        """
        self._state().reset(nodes=nodes)

    def install_crds(self) -> None:
        """Create the PodMonitor and PrometheusRule CRDs if absent; wait until served."""
        self._state().install_crds()

    def uninstall_crds(self) -> None:
        """Delete both CRDs (and so all their objects); wait until the group is gone."""
        self._state().uninstall_crds()
