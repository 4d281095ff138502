"""``deploy.py --help`` and a bad argument answer without cdk8s, jsii or the kubernetes client (in a subprocess)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("cdk8s", "cdk8s_plus_28", "constructs", "jsii", "kubernetes", "yaml")

PROBE = """
import json, runpy, sys
sys.argv = ["deploy.py", *json.loads(sys.argv[1])]
try:
    runpy.run_path("deploy.py", run_name="__main__")
except SystemExit as stop:
    code = stop.code
print(json.dumps({"code": code, "loaded": sorted({m.split(".")[0] for m in sys.modules})}))
"""


def probe(*args: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(args)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("--help",), 0),
        (("--version",), 0),
        (("deploy", "--help"), 0),
        (("verify", "--help"), 0),
        (("uninstall", "--help"), 0),
        (("soak", "--help"), 0),
        (("--no-such-flag",), 2),
        (("deploy", "--wait", "--diff"), 2),
        (("soak", "--window", "3x"), 2),
        (("deploy", "--stall-after", "5"), 2),
    ],
)
def test_help_and_argument_errors_load_neither_cdk8s_nor_jsii(args: tuple[str, ...], code: int) -> None:
    result = probe(*args)

    assert result["code"] == code
    loaded = result["loaded"]
    assert isinstance(loaded, list)
    assert [name for name in HEAVY if name in loaded] == []
    assert "constructs_nld" in loaded


def test_importing_the_library_changes_no_environment_and_loads_no_jsii() -> None:
    code = (
        "import os, sys; before = dict(os.environ); import constructs_nld, constructs_nld.deploy; "
        "print(dict(os.environ) == before, 'jsii' in sys.modules, 'cdk8s' in sys.modules)"
    )
    env = {k: v for k, v in __import__("os").environ.items() if not k.startswith("JSII_")}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=60, check=True
    )

    assert done.stdout.split() == ["True", "False", "False"]


def test_version_prints_the_distribution_and_the_pyproject_version() -> None:
    import tomllib

    expected = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    done = subprocess.run(
        [sys.executable, "deploy.py", "--version"], cwd=REPO, capture_output=True, text=True, timeout=60, check=False
    )

    assert (done.returncode, done.stdout) == (0, f"constructs-nld {expected}\n")
