"""The release history against a real kube-apiserver: what deploy, rollback, uninstall and cutover promote record.

A team's app (its own ``cdk8s.yaml`` and ``main.py``, synthesized by the CLI as a user runs
it) changes between deploys: a ConfigMap of its own changes content, and its second version
has a ConfigMap the first has not. ``rollback`` must put back the first's content, prune what
only the second had, and be recorded; ``verify`` warns while the cluster runs the rolled-back
revision rather than the app.
"""

from __future__ import annotations

import base64
import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from constructs_nld import defaults
from constructs_nld.deploy.cli import main
from tests.controlplane import ControlPlane
from tests.documents import validated
from tests.fleet import eks_fleet
from tests.harness.credentials import ADMIN_USER
from tests.simcluster import SimulatedCluster

HISTORY = f"/api/v1/namespaces/kube-system/configmaps/{defaults.HISTORY_NAME}"
NOTES = "/api/v1/namespaces/kube-system/configmaps/team-notes"
EXTRA = "/api/v1/namespaces/kube-system/configmaps/team-extra"
DAEMON_SET = "/apis/apps/v1/namespaces/kube-system/daemonsets/node-local-dns"

MAIN = '''"""A team's app: NodeLocal DNS beside a chart of its own, version {version}."""
import os

import constructs_nld  # first: it silences jsii's Node banner before cdk8s loads jsii

from constructs_nld import NodeLocalDNS, NodeLocalDNSProps, props_from_environment
from constructs_nld.runtime import cdk8s, k8s

app = cdk8s.App()
team = cdk8s.Chart(app, "team")
k8s.KubeConfigMap(
    team, "notes", metadata=k8s.ObjectMeta(name="team-notes", namespace="kube-system"), data={{"version": "{version}"}}
)
if "{version}" == "2":
    k8s.KubeConfigMap(
        team, "extra", metadata=k8s.ObjectMeta(name="team-extra", namespace="kube-system"), data={{"only": "two"}}
    )
NodeLocalDNS(app, "nodelocaldns", props_from_environment(os.environ, NodeLocalDNSProps({props})))
app.synth()
'''


class Project:
    """A team's cdk8s project in a directory of its own: ``cdk8s.yaml`` and a ``main.py`` rewritten per version."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        (directory / "cdk8s.yaml").write_text("language: python\napp: python main.py\n")

    def version(self, version: str, props: str = "") -> None:
        (self.directory / "main.py").write_text(MAIN.format(version=version, props=props))


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    """The team's project, the working directory (as a user runs nld-deploy beside cdk8s.yaml), at version 1."""
    found = Project(tmp_path)
    found.version("1")
    monkeypatch.chdir(tmp_path)
    return found


def run(control_plane: ControlPlane, *args: str) -> int:
    return main(["--kubeconfig", str(control_plane.kubeconfig_path), "--timeout", "20", *args])


def records(control_plane: ControlPlane) -> dict[int, dict[str, Any]]:
    """The history's records, decoded here (not with the code under test), by revision."""
    found = control_plane.fixture_api().get(HISTORY)
    assert found is not None
    return {
        int(key[1:]): json.loads(gzip.decompress(base64.b64decode(value)))
        for key, value in (found.get("binaryData") or {}).items()
    }


def notes(control_plane: ControlPlane) -> str | None:
    found = control_plane.fixture_api().get(NOTES)
    return None if found is None else str(found["data"]["version"])


