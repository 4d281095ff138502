"""``deploy.py soak`` against a real Prometheus that asks for credentials, over TLS signed by a test CA.

Two fronts, each over a copy of one backfilled history (:mod:`tests.soakhistory`, the
passing install under the app's own names, as in :mod:`tests.integration.test_soak`):

- Debian's Prometheus with its own ``--web.config.file``: TLS with a certificate of the test
  CA (:func:`tests.tlsfiles.make_pki`) and basic auth, a bcrypt hash of a random password;
- a plain Prometheus behind :class:`~tests.harness.faultproxy.FaultProxy`, which listens
  over TLS and answers 401 without the bearer token, and breaks the queries a test says
  (a hang, a drip, an HTML login page, a 500, a JSON answer without a ``resultType``).

The command runs as a user runs it, in a subprocess. Every run's stdout and stderr are
searched for every secret of the module (passwords, tokens, the ``user:password`` pair and
its base64) and for a traceback; every failure is one line on stderr and its documented
exit code (:mod:`constructs_nld.deploy.exitcodes`). Deadlines are measured from the
proxy's record of the broken exchanges, not from the tool's start-up.
"""

from __future__ import annotations

import base64
import secrets
import shutil
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import pytest
import yaml

from constructs_nld.deploy.exitcodes import ExitCode
from constructs_nld.deploy.options import PrometheusAuth
from tests.controlplane import REPO_ROOT
from tests.harness.faultproxy import Fault, FaultKind, FaultProxy
from tests.harness.process import wait_until
from tests.harness.prometheus import Prometheus, backfill
from tests.soakhistory import STEP, Cluster, openmetrics
from tests.tlsfiles import Pki, make_pki

with warnings.catch_warnings():  # deprecated in 3.11, gone in 3.13; Debian's libxcrypt has bcrypt
    warnings.simplefilter("ignore", DeprecationWarning)
    import crypt

DAY = 86400
WINDOW = 3 * DAY
TIMEOUT: Final = 8.0
"""``--prometheus-timeout`` of the fault tests: each query's deadline, in seconds.

Its 10% leaves room for the proxy's own lag: it sees a dripped-to client gone at its second
write after the close, up to two drip intervals late (half a second).
"""

USER: Final = "nld-soak"
PASSWORD: Final = secrets.token_urlsafe(24)
WRONG_PASSWORD: Final = secrets.token_urlsafe(24)
TOKEN: Final = secrets.token_urlsafe(32)
WRONG_TOKEN: Final = secrets.token_urlsafe(32)
SECRETS: Final = (
    PASSWORD,
    WRONG_PASSWORD,
    TOKEN,
    WRONG_TOKEN,
    *(
        form
        for password in (PASSWORD, WRONG_PASSWORD)
        for form in (f"{USER}:{password}", base64.b64encode(f"{USER}:{password}".encode()).decode())
    ),
)
"""Every secret a run may hold, in every form it is sent in: none may show in any output."""


def bcrypt(password: str) -> str:
    """A bcrypt hash of ``password`` for Prometheus' ``basic_auth_users`` (cost 4: the test's, not a real one's)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        hashed = crypt.crypt(password, crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=2**4))
    assert hashed is not None and hashed.startswith("$2b$04$"), f"libcrypt made no bcrypt hash: {hashed!r}"
    return hashed


@dataclass(frozen=True)
class Files:
    """The test CA's files and the credential files the command is given."""

    pki: Pki
    basic_auth: Path
    wrong_basic_auth: Path
    token: Path
    wrong_token: Path


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Files:
    work = tmp_path_factory.mktemp("credentials")
    written = {}
    for name, text in {
        "basic-auth": f"{USER}:{PASSWORD}\n",
        "wrong-basic-auth": f"{USER}:{WRONG_PASSWORD}\n",
        "token": f"{TOKEN}\n",
        "wrong-token": f"{WRONG_TOKEN}\n",
    }.items():
        path = work / name
        path.write_text(text)
        path.chmod(0o600)
        written[name] = path
    return Files(
        make_pki(work / "pki"),
        written["basic-auth"],
        written["wrong-basic-auth"],
        written["token"],
        written["wrong-token"],
    )


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A TSDB data directory holding three days and more of the app's passing install, ending now."""
    work = tmp_path_factory.mktemp("history")
    end = float(int(time.time()) // STEP * STEP)
    nld_from = end - WINDOW - 2 * 3600
    passing = Cluster(start=nld_from - DAY - 3600, end=end, nld_from=nld_from, rollouts=(end - 36 * 3600,))
    backfill(openmetrics([passing]), work / "data", work)
    return work / "data"


def server_over(
    history: Path, work: Path, *, web_config: Path | None = None, auth: PrometheusAuth | None = None
) -> Prometheus:
    """A local Prometheus over a copy of ``history`` (two servers cannot share one data directory)."""
    shutil.copytree(history, work / "data")
    return Prometheus.local(work, data_dir=work / "data", web_config=web_config, auth=auth)


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory, history: Path, files: Files) -> Iterator[Prometheus]:
    """Prometheus serving TLS with the test CA's certificate and asking for basic auth, by its own web config."""
    work = tmp_path_factory.mktemp("guarded")
    web_config = work / "web.yml"
    web_config.write_text(
        yaml.safe_dump(
            {
                "tls_server_config": {"cert_file": str(files.pki.server_cert), "key_file": str(files.pki.server_key)},
                "basic_auth_users": {USER: bcrypt(PASSWORD)},
            }
        )
    )
    auth = PrometheusAuth(basic_auth_file=str(files.basic_auth), ca_file=str(files.pki.ca))
    with server_over(history, work, web_config=web_config, auth=auth) as server:
        assert server.url.startswith("https://127.0.0.1:")
        yield server


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory, history: Path) -> Iterator[Prometheus]:
    """Prometheus without TLS or auth, for the proxy to front."""
    with server_over(history, tmp_path_factory.mktemp("plain")) as server:
        yield server


