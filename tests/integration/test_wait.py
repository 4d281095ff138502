"""``deploy.py --wait`` on a simulated fleet: progress for a terminal and for a log, a stalled rollout, its rollback.

The rollouts are the DaemonSet controller's, ``maxUnavailable`` at a time; a rollout
stalls because kwok makes the new pods crash, as node-cache does on a Corefile CoreDNS
rejects.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from constructs_nld.deploy.cli import main
from tests.fleet import eks_fleet, fleet_node
from tests.simcluster import PodFate, SimulatedCluster

POD_LABELS = {"k8s-app": "node-local-dns"}
CONFIG_MAP = "/api/v1/namespaces/kube-system/configmaps/node-local-dns"
DAEMON_SET = "/apis/apps/v1/namespaces/kube-system/daemonsets/node-local-dns"

BROKEN_APP = '''"""A team's app: a typo in the Corefile ('forwrd'), and a CPU request change that rolls the pods."""
import os
import pathlib
import sys

from constructs_nld import NodeLocalDNSProps
from constructs_nld.app import main

code = main(NodeLocalDNSProps(cpu_request="30m"))
for path in pathlib.Path(os.environ["CDK8S_OUTDIR"]).rglob("*.yaml"):
    path.write_text(path.read_text().replace("forward .", "forwrd ."))
sys.exit(code)
'''
COREDNS_ERROR = "/etc/Corefile:7 - Error during parsing: Unknown directive 'forwrd'"


def run(sim: SimulatedCluster, *args: str) -> int:
    return main(["--kubeconfig", str(sim.control_plane.kubeconfig_path), "--timeout", "10", *args])


def test_plain_progress_logs_a_line_per_change_and_how_the_rollout_ended(
    sim: SimulatedCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    sim.add_nodes(eks_fleet(8))

    assert run(sim, "--wait", "--progress", "plain") == 0

    out = capsys.readouterr().out
    assert "\r" not in out and "\x1b" not in out
    lines = [line for line in out.splitlines() if line.startswith("[wait]")]
    assert lines[0] == (
        "[wait] following the rollout of daemonset/kube-system/node-local-dns; stalled after 300s without progress"
    )
    for line in lines[1:-1]:
        assert re.fullmatch(
            r"\[wait\] \d+\.\ds (wave \d+: |)(generation \d+ not yet observed; )?"
            r"updated \d+/\d+, ready \d+/\d+, unavailable \d+",
            line,
        ), line
    assert re.fullmatch(
        r"\[wait\] rollout complete in \d+\.\ds: 6/6 pods updated and available; "
        r"\d+ wave\(s\) observed, at most \d unavailable",
        lines[-1],
    ), lines[-1]


def test_a_rollout_to_no_node_says_so_instead_of_reporting_zero_of_zero_as_done(
    sim: SimulatedCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    sim.add_nodes([fleet_node("dedicated", 1)])

    assert run(sim, "--wait", "--progress", "plain") == 0

    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("[wait]")]
    assert re.fullmatch(
        r"\[wait\] rollout complete in \d+\.\ds, but no node runs node-cache: the DaemonSet schedules no pod "
        r"\(nodes tainted beyond the tolerations, or outside its node selector or affinity\?\); "
        r"verify names the nodes it leaves out",
        lines[-1],
    ), lines[-1]


def test_tty_progress_redraws_one_line_no_wider_than_the_terminal(
    sim: SimulatedCluster, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    sim.add_nodes(eks_fleet(8))

    assert run(sim, "--wait", "--progress", "tty") == 0

    frames = capsys.readouterr().out.split("\r\x1b[K")
    drawn = frames[1:-1]
    assert drawn, "no progress line was drawn"
    assert all(len(frame) <= 59 and "\n" not in frame for frame in drawn), drawn
    assert drawn[-1].startswith("node-local-dns 6/6 updated, 6 ready, 0 unavailable")
    assert frames[-1].startswith("[wait] rollout complete in ")
    assert frames[-1].endswith(" unavailable\n[history] recorded revision 1 (deploy, succeeded)\n")


def test_new_pods_that_never_get_ready_stop_the_wait_with_exit_10_and_the_advised_rollback_recovers(
    sim: SimulatedCluster, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    sim.add_nodes(eks_fleet(8))
    assert run(sim, "--wait") == 0
    broken = tmp_path / "broken_app.py"
    broken.write_text(BROKEN_APP)
    sim.set_pod_fates(PodFate(labels=POD_LABELS, start="crash-loop", message=COREDNS_ERROR))
    capsys.readouterr()

    assert run(sim, "--app", f"python {broken}", "--wait", "--stall-after", "5", "--progress", "plain") == 10

    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2, err
    assert re.fullmatch(
        r"error: rollout of daemonset/kube-system/node-local-dns stalled: no pod became ready for 5s "
        r"\(updated 1/6, ready 5/6, unavailable 1\); not ready: node-local-dns-\w+ on [a-z0-9-]+ "
        + re.escape(f"(CrashLoopBackOff: {COREDNS_ERROR})"),
        err[0],
    ), err[0]
    assert err[1] == (
        "  to roll back, run 'python deploy.py rollback --wait' (the previous revision of the release history), "
        "or restore the previous version of your app (e.g. git revert) and run 'python deploy.py --wait': either "
        "reapplies the previous Corefile and pod template together "
        "('kubectl rollout undo daemonset/node-local-dns -n kube-system' restores the pod template only, "
        "not the ConfigMap)"
    )
    rest = sim.control_plane.fixture_api()
    assert "forwrd ." in (rest.get(CONFIG_MAP) or {})["data"]["Corefile"]

    sim.set_pod_fates()  # the restored Corefile parses: pods that start from now on run
    assert run(sim, "--wait") == 0

    assert "forwrd" not in (rest.get(CONFIG_MAP) or {})["data"]["Corefile"]
    status = (rest.get(DAEMON_SET) or {})["status"]
    assert (status["desiredNumberScheduled"], status["updatedNumberScheduled"], status["numberAvailable"]) == (6, 6, 6)
    capsys.readouterr()
    assert run(sim, "verify") == 0
