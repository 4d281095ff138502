"""What leaves the app leaves the cluster: the deploy's ApplySet (KEP-3659) and its pruning, on real API servers.

The keeper's ConfigMap after a switch back to the spec's mode, the dashboard turned off, a
chart removed from the app: each is pruned, a rerun is a no-op, ``--diff`` and
``--dry-run`` list what would go, and an object another field manager also owns stays.
kubectl, given the same manifests and parent, computes the same set.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Sequence
from typing import Any

import pytest
import yaml

from constructs_nld import NodeLocalDNSProps, Ports
from constructs_nld.deploy import (
    AppChart,
    AppSource,
    DeployOptions,
    DeployReport,
    deploy,
    load_client,
    open_session,
    props_source,
)
from constructs_nld.deploy.applyset import PART_OF_LABEL, applyset_id
from constructs_nld.deploy.cli import main
from constructs_nld.deploy.errors import PreconditionError
from constructs_nld.keeper import Keeper
from tests.controlplane import ControlPlane
from tests.deploysh import KUBECTL, kubectl
from tests.fleet import fleet_node
from tests.simcluster import SimulatedCluster

PARENT = "/api/v1/namespaces/kube-system/configmaps/node-local-dns-applyset"
KEEPER = Keeper().config_map_name()
KEEPER_CONFIG = f"/api/v1/namespaces/kube-system/configmaps/{KEEPER}"
DASHBOARD = "/api/v1/namespaces/monitoring/configmaps/nodelocaldns-dashboard"
TEAM = "/api/v1/namespaces/kube-system/configmaps/team-settings"
SET_ID = applyset_id("node-local-dns-applyset", "kube-system")
WAIT: dict[str, Any] = {"wait": True, "stall_after": 30.0, "rollout_poll_interval": 0.1}


def with_team_chart(props: NodeLocalDNSProps, *, team: bool) -> AppSource:
    """The component, and (``team``) a chart of the user's own before it, as an app would hold them."""
    team_chart = AppChart(
        "0000-team.k8s.yaml",
        ({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "team-settings", "namespace": "kube-system"}},),
    )

    def source(cluster_ip: str | None) -> Sequence[AppChart]:
        charts = tuple(props_source(props)(cluster_ip))
        return (team_chart, *charts) if team else charts

    return source


def run(control_plane: ControlPlane, source: AppSource, **options: Any) -> tuple[DeployReport, str]:
    lines: list[str] = []
    client = load_client(str(control_plane.kubeconfig_path), None, timeout=10)
    report = deploy(open_session(client, source, read="deployable", out=lines.append), DeployOptions(**options))
    return report, "\n".join(lines)


def get(control_plane: ControlPlane, path: str) -> dict[str, Any] | None:
    return control_plane.fixture_api().get(path)


def test_a_deploy_records_its_set_as_kubernetes_applyset(cluster: ControlPlane) -> None:
    run(cluster, with_team_chart(NodeLocalDNSProps(dashboard=True), team=True))

    parent = get(cluster, PARENT)
    assert parent is not None
    assert parent["metadata"]["labels"] == {"applyset.kubernetes.io/id": SET_ID}
    assert parent["metadata"]["annotations"] == {
        "applyset.kubernetes.io/tooling": "nld-deploy/v1",
        "applyset.kubernetes.io/contains-group-kinds": (
            "ConfigMap,DaemonSet.apps,PodMonitor.monitoring.coreos.com,PrometheusRule.monitoring.coreos.com,"
            "Service,ServiceAccount"
        ),
        "applyset.kubernetes.io/additional-namespaces": "monitoring",
    }
    for path in (TEAM, DASHBOARD, "/apis/apps/v1/namespaces/kube-system/daemonsets/node-local-dns"):
        member = get(cluster, path)
        assert member is not None
        assert member["metadata"]["labels"]["applyset.kubernetes.io/part-of"] == SET_ID


