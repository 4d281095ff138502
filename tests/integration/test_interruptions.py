"""A deploy converges from any interruption: killed, or its API server restarted, right after each of its writes.

For each scenario the uninterrupted deploy is the reference: its final state and its
number of rollout restarts. Then, for every k from 1 to the number of writes it makes, the
same deploy is interrupted right after write k:

- the process SIGKILLed (a subprocess running ``deploy.py``): a plain rerun must reach the
  reference state with the reference number of restarts;
- the API server stopped and started again (in-process) while the deploy goes on: its
  refused connections, and whatever the server answers while it comes up, are retried
  within ``--timeout``, so the same run must reach the reference state; the rerun then
  writes nothing.

In both, one more rerun writes nothing. Two deploys started at once must end in the same
state with at most one restart.

The scenarios that write objects run on the bare control plane. The one that restarts runs
on the simulated cluster: a restart is decided from the pods' ages, so it needs the pods
the DaemonSet controller makes.
"""

from __future__ import annotations

import base64
import copy
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Final, Literal, get_args

import pytest
import yaml
from kubernetes import client as k8s

from constructs_nld import CacheSettings, NodeLocalDNSProps
from constructs_nld.deploy import DeployOptions, deploy, load_client, open_session, props_source
from tests.controlplane import REPO_ROOT, ControlPlane
from tests.faults import MATRIX, after_write
from tests.fleet import fleet_node
from tests.harness.clock import next_whole_second
from tests.integration import rest
from tests.simcluster import SimulatedCluster

RESTART: Final = "kubectl.kubernetes.io/restartedAt"
RESTARTED_FOR: Final = "nodelocaldns.osdc/restarted-for-upstream-uid"
CHANGED = NodeLocalDNSProps(cache=CacheSettings(success_ttl=15))
"""The Corefile change of the redeploy scenario: positive answers cached 15 s instead of 30 s."""

Mode = Literal["killed", "terminated", "apiserver restarted"]


@dataclass(frozen=True)
class Scenario:
    """A deploy to interrupt: how to prepare the cluster, the props it deploys, and where it runs."""

    name: str
    prepare: Callable[[ControlPlane], None]
    props: NodeLocalDNSProps
    writes: int
    """Writes of the uninterrupted deploy (the references check it)."""
    on_pods: bool = False
    """Run on the simulated cluster, where the DaemonSet controller makes pods."""


def _deploy_defaults(cluster: ControlPlane) -> None:
    client = load_client(str(cluster.kubeconfig_path), None, timeout=10)
    deploy(open_session(client, props_source(NodeLocalDNSProps()), read="deployable", out=lambda line: None))


def _pods_then_delete_upstream(cluster: ControlPlane) -> None:
    """On the simulated cluster: a deploy whose pods run, then kube-dns-upstream deleted under them."""
    client = load_client(str(cluster.kubeconfig_path), None, timeout=10)
    deploy(
        open_session(client, props_source(NodeLocalDNSProps()), read="deployable", out=lambda line: None),
        DeployOptions(wait=True, stall_after=30.0, rollout_poll_interval=0.1),
    )
    api = cluster.api_client()
    rest.delete(api, rest.PATHS["upstream"])
    for _ in range(100):
        if rest.get(api, rest.PATHS["upstream"]) is None:
            next_whole_second()  # the new one younger than every pod
            return
        time.sleep(0.05)
    raise AssertionError("kube-dns-upstream was not deleted")


SCENARIOS = (
    Scenario("fresh install", lambda cluster: None, NodeLocalDNSProps(), writes=10),
    Scenario("Corefile change", _deploy_defaults, CHANGED, writes=3),
    Scenario("kube-dns-upstream recreated", _pods_then_delete_upstream, NodeLocalDNSProps(), writes=4, on_pods=True),
)


@pytest.fixture(scope="module")
def simulated(simulated_cluster: SimulatedCluster) -> SimulatedCluster:
    """The simulated cluster, for the scenario that needs pods."""
    return simulated_cluster


def _target(scenario: Scenario, control_plane: ControlPlane, simulated: SimulatedCluster) -> ControlPlane:
    """The control plane the scenario runs on, reset; the simulated one with three nodes for the pods."""
    if scenario.on_pods:
        simulated.reset()
        simulated.add_nodes(fleet_node("cpu", i) for i in range(1, 4))
        return simulated.control_plane
    control_plane.reset()
    return control_plane


