"""The CLI against the real API server behind a proxy that misbehaves: deadlines held, one line, nothing half-done.

:class:`~tests.harness.faultproxy.FaultProxy` listens over TLS (a test CA of its own) and
passes each request to the control plane's kube-apiserver, or breaks the ones a test picks:
it hangs, drips the answer a byte at a time, resets the connection mid-body, answers an
HTML login page or a burst of 5xx, or a body that is JSON of the wrong shape. ``deploy.py``
runs as a user runs it, a process with a kubeconfig that points at the proxy. Each command must
end within its ``--timeout`` plus 10 %, retries included (measured on the proxy's side, from
the first broken request to the end of the last, so the interpreter's start-up is not
counted), with one ``error:`` line and its documented exit code, and a rerun must find the
cluster as an uninterrupted deploy leaves it.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import pytest
import yaml

from constructs_nld.deploy.exitcodes import ExitCode
from tests.controlplane import REPO_ROOT, ControlPlane
from tests.harness.faultproxy import Fault, FaultKind, FaultProxy
from tests.harness.process import wait_until
from tests.tlsfiles import make_pki

SERVICES: Final = "/api/v1/namespaces/kube-system/services"
"""Where every command reads kube-dns and kube-dns-upstream: one list of the namespace's Services."""
DAEMON_SET: Final = "/apis/apps/v1/namespaces/kube-system/daemonsets/node-local-dns"
TIMEOUT: Final = 5.0
SLACK: Final = 1.10
"""A deadline is kept within 10 %."""


@dataclass
class Run:
    """One finished ``deploy.py`` process."""

    code: int
    out: str
    err: str

    @property
    def last(self) -> str:
        """The last line on stderr: where a failure says what happened."""
        lines = self.err.splitlines()
        return lines[-1] if lines else ""


@dataclass
class Front:
    """The proxy in front of the test API server, and a kubeconfig that goes through it."""

    proxy: FaultProxy
    kubeconfig: Path
    cluster: ControlPlane

    def run(self, *args: str) -> Run:
        """``python deploy.py ARGS --kubeconfig <through the proxy>``, to its end."""
        done = subprocess.run(
            [sys.executable, "deploy.py", *args, "--kubeconfig", str(self.kubeconfig)],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert "Traceback" not in done.stderr, done.stderr
        assert self.cluster.token not in done.stdout + done.stderr
        return Run(done.returncode, done.stdout, done.stderr)

    def broken_for(self, kind: FaultKind) -> float:
        """Seconds from the first request ``kind`` broke to the end of the last: what the client spent on them."""
        exchanges = self.proxy.faulted(kind)
        assert exchanges, f"no request was broken by {kind}"
        # The proxy's thread records an exchange's end as it sees the client's close.
        wait_until(f"the proxy to see the end of the {kind} exchanges", lambda: all(e.ended for e in exchanges), 10)
        return max(e.ended or 0.0 for e in exchanges) - min(e.started for e in exchanges)


def proxied_kubeconfig(cluster: ControlPlane, proxy: FaultProxy, ca: Path, path: Path) -> Path:
    """A kubeconfig for the cluster's admin token whose server is the proxy."""
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "proxied", "cluster": {"server": proxy.url, "certificate-authority": str(ca)}}],
        "users": [{"name": "admin", "user": {"token": cluster.token}}],
        "contexts": [{"name": "proxied", "context": {"cluster": "proxied", "user": "admin"}}],
        "current-context": "proxied",
    }
    path.write_text(yaml.safe_dump(config))
    path.chmod(0o600)
    return path


@pytest.fixture
def front(cluster: ControlPlane, tmp_path: Path) -> Iterator[Front]:
    pki = make_pki(tmp_path / "pki")
    with FaultProxy(cluster.server, upstream_ca=cluster.ca_path, tls=(pki.server_cert, pki.server_key)) as proxy:
        yield Front(proxy, proxied_kubeconfig(cluster, proxy, pki.ca, tmp_path / "proxied.kubeconfig"), cluster)


def kube_dns_read(method: str, path: str) -> bool:
    return method == "GET" and path.split("?")[0] == SERVICES


WRONG_SHAPE: Final = (
    b'{"kind": "ServiceList", "items": [{"metadata": {"name": "kube-dns", "namespace": "kube-system"}, '
    b'"spec": "not a spec"}]}'
)


@pytest.mark.parametrize("kind", ["hang", "drip"])
def test_a_server_that_hangs_or_drips_is_given_up_on_within_the_timeout(front: Front, kind: FaultKind) -> None:
    mark = front.cluster.audit_mark()
    front.proxy.fault(Fault(kind, kube_dns_read))

    run = front.run("--timeout", f"{TIMEOUT:g}")

    assert run.code == ExitCode.ERROR, run.err
    assert run.last.startswith("error: "), run.err
    assert "timed out" in run.last, run.last
    assert TIMEOUT / SLACK <= front.broken_for(kind) <= TIMEOUT * SLACK
    assert front.cluster.mutating_requests_since(mark) == []  # refused before any write