def test_turning_the_dashboard_off_prunes_it_and_the_rerun_is_a_no_op(cluster: ControlPlane) -> None:
    run(cluster, with_team_chart(NodeLocalDNSProps(dashboard=True), team=False))
    assert get(cluster, DASHBOARD) is not None
    without = with_team_chart(NodeLocalDNSProps(), team=False)

    report, out = run(cluster, without)

    assert get(cluster, DASHBOARD) is None
    assert [str(ref) for ref in report.pruned] == ["configmap/monitoring/nodelocaldns-dashboard"]
    assert "[prune] pruned: configmap/monitoring/nodelocaldns-dashboard" in out
    mark = cluster.audit_mark()
    report, out = run(cluster, without)
    assert cluster.mutating_requests_since(mark) == []
    assert report.pruned == [] and "[prune]" not in out


def test_a_chart_removed_from_the_app_is_pruned(cluster: ControlPlane) -> None:
    run(cluster, with_team_chart(NodeLocalDNSProps(), team=True))
    assert get(cluster, TEAM) is not None

    report, _ = run(cluster, with_team_chart(NodeLocalDNSProps(), team=False))

    assert get(cluster, TEAM) is None
    assert [str(ref) for ref in report.pruned] == ["configmap/kube-system/team-settings"]
    parent = get(cluster, PARENT)
    assert parent is not None
    assert parent["metadata"]["annotations"]["applyset.kubernetes.io/additional-namespaces"] == "monitoring"


def test_diff_and_dry_run_list_what_would_be_pruned_and_delete_nothing(
    cluster: ControlPlane, capsys: pytest.CaptureFixture[str]
) -> None:
    run(cluster, with_team_chart(NodeLocalDNSProps(dashboard=True), team=False))
    mark = cluster.audit_mark()
    kubeconfig = str(cluster.kubeconfig_path)

    assert main(["--kubeconfig", kubeconfig, "--diff"]) == 0
    diff = capsys.readouterr().out
    assert main(["--kubeconfig", kubeconfig, "--dry-run"]) == 0
    dry = capsys.readouterr().out

    assert "no longer in the app: configmap/monitoring/nodelocaldns-dashboard" in diff
    assert "[prune] would prune: configmap/monitoring/nodelocaldns-dashboard" in diff
    assert "[prune] pruned: configmap/monitoring/nodelocaldns-dashboard (dry run)" in dry
    assert cluster.mutating_requests_since(mark) == []
    deletes = [e for e in cluster.requests_since(mark) if e["verb"] == "delete"]
    assert [e["objectRef"]["name"] for e in deletes] == ["nodelocaldns-dashboard"]
    assert get(cluster, DASHBOARD) is not None


def test_an_object_another_field_manager_also_owns_is_never_pruned(cluster: ControlPlane) -> None:
    run(cluster, with_team_chart(NodeLocalDNSProps(), team=True))
    kubectl(cluster, "label", "configmap", "team-settings", "-n", "kube-system", "owner=platform")

    report, out = run(cluster, with_team_chart(NodeLocalDNSProps(), team=False))

    assert report.pruned == []
    assert "kept: configmap/kube-system/team-settings (also owned by kubectl-label)" in out
    assert get(cluster, TEAM) is not None


def _labelled_config_map(cluster: ControlPlane, name: str) -> None:
    """A ConfigMap of someone else's, given the set's public id by ``kubectl label`` (as anyone may)."""
    kubectl(cluster, "create", "configmap", name, "-n", "kube-system")
    kubectl(cluster, "label", "configmap", name, "-n", "kube-system", f"applyset.kubernetes.io/part-of={SET_ID}")


def test_an_object_labelled_by_another_hand_is_never_pruned_and_the_deploy_says_why(
    cluster: ControlPlane, capsys: pytest.CaptureFixture[str]
) -> None:
    run(cluster, with_team_chart(NodeLocalDNSProps(), team=False))
    _labelled_config_map(cluster, "aws-auth")
    _labelled_config_map(cluster, "patched")
    # Patched in our field manager's name, as a client may claim any name: an update, not our apply.
    kubectl(cluster, "patch", "configmap", "patched", "-n", "kube-system", "--type", "merge",
            "-p", '{"data": {"x": "y"}}', "--field-manager", "nld-deploy")  # fmt: skip
    kubeconfig = str(cluster.kubeconfig_path)
    capsys.readouterr()

    assert main(["--kubeconfig", kubeconfig, "--diff"]) == 0
    diff = capsys.readouterr().out
    report, out = run(cluster, with_team_chart(NodeLocalDNSProps(), team=False))

    why = "its applyset.kubernetes.io/part-of label was set by another hand than nld-deploy's apply"
    for text in (diff, out):
        assert f"configmap/kube-system/aws-auth ({why})" in text, text
        assert f"configmap/kube-system/patched ({why})" in text, text
        assert "no longer in the app" not in text
    assert report.pruned == []
    assert get(cluster, "/api/v1/namespaces/kube-system/configmaps/aws-auth") is not None
    assert get(cluster, "/api/v1/namespaces/kube-system/configmaps/patched") is not None