def history_rows(out: str) -> list[list[str]]:
    """The rows of ``history``'s table (after its header), split on runs of two spaces."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("REVISION"))
    return [[cell.strip() for cell in line.split("  ") if cell.strip()] for line in lines[start + 1 :] if line.strip()]


def test_deploys_are_recorded_and_rollback_restores_and_prunes_and_is_recorded(
    cluster: ControlPlane, project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(cluster) == 0
    project.version("2")
    assert run(cluster) == 0
    assert (notes(cluster), cluster.fixture_api().get(EXTRA) is not None) == ("2", True)
    capsys.readouterr()

    assert run(cluster, "history") == 0

    rows = history_rows(capsys.readouterr().out)
    assert [(row[0], row[2], row[3], row[4]) for row in rows] == [
        ("1", "deploy", "succeeded", ADMIN_USER),
        ("2", "deploy", "succeeded", ADMIN_USER),
    ]
    kept = records(cluster)
    assert kept[1]["app"]["digest"] != kept[2]["app"]["digest"]
    assert kept[1]["app"]["command"] == "python main.py"
    assert kept[2]["user"] == ADMIN_USER and kept[2]["outcome"] == "succeeded" and kept[2]["error"] == ""
    # The manifests as applied: revision 1's ConfigMap of its own holds version 1.
    team = next(chart for chart in kept[1]["charts"] if "team" in chart["name"])
    assert [obj["data"] for obj in team["objects"]] == [{"version": "1"}]
    # Nothing of the kubeconfig's credentials in a record.
    assert cluster.token not in json.dumps(kept)

    assert run(cluster, "rollback") == 0

    assert notes(cluster) == "1"
    assert cluster.fixture_api().get(EXTRA) is None
    assert cluster.fixture_api().get(DAEMON_SET) is not None
    rolled = records(cluster)[3]
    assert (rolled["command"], rolled["restored"], rolled["outcome"]) == ("rollback", 1, "succeeded")
    assert rolled["app"]["digest"] == kept[1]["app"]["digest"]
    out = capsys.readouterr().out
    assert "[rollback] revision 1 (deploy of" in out and "[history] recorded revision 3 (rollback, succeeded)" in out

    assert run(cluster, "history", "-o", "json") == 0

    shown = validated(capsys.readouterr().out, "history")
    assert [(r["number"], r["command"], r["restored"], r["user"]) for r in shown["revisions"]] == [
        (1, "deploy", None, ADMIN_USER),
        (2, "deploy", None, ADMIN_USER),
        (3, "rollback", 1, ADMIN_USER),
    ]
    assert shown["revisions"][0]["app_digest"] == kept[1]["app"]["digest"]
    assert all(r["rollback_possible"] for r in shown["revisions"])


def test_verify_warns_after_a_rollback_until_the_app_is_deployed_again(
    cluster: ControlPlane, project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(cluster) == 0
    project.version("2")
    assert run(cluster) == 0
    assert run(cluster, "rollback", "1") == 0
    capsys.readouterr()

    run(cluster, "verify")  # the control plane alone runs no pod: other checks fail, this one is the point

    out = capsys.readouterr().out
    assert "WARN rolled-back: the cluster runs revision 3, revision 1 restored by rollback (" in out, out

    assert run(cluster) == 0
    capsys.readouterr()
    run(cluster, "verify")

    out = capsys.readouterr().out
    assert "PASS rolled-back: latest revision 4 (deploy, succeeded)" in out, out
    assert notes(cluster) == "2"


def test_a_deploy_that_changes_nothing_records_nothing_more(
    cluster: ControlPlane, project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(cluster) == 0
    capsys.readouterr()
    mark = cluster.audit_mark()

    assert run(cluster) == 0

    assert cluster.mutating_requests_since(mark) == []
    assert sorted(records(cluster)) == [1]
    assert "[history]" not in capsys.readouterr().out


def test_history_is_bounded_by_history_max(
    cluster: ControlPlane, project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(cluster, "--history-max", "2") == 0
    project.version("2")
    assert run(cluster, "--history-max", "2") == 0
    assert sorted(records(cluster)) == [1, 2]
    project.version("1")

    assert run(cluster, "--history-max", "2") == 0

    assert sorted(records(cluster)) == [2, 3]
    assert "[history] recorded revision 3 (deploy, succeeded); dropped revision(s) 1" in capsys.readouterr().out


def test_rollback_to_a_revision_the_history_does_not_hold_is_refused_with_nothing_written(
    cluster: ControlPlane, project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(cluster) == 0
    capsys.readouterr()
    mark = cluster.audit_mark()

    assert run(cluster, "rollback", "7") == 2

    assert capsys.readouterr().err == "error: rollback: revision 7 is not in the history (revisions kept: 1)\n"
    assert cluster.mutating_requests_since(mark) == []

    assert run(cluster, "rollback") == 2

    assert capsys.readouterr().err == (
        "error: rollback: no successful revision before the latest to roll back to (revisions kept: 1)\n"
    )
    assert cluster.mutating_requests_since(mark) == []


def test_a_malformed_record_refuses_history_and_deploy_on_one_line_with_nothing_written(
    cluster: ControlPlane, project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(cluster) == 0
    api = cluster.fixture_api()
    api.request(
        "PATCH",
        HISTORY,
        body={"binaryData": {"v2": base64.b64encode(b"not gzip").decode()}},
        content_type="application/merge-patch+json",
    )
    project.version("2")
    capsys.readouterr()
    mark = cluster.audit_mark()

    assert run(cluster, "history") == 3
    err = capsys.readouterr().err
    assert err.startswith(
        "error: history: configmap/kube-system/node-local-dns-history key 'v2': malformed record, not gzip ("
    ), err
    assert err.count("\n") == 1

    assert run(cluster) == 3

    assert "key 'v2': malformed record, not gzip" in capsys.readouterr().err
    assert cluster.mutating_requests_since(mark) == []
    assert notes(cluster) == "1"


def test_uninstall_is_recorded_and_the_history_kept(
    sim: SimulatedCluster, project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    control_plane = sim.control_plane
    assert run(control_plane) == 0

    assert run(control_plane, "uninstall") == 0

    kept = records(control_plane)
    assert (kept[2]["command"], kept[2]["outcome"], kept[2]["charts"]) == ("uninstall", "succeeded", [])
    assert control_plane.fixture_api().get(DAEMON_SET) is None
    capsys.readouterr()

    assert run(control_plane, "rollback") == 0  # revision 1, the only successful one before the uninstall

    assert control_plane.fixture_api().get(DAEMON_SET) is not None
    assert (records(control_plane)[3]["command"], records(control_plane)[3]["restored"]) == ("rollback", 1)


def test_rollback_during_a_cutover_is_refused_with_nothing_written_and_promote_is_recorded(
    sim: SimulatedCluster, project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    sim.add_nodes(eks_fleet(6))
    assert run(sim.control_plane, "--wait", "--progress", "plain") == 0
    project.version("1", "image='registry.k8s.io/dns/k8s-dns-node-cache:1.26.9'")
    assert run(sim.control_plane, "cutover", "start", "--canary-nodes", "1", "--stall-after", "60") == 0
    capsys.readouterr()
    mark = sim.control_plane.audit_mark()

    assert run(sim.control_plane, "rollback", "1") == 12

    err = capsys.readouterr().err
    assert err.startswith("error: rollback: a cutover of daemonset/kube-system/node-local-dns is in progress ("), err
    assert err.rstrip().endswith("; nothing written") and err.count("\n") == 1
    assert sim.control_plane.mutating_requests_since(mark) == []

    assert run(sim.control_plane, "cutover", "promote", "--force", "--stall-after", "60", "--progress", "plain") == 0

    promoted = records(sim.control_plane)[2]
    assert (promoted["command"], promoted["outcome"]) == ("cutover promote", "succeeded")


def test_cutover_rollback_without_a_cutover_points_to_rollback(
    cluster: ControlPlane, project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(cluster) == 0
    capsys.readouterr()

    assert run(cluster, "cutover", "rollback") == 0

    out = capsys.readouterr().out
    assert "no cutover of daemonset/kube-system/node-local-dns is in progress: cutover rollback changed nothing" in out
    assert "lists the revisions and" in out and "rollback [REVISION]' restores one" in out
