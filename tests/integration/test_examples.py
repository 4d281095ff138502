"""Every project under ``examples/``, as a user runs it: synthesized by the real ``cdk8s synth``,
then deployed, verified and uninstalled with the deploy CLI on the simulated cluster.

The projects are found by their ``cdk8s.yaml``: an example added there is tested here. The
CLI runs in the example's directory without ``--app``, reading its ``cdk8s.yaml``, as
``nld-deploy`` in a user's project does. The fleet has a CPU node, and for the team's app a
dedicated node too (``dedicated=ci:NoSchedule``), which its pods reach by its toleration.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from constructs_nld.deploy.cli import main
from tests.controlplane import REPO_ROOT
from tests.fleet import fleet_node
from tests.integration.cdk8s_cli import cdk8s_synth
from tests.simcluster import SimulatedCluster

EXAMPLES = sorted(path.parent for path in (REPO_ROOT / "examples").glob("*/cdk8s.yaml"))
DS_PATH = "/apis/apps/v1/namespaces/kube-system/daemonsets/node-local-dns"


def test_the_examples_are_the_documented_ones() -> None:
    index = (REPO_ROOT / "examples" / "README.md").read_text()

    assert [path.name for path in EXAMPLES] == [
        "dashboard",
        "fallthrough-least-privilege",
        "portable-argocd",
        "spec",
        "stub-zones",
        "team-chart",
        "values-per-cluster",
    ]
    for example in EXAMPLES:
        assert f"[`{example.name}/`]({example.name}/)" in index
        assert (example / "README.md").read_text().startswith("# ")


@pytest.mark.parametrize("example", EXAMPLES, ids=[path.name for path in EXAMPLES])
def test_cdk8s_synth_writes_the_examples_charts(example: Path, tmp_path: Path) -> None:
    objects = cdk8s_synth(REPO_ROOT / ".venv" / "bin" / "python", example, output=tmp_path)

    kinds = {obj["kind"] for obj in objects}
    assert {"DaemonSet", "ConfigMap", "Service", "PodMonitor", "PrometheusRule"} <= kinds
    assert not (example / "dist").exists()


@pytest.mark.parametrize("example", EXAMPLES, ids=[path.name for path in EXAMPLES])
def test_each_example_deploys_verifies_and_uninstalls_on_the_simulated_cluster(
    example: Path, sim: SimulatedCluster, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    tolerates_dedicated = example.name == "team-chart"
    # verify fails on a node whose taint the pods do not tolerate: only the team's app gets the dedicated node.
    sim.add_nodes([fleet_node("cpu", 1), *([fleet_node("dedicated", 1)] if tolerates_dedicated else [])])
    monkeypatch.chdir(example)
    cli = ["--kubeconfig", str(sim.control_plane.kubeconfig_path)]
    if example.name == "values-per-cluster":
        # The app picks values/<cluster>.yaml by the cluster's name, which a --contexts-from entry gives.
        context = yaml.safe_load(sim.control_plane.kubeconfig_path.read_text())["current-context"]
        clusters = tmp_path / "clusters.yaml"
        clusters.write_text(f"clusters:\n  - context: {context}\n    name: staging\n")
        cli += ["--contexts-from", str(clusters)]

    assert main([*cli, "--wait", "--progress", "plain", "--stall-after", "60"]) == 0
    daemon_set = sim.control_plane.fixture_api().get(DS_PATH)
    assert main([*cli, "verify"]) == 0
    assert main([*cli, "uninstall"]) == 0

    assert daemon_set is not None
    assert daemon_set["status"]["numberReady"] == (2 if tolerates_dedicated else 1)
    assert sim.control_plane.fixture_api().get(DS_PATH) is None