def test_an_object_applied_in_our_apply_managers_name_that_the_parent_does_not_record_is_never_pruned(
    cluster: ControlPlane, capsys: pytest.CaptureFixture[str]
) -> None:
    run(cluster, with_team_chart(NodeLocalDNSProps(), team=False))
    planted = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "planted", "namespace": "kube-system", "labels": {PART_OF_LABEL: SET_ID}},
    }
    # A server-side apply that claims our manager's name owns the label as our own apply would.
    kubectl(cluster, "apply", "--server-side", "--field-manager", "nld-deploy", "-f", "-", input=json.dumps(planted))
    capsys.readouterr()

    assert main(["--kubeconfig", str(cluster.kubeconfig_path), "--diff"]) == 0
    diff = capsys.readouterr().out
    report, out = run(cluster, with_team_chart(NodeLocalDNSProps(), team=False))

    why = "the parent does not record it as a member"
    for text in (diff, out):
        assert f"configmap/kube-system/planted ({why})" in text, text
    assert report.pruned == []
    assert get(cluster, "/api/v1/namespaces/kube-system/configmaps/planted") is not None


def test_the_parent_records_the_apps_objects_as_its_members(cluster: ControlPlane) -> None:
    run(cluster, with_team_chart(NodeLocalDNSProps(), team=True))

    parent = get(cluster, "/api/v1/namespaces/kube-system/configmaps/node-local-dns-applyset")

    assert parent is not None
    members = parent["data"]["members"].splitlines()
    assert "ConfigMap/kube-system/team-settings" in members
    assert "DaemonSet.apps/kube-system/node-local-dns" in members
    assert members == sorted(members)


def test_an_object_of_a_name_the_app_had_whose_label_is_not_our_applys_is_never_pruned(
    cluster: ControlPlane,
) -> None:
    run(cluster, with_team_chart(NodeLocalDNSProps(), team=True))
    kubectl(cluster, "delete", "configmap", "team-settings", "-n", "kube-system")
    _labelled_config_map(cluster, "team-settings")  # another team-settings, under the recorded name

    report, out = run(cluster, with_team_chart(NodeLocalDNSProps(), team=False))

    assert report.pruned == []
    assert (
        "kept: configmap/kube-system/team-settings (its applyset.kubernetes.io/part-of label was set by another hand "
        "than nld-deploy's apply)"
    ) in out
    assert get(cluster, TEAM) is not None


def test_a_member_without_managed_fields_is_never_pruned(cluster: ControlPlane) -> None:
    run(cluster, with_team_chart(NodeLocalDNSProps(), team=True))
    cluster.fixture_api().request(
        "PATCH",
        TEAM,
        body={"metadata": {"managedFields": [{}]}},  # the API's way to clear them
        content_type="application/merge-patch+json",
    )
    team = get(cluster, TEAM)
    assert team is not None and not team["metadata"].get("managedFields")

    report, out = run(cluster, with_team_chart(NodeLocalDNSProps(), team=False))

    assert report.pruned == []
    assert "configmap/kube-system/team-settings (its applyset.kubernetes.io/part-of label was set by another" in out
    assert get(cluster, TEAM) is not None


