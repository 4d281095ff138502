"""``deploy.py cutover`` on a simulated EKS-shaped fleet: base, CPU and GPU pools, real controllers, kwok.

The new code path is an image bump (node-cache 1.26.8 to a newer tag) in a user's app; the
pods' rollouts are the DaemonSet controller's, and their crashes kwok's, as a node-cache
that rejects its new image's Corefile would.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from constructs_nld import defaults
from constructs_nld.deploy.cli import main
from constructs_nld.deploy.exitcodes import ExitCode
from constructs_nld.deploy.manifest import is_ready
from tests.controlplane import REPO_ROOT
from tests.documents import validated
from tests.faults import MATRIX, WRITE_METHODS, after_write, before_apply_of
from tests.fleet import eks_fleet, fleet_node
from tests.simcluster import PodFate, SimulatedCluster

POD_LABELS = {"k8s-app": "node-local-dns"}
DAEMON_SET = "/apis/apps/v1/namespaces/kube-system/daemonsets/node-local-dns"
NEW_IMAGE = "registry.k8s.io/dns/k8s-dns-node-cache:1.26.9"
OLD_IMAGE = defaults.IMAGE

APP = '''"""A team's app: the spec's component, its node-cache image {what}."""
import sys

from constructs_nld import NodeLocalDNSProps
from constructs_nld.app import main

sys.exit(main(NodeLocalDNSProps({props})))
'''


def app(tmp_path: Path, name: str, props: str = "") -> str:
    """``--app`` for an app of ``props`` (default: the spec's)."""
    path = tmp_path / f"{name}.py"
    path.write_text(APP.format(what="bumped" if "image" in props else "as is", props=props))
    return f"python {path}"


@pytest.fixture
def bumped(tmp_path: Path) -> str:
    return app(tmp_path, "bumped", f"image={NEW_IMAGE!r}")


def run(sim: SimulatedCluster, *args: str) -> int:
    return main(["--kubeconfig", str(sim.control_plane.kubeconfig_path), "--timeout", "10", *args])


def sim_pods(sim: SimulatedCluster) -> list[dict[str, Any]]:
    """Every node-cache pod."""
    return sim.pods("kube-system", POD_LABELS)


def pods(sim: SimulatedCluster) -> dict[str, dict[str, Any]]:
    """The node-cache pods (not deleting) by node."""
    return {
        p["spec"]["nodeName"]: p
        for p in sim_pods(sim)
        if p["spec"].get("nodeName") and not p["metadata"].get("deletionTimestamp")
    }


def image(pod: dict[str, Any]) -> str:
    return str(next(c["image"] for c in pod["spec"]["containers"] if c["name"] == "node-cache"))


def daemon_set(sim: SimulatedCluster) -> dict[str, Any]:
    found = sim.control_plane.fixture_api().get(DAEMON_SET)
    assert found is not None
    return found


def state(sim: SimulatedCluster) -> dict[str, Any] | None:
    text = (daemon_set(sim)["metadata"].get("annotations") or {}).get(defaults.CUTOVER_ANNOTATION)
    return None if text is None else dict(json.loads(text))


@pytest.fixture
def small_fleet(sim: SimulatedCluster) -> SimulatedCluster:
    """The smallest EKS-shaped fleet: 2 base nodes, 1 GPU, one each cordoned, NotReady, disrupted (4 pods)."""
    sim.add_nodes(eks_fleet(6))
    assert run(sim, "--wait", "--progress", "plain") == 0
    return sim


@pytest.fixture
def fleet(sim: SimulatedCluster) -> SimulatedCluster:
    """Ten EKS-shaped nodes (2 base, 2 GPU, 3 CPU, one each cordoned, NotReady, disrupted), the spec's app deployed."""
    sim.add_nodes(eks_fleet(10))
    assert run(sim, "--wait", "--progress", "plain") == 0
    return sim


def test_start_replaces_exactly_one_canary_pod_per_pool_and_a_rerun_writes_nothing(
    fleet: SimulatedCluster, bumped: str, capsys: pytest.CaptureFixture[str]
) -> None:
    before = pods(fleet)
    capsys.readouterr()

    assert run(fleet, "cutover", "start", "--app", bumped, "--stall-after", "60") == 0

    out = capsys.readouterr().out
    after = pods(fleet)
    canary = {node for node, pod in after.items() if pod["metadata"]["uid"] != before[node]["metadata"]["uid"]}
    assert canary == {"base-1", "cpu-1", "gpu-1"}, out
    assert {node: image(pod) for node, pod in after.items() if node in canary} == dict.fromkeys(canary, NEW_IMAGE)
    assert {image(pod) for node, pod in after.items() if node not in canary} == {OLD_IMAGE}
    assert daemon_set(fleet)["spec"]["updateStrategy"] == {"type": "OnDelete"}
    recorded = state(fleet)
    assert recorded is not None and {n["name"] for n in recorded["canary"]} == canary
    assert recorded["new_revision"] and recorded["new_revision"] != recorded["old_revision"]
    assert "nodes that join from now on get it too" in out

    mark = fleet.control_plane.audit_mark()
    assert run(fleet, "cutover", "start", "--app", bumped) == 0
    assert fleet.control_plane.mutating_requests_since(mark) == []
    assert {node: pod["metadata"]["uid"] for node, pod in pods(fleet).items()} == {
        node: pod["metadata"]["uid"] for node, pod in after.items()
    }


def test_start_refuses_what_a_canary_cannot_carry_and_writes_nothing(
    fleet: SimulatedCluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corefile = app(tmp_path, "corefile", f'image={NEW_IMAGE!r}, upstream_servers=("fd00:ec2::53",)')
    bumped = app(tmp_path, "bumped", f"image={NEW_IMAGE!r}")
    capsys.readouterr()
    mark = fleet.control_plane.audit_mark()

    def answer(*argv: str) -> tuple[int, str]:
        return run(fleet, "cutover", *argv), capsys.readouterr().err

    answers = {
        "corefile": answer("start", "--app", corefile),
        "unchanged": answer("start"),
        "selector": answer("start", "--app", bumped, "--canary-selector", "pool in (cpu"),
        "none": answer("start", "--app", bumped, "--canary-selector", "pool=none"),
        "too many": answer("start", "--app", bumped, "--canary-nodes", "9"),
        "no cutover": answer("promote", "--app", bumped),
    }

    assert answers["corefile"] == (
        ExitCode.INVALID,
        "error: the app changes configmap/kube-system/node-local-dns, which node-cache reloads on every node within "
        "a minute, canary or not: deploy that change on its own first ('python deploy.py --wait'), or give the new "
        "Corefile a ConfigMap of its own name, which only the new template mounts\n",
    )
    assert answers["unchanged"][0] == ExitCode.CUTOVER and "nothing to cut over" in answers["unchanged"][1]
    assert answers["selector"] == (
        ExitCode.INVALID,
        "error: --canary-selector 'pool in (cpu': the API server refused it as a label selector\n",
    )
    assert answers["none"][0] == ExitCode.INVALID and "no node matching 'pool=none' runs" in answers["none"][1]
    assert answers["too many"] == (
        ExitCode.INVALID,
        "error: --canary-nodes: 9 nodes asked for, but only 7 run a ready node-cache pod and are settled "
        "(not cordoned, draining, disrupted or not ready)\n",
    )
    assert answers["no cutover"] == (
        ExitCode.CUTOVER,
        "error: no cutover of daemonset/kube-system/node-local-dns is in progress: start one with "
        "'python deploy.py cutover start'\n",
    )
    assert fleet.control_plane.mutating_requests_since(mark) == []


def test_the_canary_can_be_fewer_nodes_or_a_selectors_and_says_which_pools_it_leaves_out(
    fleet: SimulatedCluster, bumped: str, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert run(fleet, "cutover", "start", "--app", bumped, "--canary-nodes", "2") == 0
    out = capsys.readouterr().out
    two = state(fleet)
    assert run(fleet, "cutover", "rollback", "--app", bumped) == 0
    selector = "node.kubernetes.io/instance-type=c7i.8xlarge"
    assert run(fleet, "cutover", "start", "--app", bumped, "--canary-selector", selector) == 0
    cpu = state(fleet)

    assert two is not None and [n["name"] for n in two["canary"]] == ["base-1", "cpu-1"]
    assert "; pools without a canary node: node-fleet=gpu:NoSchedule,nvidia.com/gpu=true:NoSchedule," in out, out
    # The cordoned CPU node is not chosen: it is in transition.
    assert cpu is not None and sorted(n["name"] for n in cpu["canary"]) == ["cpu-1", "cpu-2", "cpu-3"]


def test_while_a_cutover_is_in_progress_deploy_refuses_verify_warns_another_start_is_refused_uninstall_ends_it(
    fleet: SimulatedCluster, bumped: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(fleet, "cutover", "start", "--app", bumped) == 0
    capsys.readouterr()
    mark = fleet.control_plane.audit_mark()

    deploy_code = run(fleet, "--app", bumped)
    deploy_err = capsys.readouterr().err
    other_code = run(fleet, "cutover", "start", "--app", app(tmp_path, "other", 'cpu_request="30m"'))
    other_err = capsys.readouterr().err
    verify_code = run(fleet, "verify", "--app", bumped)
    verify_out = capsys.readouterr().out

    assert deploy_code == ExitCode.CUTOVER, deploy_err
    assert re.fullmatch(
        r"error: a cutover of daemonset/kube-system/node-local-dns is in progress \(started \S+ on 3 canary "
        r"node\(s\) \(base-1, cpu-1, gpu-1\)\): a deploy would roll every node; promote it \('python deploy.py "
        r"cutover promote'\) or roll it back \('python deploy.py cutover rollback'\)\n",
        deploy_err,
    ), deploy_err
    assert other_code == ExitCode.CUTOVER and "with another pod template" in other_err, other_err
    assert fleet.control_plane.mutating_requests_since(mark) == []
    assert verify_code == 0, verify_out
    warning = r"^WARN cutover-in-progress: a cutover started \S+: 3 canary node\(s\) \(base-1, cpu-1, gpu-1\); "
    assert re.search(warning + r"3 pod\(s\) run the new template$", verify_out, re.M), verify_out
    assert re.search(r"^PASS daemonset-healthy: ", verify_out, re.M), verify_out
    assert re.search(r"^PASS live-matches-app: ", verify_out, re.M), verify_out

    assert run(fleet, "uninstall", "--app", bumped) == 0
    assert "ending the cutover of daemonset/kube-system/node-local-dns (started " in capsys.readouterr().out
    assert run(fleet, "verify", "--uninstalled", "--app", bumped) == 0


def test_of_two_cutovers_started_at_once_one_runs_and_the_other_is_refused(
    fleet: SimulatedCluster, bumped: str, tmp_path: Path
) -> None:
    other = app(tmp_path, "other", 'image="registry.k8s.io/dns/k8s-dns-node-cache:1.26.10"')
    kubeconfig = str(fleet.control_plane.kubeconfig_path)
    starts = {
        command: subprocess.Popen(
            [sys.executable, "deploy.py", "--kubeconfig", kubeconfig, "cutover", "start", "--app", command],
            cwd=REPO_ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for command in (bumped, other)
    }
    errors = {command: process.communicate(timeout=300)[1] for command, process in starts.items()}
    codes = {command: process.returncode for command, process in starts.items()}

    assert sorted(codes.values()) == [0, ExitCode.CUTOVER], errors
    (winner,) = [command for command, code in codes.items() if code == 0]
    (refusal,) = [text for command, text in errors.items() if command != winner]
    assert "with another pod template" in refusal or "while this cutover was planned" in refusal, refusal
    won = NEW_IMAGE if winner == bumped else "registry.k8s.io/dns/k8s-dns-node-cache:1.26.10"
    assert {image(pod) for node, pod in pods(fleet).items() if node in {"base-1", "cpu-1", "gpu-1"}} == {won}


def test_a_node_that_joins_during_the_cutover_gets_the_new_template(
    fleet: SimulatedCluster, bumped: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(fleet, "cutover", "start", "--app", bumped) == 0
    fleet.add_nodes([fleet_node("cpu", 9)])
    fleet.wait_for("the new node's pod", lambda: "cpu-9" in pods(fleet))
    capsys.readouterr()

    code = run(fleet, "cutover", "status", "--app", bumped)

    out = capsys.readouterr().out
    assert image(pods(fleet)["cpu-9"]) == NEW_IMAGE
    assert "joined during the cutover, on the new template: cpu-9" in out, out
    assert code == ExitCode.SOAK_NO_DATA, out  # no Prometheus, and not yet 3 days

    json_code = run(fleet, "cutover", "status", "--app", bumped, "-o", "json")

    document = validated(capsys.readouterr().out, "cutover-status")
    assert json_code == ExitCode.SOAK_NO_DATA
    assert [document["daemon_set"], document["joined"], document["verdict"]] == [
        "kube-system/node-local-dns",
        ["cpu-9"],
        "no data",
    ]
    assert sorted((row["node"], row["template"], row["ready"]) for row in document["canary"]) == [
        ("base-1", "new", True),
        ("cpu-1", "new", True),
        ("gpu-1", "new", True),
    ]
    assert document["signals"][0] == {
        "name": "canary pods available",
        "expected": "3 ready on the new template",
        "observed": "3 ready",
        "coverage": None,
        "result": "pass",
    }


def test_a_crash_loop_on_a_canary_node_fails_status_refuses_promote_and_rollback_restores_the_canary_only(
    fleet: SimulatedCluster, bumped: str, capsys: pytest.CaptureFixture[str]
) -> None:
    before = pods(fleet)
    fleet.set_pod_fates(
        PodFate(labels=POD_LABELS, nodes=("gpu-1",), start="crash-loop", message="plugin/bind: not a valid IP")
    )
    start_code = run(fleet, "cutover", "start", "--app", bumped, "--stall-after", "5")
    start_err = capsys.readouterr().err
    status_code = run(fleet, "cutover", "status", "--app", bumped, "--window", "1s")
    status_out = capsys.readouterr().out
    mark = fleet.control_plane.audit_mark()
    promote_code = run(fleet, "cutover", "promote", "--app", bumped, "--window", "1s")
    promote_err = capsys.readouterr().err

    assert start_code == ExitCode.STALLED, start_err
    assert "2 of 3 canary pods ready on the new template" in start_err and "gpu-1" in start_err, start_err
    assert "cutover rollback" in start_err
    assert status_code == ExitCode.SOAK_FAILED, status_out
    assert re.search(r"^canary pods available .* gpu-1: CrashLoopBackOff.* FAIL$", status_out, re.M), status_out
    assert status_out.rstrip().endswith("verdict: FAIL")
    assert promote_code == ExitCode.SOAK_FAILED, promote_err
    assert "promote refused: the canary soak is FAIL (canary pods available" in promote_err
    assert fleet.control_plane.mutating_requests_since(mark) == []

    fleet.set_pod_fates()  # the old template's node-cache starts
    assert run(fleet, "cutover", "rollback", "--app", bumped, "--stall-after", "60") == 0
    after = pods(fleet)
    assert {node: image(pod) for node, pod in after.items()} == dict.fromkeys(before, OLD_IMAGE)
    replaced = {node for node, pod in after.items() if pod["metadata"]["uid"] != before[node]["metadata"]["uid"]}
    assert replaced == {"base-1", "cpu-1", "gpu-1"}
    assert state(fleet) is None
    assert daemon_set(fleet)["spec"]["updateStrategy"]["type"] == "RollingUpdate"
    last = json.loads(daemon_set(fleet)["metadata"]["annotations"][defaults.LAST_CUTOVER_ANNOTATION])
    assert last["outcome"] == "rolled back"
    capsys.readouterr()

    mark = fleet.control_plane.audit_mark()
    assert run(fleet, "cutover", "rollback", "--app", bumped) == 0
    assert "no cutover of daemonset/kube-system/node-local-dns is in progress: cutover rollback changed nothing" in (
        capsys.readouterr().out
    )
    assert fleet.control_plane.mutating_requests_since(mark) == []


def _plant(sim: SimulatedCluster, **fields: Any) -> None:
    """Change the cutover's state as anyone with ``patch`` on the DaemonSet could."""
    planted = {**(state(sim) or {}), **fields}
    annotations = {defaults.CUTOVER_ANNOTATION: json.dumps(planted)}
    sim.control_plane.fixture_api().request(
        "PATCH",
        DAEMON_SET,
        body={"metadata": {"annotations": annotations}},
        content_type="application/merge-patch+json",
    )


EVIL_TEMPLATE = {
    "metadata": {"labels": POD_LABELS},
    "spec": {
        "serviceAccountName": "default",
        "containers": [{"name": "node-cache", "image": "evil:1", "securityContext": {"privileged": True}}],
        "volumes": [{"name": "root", "hostPath": {"path": "/"}}],
    },
}


def test_rollback_restores_the_template_the_controller_recorded_whatever_the_annotation_holds(
    small_fleet: SimulatedCluster, bumped: str, capsys: pytest.CaptureFixture[str]
) -> None:
    before = daemon_set(small_fleet)["spec"]["template"]
    assert run(small_fleet, "cutover", "start", "--app", bumped, "--stall-after", "60") == 0
    _plant(small_fleet, old_template=EVIL_TEMPLATE)

    assert run(small_fleet, "cutover", "rollback", "--app", bumped, "--stall-after", "60") == 0, capsys.readouterr()
    assert daemon_set(small_fleet)["spec"]["template"] == before
    assert {image(pod) for pod in pods(small_fleet).values()} == {OLD_IMAGE}


def test_rollback_refuses_a_revision_the_controller_did_not_write_and_writes_nothing(
    small_fleet: SimulatedCluster, bumped: str, capsys: pytest.CaptureFixture[str]
) -> None:
    api = small_fleet.control_plane.fixture_api()
    assert run(small_fleet, "cutover", "start", "--app", bumped, "--stall-after", "60") == 0
    api.request(
        "POST",
        "/apis/apps/v1/namespaces/kube-system/controllerrevisions",
        body={
            "apiVersion": "apps/v1",
            "kind": "ControllerRevision",
            "metadata": {"name": "node-local-dns-zzzz", "labels": {"controller-revision-hash": "zzzz"}},
            "data": {"spec": {"template": {**EVIL_TEMPLATE, "$patch": "replace"}}},
            "revision": 99,
        },
    )
    _plant(small_fleet, old_revision="zzzz")
    template = daemon_set(small_fleet)["spec"]["template"]
    capsys.readouterr()
    mark = small_fleet.control_plane.audit_mark()

    code = run(small_fleet, "cutover", "rollback", "--app", bumped)

    assert code == ExitCode.CUTOVER
    assert capsys.readouterr().err == (
        "error: cannot roll back daemonset/kube-system/node-local-dns to the template of before the cutover: "
        "controllerrevision/kube-system/node-local-dns-zzzz: it is not controlled by "
        "daemonset/kube-system/node-local-dns; deploy the app of before the cutover with 'python deploy.py --wait' "
        "instead, then end the cutover with 'kubectl annotate daemonset -n kube-system node-local-dns "
        f"{defaults.CUTOVER_ANNOTATION}-'\n"
    )
    assert small_fleet.control_plane.mutating_requests_since(mark) == []
    assert daemon_set(small_fleet)["spec"]["template"] == template


def test_a_state_that_starts_in_the_future_by_the_api_servers_clock_is_refused(
    small_fleet: SimulatedCluster, bumped: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(small_fleet, "cutover", "start", "--app", bumped, "--stall-after", "60") == 0
    _plant(small_fleet, started="2999-01-01T00:00:00Z")
    capsys.readouterr()

    code = run(small_fleet, "cutover", "status", "--app", bumped, "--window", "1s")

    err = capsys.readouterr().err
    assert code == ExitCode.INVALID
    assert err.startswith(
        f"error: daemonset/kube-system/node-local-dns: annotation {defaults.CUTOVER_ANNOTATION}: "
        "started 2999-01-01T00:00:00Z is in the future by the API server's clock; it is not a cutover's state"
    ), err
    assert err.count("\n") == 1


def test_a_promote_refused_by_the_deploys_checks_writes_nothing_and_the_cutover_goes_on(
    small_fleet: SimulatedCluster, bumped: str, capsys: pytest.CaptureFixture[str]
) -> None:
    api = small_fleet.control_plane.fixture_api()
    parent = f"/api/v1/namespaces/kube-system/configmaps/{defaults.APPLYSET_NAME}"

    def tooling(value: str) -> None:
        api.request(
            "PATCH",
            parent,
            body={"metadata": {"annotations": {"applyset.kubernetes.io/tooling": value}}},
            content_type="application/merge-patch+json",
        )

    assert run(small_fleet, "cutover", "start", "--app", bumped, "--stall-after", "60") == 0
    started = state(small_fleet)
    tooling("kubectl/v1.34.4")
    capsys.readouterr()
    mark = small_fleet.control_plane.audit_mark()

    code = run(small_fleet, "cutover", "promote", "--app", bumped, "--force", "--window", "1s")

    err = capsys.readouterr().err
    assert code == ExitCode.PRECONDITION, err
    assert "refusing to take over another tool's set" in err
    assert small_fleet.control_plane.mutating_requests_since(mark) == []
    assert state(small_fleet) == started
    tooling("nld-deploy/v1")
    assert run(small_fleet, "cutover", "rollback", "--app", bumped, "--stall-after", "60") == 0


def test_a_cutover_started_between_a_deploys_read_and_its_daemon_set_write_wins(
    small_fleet: SimulatedCluster, bumped: str, capsys: pytest.CaptureFixture[str]
) -> None:
    started: list[int] = []

    def start_a_cutover() -> None:
        started.append(run(small_fleet, "cutover", "start", "--app", bumped, "--stall-after", "60"))

    with before_apply_of("DaemonSet", start_a_cutover):
        code = run(small_fleet, "--app", bumped)
    err = capsys.readouterr().err

    assert started == [0], err
    assert code == ExitCode.CUTOVER, err
    assert "error: a cutover of daemonset/kube-system/node-local-dns started while this deploy ran (started " in err
    assert "the DaemonSet was not applied, so the cutover stands" in err
    cutover = state(small_fleet)
    assert cutover is not None
    assert daemon_set(small_fleet)["spec"]["updateStrategy"] == {"type": "OnDelete"}
    canary = {node["name"] for node in cutover["canary"]}
    assert {node: image(pod) for node, pod in pods(small_fleet).items()} == {
        node: NEW_IMAGE if node in canary else OLD_IMAGE for node in pods(small_fleet)
    }
    MATRIX.append(
        "deploy: a cutover start between its read and its DaemonSet write; the cutover stands, deploy refuses"
    )


def test_promote_rolls_the_rest_within_max_unavailable_and_records_the_force(
    fleet: SimulatedCluster, bumped: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(fleet, "cutover", "start", "--app", bumped) == 0
    capsys.readouterr()
    assert run(fleet, "cutover", "promote", "--app", bumped) == ExitCode.SOAK_NO_DATA
    assert "--force promotes anyway" in capsys.readouterr().err
    fleet.set_pod_fates(PodFate(labels=POD_LABELS, stop_seconds=1.5))  # node-cache's SIGTERM cleanup takes a while
    rest = fleet.control_plane.fixture_api()
    unavailable: list[int] = []
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            going = [p for p in sim_pods(fleet) if p["metadata"].get("deletionTimestamp") or not is_ready(p)]
            status = (rest.get(DAEMON_SET) or {}).get("status") or {}
            unavailable.append(max(len(going), int(status.get("numberUnavailable", 0))))
            time.sleep(0.05)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        code = run(fleet, "cutover", "promote", "--app", bumped, "--force", "--progress", "plain")
    finally:
        stop.set()
        sampler.join()

    out = capsys.readouterr().out
    assert code == 0, out
    assert {image(pod) for pod in pods(fleet).values()} == {NEW_IMAGE}
    assert "rollout complete in " in out and "8/8 pods updated and available" in out, out
    # 1% of 8 nodes, rounded up: one pod at a time, and the samples saw each one go.
    assert max(unavailable) == 1, unavailable
    assert state(fleet) is None
    last = json.loads(daemon_set(fleet)["metadata"]["annotations"][defaults.LAST_CUTOVER_ANNOTATION])
    assert (last["outcome"], last["forced"]) == ("promoted", True)
    assert daemon_set(fleet)["spec"]["updateStrategy"]["rollingUpdate"]["maxUnavailable"] == defaults.MAX_UNAVAILABLE
    assert run(fleet, "--app", bumped) == 0  # the cutover is over: a plain deploy works again


class StoppedError(BaseException):
    """The deploy process stopped right after a write (as a SIGKILL or a lost runner would stop it).

    Not an ``Exception``: the command turns every ``Exception`` of a cluster into that cluster's
    one-line failure, and a SIGKILL is not one it could catch.
    """


def _stop() -> None:
    raise StoppedError


CUTOVER_WRITES = (*WRITE_METHODS, "delete")
"""Every write of a cutover step: its state, the applies, and the canary pods' deletions."""


def fingerprint(sim: SimulatedCluster) -> tuple[object, ...]:
    """What a step leaves: each node's image, the update strategy, and the cutover's canary (None: none going)."""
    recorded = state(sim)
    canary = (
        None if recorded is None else (sorted(n["name"] for n in recorded["canary"]), bool(recorded["new_revision"]))
    )
    strategy = daemon_set(sim)["spec"]["updateStrategy"]["type"]
    return {node: image(pod) for node, pod in sorted(pods(sim).items())}, strategy, canary


def interrupted(sim: SimulatedCluster, k: int, argv: tuple[str, ...]) -> list[str]:
    """Run ``argv``, stopped right after its ``k``-th write; the writes it made."""
    with after_write(k, _stop, CUTOVER_WRITES) as writes, pytest.raises(StoppedError):
        run(sim, *argv)
    return list(writes)


def writes_of(sim: SimulatedCluster, argv: tuple[str, ...]) -> list[str]:
    """Run ``argv`` to its end; the writes it made."""
    with after_write(0, _stop, CUTOVER_WRITES) as writes:
        assert run(sim, *argv) == 0, argv
    return list(writes)


@pytest.mark.parametrize("step", ["start", "promote", "rollback"])
def test_each_step_interrupted_after_each_of_its_writes_converges_when_rerun(
    small_fleet: SimulatedCluster, bumped: str, step: str, capsys: pytest.CaptureFixture[str]
) -> None:
    fleet = small_fleet
    argv = ("cutover", step, "--app", bumped, "--stall-after", "60", *(("--force",) if step == "promote" else ()))

    def start() -> int:
        return run(fleet, "cutover", "start", "--app", bumped)

    def nothing() -> int:
        return 0

    setup: Callable[[], int] = nothing if step == "start" else start
    back: Callable[[], int] = {
        "start": lambda: run(fleet, "cutover", "rollback", "--app", bumped),
        "promote": lambda: run(fleet, "--wait"),
        "rollback": nothing,
    }[step]
    assert setup() == 0
    reference = writes_of(fleet, argv)
    expected = fingerprint(fleet)
    assert back() == 0
    assert len(reference) >= 2, reference

    # promote holds the deploy Lease from its first write (an apply) to its release (its last apply).
    holds = step == "promote"
    assert not holds or reference[0] == "apply", reference
    # Its last write is the revision it records in the release history, once the Lease is given up.
    release = (
        len(reference) - reference[::-1].index("apply")
        if not holds
        else (len(reference) - 1 - reference[-2::-1].index("apply"))
    )
    for k in range(1, len(reference) + 1):
        assert setup() == 0
        # Stopped by an exception between taking its Lease and giving it up, promote still gives it up
        # on the way out (a killed one's lapses). Stopped at the take itself, it never knew it held the
        # Lease: the rerun takes it over, its holder being a run of this process that holds nothing.
        released = ["apply"] if holds and 1 < k < release else []
        assert interrupted(fleet, k, argv) == reference[:k] + released
        assert run(fleet, *argv) == 0, f"{step}: the rerun after write {k} ({reference[k - 1]})"
        assert fingerprint(fleet) == expected, f"{step}: after write {k} ({reference[k - 1]})"
        MATRIX.append(
            f"cutover {step}: interrupted after write {k} of {len(reference)} ({reference[k - 1]}), converged"
        )
        assert back() == 0
        capsys.readouterr()