@pytest.fixture
def front(plain: Prometheus, files: Files) -> Iterator[FaultProxy]:
    """The proxy in front of ``plain``: TLS with the test CA's certificate, 401 without the bearer token."""
    with FaultProxy(plain.url, tls=(files.pki.server_cert, files.pki.server_key), bearer=TOKEN) as proxy:
        yield proxy


def deploy_soak(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``deploy.py soak --prometheus url args``, its output checked for secrets and tracebacks."""
    done = subprocess.run(
        [sys.executable, "deploy.py", "soak", "--prometheus", url, *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    output = done.stdout + done.stderr
    leaked = [index for index, secret in enumerate(SECRETS) if secret in output]
    assert not leaked, f"secrets #{leaked} of SECRETS printed by soak {' '.join(args)}:\n{output}"
    assert "Traceback" not in output, output
    return done


def one_error(done: subprocess.CompletedProcess[str], code: ExitCode) -> str:
    """The one line of a refusal: on stderr, nothing on stdout, with exit ``code``."""
    assert done.returncode == code, f"exit {done.returncode}, not {code}:\n{done.stdout}{done.stderr}"
    assert done.stdout == "", done.stdout
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    return lines[0]


def passed(done: subprocess.CompletedProcess[str]) -> None:
    """The soak read the history and passed: the table and ``verdict: PASS``, exit 0."""
    assert done.returncode == ExitCode.OK, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("soak of kube-system/node-local-dns (job monitoring/nodelocaldns) from ")
    assert [row.split()[-1] for row in lines[2:6]] == ["PASS"] * 4, done.stdout
    assert lines[-1] == "verdict: PASS"


# Basic auth, by Prometheus' own web config.


def test_soak_reads_a_prometheus_behind_tls_and_basic_auth(guarded: Prometheus, files: Files) -> None:
    done = deploy_soak(
        guarded.url, "--prometheus-basic-auth-file", str(files.basic_auth), "--prometheus-ca-file", str(files.pki.ca)
    )

    passed(done)


def test_without_the_ca_file_the_certificate_is_refused_on_one_line(guarded: Prometheus, files: Files) -> None:
    done = deploy_soak(guarded.url, "--prometheus-basic-auth-file", str(files.basic_auth))

    line = one_error(done, ExitCode.ERROR)
    assert f"cannot query Prometheus at {guarded.url}" in line
    assert "certificate" in line, line


def test_a_wrong_password_is_a_401_on_one_line(guarded: Prometheus, files: Files) -> None:
    done = deploy_soak(
        guarded.url,
        "--prometheus-basic-auth-file",
        str(files.wrong_basic_auth),
        "--prometheus-ca-file",
        str(files.pki.ca),
    )

    line = one_error(done, ExitCode.ERROR)
    assert f"Prometheus at {guarded.url} answered 401" in line


def test_no_credentials_at_all_is_a_401_on_one_line(guarded: Prometheus, files: Files) -> None:
    done = deploy_soak(guarded.url, "--prometheus-ca-file", str(files.pki.ca))

    assert "answered 401" in one_error(done, ExitCode.ERROR)


def test_credentials_over_plain_http_are_refused_before_any_request(plain: Prometheus, files: Files) -> None:
    with FaultProxy(plain.url) as listener:  # plain http, recording what reaches it
        for flag, path in (
            ("--prometheus-basic-auth-file", files.basic_auth),
            ("--prometheus-bearer-token-file", files.token),
        ):
            done = deploy_soak(listener.url, flag, str(path))

            line = one_error(done, ExitCode.INVALID)
            assert "credentials go over https only" in line
        assert listener.exchanges == []


def test_a_password_in_the_url_is_refused_before_any_request(front: FaultProxy) -> None:
    with_userinfo = front.url.replace("https://", f"https://{USER}:{PASSWORD}@")

    done = deploy_soak(with_userinfo)

    line = one_error(done, ExitCode.INVALID)
    assert "no user:password in the URL" in line and f"--prometheus {front.url}:" in line
    assert front.exchanges == []


# A bearer token, checked by an authenticating proxy over TLS.


def test_soak_reads_a_prometheus_behind_a_bearer_token_over_tls(front: FaultProxy, files: Files) -> None:
    done = deploy_soak(
        front.url, "--prometheus-bearer-token-file", str(files.token), "--prometheus-ca-file", str(files.pki.ca)
    )

    passed(done)
    assert front.exchanges and all(exchange.path.startswith("/api/v1/query") for exchange in front.exchanges)


def test_a_wrong_token_is_a_401_on_one_line(front: FaultProxy, files: Files) -> None:
    done = deploy_soak(
        front.url, "--prometheus-bearer-token-file", str(files.wrong_token), "--prometheus-ca-file", str(files.pki.ca)
    )

    line = one_error(done, ExitCode.ERROR)
    assert f"Prometheus at {front.url} answered 401" in line
    assert len(front.exchanges) == 1  # the first refusal ends the command


# Faults between the command and a real Prometheus.


def queries(method: str, path: str) -> bool:
    """Instant and range queries: every request soak makes."""
    return path.startswith("/api/v1/query")


def soak_through(front: FaultProxy, files: Files) -> subprocess.CompletedProcess[str]:
    """``soak`` through the proxy with the token, the CA and a ``TIMEOUT``-second query deadline."""
    return deploy_soak(
        front.url,
        "--prometheus-bearer-token-file",
        str(files.token),
        "--prometheus-ca-file",
        str(files.pki.ca),
        "--prometheus-timeout",
        f"{TIMEOUT:g}",
    )


@pytest.mark.parametrize("kind", ["hang", "drip"])
def test_a_stalled_answer_ends_the_command_within_its_deadline(
    front: FaultProxy, files: Files, kind: FaultKind
) -> None:
    front.fault(Fault(kind, match=queries))

    done = soak_through(front, files)

    line = one_error(done, ExitCode.ERROR)
    assert line == f"error: cannot query Prometheus at {front.url}: no answer within --prometheus-timeout {TIMEOUT:g}s"
    broken = front.faulted(kind)
    assert broken and len(broken) == len(front.exchanges)
    # The proxy notices the client gone at its next read (hang) or write (drip): an event, awaited.
    wait_until(f"the proxy to see the {kind} exchanges end", lambda: all(e.ended is not None for e in broken), 30)
    lasted = max(e.ended for e in broken if e.ended is not None) - min(e.started for e in broken)
    assert lasted <= TIMEOUT * 1.1, f"{kind}: {lasted:.2f}s, the deadline is {TIMEOUT:g}s"


def test_an_html_login_page_is_refused_as_not_json(front: FaultProxy, files: Files) -> None:
    front.fault(Fault("html", match=queries))

    line = one_error(soak_through(front, files), ExitCode.ERROR)

    assert "with something not JSON (text/html; charset=utf-8)" in line, line
    assert f"Prometheus at {front.url} answered /api/v1/query" in line, line


def test_a_500_is_refused_on_one_line(front: FaultProxy, files: Files) -> None:
    front.fault(Fault("status", match=queries, status=500))

    line = one_error(soak_through(front, files), ExitCode.ERROR)

    assert f"Prometheus at {front.url} answered 500: " in line and "injected" in line, line


def test_a_success_without_a_result_type_is_a_malformed_result(front: FaultProxy, files: Files) -> None:
    front.fault(Fault("body", match=queries, body=b'{"status":"success","data":{}}'))

    line = one_error(soak_through(front, files), ExitCode.ERROR)

    assert "with a malformed result" in line, line


def test_a_fault_that_passes_lets_the_soak_read_the_rest(front: FaultProxy, files: Files) -> None:
    """One broken answer is the command's error, not the next run's: the proxy passes again, soak passes."""
    front.fault(Fault("status", match=queries, status=503, times=1))
    one_error(soak_through(front, files), ExitCode.ERROR)

    passed(soak_through(front, files))
