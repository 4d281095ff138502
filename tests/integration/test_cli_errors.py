"""Bad kubeconfigs and arguments for ``deploy.py``: each exits with its documented code and one line, never a traceback.

The cases that reach an API server use the real test control plane (a wrong CA, a wrong
token) or a loopback port nothing listens on.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from constructs_nld.deploy.cli import main
from tests.controlplane import REPO_ROOT, ControlPlane

Case = Callable[[Path, ControlPlane], tuple[list[str], dict[str, str]]]
"""Builds one case in a temp dir: (arguments, environment overrides)."""


def _kubeconfig(path: Path, *, server: str, ca: str | None = None, token: str = "t", context: str = "c") -> Path:
    cluster: dict[str, str] = {"server": server}
    if ca is not None:
        cluster["certificate-authority"] = ca
    path.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "k", "cluster": cluster}],
                "users": [{"name": "u", "user": {"token": token}}],
                "contexts": [{"name": context, "context": {"cluster": "k", "user": "u"}}],
                "current-context": context,
            }
        )
    )
    return path


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def _other_ca(tmp: Path) -> Path:
    """A CA certificate that did not sign the test apiserver's certificate."""
    ca = tmp / "other-ca.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        + ["-subj", "/CN=other-ca", "-days", "1", "-keyout", str(tmp / "other-ca.key"), "-out", str(ca)],
        capture_output=True,
        check=True,
    )
    return ca


