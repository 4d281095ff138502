"""The kubeconfig's exec plugin: run under the deadline, every failure one line naming it."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from constructs_nld.deploy.errors import KubeconfigError
from constructs_nld.deploy.execplugin import run_plugin
from constructs_nld.deploy.redact import redact

API = "client.authentication.k8s.io/v1"
WHERE = "kubeconfig k.yaml, context 'c'"


def _plugin(tmp_path: Path, body: str, name: str = "credential") -> dict[str, object]:
    script = tmp_path / name
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(0o755)
    return {"apiVersion": API, "command": str(script)}


def _run(plugin: object, timeout: float = 5.0) -> object:
    return run_plugin(plugin, None, timeout=timeout, timeout_flag="--timeout", where=WHERE)


def test_a_token_is_read_and_never_printed(tmp_path: Path) -> None:
    credential = {"apiVersion": API, "kind": "ExecCredential", "status": {"token": "s3cr3t-exec-token"}}
    plugin = _plugin(tmp_path, f"echo '{json.dumps(credential)}'\n")
    assert _run(plugin).token == "s3cr3t-exec-token"  # type: ignore[attr-defined]
    assert redact("sent s3cr3t-exec-token") == "sent ***"


def test_the_plugin_is_told_it_has_no_terminal(tmp_path: Path) -> None:
    # It echoes back what it was told, as its token.
    plugin = _plugin(
        tmp_path,
        "info=$(echo \"$KUBERNETES_EXEC_INFO\" | tr -d ' ')\n"
        f'printf \'{{"apiVersion":"{API}","kind":"ExecCredential","status":{{"token":"%s"}}}}\' '
        '"$(echo "$info" | sed \'s/"/_/g\')"\n',
    )
    assert _run(plugin).token == (  # type: ignore[attr-defined]
        "{_apiVersion_:_client.authentication.k8s.io/v1_,_kind_:_ExecCredential_,_spec_:{_interactive_:false}}"
    )


def test_a_hung_plugin_is_killed_at_the_deadline_and_refused_in_one_line(tmp_path: Path) -> None:
    plugin = _plugin(tmp_path, "sleep 60\n", name="aws")
    started = time.monotonic()
    with pytest.raises(KubeconfigError) as raised:
        _run(plugin, timeout=5.0)
    elapsed = time.monotonic() - started
    assert str(raised.value) == f"{WHERE}: exec plugin 'aws' gave no credential within --timeout 5s; killed"
    assert 5.0 <= elapsed <= 5.0 * 1.1


def test_a_plugin_whose_child_keeps_the_pipes_is_still_ended_at_the_deadline(tmp_path: Path) -> None:
    plugin = _plugin(tmp_path, "sleep 60 &\nsleep 60\n", name="oidc-login")
    started = time.monotonic()
    with pytest.raises(KubeconfigError, match=r"exec plugin 'oidc-login' gave no credential within --timeout 5s"):
        _run(plugin, timeout=5.0)
    assert time.monotonic() - started <= 5.0 * 1.1  # the kill of its process group, reaped, within the 10 %


def test_a_failing_plugin_is_refused_with_its_last_line_of_stderr(tmp_path: Path) -> None:
    plugin = _plugin(tmp_path, "echo 'starting' >&2\necho 'token expired: run aws sso login' >&2\nexit 3\n", "aws")
    with pytest.raises(KubeconfigError) as raised:
        _run(plugin)
    assert str(raised.value) == f"{WHERE}: exec plugin 'aws' exited 3: token expired: run aws sso login"


@pytest.mark.parametrize(
    ("output", "why"),
    [
        ("<html>sign in</html>", "its output is not JSON"),
        ('["ExecCredential"]', "its output is not an ExecCredential object"),
        (
            '{"apiVersion": "client.authentication.k8s.io/v1beta1", "kind": "ExecCredential", "status": {}}',
            "apiVersion 'client.authentication.k8s.io/v1beta1', "
            "but the kubeconfig asks client.authentication.k8s.io/v1",
        ),
        ('{"apiVersion": "' + API + '", "kind": "ExecCredential"}', "no status"),
        (
            '{"apiVersion": "' + API + '", "kind": "ExecCredential", "status": {"token": ""}}',
            "status has neither a token nor clientCertificateData and clientKeyData",
        ),
        (
            '{"apiVersion": "' + API + '", "kind": "ExecCredential", '
            '"status": {"token": "t", "expirationTimestamp": "soon"}}',
            "expirationTimestamp 'soon' is not an RFC 3339 time",
        ),
    ],
)
def test_garbage_from_a_plugin_is_refused_in_one_line(tmp_path: Path, output: str, why: str) -> None:
    plugin = _plugin(tmp_path, f"cat <<'EOF'\n{output}\nEOF\n")
    with pytest.raises(KubeconfigError) as raised:
        _run(plugin)
    assert str(raised.value) == f"{WHERE}: exec plugin 'credential' printed no usable ExecCredential: {why}"


@pytest.mark.parametrize(
    ("plugin", "message"),
    [
        ("aws", f"{WHERE}: exec must be a mapping"),
        ({"apiVersion": API}, f"{WHERE}: exec.command must be a non-empty string"),
        (
            {"apiVersion": "v9", "command": "aws"},
            f"{WHERE}: exec plugin 'aws': apiVersion must be one of client.authentication.k8s.io/v1, "
            "client.authentication.k8s.io/v1beta1, got 'v9'",
        ),
        (
            {"apiVersion": API, "command": "aws", "interactiveMode": "Always"},
            f"{WHERE}: exec plugin 'aws': interactiveMode Always needs a terminal, and this command runs without one",
        ),
        (
            {"apiVersion": API, "command": "aws", "args": "eks get-token"},
            f"{WHERE}: exec.args must be a list of strings",
        ),
        (
            {"apiVersion": API, "command": "aws", "env": [{"name": "A"}]},
            f"{WHERE}: exec.env must be a list of {{name, value}} strings",
        ),
        (
            {"apiVersion": API, "command": "/nonexistent/aws"},
            f"{WHERE}: exec plugin 'aws' did not start: no such file or directory",
        ),
    ],
)
def test_a_malformed_exec_entry_is_refused_in_one_line(plugin: object, message: str) -> None:
    with pytest.raises(KubeconfigError) as raised:
        _run(plugin)
    assert str(raised.value) == message