def state(api: k8s.ApiClient) -> dict[str, Any]:
    """What the deploy leaves: every object's configured fields, and where its restart stands."""
    upstream = rest.get(api, rest.PATHS["upstream"])
    assert upstream is not None
    result: dict[str, Any] = {}
    for name, path in rest.PATHS.items():
        obj = copy.deepcopy(rest.get(api, path))
        if obj is None:
            result[name] = None
            continue
        obj.pop("status", None)
        metadata = obj["metadata"]
        for key in ("managedFields", "resourceVersion", "uid", "creationTimestamp", "generation"):
            metadata.pop(key, None)
        annotations = metadata.get("annotations") or {}
        annotations.pop("deprecated.daemonset.template.generation", None)
        if name == "daemon-set":
            recorded = annotations.pop(RESTARTED_FOR, None)
            stamp = (obj["spec"]["template"]["metadata"].get("annotations") or {}).pop(RESTART, None)
            created = datetime.fromisoformat(upstream["metadata"]["creationTimestamp"].replace("Z", "+00:00"))
            result["restart"] = {
                "for this kube-dns-upstream": recorded == upstream["metadata"]["uid"],
                "stamped after it was created": stamp is not None
                and datetime.fromisoformat(stamp.replace("Z", "+00:00")) >= created,
            }
        if name in ("upstream", "kube-dns"):
            for key in ("clusterIP", "clusterIPs"):
                obj["spec"].pop(key, None)
        result[name] = obj
    return result


def restarts(cluster: ControlPlane, mark: int) -> int:
    """Rollout restarts that took effect (a restart patch refused with 409 is a deploy deciding again)."""
    return sum(
        1
        for event in cluster.mutating_requests_since(mark)
        if "fieldManager=nld-deploy-rollout" in event["requestURI"] and event["responseStatus"]["code"] < 300
    )


@dataclass(frozen=True)
class Reference:
    """The uninterrupted deploy of a scenario."""

    state: dict[str, Any]
    writes: int
    restarts: int


@pytest.fixture(scope="module")
def references(control_plane: ControlPlane, simulated: SimulatedCluster) -> dict[str, Reference]:
    found = {}
    for scenario in SCENARIOS:
        cluster = _target(scenario, control_plane, simulated)
        scenario.prepare(cluster)
        mark = cluster.audit_mark()
        client = load_client(str(cluster.kubeconfig_path), None, timeout=10)
        deploy(open_session(client, props_source(scenario.props), read="deployable", out=lambda line: None))
        found[scenario.name] = Reference(
            state(cluster.api_client()),
            len(cluster.mutating_requests_since(mark)),
            restarts(cluster, mark),
        )
    return found


def test_the_references(references: dict[str, Reference]) -> None:
    # Each writing deploy takes and gives up the cluster's deploy Lease: two writes of its own.
    assert {name: (ref.writes, ref.restarts) for name, ref in references.items()} == {
        "fresh install": (10, 0),
        "Corefile change": (3, 0),
        "kube-dns-upstream recreated": (4, 1),
    }
    no_restart = {"for this kube-dns-upstream": False, "stamped after it was created": False}
    assert references["fresh install"].state["restart"] == no_restart
    assert references["Corefile change"].state["restart"] == no_restart
    assert references["kube-dns-upstream recreated"].state["restart"] == {
        "for this kube-dns-upstream": True,
        "stamped after it was created": True,
    }


def inline_ca(cluster: ControlPlane, workdir: Path) -> Path:
    """The cluster's kubeconfig with its CA inline (``certificate-authority-data``), which a loader could write out."""
    config = yaml.safe_load(cluster.kubeconfig_path.read_text())
    for entry in config["clusters"]:
        path = entry["cluster"].pop("certificate-authority")
        entry["cluster"]["certificate-authority-data"] = base64.b64encode(Path(path).read_bytes()).decode()
    inline = workdir / "inline.kubeconfig"
    inline.write_text(yaml.safe_dump(config))
    return inline


def _holding(directory: Path, secret: bytes) -> list[Path]:
    """The files under ``directory`` that hold ``secret``."""
    return [path for path in directory.rglob("*") if path.is_file() and secret in path.read_bytes()]


def _cases() -> Iterator[tuple[str, int, Mode]]:
    for scenario in SCENARIOS:
        for k in range(1, scenario.writes + 1):
            for mode in get_args(Mode):
                yield scenario.name, k, mode


