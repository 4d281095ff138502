"""The README's quickstarts, run as a new user runs them: their own lines, from a clean clone, on the simulated cluster.

The lines are read from the README (the ``sh`` block after ``<!-- quickstart -->``, and the
values file's after ``<!-- quickstart-values -->``), so a README change that breaks a
quickstart fails here. Two things differ from a user's
machine, and neither is in the lines: the repository's URL is this checkout (a clone of
what is committed), and pip installs from the wheelhouse ``make setup`` fills
(``PIP_NO_INDEX``, ``PIP_FIND_LINKS``), since nothing may be fetched. The kubeconfig is the
simulated cluster's, as ``$KUBECONFIG``.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import WHEELHOUSE
from tests.controlplane import REPO_ROOT
from tests.fleet import fleet_node
from tests.simcluster import SimulatedCluster

README = REPO_ROOT / "README.md"
URL = "<this repository's URL>"
DS_PATH = "/apis/apps/v1/namespaces/kube-system/daemonsets/node-local-dns"
COREFILE_PATH = "/api/v1/namespaces/kube-system/configmaps/node-local-dns"
QUICKSTARTS = {
    "quickstart": (),
    # The values file's and the --set's changes, in the live Corefile.
    "quickstart-values": ("success 20000 30", "denial 9984 10", "max_fails 3"),
}


def quickstart(marker: str = "quickstart") -> list[str]:
    """A quickstart's lines, as the README shows them after ``<!-- marker -->``."""
    match = re.search(rf"<!-- {marker} -->\n```sh\n(.*?)```", README.read_text(), re.S)
    assert match, f"README.md has no ```sh block after <!-- {marker} -->"
    return match.group(1).splitlines()


@pytest.mark.parametrize("marker", QUICKSTARTS)
def test_the_quickstart_is_at_most_ten_lines_that_start_from_a_clone_and_end_verified(marker: str) -> None:
    lines = quickstart(marker)

    assert 1 <= len(lines) <= 10, lines
    assert lines[0].startswith(f"git clone {URL} "), lines[0]
    assert re.match(r"python deploy\.py (--values \S+ |--set \S+ )*verify\b", lines[-1]), lines[-1]


@pytest.mark.parametrize("marker", QUICKSTARTS)
def test_the_quickstart_from_a_clean_clone_ends_in_a_verified_install(
    marker: str, sim: SimulatedCluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (WHEELHOUSE / ".done").exists(), f"no wheelhouse at {WHEELHOUSE}: `make setup` fills it"
    sim.add_nodes([fleet_node("cpu", 1)])
    script = "\n".join(quickstart(marker)).replace(URL, str(REPO_ROOT))
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("VIRTUAL_ENV", "PYTHON", "CDK8S_", "KUBE_DNS_CLUSTER_IP", "PIP_"))
    }
    env |= {
        "KUBECONFIG": str(sim.control_plane.kubeconfig_path),
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(WHEELHOUSE),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "PATH": os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if ".venv" not in p),
    }
    started = time.monotonic()

    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )

    seconds = time.monotonic() - started
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    assert (tmp_path / "nodelocaldns" / ".venv" / "bin" / "nld-deploy").exists()
    assert "rollout complete" in done.stdout, done.stdout[-2000:]
    assert re.search(r"^\d+ passed, 1 warned, 0 failed$", done.stdout, re.M), done.stdout[-2000:]  # cache budget
    daemon_set = sim.control_plane.fixture_api().get(DS_PATH)
    assert daemon_set is not None and daemon_set["status"]["numberReady"] == 1
    config_map = sim.control_plane.fixture_api().get(COREFILE_PATH)
    assert config_map is not None
    for line in QUICKSTARTS[marker]:
        assert line in config_map["data"]["Corefile"], config_map["data"]["Corefile"]
    with capsys.disabled():
        print(f"\n{marker}: clone to verified install in {seconds:.1f}s")
