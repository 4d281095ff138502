"""The test control plane's processes: etcd and kube-apiserver on loopback.

Both are :class:`~tests.harness.process.Process` es: a free port per attempt (etcd's two,
the apiserver's one), readiness by etcd's ``/health`` and the apiserver's ``/readyz``, and a
retry when a port was taken between choosing and binding it. The apiserver records every
request in an audit log (:mod:`tests.harness.audit`) before it answers.
"""

from __future__ import annotations

import http.client
import json
import shutil
from pathlib import Path
from typing import Final

import yaml

from constructs_nld.defaults import DEPLOY_LEASE_NAME
from tests.harness.credentials import ADMIN_USER, FIXTURE_USER, Credentials
from tests.harness.health import http_get
from tests.harness.process import Process, free_port
from tests.harness.rest import ANY_STATUS, Rest

__all__ = ["AUDIT_POLICY", "SERVICE_CLUSTER_IP_RANGES", "Etcd", "KubeApiserver"]

SERVICE_CLUSTER_IP_RANGES: Final = ("fd00:ec2::/108", "10.100.0.0/16")
"""Dual-stack Service ranges, IPv6 first so Services default to IPv6 as on IPv6 EKS;
the IPv4 secondary lets a test create an IPv4 Service (which deploy must reject)."""

_ETCD_NAME: Final = "nld-test"

