"""The releasable package: ``python -m build`` makes an sdist and a wheel that ``twine check`` passes,
and the wheel, installed into a fresh venv, runs a user's app and ``nld-deploy``.

Nothing is fetched: the build runs without isolation on the project venv's pinned setuptools,
and the fresh venv installs the wheel's dependencies from the wheelhouse ``make setup`` fills
(``.cache/wheelhouse``, from pip's cache, while setup is allowed the network), as every
fresh venv of the suite does.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.conftest import WHEELHOUSE
from tests.controlplane import REPO_ROOT

PROJECT = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]

USER_APP = """\
import constructs_nld
from constructs_nld import NodeLocalDNSProps, synthesize

charts = synthesize(NodeLocalDNSProps(kube_dns_cluster_ip="fd00:ec2::a"))
print(constructs_nld.__file__)
print(" ".join(chart.phase for chart in charts))
print(" ".join(sorted({obj["kind"] for chart in charts for obj in chart.objects})))
"""


def run(*argv: str | Path, cwd: Path, timeout: float = 300) -> str:
    """Run ``argv``; its output, or a failure with everything it wrote."""
    done = subprocess.run([str(a) for a in argv], cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{argv}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sdist and the wheel, built from a copy of the checkout's files (git's tracked and untracked ones)."""
    work = tmp_path_factory.mktemp("package")
    source = work / "source"
    listed = run("git", "ls-files", "--cached", "--others", "--exclude-standard", "-z", cwd=REPO_ROOT)
    for name in filter(None, listed.split("\0")):
        path = REPO_ROOT / name
        if path.is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, source / name)
    out = work / "dist"
    run(sys.executable, "-m", "build", "--no-isolation", "--outdir", out, source, cwd=work)
    return out


def test_the_build_makes_an_sdist_and_a_wheel_that_twine_check_passes(built: Path) -> None:
    version = PROJECT["version"]
    names = sorted(path.name for path in built.iterdir())

    assert names == [f"constructs_nld-{version}-py3-none-any.whl", f"constructs_nld-{version}.tar.gz"]
    checked = run(sys.executable, "-m", "twine", "check", "--strict", *sorted(built.iterdir()), cwd=built)
    assert checked.count("PASSED") == 2, checked


def test_the_wheel_in_a_fresh_venv_runs_a_users_app_and_nld_deploy(built: Path, tmp_path: Path) -> None:
    assert (WHEELHOUSE / ".done").exists(), f"no wheelhouse at {WHEELHOUSE}: `make setup` fills it"
    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", venv, cwd=tmp_path)
    (wheel,) = built.glob("*.whl")
    run(venv / "bin" / "pip", "install", "--quiet", "--no-index", "--find-links", WHEELHOUSE, wheel, cwd=tmp_path)
    app = tmp_path / "app.py"
    app.write_text(USER_APP)

    module, charts, kinds = run(venv / "bin" / "python", app, cwd=tmp_path).splitlines()
    usage = run(venv / "bin" / "nld-deploy", "--help", cwd=tmp_path)
    version = run(venv / "bin" / "nld-deploy", "--version", cwd=tmp_path)

    assert Path(module).is_relative_to(venv), module  # the wheel's code, not the checkout's
    assert charts == "services workload monitoring"
    assert kinds == "ConfigMap DaemonSet PodMonitor PrometheusRule Service ServiceAccount"
    assert "verify" in usage and "uninstall" in usage and "soak" in usage
    assert version == f"constructs-nld {PROJECT['version']}\n"