def test_a_connection_reset_mid_body_is_retried_and_the_deploy_goes_on(front: Front) -> None:
    front.proxy.fault(Fault("reset", kube_dns_read, times=1))

    run = front.run("--timeout", f"{TIMEOUT:g}")

    assert run.code == ExitCode.OK, run.err
    assert len(front.proxy.faulted("reset")) == 1
    assert "[retry] LIST services/kube-system: " in run.out


def test_a_burst_of_503s_is_retried_within_the_timeout(front: Front) -> None:
    front.proxy.fault(Fault("status", kube_dns_read, times=3, status=503))

    run = front.run("--timeout", f"{TIMEOUT:g}")

    assert run.code == ExitCode.OK, run.err
    assert run.out.count("[retry] LIST services/kube-system: 503") == 3


@pytest.mark.parametrize(
    ("fault", "says"),
    [
        (Fault("html", kube_dns_read), "the answer is not JSON (text/html; charset=utf-8, starting '<!doctype html>"),
        (Fault("status", kube_dns_read, status=500), "500"),
        (Fault("body", kube_dns_read, body=b"[1, 2]"), "the answer is JSON but not an object (a list)"),
        (Fault("body", kube_dns_read, body=WRONG_SHAPE), "unexpected"),
    ],
    ids=["html login page", "500", "json list", "wrong shape"],
)
def test_an_answer_that_is_not_the_apis_is_refused_on_one_line_before_any_write(
    front: Front, fault: Fault, says: str
) -> None:
    mark = front.cluster.audit_mark()
    front.proxy.fault(fault)

    run = front.run("--timeout", f"{TIMEOUT:g}")

    assert run.code == ExitCode.ERROR, run.err
    assert run.last.startswith("error: ") and says in run.last, run.err
    assert front.cluster.mutating_requests_since(mark) == []


def test_a_write_that_hangs_is_given_up_on_and_a_rerun_converges(front: Front) -> None:
    reference = front.run()
    assert reference.code == ExitCode.OK, reference.err
    front.cluster.reset()
    front.proxy.fault(Fault("hang", lambda method, path: method == "PATCH" and path.startswith(DAEMON_SET)))

    broken = front.run("--timeout", f"{TIMEOUT:g}")

    assert broken.code == ExitCode.ERROR, broken.err
    assert broken.last.startswith("error: ") and "timed out" in broken.last, broken.err
    assert front.broken_for("hang") <= TIMEOUT * SLACK
    assert front.cluster.get(DAEMON_SET) is None  # the hung write never reached the server
    front.proxy.clear()
    rerun = front.run()
    assert rerun.code == ExitCode.OK, rerun.err
    daemon_set = front.cluster.get(DAEMON_SET)
    assert daemon_set is not None
    mark = front.cluster.audit_mark()
    assert front.run().code == ExitCode.OK
    assert front.cluster.mutating_requests_since(mark) == []


# --- the kubeconfig's exec plugin, run by deploy.py under the same deadline ---------------------------
PLUGINS: Final = {
    "hangs": ("echo $$ > {pidfile}\nexec sleep 600\n", "gave no credential within --timeout 3s; killed"),
    "fails": ("echo $$ > {pidfile}\necho 'token expired: run aws sso login' >&2\nexit 3\n", "exited 3: token expired"),
    "prints garbage": (
        "echo $$ > {pidfile}\necho '<html>sign in</html>'\n",
        "printed no usable ExecCredential: its output is not JSON",
    ),
}


@pytest.mark.parametrize("behaviour", list(PLUGINS))
def test_an_exec_plugin_that_hangs_fails_or_prints_garbage_is_refused_on_one_line(
    cluster: ControlPlane, tmp_path: Path, behaviour: str
) -> None:
    body, says = PLUGINS[behaviour]
    pidfile = tmp_path / "plugin.pid"
    plugin = tmp_path / "aws"
    plugin.write_text("#!/bin/sh\n" + body.format(pidfile=pidfile))
    plugin.chmod(0o755)
    config = yaml.safe_load(cluster.kubeconfig_path.read_text())
    config["users"][0]["user"] = {
        "exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": str(plugin), "args": ["eks", "get-token"]}
    }
    kubeconfig = tmp_path / "exec.kubeconfig"
    kubeconfig.write_text(yaml.safe_dump(config))
    mark = cluster.audit_mark()

    done = subprocess.run(
        [sys.executable, "deploy.py", "verify", "--timeout", "3", "--kubeconfig", str(kubeconfig)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert done.returncode == ExitCode.INVALID, done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: kubeconfig "), done.stderr
    assert f"exec plugin 'aws' {says}" in done.stderr
    # It ran, and nothing of it outlives the command: a hung plugin is killed with its process group.
    assert not Path(f"/proc/{pidfile.read_text().strip()}").exists()
    assert cluster.requests_since(mark) == []  # not a request went out without a credential