def test_kinds_and_namespaces_a_parent_adds_by_another_hand_are_never_listed(cluster: ControlPlane) -> None:
    api = cluster.fixture_api()
    label = {"applyset.kubernetes.io/part-of": SET_ID}
    account = "/api/v1/namespaces/prod/serviceaccounts/deployer"
    priority = "/apis/scheduling.k8s.io/v1/priorityclasses/critical"
    run(cluster, with_team_chart(NodeLocalDNSProps(), team=False))
    api.request("POST", "/api/v1/namespaces", body={"metadata": {"name": "prod"}}, ok=(201, 409))
    api.request(
        "POST", "/api/v1/namespaces/prod/serviceaccounts", body={"metadata": {"name": "deployer", "labels": label}}
    )
    api.request(
        "POST",
        "/apis/scheduling.k8s.io/v1/priorityclasses",
        body={"metadata": {"name": "critical", "labels": label}, "value": 1000},
    )
    try:
        annotations = {
            "applyset.kubernetes.io/contains-group-kinds": "ConfigMap,DaemonSet.apps,PodMonitor.monitoring.coreos.com,"
            "PriorityClass.scheduling.k8s.io,PrometheusRule.monitoring.coreos.com,Service,ServiceAccount",
            "applyset.kubernetes.io/additional-namespaces": "monitoring,prod",
        }
        api.request(
            "PATCH",
            PARENT,
            body={"metadata": {"annotations": annotations}},
            content_type="application/merge-patch+json",
        )
        mark = cluster.audit_mark()

        report, out = run(cluster, with_team_chart(NodeLocalDNSProps(), team=False))

        assert report.pruned == [] and "prod" not in out and "critical" not in out
        listed = [e["objectRef"] for e in cluster.requests_since(mark) if e["verb"] == "list"]
        assert {"resource": "configmaps", "namespace": "kube-system"}.items() <= next(
            ref for ref in listed if ref.get("resource") == "configmaps"
        ).items()
        assert not [ref for ref in listed if ref.get("namespace") == "prod" or ref.get("resource") == "priorityclasses"]
        assert get(cluster, account) is not None
        assert get(cluster, priority) is not None
    finally:
        api.request("DELETE", account, ok=(200, 404))
        api.request("DELETE", priority, ok=(200, 404))


def test_a_parent_kubectl_manages_is_refused_before_any_write(cluster: ControlPlane) -> None:
    cluster.fixture_api().request(
        "POST",
        "/api/v1/namespaces/kube-system/configmaps",
        body={
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": "node-local-dns-applyset",
                "labels": {"applyset.kubernetes.io/id": SET_ID},
                "annotations": {"applyset.kubernetes.io/tooling": "kubectl/v1.34.4"},
            },
        },
    )
    mark = cluster.audit_mark()

    with pytest.raises(PreconditionError, match=r"managed by 'kubectl/v1.34.4' .*refusing to take over"):
        run(cluster, with_team_chart(NodeLocalDNSProps(), team=False))

    assert cluster.mutating_requests_since(mark) == []


