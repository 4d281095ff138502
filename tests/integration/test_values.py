"""``nld-deploy --values/--set`` against a real kube-apiserver: the values reach the cluster, a bad one nothing.

The CLI runs the repository's app (``main.py``) as a user's project runs it: the values go to
the app through its environment, and the app builds its props from them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from kubernetes import client as k8s

from constructs_nld.deploy.cli import main
from constructs_nld.deploy.exitcodes import ExitCode
from tests.controlplane import ControlPlane
from tests.fleet import fleet_node
from tests.integration import rest
from tests.simcluster import SimulatedCluster


def run(cluster: ControlPlane, *args: str) -> int:
    return main(["--kubeconfig", str(cluster.kubeconfig_path), "--timeout", "10", *args])


def test_deploy_applies_the_values_files_and_the_sets_in_order(sim: SimulatedCluster, tmp_path: Path) -> None:
    sim.add_nodes([fleet_node("cpu", 1)])
    common = tmp_path / "common.yaml"
    common.write_text("cache:\n  success_capacity: 20000\n  denial_ttl: 9\nupstream_forward:\n  max_fails: 2\n")
    cluster_file = tmp_path / "cluster.json"
    cluster_file.write_text('{"cache": {"denial_ttl": 7}, "cpu_request": "50m"}')
    values = ["-f", str(common), "--values", str(cluster_file), "--set", "upstream_forward.max_fails=4"]

    assert run(sim.control_plane, "deploy", *values, "--wait", "--progress", "plain") == 0

    api = sim.control_plane.fixture_api()
    config_map = api.get(rest.PATHS["config-map"])
    assert config_map is not None
    text = config_map["data"]["Corefile"]
    assert "success 20000 30\n" in text
    assert "denial 9984 7\n" in text
    assert "max_fails 4\n" in text
    daemon_set = api.get(rest.PATHS["daemon-set"])
    assert daemon_set is not None
    assert daemon_set["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] == "50m"
    assert run(sim.control_plane, "verify", *values) == 0
    # Without the values the app is the spec's, which the cluster no longer runs.
    assert run(sim.control_plane, "verify") == ExitCode.CHECKS_FAILED


def test_a_refused_value_names_its_file_and_key_and_writes_nothing(
    cluster: ControlPlane, api_client: k8s.ApiClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    values = tmp_path / "values.yaml"
    values.write_text("cache:\n  success_capacity: 20000\nupstream_forward:\n  max_fails: -1\n")
    mark = cluster.audit_mark()

    assert run(cluster, "deploy", "--values", str(values)) == 2

    assert cluster.mutating_requests_since(mark) == []
    assert rest.get(api_client, rest.PATHS["config-map"]) is None
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        f"error: the app 'python main.py' failed: {values}: upstream_forward.max_fails: must be a non-negative "
        "integer (at most 2147483647), got -1 (from $NLD_VALUES)"
    )


def test_a_refused_set_names_itself_and_writes_nothing(
    cluster: ControlPlane, api_client: k8s.ApiClient, capsys: pytest.CaptureFixture[str]
) -> None:
    mark = cluster.audit_mark()

    assert run(cluster, "deploy", "--set", "cache.prefech.amount=2") == 2

    assert cluster.mutating_requests_since(mark) == []
    assert rest.get(api_client, rest.PATHS["config-map"]) is None
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "error: the app 'python main.py' failed: --set cache.prefech.amount=2: cache.prefech: unknown key "
        "(did you mean 'prefetch'?) (from $NLD_SET)"
    )


def test_a_missing_values_file_is_refused_before_the_cluster_is_reached(
    cluster: ControlPlane, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mark = cluster.audit_mark()

    assert run(cluster, "deploy", "--values", str(tmp_path / "nope.yaml")) == 2

    assert cluster.requests_since(mark) == []
    assert capsys.readouterr().err.strip().splitlines() == [
        f"error: --values/--set: {tmp_path / 'nope.yaml'}: cannot read the values file: No such file or directory"
    ]


def test_a_set_into_a_list_is_refused_before_the_cluster_is_reached(
    cluster: ControlPlane, capsys: pytest.CaptureFixture[str]
) -> None:
    mark = cluster.audit_mark()

    assert run(cluster, "deploy", "--set", "tolerations[0].key=x") == 2

    assert cluster.requests_since(mark) == []
    assert capsys.readouterr().err.strip().splitlines() == [
        "error: --values/--set: --set tolerations[0].key=x: a key path cannot go into a list (tolerations[0].key); "
        "set the whole list instead, e.g. --set 'tolerations=[...]', or write it in a values file"
    ]
