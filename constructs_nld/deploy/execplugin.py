"""A kubeconfig's exec credential plugin (``aws eks get-token``, an OIDC helper), run under the command's deadline.

The official client runs the plugin with no time limit, and when it fails only logs the
error and carries on unauthenticated. Here the plugin gets ``--timeout`` (its process group
is killed past it), and anything but an ``ExecCredential`` with a token or a client
certificate is one line naming the plugin and what went wrong: it did not start, timed out,
exited non-zero (with its last line of standard error), or printed something else.

The plugin runs without a terminal (``spec.interactive: false``, standard input closed), as
in CI: a plugin that must ask a person (``interactiveMode: Always``) is refused before it runs.
The credential's secrets are registered with :mod:`constructs_nld.deploy.redact`.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from constructs_nld.deploy.errors import KubeconfigError, printable
from constructs_nld.deploy.redact import keep_secret, redact

__all__ = ["ExecCredential", "run_plugin"]

_API_VERSIONS: Final = ("client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1")
_CLUSTER_EXTENSION: Final = "client.authentication.k8s.io/exec"
_REAP_SECONDS: Final = 2.0
"""How long the killed plugin's pipes are drained for before they are closed unread."""
_STDERR_LINE: Final = 200


@dataclass(frozen=True)
class ExecCredential:
    """What a plugin gave: a bearer token, or a client certificate and key (PEM), and when it expires."""

    token: str | None
    certificate: bytes | None
    key: bytes | None
    expiry: float | None
    """Epoch seconds, or None when the plugin gave no ``expirationTimestamp`` (valid for the whole run)."""


def _strings(value: object, what: str, where: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise KubeconfigError(f"{where}: exec.{what} must be a list of strings")
    return list(value)


def _environment(value: object, where: str) -> dict[str, str]:
    if value is None:
        return {}
    pairs: dict[str, str] = {}
    if isinstance(value, list):
        for item in value:
            if not isinstance(item, dict) or not isinstance(item.get("name"), str):
                break
            if not isinstance(item.get("value"), str):
                break
            pairs[item["name"]] = item["value"]
        else:
            return pairs
    raise KubeconfigError(f"{where}: exec.env must be a list of {{name, value}} strings")


def _cluster_info(cluster: Mapping[str, Any]) -> dict[str, Any]:
    """``spec.cluster`` of the ExecCredential: the cluster's server and CA, and its exec extension's config."""
    info: dict[str, Any] = {
        key: cluster[source]
        for key, source in (
            ("server", "server"),
            ("tls-server-name", "tls-server-name"),
            ("insecure-skip-tls-verify", "insecure-skip-tls-verify"),
            ("certificate-authority-data", "certificate-authority-data"),
            ("proxy-url", "proxy-url"),
        )
        if source in cluster
    }
    for extension in cluster.get("extensions") or []:
        if isinstance(extension, dict) and extension.get("name") == _CLUSTER_EXTENSION:
            info["config"] = extension.get("extension")
    return info


def _kill(process: subprocess.Popen[bytes]) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    try:
        process.communicate(timeout=_REAP_SECONDS)
    except subprocess.TimeoutExpired:  # a grandchild in another group holds the pipes: leave them
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()
        process.wait()


def _last_line(stderr: bytes) -> str:
    lines = [line.strip() for line in stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    if not lines:
        return ""
    line = printable(redact(lines[-1]))
    return f": {line[:_STDERR_LINE]}{'…' if len(line) > _STDERR_LINE else ''}"


def _expiry(value: object, refuse: Any) -> float | None:
    if value is None:
        return None
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")).timestamp()
    except ValueError:
        raise refuse(f"expirationTimestamp {printable(str(value))[:40]!r} is not an RFC 3339 time") from None


def run_plugin(
    plugin: object,
    cluster: Mapping[str, Any] | None,
    *,
    timeout: float,
    timeout_flag: str,
    where: str,
    environ: Mapping[str, str] | None = None,
) -> ExecCredential:
    """Run the ``exec`` entry of a kubeconfig user within ``timeout`` seconds; its credential.

    ``where`` names the user and context in the messages; every failure is a one-line
    :class:`~constructs_nld.deploy.errors.KubeconfigError`.
    """
    if not isinstance(plugin, dict):
        raise KubeconfigError(f"{where}: exec must be a mapping")
    command, api_version = plugin.get("command"), plugin.get("apiVersion")
    if not isinstance(command, str) or not command:
        raise KubeconfigError(f"{where}: exec.command must be a non-empty string")
    name = os.path.basename(command)
    label = f"{where}: exec plugin {name!r}"
    if api_version not in _API_VERSIONS:
        raise KubeconfigError(f"{label}: apiVersion must be one of {', '.join(_API_VERSIONS)}, got {api_version!r}")
    if plugin.get("interactiveMode") == "Always":
        raise KubeconfigError(f"{label}: interactiveMode Always needs a terminal, and this command runs without one")
    args = _strings(plugin.get("args"), "args", where)
    spec: dict[str, Any] = {"interactive": False}
    if plugin.get("provideClusterInfo") and cluster is not None:
        spec["cluster"] = _cluster_info(cluster)
    env = {
        **(os.environ if environ is None else environ),
        **_environment(plugin.get("env"), where),
        "KUBERNETES_EXEC_INFO": json.dumps({"apiVersion": api_version, "kind": "ExecCredential", "spec": spec}),
    }
    try:
        process = subprocess.Popen(
            [command, *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            start_new_session=True,  # its own process group, killed whole past the deadline
        )
    except OSError as error:
        raise KubeconfigError(f"{label} did not start: {(error.strerror or str(error)).lower()}") from None
    try:
        stdout, stderr = process.communicate(timeout=max(timeout, 0.0))
    except subprocess.TimeoutExpired:
        _kill(process)
        raise KubeconfigError(f"{label} gave no credential within {timeout_flag} {timeout:g}s; killed") from None
    if process.returncode != 0:
        raise KubeconfigError(f"{label} exited {process.returncode}{_last_line(stderr)}")
    return _credential(stdout, str(api_version), label)


def _credential(stdout: bytes, api_version: str, label: str) -> ExecCredential:
    def refuse(why: str) -> KubeconfigError:
        return KubeconfigError(f"{label} printed no usable ExecCredential: {why}")

    try:
        answer = json.loads(stdout)
    except ValueError:
        raise refuse("its output is not JSON") from None
    if not isinstance(answer, dict) or answer.get("kind") != "ExecCredential":
        raise refuse("its output is not an ExecCredential object")
    if answer.get("apiVersion") != api_version:
        got = printable(str(answer.get("apiVersion")))[:60]
        raise refuse(f"apiVersion {got!r}, but the kubeconfig asks {api_version}")
    status = answer.get("status")
    if not isinstance(status, dict):
        raise refuse("no status")
    expiry = _expiry(status.get("expirationTimestamp"), refuse)
    token = status.get("token")
    if isinstance(token, str) and token:
        keep_secret(token)
        return ExecCredential(token, None, None, expiry)
    certificate, key = status.get("clientCertificateData"), status.get("clientKeyData")
    if isinstance(certificate, str) and isinstance(key, str) and certificate and key:
        return ExecCredential(None, certificate.encode(), key.encode(), expiry)
    raise refuse("status has neither a token nor clientCertificateData and clientKeyData")
