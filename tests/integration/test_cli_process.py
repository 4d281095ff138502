"""The CLI as a process: the commands leave jsii to the app's process; every message names the program as invoked."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.controlplane import REPO_ROOT, ControlPlane

PROBE = """
import json, sys
from constructs_nld.deploy.cli import main
code = main(json.loads(sys.argv[1]))
print(json.dumps({"code": code, "loaded": sorted({m.split(".")[0] for m in sys.modules})}))
"""


def run_probed(cluster: ControlPlane, *args: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(["--kubeconfig", str(cluster.kubeconfig_path), *args])],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_the_commands_leave_jsii_to_the_apps_process(cluster: ControlPlane) -> None:
    for args in (("deploy",), ("verify",), ("deploy", "--diff"), ("uninstall",), ("verify", "--uninstalled")):
        result = run_probed(cluster, *args)
        loaded = result["loaded"]
        assert isinstance(loaded, list)

        assert result["code"] in (0, 7), (args, result["code"])
        assert [name for name in ("jsii", "cdk8s", "cdk8s_plus_28", "constructs") if name in loaded] == [], args
        assert "kubernetes" in loaded


def _entry_points() -> dict[str, list[str]]:
    """Both ways a user runs the CLI: the installed console script, and this repository's script."""
    return {
        "nld-deploy": [str(Path(sys.executable).parent / "nld-deploy")],
        "python deploy.py": [sys.executable, "deploy.py"],
    }


def test_help_and_every_hint_name_the_program_as_it_was_invoked(cluster: ControlPlane) -> None:
    for name, command in _entry_points().items():
        usage = name.removeprefix("python ")
        helped = subprocess.run(
            [*command, "cutover", "--help"], cwd=REPO_ROOT, capture_output=True, text=True, timeout=60, check=False
        )
        refused = subprocess.run(
            [*command, "--kubeconfig", str(cluster.kubeconfig_path), "cutover", "status"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        bad = subprocess.run([*command, "soak"], cwd=REPO_ROOT, capture_output=True, text=True, timeout=60, check=False)

        assert helped.returncode == 0 and helped.stdout.startswith(f"usage: {usage} cutover "), helped.stdout
        assert (refused.returncode, refused.stderr) == (
            12,
            "error: no cutover of daemonset/kube-system/node-local-dns is in progress: start one with "
            f"'{name} cutover start'\n",
        )
        assert (bad.returncode, bad.stderr) == (
            2,
            f"error: soak: --prometheus URL is required (see {usage} soak --help)\n",
        )