AUDIT_POLICY: Final = {
    "apiVersion": "audit.k8s.io/v1",
    "kind": "Policy",
    "omitStages": ["RequestReceived", "ResponseStarted"],
    "rules": [
        {"level": "Metadata", "users": [ADMIN_USER]},
        {
            "level": "Metadata",
            "resources": [
                {"group": "coordination.k8s.io", "resources": ["leases"], "resourceNames": [DEPLOY_LEASE_NAME]}
            ],
        },
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
"""Every request at Metadata level, one event per request: RequestReceived is dropped, and so
is ResponseStarted, which long-running requests (watches) would add as well. The simulated
cluster's components (controllers, scheduler, kwok) renew leases and record events all the
time; those are never what a test counts, and at hundreds of nodes they would make most of
the log, so they are left out for every user but ours, except the deploy's own Lease."""


class Etcd(Process):
    """etcd with its data in ``directory``, client and peer URLs on free loopback ports."""

    start_attempts = 3

    def __init__(self, binary: Path, directory: Path, *, startup_timeout: float, grace_period: float) -> None:
        """Plan etcd; :meth:`start` runs it."""
        super().__init__("etcd", directory / "etcd.log", grace_period=grace_period, startup_timeout=startup_timeout)
        self.binary = binary
        self.data_dir = directory / "etcd-data"
        self.client_port = 0
        self.peer_port = 0

    @property
    def client_url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self.client_port}"

    def prepare(self, attempt: int) -> None:
        """New ports; after a failed attempt, a new data directory too."""
        if attempt:
            shutil.rmtree(self.data_dir, ignore_errors=True)
        self.client_port, self.peer_port = free_port(), free_port()

    def argv(self) -> list[str]:
        """A single-member cluster; no fsync."""
        peer_url = f"http://127.0.0.1:{self.peer_port}"
        return [
            str(self.binary),
            f"--name={_ETCD_NAME}",
            f"--data-dir={self.data_dir}",
            f"--listen-client-urls={self.client_url}",
            f"--advertise-client-urls={self.client_url}",
            f"--listen-peer-urls={peer_url}",
            f"--initial-advertise-peer-urls={peer_url}",
            f"--initial-cluster={_ETCD_NAME}={peer_url}",
            "--initial-cluster-state=new",
            # Test data is throwaway: skipping fsync makes every write fast.
            "--unsafe-no-fsync",
            "--log-level=warn",
        ]

    def healthy(self) -> bool:
        """``/health`` says ``"health": "true"``."""
        answer = http_get(f"{self.client_url}/health")
        try:
            return answer is not None and json.loads(answer[1]).get("health") == "true"
        except ValueError:
            return False


class KubeApiserver(Process):
    """kube-apiserver against ``etcd``, with the users of ``credentials``, on a free loopback port.

    The port is chosen at the first start and kept across restarts (the kubeconfigs name it),
    unless a first start finds it taken: then a new port, and the kubeconfigs rewritten.
    """

    health_interval = 0.1
    start_attempts = 3

    def __init__(
        self,
        binary: Path,
        directory: Path,
        *,
        etcd: Etcd,
        credentials: Credentials,
        startup_timeout: float,
        grace_period: float,
        flags: tuple[str, ...] = (),
    ) -> None:
        """Plan the apiserver; :meth:`start` runs it, with ``flags`` after its own (an emulated version)."""
        super().__init__(
            "kube-apiserver",
            directory / "kube-apiserver.log",
            grace_period=grace_period,
            startup_timeout=startup_timeout,
        )
        self.binary = binary
        self.directory = directory
        self.etcd = etcd
        self.credentials = credentials
        self.flags = flags
        self.port = 0
        self._rest: Rest | None = None

    @property
    def server(self) -> str:
        """``https://127.0.0.1:PORT``."""
        return f"https://127.0.0.1:{self.port}"

    @property
    def cert_dir(self) -> Path:
        """Where the apiserver writes its self-signed serving certificate (kept across restarts)."""
        return self.directory / "certs"

    @property
    def ca_path(self) -> Path:
        """PEM bundle that verifies the serving certificate."""
        return self.cert_dir / "apiserver.crt"

    @property
    def audit_log_path(self) -> Path:
        """JSON-lines audit log (one ``ResponseComplete`` event per request)."""
        return self.directory / "audit.log"

    @property
    def audit_policy_path(self) -> Path:
        """:data:`AUDIT_POLICY`, as ``--audit-policy-file`` reads it."""
        return self.directory / "audit-policy.yaml"

    @property
    def rest(self) -> Rest:
        """The fixture user's client (:data:`~tests.harness.credentials.FIXTURE_USER`)."""
        if self._rest is None:
            if not self.port:
                raise RuntimeError("kube-apiserver was never started")
            self._rest = Rest(self.server, self.credentials.tokens[FIXTURE_USER], self.ca_path)
        return self._rest

    def prepare(self, attempt: int) -> None:
        """At the first start (or after a port clash) pick a port and write the kubeconfigs naming it."""
        self.cert_dir.mkdir(exist_ok=True)
        self.audit_policy_path.write_text(yaml.safe_dump(AUDIT_POLICY))
        if attempt or not self.port:
            self.port = free_port()
            self._rest = None
            self.credentials.write_kubeconfigs(self.server, self.ca_path)

    def argv(self) -> list[str]:
        """RBAC, token auth, dual-stack Services, a blocking audit log."""
        credentials = self.credentials
        return [
            str(self.binary),
            "--bind-address=127.0.0.1",
            # Explicit, so startup needs no default route and the cert has no host IP.
            "--advertise-address=127.0.0.1",
            f"--secure-port={self.port}",
            f"--cert-dir={self.cert_dir}",
            f"--etcd-servers={self.etcd.client_url}",
            f"--service-cluster-ip-range={','.join(SERVICE_CLUSTER_IP_RANGES)}",
            # No Endpoints for the `kubernetes` Service: nothing here needs them, and
            # the default lease reconciler would keep rewriting them.
            "--endpoint-reconciler-type=none",
            # Reach a kubelet (logs, exec) by the InternalIP it reports, never by resolving its
            # hostname through this machine's resolver.
            "--kubelet-preferred-address-types=InternalIP",
            f"--token-auth-file={credentials.tokens_file}",
            "--authorization-mode=RBAC",
            "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
            f"--service-account-key-file={credentials.service_account_public_key}",
            f"--service-account-signing-key-file={credentials.service_account_key}",
            # NodeLocal DNS runs privileged, as on a real cluster.
            "--allow-privileged=true",
            f"--audit-policy-file={self.audit_policy_path}",
            f"--audit-log-path={self.audit_log_path}",
            # Each event is on disk before the response is sent, so a test can count the
            # requests right after making them.
            "--audit-log-mode=blocking",
            "--audit-log-format=json",
            "--audit-log-maxsize=0",  # never rotate: marks are line counts of one file
            *self.flags,
        ]

    def healthy(self) -> bool:
        """``/readyz`` answers ``ok``."""
        try:
            status, body = self.rest.request("GET", "/readyz", ok=ANY_STATUS, timeout=2.0)
        except (OSError, http.client.HTTPException):
            return False
        return status == 200 and body == "ok"
