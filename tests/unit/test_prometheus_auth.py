"""Prometheus credentials: the flags reach soak, cutover status and promote; each bad file or URL is one line.

No request is made here: :class:`~constructs_nld.deploy.promapi.PrometheusAPI` checks the URL and
the credential files when it is made, before any cluster is touched. The credentials on the
wire are proven against a real Prometheus in ``tests/integration/test_prometheus_credentials.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from constructs_nld.deploy.cli import parse
from constructs_nld.deploy.errors import InvalidConfigError
from constructs_nld.deploy.options import CutoverOptions, PrometheusAuth, SoakOptions
from constructs_nld.deploy.promapi import PrometheusAPI
from constructs_nld.deploy.redact import redact

AUTH_FLAGS = ["--prometheus-bearer-token-file", "t", "--prometheus-ca-file", "ca.pem"]


@pytest.mark.parametrize(
    "command", [["soak"], ["cutover", "status"], ["cutover", "promote"]], ids=["soak", "status", "promote"]
)
def test_the_credential_flags_reach_every_command_that_reads_prometheus(command: list[str]) -> None:
    invocation = parse([*command, "--prometheus", "https://prometheus.example:9090", *AUTH_FLAGS])

    assert isinstance(invocation.options, SoakOptions | CutoverOptions)
    assert invocation.options.prometheus_auth == PrometheusAuth(bearer_token_file="t", ca_file="ca.pem")


def _file(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_a_password_from_its_file_is_sent_as_basic_auth_and_never_shown(tmp_path: Path) -> None:
    auth = PrometheusAuth(basic_auth_file=_file(tmp_path, "basic", "nld:pa55-w0rd-s3cret\n"))

    api = PrometheusAPI("https://prometheus.example:9090", auth=auth)

    assert api._authorization() == {"Authorization": "Basic bmxkOnBhNTUtdzByZC1zM2NyZXQ="}
    assert redact("sent pa55-w0rd-s3cret as bmxkOnBhNTUtdzByZC1zM2NyZXQ=") == "sent *** as ***"


@pytest.mark.parametrize(
    ("url", "auth", "message"),
    [
        (
            "http://prometheus.example:9090",
            {"bearer_token_file": "token"},
            "--prometheus http://prometheus.example:9090: credentials go over https only (plain http shows them to "
            "the path)",
        ),
        (
            "https://nld:hunter22@prometheus.example:9090/",
            {},
            "--prometheus https://prometheus.example:9090/: no user:password in the URL (it ends up in logs); give "
            "--prometheus-basic-auth-file FILE",
        ),
        (
            "https://prometheus.example:9090",
            {"bearer_token_file": "token", "basic_auth_file": "basic"},
            "--prometheus-bearer-token-file and --prometheus-basic-auth-file: give one, not both",
        ),
        ("https://prometheus.example:9090", {"bearer_token_file": "missing"}, "cannot read it (no such file"),
        ("https://prometheus.example:9090", {"bearer_token_file": "empty"}, "must hold one non-empty line"),
        ("https://prometheus.example:9090", {"bearer_token_file": "two-lines"}, "must hold one non-empty line"),
        ("https://prometheus.example:9090", {"basic_auth_file": "no-colon"}, "must hold user:password"),
        ("https://prometheus.example:9090", {"ca_file": "not-pem"}, "--prometheus-ca-file "),
        ("ftp://prometheus.example", {}, "--prometheus: must be an http(s) URL"),
    ],
    ids=["http", "userinfo", "both", "missing", "empty", "two-lines", "no-colon", "bad-ca", "scheme"],
)
def test_a_bad_url_or_credential_file_is_refused_on_one_line(
    tmp_path: Path, url: str, auth: dict[str, str], message: str
) -> None:
    files = {
        "token": _file(tmp_path, "token", "abc-token\n"),
        "basic": _file(tmp_path, "basic", "u:p\n"),
        "missing": str(tmp_path / "missing"),
        "empty": _file(tmp_path, "empty", "\n"),
        "two-lines": _file(tmp_path, "two", "a\nb\n"),
        "no-colon": _file(tmp_path, "colon", "hunter22\n"),
        "not-pem": _file(tmp_path, "ca.pem", "not a certificate\n"),
    }

    with pytest.raises(InvalidConfigError) as refused:
        PrometheusAPI(url, auth=PrometheusAuth(**{key: files[value] for key, value in auth.items()}))

    assert message in str(refused.value)
    assert "\n" not in str(refused.value)
    assert "hunter22" not in str(refused.value)
