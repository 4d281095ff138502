"""A running Helm release of the deliveryhero chart's shapes, taken over in place, then uninstalled with the real helm.

The release is installed with the real helm binary (:mod:`tests.helmchart`) on the simulated
cluster, its pods Running on kwok's nodes. A plain deploy refuses it, naming the flag;
``deploy --adopt-helm-release`` takes it over: every record keeps the app's objects, Helm's
fields and annotations go, the chart's DaemonSet is replaced and its pods adopted then
rolled, and ``helm uninstall`` afterwards deletes only what the app does not define. A
record that is not Helm's refuses the deploy with nothing applied. The same handover under
resolver load on real nodes is :mod:`tests.e2e.test_real_cluster`'s.
"""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from constructs_nld.deploy.cli import main
from tests.fleet import fleet_node
from tests.helmchart import CHART_SELECTOR, RELEASE, Helm, helm_release, write_chart
from tests.simcluster import SimulatedCluster

NAMESPACE = "/api/v1/namespaces/kube-system"
DAEMON_SET = "/apis/apps/v1/namespaces/kube-system/daemonsets/node-local-dns"
OURS = {
    "DaemonSet": DAEMON_SET,
    "ConfigMap": f"{NAMESPACE}/configmaps/node-local-dns",
    "ServiceAccount": f"{NAMESPACE}/serviceaccounts/node-local-dns",
}
CHART_ONLY = (f"{NAMESPACE}/services/node-local-dns", f"{NAMESPACE}/services/node-local-dns-upstream")
NODES = 4


def run(sim: SimulatedCluster, *args: str) -> int:
    return main(["--kubeconfig", str(sim.control_plane.kubeconfig_path), "--timeout", "10", *args])


def records(sim: SimulatedCluster) -> list[dict[str, Any]]:
    """The release's records, oldest first, each as Helm decodes it."""
    items = sim.control_plane.fixture_api().items(f"{NAMESPACE}/secrets", labelSelector=f"owner=helm,name={RELEASE}")
    decoded = []
    for item in sorted(items, key=lambda s: int(s["metadata"]["labels"]["version"])):
        text = base64.b64decode(base64.b64decode(item["data"]["release"]))
        decoded.append(json.loads(gzip.decompress(text)))
    return decoded


def helm_traces(live: dict[str, Any]) -> list[str]:
    """What of Helm an object still carries: its field manager, release annotations, chart labels."""
    metadata = live["metadata"]
    found = [f"manager {e['manager']}" for e in metadata.get("managedFields") or [] if e["manager"] == "helm"]
    found += [k for k in metadata.get("annotations") or {} if k.startswith("meta.helm.sh/")]
    found += [k for k in metadata.get("labels") or {} if k == "helm.sh/chart" or k.startswith("app.kubernetes.io/i")]
    return found


@pytest.fixture
def chart(tmp_path: Path) -> Path:
    """The chart, written for the test."""
    return write_chart(tmp_path / "chart")


@pytest.fixture
def release(sim: SimulatedCluster, tmp_path: Path, chart: Path) -> Iterator[Helm]:
    """The chart installed as release node-local-dns with the cluster's kube-dns address, its pods Running."""
    sim.add_nodes(tuple(fleet_node("cpu", number, number) for number in range(NODES)))
    api = sim.control_plane.fixture_api()
    kube_dns = api.get(f"{NAMESPACE}/services/kube-dns")
    assert kube_dns is not None
    helm = Helm(sim.control_plane.kubeconfig_path, tmp_path / "helm")
    with helm_release(helm, api, chart, f"config.dnsServer={kube_dns['spec']['clusterIP']}"):
        labels = dict(pair.split("=") for pair in CHART_SELECTOR.split(","))
        sim.wait_for(
            "the chart's pods to run",
            lambda: len([p for p in sim.pods("kube-system", labels) if p["status"].get("phase") == "Running"]) == NODES,
        )
        yield helm


def test_a_plain_deploy_refuses_a_helm_release_on_one_line_and_applies_nothing(
    sim: SimulatedCluster, release: Helm, capsys: pytest.CaptureFixture[str]
) -> None:
    mark = sim.control_plane.audit_mark()
    capsys.readouterr()

    assert run(sim, "deploy") == 3

    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "error: serviceaccount/kube-system/node-local-dns belongs to Helm release kube-system/node-local-dns: take it "
        "over with 'python deploy.py deploy --adopt-helm-release node-local-dns' (docs/from-deliveryhero.md, 'Taking "
        "over a running release'); nothing applied"
    ]
    assert sim.control_plane.mutating_requests_since(mark) == []