CASES: dict[str, tuple[Case, int, str]] = {
    "missing --kubeconfig": (
        lambda tmp, cp: (["--kubeconfig", str(tmp / "nope.yaml")], {}),
        2,
        "error: no kubeconfig: {tmp}/nope.yaml (--kubeconfig) does not exist; pass --kubeconfig FILE",
    ),
    "no kubeconfig at all": (
        lambda tmp, cp: ([], {"HOME": str(tmp)}),
        2,
        "error: no kubeconfig: {tmp}/.kube/config (default) does not exist; pass --kubeconfig FILE",
    ),
    "malformed $KUBECONFIG": (
        lambda tmp, cp: ([], {"KUBECONFIG": str(_write(tmp / "bad.yaml", "clusters: [\n  - {name: a\n"))}),
        2,
        "error: kubeconfig {tmp}/bad.yaml is not valid YAML at line 2, column 3",
    ),
    "malformed --kubeconfig": (
        lambda tmp, cp: (["--kubeconfig", str(_write(tmp / "bad.yaml", "a: b: c\n"))], {}),
        2,
        "error: kubeconfig {tmp}/bad.yaml is not valid YAML at line 1, column 5",
    ),
    "a directory": (
        lambda tmp, cp: (["--kubeconfig", str(tmp)], {}),
        2,
        "error: cannot read kubeconfig {tmp}: Is a directory",
    ),
    "no contexts": (
        lambda tmp, cp: (["--kubeconfig", str(_write(tmp / "k.yaml", "apiVersion: v1\nkind: Config\n"))], {}),
        2,
        "error: kubeconfig {tmp}/k.yaml defines no contexts",
    ),
    "no current-context": (
        lambda tmp, cp: (
            [
                "--kubeconfig",
                str(_write(tmp / "k.yaml", "contexts: [{name: a, context: {cluster: k, user: u}}]\n")),
            ],
            {},
        ),
        2,
        "error: kubeconfig {tmp}/k.yaml has no current-context; pass --context (one of 'a')",
    ),
    "unknown --context": (
        lambda tmp, cp: (["--kubeconfig", str(cp.kubeconfig_path), "--context", "prod"], {}),
        2,
        "error: context 'prod' is not in kubeconfig {kubeconfig} (it has 'nld-test')",
    ),
    "context without its cluster": (
        lambda tmp, cp: (
            [
                "--kubeconfig",
                str(
                    _write(
                        tmp / "k.yaml", "contexts: [{name: a, context: {cluster: gone, user: u}}]\ncurrent-context: a\n"
                    )
                ),
            ],
            {},
        ),
        2,
        "error: kubeconfig {tmp}/k.yaml, context 'a': Invalid kube-config file. "
        "Expected object with name gone in {tmp}/k.yaml/clusters list",
    ),
    "nothing listens": (
        lambda tmp, cp: (["--kubeconfig", str(_kubeconfig(tmp / "k.yaml", server="https://127.0.0.1:1"))], {}),
        1,
        "error: cannot reach the API server at https://127.0.0.1:1: connection refused (4 retries within --timeout 5s)",
    ),
    "wrong CA": (
        lambda tmp, cp: (
            [
                "--kubeconfig",
                str(_kubeconfig(tmp / "k.yaml", server=cp.server, ca=str(_other_ca(tmp)))),
            ],
            {},
        ),
        1,
        "error: cannot reach the API server at {server}: TLS error: CERTIFICATE_VERIFY_FAILED",
    ),
    "wrong token": (
        lambda tmp, cp: (
            ["--kubeconfig", str(_kubeconfig(tmp / "k.yaml", server=cp.server, ca=str(cp.ca_path), token="x"))],
            {},
        ),
        1,
        "error: the API server answered 401 Unauthorized: Unauthorized",
    ),
    "--timeout inf": (
        lambda tmp, cp: (["--timeout", "inf"], {}),
        2,
        "error: argument --timeout: must be a positive, finite number of seconds, got 'inf' (see deploy.py --help)",
    ),
    "--timeout nan": (
        lambda tmp, cp: (["--timeout", "nan"], {}),
        2,
        "error: argument --timeout: must be a positive, finite number of seconds, got 'nan' (see deploy.py --help)",
    ),
    "--qps 0": (
        lambda tmp, cp: (["--qps", "0"], {}),
        2,
        "error: argument --qps: must be a positive, finite number of requests per second, got '0' "
        "(see deploy.py --help)",
    ),
    "verify --qps fast": (
        lambda tmp, cp: (["verify", "--qps", "fast"], {}),
        2,
        "error: argument --qps: must be a number of requests per second, got 'fast' (see deploy.py verify --help)",
    ),
    "--burst 0": (
        lambda tmp, cp: (["--burst", "0"], {}),
        2,
        "error: argument --burst: must be at least 1, got '0' (see deploy.py --help)",
    ),
    "uninstall --burst 2.5": (
        lambda tmp, cp: (["uninstall", "--burst", "2.5"], {}),
        2,
        "error: argument --burst: must be a whole number of requests, got '2.5' (see deploy.py uninstall --help)",
    ),
    "soak --baseline-qps -1": (
        lambda tmp, cp: (["soak", "--baseline-qps", "-1"], {}),
        2,
        "error: argument --baseline-qps: must be a positive, finite number of queries per second, got '-1' "
        "(see deploy.py soak --help)",
    ),
    "verify --skip-monitoring": (
        lambda tmp, cp: (["verify", "--skip-monitoring"], {}),
        2,
        "error: unrecognized arguments: --skip-monitoring (see deploy.py --help)",
    ),
    "--dry-run with --diff": (
        lambda tmp, cp: (["--dry-run", "--diff"], {}),
        2,
        "error: argument --diff: not allowed with argument --dry-run (see deploy.py deploy --help)",
    ),
    "--progress without --wait": (
        lambda tmp, cp: (["--progress", "tty"], {}),
        2,
        "error: --progress: only with --wait (see deploy.py deploy --help)",
    ),
    "--progress and --stall-after without --wait": (
        lambda tmp, cp: (["--progress", "plain", "--stall-after", "60"], {}),
        2,
        "error: --progress and --stall-after: only with --wait (see deploy.py deploy --help)",
    ),
    "--wait with --dry-run": (
        lambda tmp, cp: (["--dry-run", "--wait"], {}),
        2,
        "error: argument --wait: not allowed with argument --dry-run (see deploy.py deploy --help)",
    ),
    "--wait with --diff": (
        lambda tmp, cp: (["--wait", "--diff"], {}),
        2,
        "error: argument --diff: not allowed with argument --wait (see deploy.py deploy --help)",
    ),
    "--progress fancy": (
        lambda tmp, cp: (["--wait", "--progress", "fancy"], {}),
        2,
        "error: argument --progress: must be plain, tty or auto, got 'fancy' (see deploy.py deploy --help)",
    ),
    "--stall-after 0": (
        lambda tmp, cp: (["--wait", "--stall-after", "0"], {}),
        2,
        "error: argument --stall-after: must be a positive, finite number of seconds, got '0' "
        "(see deploy.py deploy --help)",
    ),
    "uninstall --stall-after soon": (
        lambda tmp, cp: (["uninstall", "--stall-after", "soon"], {}),
        2,
        "error: argument --stall-after: must be a number of seconds, got 'soon' (see deploy.py uninstall --help)",
    ),
    "uninstall --dry-run": (
        lambda tmp, cp: (["uninstall", "--dry-run"], {}),
        2,
        "error: unrecognized arguments: --dry-run (see deploy.py --help)",
    ),
    "verify --wait": (
        lambda tmp, cp: (["verify", "--uninstalled", "--wait"], {}),
        2,
        "error: unrecognized arguments: --wait (see deploy.py --help)",
    ),
    "cutover without a step": (
        lambda tmp, cp: (["cutover"], {}),
        2,
        "error: the following arguments are required: {{start,status,promote,rollback}} (see deploy.py cutover --help)",
    ),
    "cutover start --canary-nodes 0": (
        lambda tmp, cp: (["cutover", "start", "--canary-nodes", "0"], {}),
        2,
        "error: argument --canary-nodes: must be at least 1, got '0' (see deploy.py cutover start --help)",
    ),
    "cutover status --window 0s": (
        lambda tmp, cp: (["cutover", "status", "--window", "0s"], {}),
        2,
        "error: argument --window: must be longer than zero, got '0s' (see deploy.py cutover status --help)",
    ),
    "cutover rollback --force": (
        lambda tmp, cp: (["cutover", "rollback", "--force"], {}),
        2,
        "error: unrecognized arguments: --force (see deploy.py --help)",
    ),
    "an unknown command": (
        lambda tmp, cp: (["upgrade"], {}),
        2,
        "error: unrecognized arguments: upgrade (see deploy.py --help)",
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_each_bad_input_exits_with_its_code_and_one_line(
    name: str,
    tmp_path: Path,
    control_plane: ControlPlane,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    build, code, expected = CASES[name]
    args, env = build(tmp_path, control_plane)
    monkeypatch.delenv("KUBECONFIG", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)

    assert main(["--timeout", "5", *args]) == code

    captured = capsys.readouterr()
    if name == "nothing listens":
        # Refused connections are retried with back-off until --timeout: a line each, then the count.
        *retries, summary = captured.out.splitlines()
        assert [line.split(": ", 1)[1].rsplit(";", 1)[0] for line in retries] == ["connection refused"] * 4
        assert all(line.startswith("[retry] LIST services/kube-system: ") for line in retries), retries
        assert summary.startswith("[retries] 4 API request(s) retried (4 unavailable), "), summary
    else:
        assert captured.out == ""
    assert captured.err == (
        expected.format(tmp=tmp_path, kubeconfig=control_plane.kubeconfig_path, server=control_plane.server) + "\n"
    )


def test_the_script_prints_no_traceback_for_a_malformed_kubeconfig(tmp_path: Path) -> None:
    bad = _write(tmp_path / "bad.yaml", "a: b: c\n")

    done = subprocess.run(
        [sys.executable, "deploy.py", "--kubeconfig", str(bad)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert done.returncode == 2
    assert done.stderr == f"error: kubeconfig {bad} is not valid YAML at line 1, column 5\n"


def test_verify_help_lists_only_what_verify_takes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--help"]) == 0

    out = capsys.readouterr().out
    assert "--kubeconfig" in out and "--app" in out and "--uninstalled" in out
    assert "--dry-run" not in out and "--skip-monitoring" not in out and "--wait" not in out


def test_help_documents_every_exit_code_of_wait_and_uninstall(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    deploy_help = capsys.readouterr().out
    assert main(["uninstall", "--help"]) == 0
    uninstall_help = capsys.readouterr().out

    assert "  10 --wait: the rollout made no progress for --stall-after seconds" in deploy_help
    assert "  3  kube-dns-upstream exists with a foreign selector (nothing deleted)" in uninstall_help
    assert "  10 the node-cache pods did not go away within --stall-after" in uninstall_help
    assert "--dry-run" not in uninstall_help


BAD_PROPS = {
    "a zone with an IPv4 upstream": (
        'zones=(ForwardZone(names=("corp.example",), upstreams=("10.0.0.53",)),)',
        "zones.upstreams: must be an IPv6 address (the cluster is IPv6-only), got IPv4 '10.0.0.53'",
    ),
    "a zone listed twice": (
        'zones=(ForwardZone(names=("corp.example",), upstreams=("fd03::53",)),'
        ' ForwardZone(names=("corp.example",), upstreams=("fd03::54",)))',
        "zones: 'corp.example' is listed twice (in 'corp.example')",
    ),
    "a zone shadowing the cluster domain": (
        'zones=(ForwardZone(names=("svc.cluster.local",), upstreams=("fd03::53",)),)',
        "zones: 'svc.cluster.local' shadows the spec's 'cluster.local', which cluster CoreDNS answers; set "
        "overrides_cluster_zones=True if the zone is meant to take those names",
    ),
    "a plugin node-cache lacks": (
        'extra_server_blocks=(ServerBlock(zone="lab.example", port=53,'
        ' directives=(Directive("bind", ("fd00::10",)), Directive("file", ("db.lab",)))),)',
        "extra_server_blocks: directive 'file' in 'lab.example:53' is not a plugin of node-cache 1.26.8 (one of ",
    ),
    "a max_concurrent of 0": (
        "upstream_forward=ForwardOptions(max_concurrent=0)",
        "forward.max_concurrent: must be a positive integer, got 0 (0 means no cap to CoreDNS: leave it None for that)",
    ),
    "a negative serve-stale duration": (
        'cache=CacheSettings(serve_stale=ServeStale(duration="-1h"))',
        "serve_stale.duration: must not be negative, got '-1h' (CoreDNS refuses it, and node-cache would exit)",
    ),
    "a node selector value the API server rejects": (
        'node_selector={"node-fleet": "cpu pool"}',
        "node_selector: value 'cpu pool' of 'node-fleet' is not a valid label value",
    ),
}
"""The issue's bad inputs, each in a user's app: the prop's one line, and nothing applied."""

_BAD_APP = """\
import constructs_nld
import cdk8s
from constructs_nld import *
props = NodeLocalDNSProps({props})
NodeLocalDNS(cdk8s.App(), "nld", props_from_environment(__import__("os").environ, props))
"""


@pytest.mark.parametrize("name", list(BAD_PROPS))
def test_a_bad_prop_in_the_app_is_refused_in_one_line_and_nothing_is_applied(
    name: str, tmp_path: Path, cluster: ControlPlane, capsys: pytest.CaptureFixture[str]
) -> None:
    props, message = BAD_PROPS[name]
    (tmp_path / "app.py").write_text(_BAD_APP.format(props=props))
    mark = cluster.audit_mark()

    code = main(
        ["--kubeconfig", str(cluster.kubeconfig_path), "--timeout", "5", "--app", f"python {tmp_path / 'app.py'}"]
    )

    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith(f"error: the app 'python {tmp_path / 'app.py'}' failed: ValueError: {message}"), err
    assert err.count("\n") == 1, err
    assert cluster.mutating_requests_since(mark) == []
