"""A real, throwaway control plane (etcd + kube-apiserver) for integration tests.

Why: the deploy tool talks to the Kubernetes API with the official Python client;
mocks of that client would test our assumptions about the API, not the API. This
module starts the real binaries built by ``tools/build-binaries.sh`` on loopback,
bootstraps the objects an EKS-like IPv6 cluster has (``kube-system/kube-dns`` with an
IPv6 ClusterIP, the prometheus-operator CRDs, namespace ``monitoring``) and records
every API request in an audit log, so tests can count what the tool really sent.

There is no controller-manager, scheduler or kubelet here: objects are stored and
validated, nothing reconciles them (:mod:`tests.simcluster` adds them, and kwok for the
kubelets, on a control plane of its own). Consequences the fixture handles for you: the ``default``
ServiceAccounts are created here (the ServiceAccount admission plugin rejects Pods
without them), deletions use ``gracePeriodSeconds=0`` and ``Background`` propagation (no
kubelet or garbage collector would ever finish a graceful or ``Orphan``/``Foreground``
deletion), and namespaces are never deleted (no namespace controller).

Two users exist. ``ADMIN_USER`` is the one in :attr:`ControlPlane.kubeconfig_path`
and :meth:`ControlPlane.api_client`, for the code under test. ``FIXTURE_USER`` is used
by the fixture's own bootstrap/reset requests, so the audit helpers, which filter on
``ADMIN_USER`` by default, never count them; the apiserver's internal loopback
requests appear as user ``system:apiserver`` and are filtered out the same way.

Linux only (``prctl(PR_SET_PDEATHSIG)`` ties the child processes to the process that
started them).
"""

from __future__ import annotations

import atexit
import ctypes
import functools
import http.client
import json
import os
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any, Final, Self, cast

import yaml
from kubernetes import client as k8s_client
from kubernetes import config as k8s_config

from tests.processes import stop_process

__all__ = [
    "ADMIN_USER",
    "APISERVER_USER",
    "CRD_FILES",
    "FIXTURE_USER",
    "MANAGED_BY_SELECTOR",
    "MUTATING_VERBS",
    "SERVICE_CLUSTER_IP_RANGES",
    "ControlPlane",
    "is_mutating",
    "spawn_logged",
    "wait_started",
]

REPO_ROOT: Final = Path(__file__).resolve().parent.parent
"""Root of this repository (``tests/`` is directly below it)."""

DEFAULT_CRD_DIR: Final = REPO_ROOT.parent / "shared" / "crds"
"""Where the prometheus-operator CRDs live; read in place, never copied."""

CRD_FILES: Final = (
    "monitoring.coreos.com_podmonitors.yaml",
    "monitoring.coreos.com_prometheusrules.yaml",
)
"""CRD manifests installed at bootstrap, relative to the CRD directory."""

MONITORING_GROUP: Final = "monitoring.coreos.com"
MONITORING_VERSION: Final = "v1"
MONITORING_PLURALS: Final = ("podmonitors", "prometheusrules")

SERVICE_CLUSTER_IP_RANGES: Final = ("fd00:ec2::/108", "10.100.0.0/16")
"""Dual-stack Service ranges, IPv6 first so Services default to IPv6 as on IPv6 EKS;
the IPv4 secondary lets a test create an IPv4 Service (which deploy must reject)."""

ADMIN_USER: Final = "admin"
"""User of the kubeconfig handed to code under test (group ``system:masters``)."""

FIXTURE_USER: Final = "controlplane-fixture"
"""User of the fixture's own requests, kept apart so audit counts never include them."""

APISERVER_USER: Final = "system:apiserver"
"""User the apiserver's internal loopback client shows in the audit log."""

MANAGED_BY_SELECTOR: Final = "app.kubernetes.io/managed-by=osdc-base"
"""Label selector of every object the deploy tool creates (see the spec)."""

MUTATING_VERBS: Final = frozenset({"create", "update", "patch", "delete", "deletecollection"})
"""Audit verbs that change stored state (unless the request is a dry run)."""

KUBE_DNS_SELECTOR: Final = {"k8s-app": "kube-dns"}
KUBE_DNS_PORTS: Final = (
    {"name": "dns", "port": 53, "protocol": "UDP", "targetPort": 53},
    {"name": "dns-tcp", "port": 53, "protocol": "TCP", "targetPort": 53},
)

