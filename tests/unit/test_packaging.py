"""The package as a user gets it: ``pip install`` into a fresh venv, used from an app of their own.

The user's app has its own top-level ``imports`` package (what ``cdk8s import`` generates
in every cdk8s project), so ours must not ship one, and must work beside theirs.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

USER_IMPORTS_MODULE = '''\
"""The user's own generated bindings (stands in for `cdk8s import k8s`)."""

import cdk8s

MARKER = "user-imports-module"


def marker(scope, id):
    """A ConfigMap of the user's, so the output shows this module was used."""
    return cdk8s.ApiObject(
        scope, id, api_version="v1", kind="ConfigMap",
        metadata=cdk8s.ApiObjectMetadata(name=MARKER, namespace="default"),
    )
'''

USER_MAIN = '''\
"""A user's cdk8s app: their own `imports` package beside constructs_nld."""

import json

import cdk8s

import imports
from constructs_nld import NodeLocalDNS, NodeLocalDNSProps
from imports import k8s as user_k8s

app = cdk8s.App(outdir="dist")
NodeLocalDNS(app, "nodelocaldns", NodeLocalDNSProps(kube_dns_cluster_ip="fd00:ec2::a"))
user_chart = cdk8s.Chart(app, "user")
user_k8s.marker(user_chart, "marker")
app.synth()
print(json.dumps({"imports": imports.__file__}))
'''


def _run(*args: str, cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)


@pytest.fixture(scope="module")
def venv_python(installed_python: Path) -> Path:
    """A fresh venv with the repo pip-installed (not editable)."""
    return installed_python


@pytest.fixture(scope="module")
def installed_files(venv_python: Path, tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Every file the installed distribution declares, as recorded by importlib.metadata."""
    script = "import importlib.metadata as m, json; print(json.dumps([str(f) for f in m.files('constructs-nld')]))"
    done = _run(str(venv_python), "-c", script, cwd=tmp_path_factory.mktemp("metadata"))
    assert done.returncode == 0, done.stderr
    files: list[str] = json.loads(done.stdout)
    return files


@pytest.fixture(scope="module")
def foreign_app(
    venv_python: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """A user's app directory with its own ``imports`` package, run with the fresh venv."""
    app = tmp_path_factory.mktemp("foreign-app")
    (app / "imports").mkdir()
    (app / "imports" / "__init__.py").write_text('"""The user\'s generated bindings."""\n')
    (app / "imports" / "k8s.py").write_text(USER_IMPORTS_MODULE)
    (app / "main.py").write_text(USER_MAIN)
    return app, _run(str(venv_python), "main.py", cwd=app, timeout=300)


def test_distribution_ships_no_top_level_imports_package(installed_files: list[str]) -> None:
    # Console scripts are recorded relative to site-packages (../../../bin/…).
    top_level = {path.split("/", 1)[0] for path in installed_files if not path.startswith("..")}

    assert "imports" not in top_level
    assert {name for name in top_level if not name.endswith(".dist-info")} == {
        "constructs_nld",
        "constructs_nld_imports",
    }


def test_distribution_installs_the_deploy_command(installed_files: list[str], venv_python: Path) -> None:
    assert any(path.endswith("/bin/nld-deploy") for path in installed_files)
    done = _run(str(venv_python.parent / "nld-deploy"), "verify", "--help", cwd=venv_python.parent)
    assert done.returncode == 0, done.stderr
    assert "--dry-run" not in done.stdout and "--kubeconfig" in done.stdout


def test_distribution_ships_the_generated_crd_bindings(installed_files: list[str]) -> None:
    for name in ("nld_podmonitor", "nld_prometheusrule"):
        prefix = f"constructs_nld_imports/{name}/com/coreos/monitoring/"
        assert f"{prefix}__init__.py" in installed_files
        assert any(path.startswith(f"{prefix}_jsii/") and path.endswith(".jsii.tgz") for path in installed_files)


def test_distribution_ships_every_module_of_the_source(installed_files: list[str], repo_root: Path) -> None:
    source_modules = {
        str(path.relative_to(repo_root))
        for path in (repo_root / "constructs_nld").rglob("*.py")
        if "__pycache__" not in path.parts
    }

    assert source_modules - set(installed_files) == set()


def test_foreign_app_synthesizes_with_its_own_imports_package(
    foreign_app: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    app, done = foreign_app
    assert done.returncode == 0, done.stderr

    assert json.loads(done.stdout.splitlines()[-1]) == {"imports": str(app / "imports" / "__init__.py")}
    objects: list[dict[str, Any]] = [
        doc for path in sorted((app / "dist").glob("*.yaml")) for doc in yaml.safe_load_all(path.read_text()) if doc
    ]
    kinds = {(obj["kind"], obj["metadata"]["name"]) for obj in objects}
    assert ("PodMonitor", "nodelocaldns") in kinds
    assert ("PrometheusRule", "nodelocaldns-alerts") in kinds
    assert ("ConfigMap", "user-imports-module") in kinds
    (daemon_set,) = [obj for obj in objects if obj["kind"] == "DaemonSet"]
    assert daemon_set["spec"]["template"]["spec"]["containers"][0]["args"][1] == "fd00::10,fd00:ec2::a"