def _interrupt(cluster: ControlPlane, scenario: Scenario, k: int, mode: Mode, workdir: Path) -> int:
    """Interrupt the deploy after write ``k``; the retries it made (a killed one: 0)."""
    if mode in ("killed", "terminated"):
        app = workdir / "app.py"
        ttl = scenario.props.cache.success_ttl
        app.write_text(
            "from constructs_nld import CacheSettings, NodeLocalDNSProps\n"
            "from constructs_nld.app import main\n"
            f"raise SystemExit(main(NodeLocalDNSProps(cache=CacheSettings(success_ttl={ttl}))))\n"
        )
        temporary = workdir / "tmp"
        temporary.mkdir()
        signalled = ["--signal", "TERM"] if mode == "terminated" else []
        done = subprocess.run(
            [sys.executable, "-m", "tests.faults", str(k), *signalled, "--kubeconfig", str(inline_ca(cluster, workdir))]
            + ["--app", f"python {app}"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            env={**os.environ, "TMPDIR": str(temporary)},
        )
        if mode == "killed":
            assert done.returncode == -9, done.stdout + done.stderr
        else:  # the write under way ends whole, no other is sent, the Lease is released: exit 143, one line
            assert done.returncode == 143, done.stdout + done.stderr
            assert done.stderr.splitlines()[-1].startswith("error: stopped by SIGTERM between two requests"), (
                done.stderr
            )
            assert "Traceback" not in done.stderr
        # The kubeconfig's inline CA (as a client key would) never went to a file, not even SIGKILLed.
        assert _holding(temporary, cluster.ca_path.read_bytes()) == []
        return 0
    client = load_client(str(cluster.kubeconfig_path), None, timeout=60)

    def restart() -> None:
        cluster.stop_apiserver()
        cluster.start_apiserver(wait=False)  # the deploy goes on while the server comes up

    try:
        with after_write(k, restart):
            deploy(open_session(client, props_source(scenario.props), read="deployable", out=lambda line: None))
    finally:
        cluster.start_apiserver()
    return client.retries.total


@pytest.mark.parametrize(("scenario_name", "k", "mode"), list(_cases()))
def test_a_rerun_converges_after_an_interruption_at_every_write(
    scenario_name: str,
    k: int,
    mode: Mode,
    control_plane: ControlPlane,
    simulated: SimulatedCluster,
    references: dict[str, Reference],
    tmp_path: Path,
) -> None:
    scenario = next(s for s in SCENARIOS if s.name == scenario_name)
    reference = references[scenario_name]
    cluster = _target(scenario, control_plane, simulated)
    scenario.prepare(cluster)
    mark = cluster.audit_mark()

    retried = _interrupt(cluster, scenario, k, mode, tmp_path)
    if mode == "apiserver restarted" and scenario.on_pods:
        simulated.restart_controllers()
    done_before = len(cluster.mutating_requests_since(mark))
    if mode == "apiserver restarted":
        # The same run finished: nothing is left for the rerun below to write.
        assert state(cluster.api_client()) == reference.state
        assert done_before == reference.writes
    client = load_client(str(cluster.kubeconfig_path), None, timeout=10)
    deploy(open_session(client, props_source(scenario.props), read="deployable", out=lambda line: None))
    final = state(cluster.api_client())
    total_restarts = restarts(cluster, mark)
    second = cluster.audit_mark()
    deploy(open_session(client, props_source(scenario.props), read="deployable", out=lambda line: None))
    no_op = cluster.mutating_requests_since(second) == []

    converged = final == reference.state
    MATRIX.append(
        f"{scenario_name:28} {mode:19} after write {k}/{reference.writes} ({done_before} done, {retried} retried): "
        f"{'converged' if converged else 'DIVERGED'}, restarts {total_restarts}, rerun "
        f"{'no-op' if no_op else 'WROTE'}"
    )
    assert final == reference.state
    assert total_restarts == reference.restarts
    assert no_op


def test_two_deploys_at_once_end_as_one_with_at_most_one_restart(
    control_plane: ControlPlane, simulated: SimulatedCluster, references: dict[str, Reference]
) -> None:
    scenario = next(s for s in SCENARIOS if s.name == "kube-dns-upstream recreated")
    for _ in range(3):
        cluster = _target(scenario, control_plane, simulated)
        scenario.prepare(cluster)
        mark = cluster.audit_mark()
        command = [sys.executable, "deploy.py", "--kubeconfig", str(cluster.kubeconfig_path)]
        runs = [
            subprocess.Popen(command, cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(2)
        ]
        outputs = [run.communicate(timeout=120) for run in runs]

        assert [run.returncode for run in runs] == [0, 0], outputs
        assert state(cluster.api_client()) == references[scenario.name].state
        assert restarts(cluster, mark) == 1
        last_lines = sorted(out.splitlines()[-2] for out, _ in outputs)  # the last says the revision recorded
        assert any(" restarted at " in line for line in last_lines), last_lines
        assert any("not needed" in line for line in last_lines), last_lines


def test_the_matrix_covers_every_write(references: dict[str, Reference]) -> None:
    expected = sum(ref.writes for ref in references.values()) * len(get_args(Mode))
    assert len(list(_cases())) == expected