_CRDS_PATH: Final = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
_MONITORING_PATH: Final = f"/apis/{MONITORING_GROUP}/{MONITORING_VERSION}"
_BUILD_COMMAND: Final = "bash tools/build-binaries.sh etcd kube-apiserver"
_LOG_TAIL_LINES: Final = 40
_ETCD_NAME: Final = "nld-test"
_CONTEXT_NAME: Final = "nld-test"
# Every request at Metadata level, one event per request: RequestReceived is dropped,
# and so is ResponseStarted, which long-running requests (watches) would add as well.
# The simulated cluster's components (controllers, scheduler, kwok) renew leases and
# record events all the time; those are never what a test counts, and at hundreds of
# nodes they would make most of the log, so they are left out for every user but ours.
_AUDIT_POLICY: Final = {
    "apiVersion": "audit.k8s.io/v1",
    "kind": "Policy",
    "omitStages": ["RequestReceived", "ResponseStarted"],
    "rules": [
        {"level": "Metadata", "users": [ADMIN_USER]},
        {
            "level": "None",
            "resources": [
                {"group": "coordination.k8s.io", "resources": ["leases"]},
                {"group": "", "resources": ["events"]},
                {"group": "events.k8s.io", "resources": ["events"]},
            ],
        },
        {"level": "Metadata"},
    ],
}
# Immediate deletion: grace 0 because no kubelet confirms a graceful Pod deletion, and
# Background because Orphan/Foreground add finalizers only the garbage collector
# removes.
_DELETE_OPTIONS: Final = {
    "apiVersion": "v1",
    "kind": "DeleteOptions",
    "gracePeriodSeconds": 0,
    "propagationPolicy": "Background",
}
# Collections in kube-system whose objects labelled MANAGED_BY_SELECTOR reset() deletes.
# Pods are not listed here: reset() deletes every Pod in kube-system.
_MANAGED_COLLECTIONS: Final = (
    "/api/v1/namespaces/kube-system/services",
    "/api/v1/namespaces/kube-system/configmaps",
    "/api/v1/namespaces/kube-system/serviceaccounts",
    "/apis/apps/v1/namespaces/kube-system/daemonsets",
)
# Namespaces that get a `default` ServiceAccount, as the absent controller-manager would
# create.
_BOOTSTRAP_NAMESPACES: Final = ("default", "kube-system", "monitoring")


def is_mutating(event: Mapping[str, Any]) -> bool:
    """Tell whether an audit event records a request that changed stored state.

    Why: a server-side dry run is audited with the same verb as the real request, so the
    verb alone over-counts; the ``dryRun=All`` query parameter tells them apart. A request
    the API server refused (a 409 conflict of a guarded patch, say) changed nothing either.

    Args:
        event: One parsed audit event (``audit.k8s.io/v1`` ``Event``).

    Returns:
        True for create/update/patch/delete/deletecollection that is not a dry run and
        was answered with a success status.
    """
    if event.get("verb") not in MUTATING_VERBS:
        return False
    if not 200 <= int(event.get("responseStatus", {}).get("code", 0)) < 300:
        return False
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(str(event.get("requestURI", ""))).query)
    return "All" not in query.get("dryRun", [])


class _ApiError(RuntimeError):
    """An unexpected HTTP status from the apiserver, with method, path and body."""

    def __init__(self, method: str, path: str, status: int, body: Any) -> None:
        super().__init__(f"{method} {path}: HTTP {status}: {body}")
        self.status = status


class _Rest:
    """Minimal JSON REST client for the fixture's own requests (as ``FIXTURE_USER``).

    Why not the kubernetes client: the fixture needs generic paths (any kind, finalize,
    discovery) and must not share state with the client under test.
    """

    def __init__(self, server: str, token: str, ca_path: Path) -> None:
        self._server = server
        self._token = token
        self._ca_path = ca_path
        self._context: ssl.SSLContext | None = None

    def _ssl_context(self) -> ssl.SSLContext:
        # The apiserver writes its self-signed cert before listening, so it exists by
        # the time a connection can succeed; until then a missing file means "not up".
        if self._context is None:
            if not self._ca_path.exists():
                raise ConnectionRefusedError(f"{self._ca_path} not written yet")
            self._context = ssl.create_default_context(cafile=str(self._ca_path))
        return self._context

    def request(
        self,
        method: str,
        path: str,
        *,
        body: Mapping[str, Any] | None = None,
        query: Mapping[str, str] | None = None,
        content_type: str = "application/json",
        ok: Iterable[int] = (200, 201, 202),
        timeout: float = 10.0,
    ) -> tuple[int, Any]:
        """Send one request; return (status, parsed body); raise _ApiError otherwise.

        A 429 answer is retried until `timeout` has passed.
        """
        url = self._server + path
        if query:
            url += "?" + urllib.parse.urlencode(query)
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(url, data=data, method=method)
        req.add_header("Authorization", f"Bearer {self._token}")
        req.add_header("Accept", "application/json")
        if data is not None:
            req.add_header("Content-Type", content_type)
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(req, timeout=timeout, context=self._ssl_context()) as resp:
                    status, raw = int(resp.status), resp.read()
            except urllib.error.HTTPError as err:
                status, raw = int(err.code), err.read()
            # 429 "storage is (re)initializing": a new CRD's storage or a restarted
            # apiserver's watch cache is warming up; the request is safe to repeat.
            if status != 429 or time.monotonic() >= deadline:
                break
            time.sleep(0.1)
        try:
            parsed: Any = json.loads(raw) if raw else None
        except ValueError:
            parsed = raw.decode(errors="replace")
        if status not in set(ok):
            raise _ApiError(method, path, status, parsed)
        return status, parsed

    def get(self, path: str, **query: str) -> dict[str, Any] | None:
        """GET a JSON object; None on 404."""
        status, parsed = self.request("GET", path, query=query or None, ok=(200, 404))
        return None if status == 404 else cast("dict[str, Any]", parsed)


