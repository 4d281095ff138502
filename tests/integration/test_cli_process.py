"""``deploy``, ``verify`` and ``uninstall`` never start jsii in their own process: the app's process is the synth."""

from __future__ import annotations

import json
import subprocess
import sys

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