def test_kubectl_computes_the_same_set_for_the_same_manifests(cluster: ControlPlane, tmp_path: Any) -> None:
    # kubectl applies a set with a namespaced parent only within the parent's namespace (-n is
    # enforced on every object), so the comparison leaves the monitoring namespace out.
    source = with_team_chart(NodeLocalDNSProps(monitoring=False), team=True)
    kube_dns = get(cluster, "/api/v1/namespaces/kube-system/services/kube-dns")
    assert kube_dns is not None
    manifests = [obj for chart in source(kube_dns["spec"]["clusterIP"]) for obj in chart.objects]
    (tmp_path / "app.yaml").write_text(yaml.safe_dump_all(manifests, sort_keys=False))
    result = subprocess.run(
        [
            str(KUBECTL),
            "--kubeconfig",
            str(cluster.kubeconfig_path),
            "apply",
            "--server-side",
            "--prune",
            "--applyset=configmap/node-local-dns-applyset",
            "-n",
            "kube-system",
            "-f",
            str(tmp_path / "app.yaml"),
        ],
        env={**os.environ, "KUBECTL_APPLYSET": "true"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    by_kubectl = get(cluster, PARENT)
    assert by_kubectl is not None
    team = get(cluster, TEAM)
    assert team is not None
    kubectl_member = team["metadata"]["labels"].get("applyset.kubernetes.io/part-of")
    cluster.reset()

    run(cluster, source)

    ours = get(cluster, PARENT)
    assert ours is not None
    assert ours["metadata"]["labels"] == by_kubectl["metadata"]["labels"]
    unlike = {"applyset.kubernetes.io/tooling"}
    assert {k: v for k, v in ours["metadata"]["annotations"].items() if k not in unlike} == {
        k: v for k, v in by_kubectl["metadata"]["annotations"].items() if k not in unlike
    }
    assert kubectl_member == SET_ID
    selector = f"applyset.kubernetes.io/part-of={SET_ID}"
    listed = kubectl(
        cluster, "get", "configmaps,services,serviceaccounts,daemonsets", "-A", "-l", selector, "-o", "name"
    )
    assert sorted(listed.split()) == [
        "configmap/node-local-dns",
        "configmap/team-settings",
        "daemonset.apps/node-local-dns",
        "service/kube-dns-upstream",
        "service/node-local-dns-metrics",
        "serviceaccount/node-local-dns",
    ]


# --- on real pods: the keeper's ConfigMap outlives the pods that mount it --------------------------


def test_a_new_keeper_is_a_new_config_map_the_pods_get_as_they_roll_and_the_old_one_goes_after(
    sim: SimulatedCluster,
) -> None:
    sim.add_nodes(fleet_node("cpu", i) for i in range(1, 4))
    run(sim.control_plane, with_team_chart(NodeLocalDNSProps(interception="fallthrough"), team=False), **WAIT)
    moved = NodeLocalDNSProps(interception="fallthrough", ports=Ports(health=8081))
    new = Keeper(ports=Ports(health=8081)).config_map_name()

    report, out = run(sim.control_plane, with_team_chart(moved, team=False))

    daemon_set = get(sim.control_plane, "/apis/apps/v1/namespaces/kube-system/daemonsets/node-local-dns")
    assert daemon_set is not None
    volumes = daemon_set["spec"]["template"]["spec"]["volumes"]
    assert {"name": "keeper", "configMap": {"name": new, "defaultMode": 420}} in volumes
    assert report.pruned == [] and f"kept: configmap/kube-system/{KEEPER} (until the rollout completes" in out
    assert get(sim.control_plane, KEEPER_CONFIG) is not None  # the pods not yet replaced still mount it

    report, _ = run(sim.control_plane, with_team_chart(moved, team=False), **WAIT)

    assert [str(ref) for ref in report.pruned] == [f"configmap/kube-system/{KEEPER}"]
    assert get(sim.control_plane, KEEPER_CONFIG) is None
    assert get(sim.control_plane, f"/api/v1/namespaces/kube-system/configmaps/{new}") is not None


def test_switching_back_from_fallthrough_prunes_the_keeper_config_after_the_rollout(sim: SimulatedCluster) -> None:
    sim.add_nodes(fleet_node("cpu", i) for i in range(1, 4))
    run(sim.control_plane, with_team_chart(NodeLocalDNSProps(interception="fallthrough"), team=False), **WAIT)
    assert get(sim.control_plane, KEEPER_CONFIG) is not None
    spec_mode = with_team_chart(NodeLocalDNSProps(), team=False)

    report, out = run(sim.control_plane, spec_mode)

    assert report.pruned == []
    assert f"kept: configmap/kube-system/{KEEPER} (until the rollout completes" in out
    assert get(sim.control_plane, KEEPER_CONFIG) is not None

    report, out = run(sim.control_plane, spec_mode, **WAIT)

    assert [str(ref) for ref in report.pruned] == [f"configmap/kube-system/{KEEPER}"]
    assert get(sim.control_plane, KEEPER_CONFIG) is None
    mark = sim.control_plane.audit_mark()
    run(sim.control_plane, spec_mode)
    assert sim.control_plane.mutating_requests_since(mark) == []


def test_uninstall_removes_the_parent_once_nothing_belongs_to_it(
    sim: SimulatedCluster, capsys: pytest.CaptureFixture[str]
) -> None:
    sim.add_nodes(fleet_node("cpu", i) for i in range(1, 3))
    cluster = sim.control_plane
    kubeconfig = str(cluster.kubeconfig_path)
    assert main(["--kubeconfig", kubeconfig, "--wait"]) == 0

    assert main(["--kubeconfig", kubeconfig, "uninstall", "--stall-after", "5"]) == 0
    assert main(["--kubeconfig", kubeconfig, "verify", "--uninstalled"]) == 0

    assert get(cluster, PARENT) is None
    assert "PASS nothing-left: none of the app's 7 NodeLocal DNS object(s) is live" in capsys.readouterr().out