def _free_port() -> int:
    """Return a TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _die_with_parent() -> None:
    """Child-side hook: get SIGKILL when the parent dies, so a crash leaks nothing."""
    if sys.platform == "linux":
        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)


def _tail(path: Path, lines: int = _LOG_TAIL_LINES) -> str:
    """Return the last lines of a log file (empty string if it does not exist)."""
    try:
        text = path.read_text(errors="replace")
    except FileNotFoundError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def _terminate(proc: subprocess.Popen[bytes] | None, timeout: float) -> None:
    """SIGTERM a process, SIGKILL it if it has not exited after `timeout` seconds."""
    if proc is not None:
        stop_process(proc, timeout)


def _wait_for(
    what: str,
    check: Callable[[], bool],
    *,
    timeout: float,
    interval: float = 0.05,
    alive: Callable[[], None] | None = None,
) -> None:
    """Poll `check` until it returns True; raise TimeoutError naming `what` otherwise.

    `alive` is called each round and may raise (e.g. because a process exited) to fail
    fast instead of waiting out the timeout.
    """
    deadline = time.monotonic() + timeout
    while True:
        if alive is not None:
            alive()
        if check():
            return
        if time.monotonic() >= deadline:
            raise TimeoutError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(interval)


def spawn_logged(args: list[str], log: Path) -> subprocess.Popen[bytes]:
    """Start ``args`` with stdout and stderr appended to ``log`` after a header line naming the command."""
    with log.open("ab") as out:
        out.write(f"\n=== {time.strftime('%H:%M:%S')} {' '.join(args)}\n".encode())
        out.flush()
        return subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            # Own process group: a Ctrl-C aimed at pytest must not kill the control
            # plane before the fixture's teardown stops it in order.
            start_new_session=True,
            # preexec_fn is unsafe only while other threads fork; none do here.
            preexec_fn=_die_with_parent,  # noqa: PLW1509
        )


def wait_started(
    proc: subprocess.Popen[bytes],
    name: str,
    log: Path,
    ready: Callable[[], bool],
    *,
    timeout: float,
    stop_timeout: float,
    interval: float = 0.05,
) -> None:
    """Wait until ``ready``; on exit or timeout stop ``proc`` and raise with the end of its log."""

    def tail() -> str:
        return f"last {_LOG_TAIL_LINES} lines of {log}:\n{_tail(log) or '(empty)'}"

    def alive() -> None:
        if proc.poll() is not None:
            raise RuntimeError(f"{name} exited with code {proc.returncode} during startup; {tail()}")

    try:
        _wait_for(f"{name} to be ready", ready, timeout=timeout, interval=interval, alive=alive)
    except TimeoutError as err:
        _terminate(proc, stop_timeout)
        raise RuntimeError(f"{err}; {tail()}") from err


class ControlPlane:
    """A real etcd + kube-apiserver on loopback, bootstrapped like an IPv6 EKS cluster.

    Use as a context manager or call :meth:`start` / :meth:`stop`. All state (etcd data,
    certificates, tokens, logs, audit log, kubeconfig) lives in a temporary directory
    that :meth:`stop` removes. Both processes are stopped at interpreter exit if a run
    forgets, and are killed by the kernel if this process dies abruptly.

    Parameters:
        cache_dir: Cache root holding ``bin/etcd`` and ``bin/kube-apiserver``.
            Default: ``$NLD_CACHE_DIR``, else ``<repo>/.cache`` (as
            tools/build-binaries.sh).
        crd_dir: Directory holding :data:`CRD_FILES`.
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
    ) -> None:
        """Configure the control plane; nothing is started until :meth:`start`."""
        env_cache = os.environ.get("NLD_CACHE_DIR")
        self.cache_dir: Path = cache_dir or (Path(env_cache) if env_cache else REPO_ROOT / ".cache")
        self.crd_dir: Path = crd_dir or DEFAULT_CRD_DIR
        self.startup_timeout = startup_timeout
        self.stop_timeout = stop_timeout
        self.startup_seconds: float | None = None
        """Wall-clock seconds the last :meth:`start` took (processes + bootstrap)."""
        self._tmp: Path | None = None
        self._etcd: subprocess.Popen[bytes] | None = None
        self._apiserver: subprocess.Popen[bytes] | None = None
        self._etcd_client_port = 0
        self._apiserver_port = 0
        self._admin_token = ""
        self._fixture_token = ""
        self.component_users = component_users
        self._component_tokens: dict[str, str] = {}
        self._rest: _Rest | None = None
        self._audit_events: list[dict[str, Any]] = []
        self._audit_offset = 0

    # ------------------------------------------------------------------ lifecycle --

    def __enter__(self) -> Self:
        """Start the control plane and return it."""
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Stop the control plane."""
        self.stop()

    def start(self) -> Self:
        """Start etcd and kube-apiserver, wait until ready, bootstrap; return self.

        Raises:
            RuntimeError: A binary is missing (names the file and the build command), a
                process exited during startup (with the last 40 lines of its log), or
                the control plane is already started.
            TimeoutError: A readiness or bootstrap wait exceeded ``startup_timeout``.
        """
        if self._tmp is not None:
            raise RuntimeError("ControlPlane.start: already started; call stop() first")
        began = time.monotonic()
        etcd_bin, apiserver_bin = self._binary("etcd"), self._binary("kube-apiserver")
        self._tmp = Path(tempfile.mkdtemp(prefix="nld-controlplane-"))
        atexit.register(self.stop)
        try:
            self._write_static_files()
            self._start_etcd(etcd_bin)
            self._apiserver_port = _free_port()
            self._write_kubeconfigs()
            self._start_apiserver_process(apiserver_bin, retry_on_port_clash=True)
            self._bootstrap()
        except BaseException:
            self.stop()
            raise
        self.startup_seconds = time.monotonic() - began
        return self

    def stop(self) -> None:
        """Stop both processes (SIGTERM, then SIGKILL) and remove the temporary dir.

        Safe to call more than once and on a partly started control plane.
        """
        atexit.unregister(self.stop)
        _terminate(self._apiserver, self.stop_timeout)
        _terminate(self._etcd, self.stop_timeout)
        self._apiserver = self._etcd = None
        self._rest = None
        self._audit_events = []
        self._audit_offset = 0
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    def stop_apiserver(self) -> None:
        """Stop kube-apiserver only; etcd (and so all stored objects) keeps running.

        Why: lets a test interrupt the deploy tool between two steps. The port,
        certificates, tokens and kubeconfig stay valid for :meth:`start_apiserver`.
        """
        self._require_started()
        _terminate(self._apiserver, self.stop_timeout)
        self._apiserver = None

    def start_apiserver(self) -> None:
        """Start kube-apiserver again against the same etcd, port and certificates.

        No-op if it is running. Returns once ``/readyz`` answers ``ok``.
        """
        self._require_started()
        if self.apiserver_running:
            return
        self._start_apiserver_process(self._binary("kube-apiserver"), retry_on_port_clash=False)

    # ----------------------------------------------------------------- properties --

    @property
    def tmp_dir(self) -> Path:
        """Temporary directory holding all state and logs of this control plane."""
        return self._require_started()

    @property
    def server(self) -> str:
        """Apiserver URL, ``https://127.0.0.1:PORT``."""
        self._require_started()
        return f"https://127.0.0.1:{self._apiserver_port}"

    @property
    def etcd_url(self) -> str:
        """etcd client URL, ``http://127.0.0.1:PORT``."""
        self._require_started()
        return f"http://127.0.0.1:{self._etcd_client_port}"

    @property
    def token(self) -> str:
        """Bearer token of :data:`ADMIN_USER` (group ``system:masters``)."""
        self._require_started()
        return self._admin_token

    @property
    def kubeconfig_path(self) -> Path:
        """Kubeconfig for :data:`ADMIN_USER`; verifies the self-signed serving cert."""
        return self._require_started() / "kubeconfig"

    def kubeconfig_for(self, user: str) -> Path:
        """Kubeconfig of one of :attr:`component_users`."""
        if user not in self.component_users:
            raise ValueError(f"user: must be one of {self.component_users}, got {user!r}")
        return self._require_started() / _kubeconfig_file(user)

    @property
    def ca_path(self) -> Path:
        """PEM bundle that verifies the apiserver's serving certificate."""
        return self._require_started() / "certs" / "apiserver.crt"

    @property
    def audit_log_path(self) -> Path:
        """JSON-lines audit log (one ``ResponseComplete`` event per request)."""
        return self._require_started() / "audit.log"

    @property
    def etcd_log_path(self) -> Path:
        """stdout+stderr of etcd."""
        return self._require_started() / "etcd.log"

    @property
    def apiserver_log_path(self) -> Path:
        """stdout+stderr of kube-apiserver (appended across restarts)."""
        return self._require_started() / "kube-apiserver.log"

    @property
    def apiserver_running(self) -> bool:
        """True while the kube-apiserver process is alive."""
        return self._apiserver is not None and self._apiserver.poll() is None

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

    def fixture_api(self) -> _Rest:
        """The fixture's own REST client (:data:`FIXTURE_USER`), for harness setup the audit counts leave out."""
        return self._client()

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
        return self._client().request(method, path, body=body, content_type=content_type, ok=ok)[1]

    def get(self, path: str) -> dict[str, Any] | None:
        """GET ``path`` as :data:`FIXTURE_USER`; None on 404."""
        return self._client().get(path)

    # ---------------------------------------------------------------------- audit --

    def audit_events(self, user: str | None = None) -> list[dict[str, Any]]:
        """Return the parsed audit events written so far, oldest first.

        Args:
            user: Keep only events of this username; None keeps every event, so that
                indexes match :meth:`audit_mark`.
        """
        events = self._read_audit()
        if user is None:
            return list(events)
        return [e for e in events if e.get("user", {}).get("username") == user]

    def audit_mark(self) -> int:
        """Return the number of audit events so far, for :meth:`requests_since`."""
        return len(self._read_audit())

    def requests_since(self, mark: int, user: str | None = ADMIN_USER) -> list[dict[str, Any]]:
        """Return the audit events written after `mark` (from :meth:`audit_mark`).

        Args:
            mark: Event count returned by :meth:`audit_mark` before the requests.
            user: Keep only this user's events; default :data:`ADMIN_USER`, which leaves
                out the fixture's own requests and the apiserver's internal ones.
                None keeps all.
        """
        events = self._read_audit()[mark:]
        if user is None:
            return list(events)
        return [e for e in events if e.get("user", {}).get("username") == user]

    def mutating_requests_since(self, mark: int, user: str | None = ADMIN_USER) -> list[dict[str, Any]]:
        """Return :meth:`requests_since` events for which :func:`is_mutating` holds."""
        return [e for e in self.requests_since(mark, user) if is_mutating(e)]

    # ---------------------------------------------------------------- cluster state --

    def reset(self) -> None:
        """Return the cluster to its bootstrap state; CRDs stay (or are put back).

        Deletes, and waits until gone: objects labelled :data:`MANAGED_BY_SELECTOR` in
        kube-system (Services, ConfigMaps, ServiceAccounts, DaemonSets), Service
        ``kube-system/kube-dns-upstream`` whatever its labels, every Pod in kube-system,
        every Node, every PodMonitor and PrometheusRule in ``monitoring``, the deploy's ApplySet
        parent. Recreates
        ``kube-system/kube-dns`` (IPv6 SingleStack) if it is missing or drifted, and the
        ``monitoring`` namespace and ``default`` ServiceAccounts if missing.
        """
        self._require_started()
        self._ensure_namespace("monitoring")
        self.install_crds()
        for collection in _MANAGED_COLLECTIONS:
            self._delete_collection(collection, label_selector=MANAGED_BY_SELECTOR)
        self._delete_collection(
            "/api/v1/namespaces/kube-system/services",
            field_selector="metadata.name=kube-dns-upstream",
        )
        # The deploy's ApplySet parent (it carries the set's id, not the app's labels), and what
        # a test's app put in the set beside NodeLocal DNS.
        for namespace in ("kube-system", "monitoring"):
            for selector in ("applyset.kubernetes.io/id", "applyset.kubernetes.io/part-of"):
                self._delete_collection(f"/api/v1/namespaces/{namespace}/configmaps", label_selector=selector)
        self._delete_collection("/api/v1/namespaces/kube-system/pods")
        self._delete_collection("/api/v1/nodes")
        for plural in MONITORING_PLURALS:
            self._delete_collection(f"{_MONITORING_PATH}/namespaces/monitoring/{plural}")
        self._ensure_default_service_accounts()
        self._ensure_kube_dns()

    def install_crds(self) -> None:
        """Create the PodMonitor and PrometheusRule CRDs if absent; wait until served.

        Returns once both are Established and their resources are listed in (and
        answer on) ``/apis/monitoring.coreos.com/v1``.
        """
        rest = self._client()
        for crd in self._crd_manifests():
            path = f"{_CRDS_PATH}/{crd['metadata']['name']}"
            current = rest.get(path)
            if current is not None and current["metadata"].get("deletionTimestamp"):
                self._wait_gone(path)
                current = None
            if current is None:
                rest.request("POST", _CRDS_PATH, body=crd)
            _wait_for(
                f"CRD {crd['metadata']['name']} Established",
                functools.partial(_crd_established, rest, path),
                timeout=self.startup_timeout,
            )
        _wait_for(
            f"{MONITORING_GROUP}/{MONITORING_VERSION} served",
            self._monitoring_api_served,
            timeout=self.startup_timeout,
        )

    def uninstall_crds(self) -> None:
        """Delete both CRDs (and so all their objects); wait until the group is gone."""
        rest = self._client()
        for crd in self._crd_manifests():
            path = f"{_CRDS_PATH}/{crd['metadata']['name']}"
            rest.request("DELETE", path, ok=(200, 202, 404))
            self._wait_gone(path)
        _wait_for(
            f"{MONITORING_GROUP}/{MONITORING_VERSION} no longer served",
            lambda: rest.get(_MONITORING_PATH) is None,
            timeout=self.startup_timeout,
        )

    # ------------------------------------------------------------------ internals --

    def _require_started(self) -> Path:
        if self._tmp is None:
            raise RuntimeError("ControlPlane is not started; call start() first")
        return self._tmp

    def _client(self) -> _Rest:
        self._require_started()
        if self._rest is None:
            raise RuntimeError("ControlPlane: apiserver was never started")
        return self._rest

    def _binary(self, name: str) -> Path:
        path = self.cache_dir / "bin" / name
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise RuntimeError(
                f"{name} binary not found (or not executable) at {path}; "
                f"build it with `{_BUILD_COMMAND}` from {REPO_ROOT} "
                "(set NLD_CACHE_DIR to use another cache root)"
            )
        return path

    def _write_static_files(self) -> None:
        tmp = self._require_started()
        self._admin_token = secrets.token_hex(16)
        self._fixture_token = secrets.token_hex(16)
        self._component_tokens = {user: secrets.token_hex(16) for user in self.component_users}
        tokens = {ADMIN_USER: self._admin_token, FIXTURE_USER: self._fixture_token, **self._component_tokens}
        # token,user,uid,"groups": system:masters is bound to cluster-admin by RBAC.
        (tmp / "tokens.csv").write_text(
            "".join(f'{token},{user},{user}-uid,"system:masters"\n' for user, token in tokens.items())
        )
        (tmp / "audit-policy.yaml").write_text(yaml.safe_dump(_AUDIT_POLICY))
        (tmp / "certs").mkdir()
        # Service-account signing key: openssl CLI, because `cryptography` is not a
        # dependency of the project.
        if shutil.which("openssl") is None:
            raise RuntimeError("openssl CLI not found; it is needed to make the service-account key")
        for args in (
            ["openssl", "genrsa", "-out", str(tmp / "sa.key"), "2048"],
            [
                "openssl",
                "rsa",
                "-in",
                str(tmp / "sa.key"),
                "-pubout",
                "-out",
                str(tmp / "sa.pub"),
            ],
        ):
            done = subprocess.run(args, capture_output=True, check=False)
            if done.returncode != 0:
                raise RuntimeError(f"{' '.join(args)} failed: {done.stderr.decode(errors='replace')}")

    def _write_kubeconfigs(self) -> None:
        tmp = self._require_started()
        for file, user, token in (
            ("kubeconfig", ADMIN_USER, self._admin_token),
            ("fixture.kubeconfig", FIXTURE_USER, self._fixture_token),
            *((_kubeconfig_file(user), user, token) for user, token in self._component_tokens.items()),
        ):
            config = {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [
                    {
                        "name": _CONTEXT_NAME,
                        "cluster": {
                            "server": self.server,
                            "certificate-authority": str(self.ca_path),
                        },
                    }
                ],
                "users": [{"name": user, "user": {"token": token}}],
                "contexts": [
                    {
                        "name": _CONTEXT_NAME,
                        "context": {"cluster": _CONTEXT_NAME, "user": user},
                    }
                ],
                "current-context": _CONTEXT_NAME,
            }
            (tmp / file).write_text(yaml.safe_dump(config, sort_keys=False))
            (tmp / file).chmod(0o600)
        self._rest = _Rest(self.server, self._fixture_token, self.ca_path)

    def _start_etcd(self, binary: Path) -> None:
        tmp = self._require_started()
        log = tmp / "etcd.log"
        for attempt in range(3):
            client_port, peer_port = _free_port(), _free_port()
            client_url = f"http://127.0.0.1:{client_port}"
            peer_url = f"http://127.0.0.1:{peer_port}"
            proc = spawn_logged(
                [
                    str(binary),
                    f"--name={_ETCD_NAME}",
                    f"--data-dir={tmp / 'etcd-data'}",
                    f"--listen-client-urls={client_url}",
                    f"--advertise-client-urls={client_url}",
                    f"--listen-peer-urls={peer_url}",
                    f"--initial-advertise-peer-urls={peer_url}",
                    f"--initial-cluster={_ETCD_NAME}={peer_url}",
                    "--initial-cluster-state=new",
                    # Test data is throwaway: skipping fsync makes every write fast.
                    "--unsafe-no-fsync",
                    "--log-level=warn",
                ],
                log,
            )
            self._etcd, self._etcd_client_port = proc, client_port
            try:
                wait_started(
                    proc,
                    "etcd",
                    log,
                    functools.partial(_etcd_healthy, client_url),
                    timeout=self.startup_timeout,
                    stop_timeout=self.stop_timeout,
                )
                return
            except RuntimeError:
                if attempt < 2 and "address already in use" in _tail(log):
                    shutil.rmtree(tmp / "etcd-data", ignore_errors=True)
                    continue
                raise

    def _start_apiserver_process(self, binary: Path, *, retry_on_port_clash: bool) -> None:
        tmp = self._require_started()
        log = tmp / "kube-apiserver.log"
        for attempt in range(3):
            proc = spawn_logged(self._apiserver_args(binary), log)
            self._apiserver = proc
            try:
                wait_started(
                    proc,
                    "kube-apiserver",
                    log,
                    self._readyz_ok,
                    timeout=self.startup_timeout,
                    stop_timeout=self.stop_timeout,
                    interval=0.1,
                )
                return
            except RuntimeError:
                if retry_on_port_clash and attempt < 2 and "address already in use" in _tail(log):
                    self._apiserver_port = _free_port()
                    self._write_kubeconfigs()
                    continue
                raise

    def _apiserver_args(self, binary: Path) -> list[str]:
        tmp = self._require_started()
        return [
            str(binary),
            "--bind-address=127.0.0.1",
            # Explicit, so startup needs no default route and the cert has no host IP.
            "--advertise-address=127.0.0.1",
            f"--secure-port={self._apiserver_port}",
            f"--cert-dir={tmp / 'certs'}",
            f"--etcd-servers={self.etcd_url}",
            f"--service-cluster-ip-range={','.join(SERVICE_CLUSTER_IP_RANGES)}",
            # No Endpoints for the `kubernetes` Service: nothing here needs them, and
            # the default lease reconciler would keep rewriting them.
            "--endpoint-reconciler-type=none",
            f"--token-auth-file={tmp / 'tokens.csv'}",
            "--authorization-mode=RBAC",
            "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
            f"--service-account-key-file={tmp / 'sa.pub'}",
            f"--service-account-signing-key-file={tmp / 'sa.key'}",
            # NodeLocal DNS runs privileged, as on a real cluster.
            "--allow-privileged=true",
            f"--audit-policy-file={tmp / 'audit-policy.yaml'}",
            f"--audit-log-path={tmp / 'audit.log'}",
            # Each event is on disk before the response is sent, so a test can count the
            # requests right after making them.
            "--audit-log-mode=blocking",
            "--audit-log-format=json",
            "--audit-log-maxsize=0",  # never rotate: marks are line counts of one file
        ]

    def _readyz_ok(self) -> bool:
        try:
            status, body = self._client().request("GET", "/readyz", ok=range(100, 600), timeout=2.0)
        except (OSError, http.client.HTTPException):
            return False
        return status == 200 and body == "ok"

    def _bootstrap(self) -> None:
        rest = self._client()
        # The apiserver creates kube-system itself, shortly after /readyz turns ok.
        _wait_for(
            "namespace kube-system",
            lambda: rest.get("/api/v1/namespaces/kube-system") is not None,
            timeout=self.startup_timeout,
        )
        self._ensure_namespace("monitoring")
        self._ensure_default_service_accounts()
        self._ensure_kube_dns()
        self.install_crds()

    def _ensure_namespace(self, name: str) -> None:
        rest = self._client()
        path = f"/api/v1/namespaces/{name}"
        current = rest.get(path)
        if current is not None and current["metadata"].get("deletionTimestamp"):
            # A deleted namespace stays Terminating without a namespace controller: do
            # its last step (empty spec.finalizers, delete again) by hand.
            current["spec"] = {"finalizers": []}
            rest.request("PUT", f"{path}/finalize", body=current, ok=(200, 404, 409))
            rest.request("DELETE", path, body=_DELETE_OPTIONS, ok=(200, 202, 404))
            self._wait_gone(path)
            current = None
        if current is None:
            rest.request(
                "POST",
                "/api/v1/namespaces",
                body={
                    "apiVersion": "v1",
                    "kind": "Namespace",
                    "metadata": {"name": name},
                },
                ok=(201, 409),
            )

    def _ensure_default_service_accounts(self) -> None:
        rest = self._client()
        for namespace in _BOOTSTRAP_NAMESPACES:
            rest.request(
                "POST",
                f"/api/v1/namespaces/{namespace}/serviceaccounts",
                body={
                    "apiVersion": "v1",
                    "kind": "ServiceAccount",
                    "metadata": {"name": "default"},
                },
                ok=(201, 409),
            )

    def _ensure_kube_dns(self) -> None:
        rest = self._client()
        path = "/api/v1/namespaces/kube-system/services/kube-dns"
        current = rest.get(path)
        if current is not None and not _is_bootstrap_kube_dns(current):
            rest.request("DELETE", path, body=_DELETE_OPTIONS, ok=(200, 202, 404))
            self._wait_gone(path)
            current = None
        if current is None:
            rest.request(
                "POST",
                "/api/v1/namespaces/kube-system/services",
                body={
                    "apiVersion": "v1",
                    "kind": "Service",
                    "metadata": {
                        "name": "kube-dns",
                        "namespace": "kube-system",
                        "labels": {
                            "k8s-app": "kube-dns",
                            "kubernetes.io/name": "CoreDNS",
                        },
                    },
                    "spec": {
                        "selector": dict(KUBE_DNS_SELECTOR),
                        "ports": [dict(p) for p in KUBE_DNS_PORTS],
                        "ipFamilyPolicy": "SingleStack",
                        "ipFamilies": ["IPv6"],
                    },
                },
            )

    def _delete_collection(self, collection: str, *, label_selector: str = "", field_selector: str = "") -> None:
        """Delete every listed object, stripping finalizers; wait until all are gone."""
        rest = self._client()
        query = {
            k: v
            for k, v in (
                ("labelSelector", label_selector),
                ("fieldSelector", field_selector),
            )
            if v
        }

        def remaining() -> list[dict[str, Any]]:
            listed = rest.get(collection, **query)
            return [] if listed is None else cast("list[dict[str, Any]]", listed.get("items") or [])

        items = remaining()
        for item in items:
            path = f"{collection}/{item['metadata']['name']}"
            if item["metadata"].get("finalizers"):
                self._strip_finalizers(path)
            rest.request("DELETE", path, body=_DELETE_OPTIONS, ok=(200, 202, 404))
        if items:
            _wait_for(
                f"{collection}?{query} to be empty",
                lambda: not remaining(),
                timeout=self.startup_timeout,
            )

    def _strip_finalizers(self, path: str) -> None:
        self._client().request(
            "PATCH",
            path,
            body={"metadata": {"finalizers": None}},
            content_type="application/merge-patch+json",
            ok=(200, 404),
        )

    def _wait_gone(self, path: str) -> None:
        rest = self._client()

        def gone() -> bool:
            current = rest.get(path)
            if current is None:
                return True
            # Only the CRD finalizer has a controller here (inside the apiserver), so
            # it is left to run; any other finalizer would block forever and is removed.
            if (
                current["metadata"].get("deletionTimestamp")
                and current["metadata"].get("finalizers")
                and not path.startswith("/apis/apiextensions.k8s.io/")
            ):
                self._strip_finalizers(path)
            return False

        _wait_for(f"{path} to be deleted", gone, timeout=self.startup_timeout)

    def _crd_manifests(self) -> list[dict[str, Any]]:
        manifests: list[dict[str, Any]] = []
        for name in CRD_FILES:
            path = self.crd_dir / name
            try:
                manifests.append(cast("dict[str, Any]", yaml.safe_load(path.read_text())))
            except FileNotFoundError:
                raise RuntimeError(
                    f"CRD manifest {path} not found; CRDs are read from shared/crds "
                    "beside the repository (pass crd_dir= to use another directory)"
                ) from None
        return manifests

    def _monitoring_api_served(self) -> bool:
        rest = self._client()
        group_version = rest.get(_MONITORING_PATH)
        if group_version is None:
            return False
        served = {r.get("name") for r in group_version.get("resources", [])}
        if not set(MONITORING_PLURALS) <= served:
            return False
        # Discovery can list a resource a moment before its handler answers.
        return all(
            rest.get(f"{_MONITORING_PATH}/namespaces/monitoring/{plural}") is not None for plural in MONITORING_PLURALS
        )

    def _read_audit(self) -> list[dict[str, Any]]:
        """Parse the complete lines appended to the audit log since the last read."""
        path = self._require_started() / "audit.log"
        try:
            with path.open("rb") as log:
                log.seek(self._audit_offset)
                data = log.read()
        except FileNotFoundError:
            return self._audit_events
        end = data.rfind(b"\n")  # a line still being written is left for the next read
        if end >= 0:
            self._audit_offset += end + 1
            self._audit_events.extend(
                cast("dict[str, Any]", json.loads(line)) for line in data[: end + 1].splitlines() if line.strip()
            )
        return self._audit_events