def test_the_wrong_release_a_missing_record_and_a_bad_name_are_refused_with_nothing_applied(
    sim: SimulatedCluster, release: Helm, capsys: pytest.CaptureFixture[str]
) -> None:
    mark = sim.control_plane.audit_mark()
    capsys.readouterr()

    assert run(sim, "deploy", "--adopt-helm-release", "other") == 3
    assert "belongs to Helm release kube-system/node-local-dns, not 'other': nothing applied" in capsys.readouterr().err
    assert run(sim, "deploy", "--adopt-helm-release", RELEASE, "--helm-driver", "configmap") == 3
    assert "has no records (configmap driver" in capsys.readouterr().err
    assert run(sim, "deploy", "--adopt-helm-release", "Not_A_Release") == 2
    assert capsys.readouterr().err.startswith(
        "error: argument --adopt-helm-release: 'Not_A_Release' is not a Helm release name (lowercase letters"
    )
    assert sim.control_plane.mutating_requests_since(mark) == []


def test_a_record_that_is_not_helms_refuses_the_handover_with_nothing_applied(
    sim: SimulatedCluster, release: Helm, capsys: pytest.CaptureFixture[str]
) -> None:
    api = sim.control_plane.fixture_api()
    path = f"{NAMESPACE}/secrets/sh.helm.release.v1.{RELEASE}.v1"
    garbage = base64.b64encode(base64.b64encode(gzip.compress(b"[1, 2]"))).decode()
    api.request("PATCH", path, body={"data": {"release": garbage}}, content_type="application/merge-patch+json")
    mark = sim.control_plane.audit_mark()
    capsys.readouterr()

    assert run(sim, "deploy", "--adopt-helm-release", RELEASE) == 3

    assert capsys.readouterr().err.strip() == (
        f"error: Helm release kube-system/{RELEASE}: record sh.helm.release.v1.{RELEASE}.v1: "
        "its release is not a JSON object: nothing applied"
    )
    assert sim.control_plane.mutating_requests_since(mark) == []


def test_a_dry_run_of_the_handover_shows_the_plan_and_writes_nothing(
    sim: SimulatedCluster, release: Helm, capsys: pytest.CaptureFixture[str]
) -> None:
    mark = sim.control_plane.audit_mark()
    capsys.readouterr()

    assert run(sim, "deploy", "--adopt-helm-release", RELEASE, "--dry-run") == 0

    out = capsys.readouterr().out
    assert (
        f"taking over Helm release kube-system/{RELEASE}: marks ServiceAccount node-local-dns, ConfigMap "
        "node-local-dns, DaemonSet node-local-dns keep in 1 of its 1 revision record(s); the DaemonSet is replaced "
        f"(its selector app.kubernetes.io/name=node-local-dns,app.kubernetes.io/instance={RELEASE} differs)"
    ) in out
    assert f"[5/7] Helm release kube-system/{RELEASE}: marked ServiceAccount node-local-dns" in out
    assert "keep in 1 record(s) (dry run)" in out
    assert "[7/7] no restart" in out
    assert sim.control_plane.mutating_requests_since(mark) == []
    assert "keep" not in records(sim)[0]["manifest"]


def test_the_handover_keeps_every_node_served_and_helm_uninstall_then_deletes_only_the_charts_own(
    sim: SimulatedCluster, release: Helm, chart: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    api = sim.control_plane.fixture_api()
    release.run("upgrade", RELEASE, str(chart), "--reuse-values")  # a second revision, whose record keeps them too
    labels = dict(pair.split("=") for pair in CHART_SELECTOR.split(","))
    chart_pods = {p["metadata"]["uid"] for p in sim.pods("kube-system", labels)}
    capsys.readouterr()

    assert run(sim, "deploy", "--adopt-helm-release", RELEASE, "--wait", "--stall-after", "30") == 0

    out = capsys.readouterr().out
    assert "keep in 2 of its 2 revision record(s)" in out
    assert f"{NODES} pod(s) kept for it to adopt and roll" in out
    assert "[7/7] no restart" in out
    for revision in records(sim):
        assert revision["manifest"].count("helm.sh/resource-policy: keep") == 3, revision["version"]
    pods = sim.pods("kube-system", {"k8s-app": "node-local-dns"})
    assert len(pods) == NODES and not {p["metadata"]["uid"] for p in pods} & chart_pods
    for kind, path in OURS.items():
        live = api.get(path)
        assert live is not None and helm_traces(live) == [], (kind, live and helm_traces(live))

    uninstalled = release.run("uninstall", RELEASE)

    assert "These resources were kept due to the resource policy" in uninstalled, uninstalled
    for kind in OURS:
        assert f"[{kind}] node-local-dns" in uninstalled, uninstalled
    for path in OURS.values():
        assert api.get(path) is not None, path
    sim.wait_for("the chart's own Services to be gone", lambda: all(api.get(path) is None for path in CHART_ONLY))
    assert run(sim, "verify") == 0
    capsys.readouterr()
    assert run(sim, "deploy") == 0  # the release is gone: a plain deploy, nothing to change
    again = capsys.readouterr().out
    assert again.count(" unchanged") == 7, again
