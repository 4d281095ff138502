"""Shared fixtures: the repo root and in-memory synths of the whole component."""

from __future__ import annotations

import copy
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from constructs_nld import NodeLocalDNSProps, synthesize
from constructs_nld.nodejs import node_version, node_warning

_SUITE_NODE = Path(__file__).resolve().parent.parent / ".cache" / "node" / "24" / "bin"
if (_SUITE_NODE / "node").exists() and node_warning(node_version(os.environ)) is not None:
    # The suite runs on a supported Node.js (`make node` puts 24 here when the machine's is older),
    # whether pytest is started by make or by hand: every synth and subprocess of a test finds it first.
    os.environ["PATH"] = os.pathsep.join((str(_SUITE_NODE), os.environ.get("PATH", "")))

# The oracle's profiles (tests/integration/test_oracle.py). "ci", the default, is bounded
# and derandomized: the same 500 examples per test on every run, about 20 s in all. "fuzz"
# (`make fuzz`) explores at random, 20 times longer, and keeps failures in .hypothesis/.
settings.register_profile(
    "ci",
    max_examples=500,
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "fuzz",
    max_examples=10_000,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("ci")

REPO_ROOT = Path(__file__).resolve().parent.parent
WHEELHOUSE = REPO_ROOT / ".cache" / "wheelhouse" / f"{sys.version_info.major}.{sys.version_info.minor}"
"""The package's dependencies and build backend as wheels (``make setup``): fresh venvs install offline."""
"""The repository: ``tests/`` sits at its top level."""

CLUSTER_IP = "fd00:ec2::a"
"""A live kube-dns ClusterIP as AWS assigns it on IPv6-only EKS (10th address of the /108)."""


# Copied rather than built in place: an in-tree build writes build/ and *.egg-info into
# the shared checkout, and a stale build/lib can ship modules the source no longer has.
_NOT_PACKAGED = shutil.ignore_patterns(
    ".git",
    ".venv",
    "node_modules",
    ".cache",
    "build",
    "dist",
    "tests",
    "bench",
    "*.egg-info",
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
)


def _objects(props: NodeLocalDNSProps) -> list[dict[str, Any]]:
    return [obj for chart in synthesize(props) for obj in chart.objects]


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The repository root."""
    return REPO_ROOT


@pytest.fixture(scope="session")
def _preview() -> list[dict[str, Any]]:
    return _objects(NodeLocalDNSProps())


@pytest.fixture(scope="session")
def _deployable() -> list[dict[str, Any]]:
    return _objects(NodeLocalDNSProps(kube_dns_cluster_ip=CLUSTER_IP))


@pytest.fixture
def preview_objects(_preview: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every object of the default (preview) synth, in apply order; a copy per test."""
    return copy.deepcopy(_preview)


@pytest.fixture
def deployable_objects(_deployable: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every object of the synth with ``kube_dns_cluster_ip=fd00:ec2::a``; a copy per test."""
    return copy.deepcopy(_deployable)


@pytest.fixture(scope="session")
def installed_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The python of a fresh venv with this repository pip-installed (not editable), as a user installs it."""
    assert (WHEELHOUSE / ".done").exists(), f"no wheelhouse at {WHEELHOUSE}: `make setup` fills it"
    work = tmp_path_factory.mktemp("installed")
    source = work / "source"
    shutil.copytree(REPO_ROOT, source, ignore=_NOT_PACKAGED)
    venv = work / "venv"
    made = subprocess.run([sys.executable, "-m", "venv", str(venv)], capture_output=True, text=True, check=False)
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    installed = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--no-index", "--find-links", str(WHEELHOUSE), str(source)],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return python