def _kubeconfig_file(user: str) -> str:
    """File name of a component user's kubeconfig: ``system:kube-scheduler.kubeconfig`` without the colon."""
    return user.replace(":", "-") + ".kubeconfig"


def _etcd_healthy(client_url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{client_url}/health", timeout=2.0) as resp:
            return bool(json.loads(resp.read()).get("health") == "true")
    except (OSError, ValueError):
        return False


def _crd_established(rest: _Rest, path: str) -> bool:
    crd = rest.get(path)
    if crd is None:
        return False
    conditions = crd.get("status", {}).get("conditions") or []
    return any(c.get("type") == "Established" and c.get("status") == "True" for c in conditions)


def _is_bootstrap_kube_dns(service: Mapping[str, Any]) -> bool:
    """Tell whether kube-dns still has the bootstrap selector, ports and IPv6 family."""
    spec = service.get("spec", {})
    ports = {(p.get("name"), p.get("port"), p.get("protocol"), p.get("targetPort")) for p in spec.get("ports", [])}
    expected = {(p["name"], p["port"], p["protocol"], p["targetPort"]) for p in KUBE_DNS_PORTS}
    return (
        spec.get("ipFamilies") == ["IPv6"]
        and spec.get("ipFamilyPolicy") == "SingleStack"
        and spec.get("selector") == KUBE_DNS_SELECTOR
        and ports == expected
    )
