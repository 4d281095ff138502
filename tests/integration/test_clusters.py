"""A fleet of clusters in one run: three of the suite's control planes and two simulated clusters, one kubeconfig.

Contexts ``east``, ``west`` and ``north`` are control planes alone (etcd and kube-apiserver,
each with its own kube-dns ClusterIP); ``sim`` and ``sim2`` are simulated clusters, with
controllers and kwok's nodes, where pods run and ``verify`` can pass. Every cluster's writes
are read from its own audit log.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from constructs_nld import defaults
from constructs_nld.deploy.cli import main
from constructs_nld.deploy.exitcodes import ExitCode
from tests.controlplane import ControlPlane
from tests.documents import validated
from tests.fleet import eks_fleet
from tests.harness.clock import next_whole_second
from tests.harness.faultproxy import Fault, FaultProxy
from tests.multicluster import merged_kubeconfig
from tests.simcluster import SimulatedCluster
from tests.tlsfiles import make_pki

DAEMON_SET = "/apis/apps/v1/namespaces/kube-system/daemonsets/node-local-dns"
KUBE_DNS = "/api/v1/namespaces/kube-system/services/kube-dns"
UPSTREAM = "/api/v1/namespaces/kube-system/services/kube-dns-upstream"
PLANES = ("east", "west", "north")
NEW_IMAGE = "registry.k8s.io/dns/k8s-dns-node-cache:1.26.9"

PER_CLUSTER_APP = '''"""A team's app: a pool only cluster 'sim' has, tainted dedicated=ci, tolerated there alone."""
import sys

from constructs_nld import NodeLocalDNSProps, Toleration, default_tolerations
from constructs_nld.app import main

DEDICATED = Toleration(key="dedicated", value="ci", effect="NoSchedule")
CLUSTERS = {"sim": NodeLocalDNSProps(tolerations=(*default_tolerations(), DEDICATED))}

sys.exit(main(NodeLocalDNSProps(), clusters=CLUSTERS, base_for_others=True))
'''

CLUSTER_APP = '''"""A team's app by cluster name: {cluster!r} has a pool tainted dedicated=ci, and runs {image!r}."""
import sys

from constructs_nld import NodeLocalDNSProps, Toleration, default_tolerations
from constructs_nld.app import main

DEDICATED = Toleration(key="dedicated", value="ci", effect="NoSchedule")
CLUSTERS = {{{cluster!r}: NodeLocalDNSProps(image={image!r}, tolerations=(*default_tolerations(), DEDICATED))}}

sys.exit(main(NodeLocalDNSProps(), clusters=CLUSTERS))
'''


class Fleet:
    """The clusters by context name, and the kubeconfig that holds them all."""

    def __init__(self, planes: dict[str, ControlPlane], sims: dict[str, SimulatedCluster], directory: Path) -> None:
        self.sims = sims
        self.planes = {**planes, **{name: sim.control_plane for name, sim in sims.items()}}
        self.kubeconfig = merged_kubeconfig(self.planes, directory / "fleet.kubeconfig")

    def run(self, *args: str) -> int:
        return main(["--kubeconfig", str(self.kubeconfig), "--timeout", "10", *args])

    def marks(self) -> dict[str, int]:
        return {name: plane.audit_mark() for name, plane in self.planes.items()}

    def writes_since(self, marks: dict[str, int]) -> dict[str, list[str]]:
        return {
            name: [f"{e['verb']} {e['requestURI']}" for e in plane.mutating_requests_since(marks[name])]
            for name, plane in self.planes.items()
        }

    def local_ip(self, name: str) -> str | None:
        daemon_set = self.planes[name].fixture_api().get(DAEMON_SET)
        if daemon_set is None:
            return None
        args = daemon_set["spec"]["template"]["spec"]["containers"][0]["args"]
        return str(args[args.index("-localip") + 1])

    def kube_dns_ip(self, name: str) -> str:
        service = self.planes[name].fixture_api().get(KUBE_DNS)
        assert service is not None
        return str(service["spec"]["clusterIP"])


@pytest.fixture(scope="module")
def planes() -> Iterator[dict[str, ControlPlane]]:
    started: dict[str, ControlPlane] = {}
    try:
        for name in PLANES:
            started[name] = ControlPlane().start()
        yield started
    finally:
        for plane in started.values():
            plane.stop()


@pytest.fixture(scope="module")
def second_sim() -> Iterator[SimulatedCluster]:
    with SimulatedCluster() as sim:
        yield sim


@pytest.fixture
def fleet(
    planes: dict[str, ControlPlane], sim: SimulatedCluster, second_sim: SimulatedCluster, tmp_path: Path
) -> Fleet:
    for plane in planes.values():
        if not plane.apiserver_running:
            plane.start_apiserver()
        plane.reset()
    second_sim.reset()
    sim.add_nodes(eks_fleet(6))
    second_sim.add_nodes(eks_fleet(6))
    return Fleet(planes, {"sim": sim, "sim2": second_sim}, tmp_path)


def contexts(*names: str) -> list[str]:
    return [arg for name in names for arg in ("--context", name)]


def rows(out: str) -> dict[str, list[str]]:
    """The summary table's rows by cluster: result, exit code, objects changed, pods, duration."""
    table = out[out.index("\ncluster ") + 1 :].splitlines()
    body = [line for line in table[1:] if line and not line.startswith(("exit ", "every cluster "))]
    return {line.split()[0]: re.split(r"\s{2,}", line)[1:] for line in body}


def test_a_fleet_deploy_writes_each_clusters_own_address_and_its_rerun_writes_nothing(
    fleet: Fleet, capsys: pytest.CaptureFixture[str]
) -> None:
    everyone = ("east", "west", "north", "sim")

    assert fleet.run(*contexts(*everyone)) == 0

    out = capsys.readouterr().out
    addresses = {name: fleet.kube_dns_ip(name) for name in everyone}
    assert len(set(addresses.values())) == len(everyone)  # each its own kube-dns
    assert {name: fleet.local_ip(name) for name in everyone} == {
        name: f"fd00::10,{address}" for name, address in addresses.items()
    }
    assert {name: row[:3] for name, row in rows(out).items()} == dict.fromkeys(everyone, ["deployed", "0", "7"])
    assert all(re.fullmatch(r"\d+/\d+", row[3]) for row in rows(out).values()), out
    assert out.rstrip().endswith("every cluster exited 0 (4 of 4 ran)")
    assert all(re.search(rf"^\[{name}\] \[2/7\] kube-dns ClusterIP: ", out, re.M) for name in everyone), out

    marks = fleet.marks()
    assert fleet.run(*contexts(*everyone)) == 0
    assert {name: row[0] for name, row in rows(capsys.readouterr().out).items()} == dict.fromkeys(everyone, "unchanged")
    assert fleet.writes_since(marks) == {name: [] for name in fleet.planes}


def test_a_stopped_api_server_fails_its_row_only_and_fail_fast_stops_at_it(
    fleet: Fleet, capsys: pytest.CaptureFixture[str]
) -> None:
    fleet.planes["west"].stop_apiserver()

    # The down server's requests are retried until --timeout: a short one keeps the test short.
    code = fleet.run(*contexts("east", "west", "north"), "--timeout", "3")
    out = capsys.readouterr().out
    fast = fleet.run(*contexts("west", "sim"), "--parallel", "1", "--fail-fast", "--timeout", "3")
    fast_out = capsys.readouterr().out

    assert code == ExitCode.ERROR, out
    assert rows(out)["west"][:2] == ["unreachable", "1"]
    assert rows(out)["east"][0] == rows(out)["north"][0] == "deployed"
    assert re.search(r"^\[west\] error: cannot reach the API server at ", out, re.M), out
    assert "exit 1: west (unreachable); 1 of 3 failed" in out
    assert fast == ExitCode.ERROR
    assert rows(fast_out)["sim"][0] == "skipped (--fail-fast after west)"
    assert fleet.local_ip("sim") is None  # untouched


def test_waves_stop_after_a_failing_first_cluster_and_leave_the_rest_untouched(
    fleet: Fleet, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    listed = tmp_path / "clusters.yaml"
    # east has no nodes: its deploy works, but its verify fails (no node-cache pod anywhere).
    listed.write_text(yaml.safe_dump({"clusters": [{"context": "east"}, {"context": "sim"}, {"context": "west"}]}))
    marks = fleet.marks()

    code = fleet.run("--contexts-from", str(listed), "--waves", "1,rest")

    out = capsys.readouterr().out
    assert code == ExitCode.CHECKS_FAILED, out
    assert rows(out)["east"][0].startswith("deployed, verify: ") and rows(out)["east"][1] == "7"
    assert rows(out)["sim"][0] == rows(out)["west"][0] == "skipped (wave 1 failed)"
    assert {name for name, writes in fleet.writes_since(marks).items() if writes} == {"east"}


def test_verify_across_the_fleet_fails_on_the_cluster_whose_upstream_was_recreated(
    fleet: Fleet, capsys: pytest.CaptureFixture[str]
) -> None:
    assert fleet.run(*contexts("sim", "sim2"), "--wait", "--stall-after", "60") == 0
    rest = fleet.planes["sim2"].fixture_api()
    upstream = rest.get(UPSTREAM)
    assert upstream is not None
    rest.request("DELETE", UPSTREAM)
    fleet.sims["sim2"].wait_for("kube-dns-upstream to be deleted", lambda: rest.get(UPSTREAM) is None)
    next_whole_second()  # the pods a second older
    spec = {k: v for k, v in upstream["spec"].items() if k not in ("clusterIP", "clusterIPs")}
    metadata = {k: upstream["metadata"][k] for k in ("name", "namespace", "labels")}
    rest.request(
        "POST", "/api/v1/namespaces/kube-system/services", body={**upstream, "metadata": metadata, "spec": spec}
    )
    capsys.readouterr()

    code = fleet.run(*contexts("sim", "sim2"), "verify")

    out = capsys.readouterr().out
    assert code == ExitCode.CHECKS_FAILED, out
    assert re.fullmatch(r"\d+ passed, 1 warned", rows(out)["sim"][0]), out  # the spec's cache budget
    assert re.fullmatch(r"\d+ of \d+ failed", rows(out)["sim2"][0]), out
    assert re.search(r"^\[sim2\] FAIL pods-created-after-upstream-service: ", out, re.M), out
    assert not re.search(r"^\[sim\] FAIL ", out, re.M), out


def test_a_fleet_verify_with_json_prints_one_document_with_every_clusters_checks_and_junit_a_suite_each(
    fleet: Fleet, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # east has no nodes: its verify fails (no node-cache pod); sim's pods run and its verify passes.
    assert fleet.run(*contexts("east")) == 0  # a control plane alone: no controller to wait for
    assert fleet.run(*contexts("sim"), "--wait", "--stall-after", "60") == 0
    capsys.readouterr()
    report = tmp_path / "verify.xml"

    code = fleet.run(*contexts("east", "sim"), "verify", "-o", "json", "--junit", str(report))

    out, err = capsys.readouterr()
    document = validated(out, "fleet")  # the whole of stdout
    east, sim = document["clusters"]
    checks = {row["name"]: validated(row["document"], "verify") for row in (east, sim)}
    suites = {suite.get("name"): suite for suite in ET.parse(report).getroot().findall("testsuite")}
    assert code == ExitCode.CHECKS_FAILED, err
    assert [document["command"], document["exit_code"]] == ["verify", ExitCode.CHECKS_FAILED]
    assert [(row["name"], row["context"], row["exit_code"]) for row in (east, sim)] == [
        ("east", "east", ExitCode.CHECKS_FAILED),
        ("sim", "sim", 0),
    ]
    assert checks["east"]["failed"] > 0 and checks["sim"]["failed"] == 0, checks
    assert re.fullmatch(r"\d+/\d+", sim["pods"]) and sim["result"] == (
        f"{checks['sim']['passed']} passed, {checks['sim']['warned']} warned"
    )
    assert list(suites) == ["east", "sim"]
    for name, suite in suites.items():
        cases = suite.findall("testcase")
        assert [case.get("name") for case in cases] == [check["name"] for check in checks[name]["checks"]]
        assert {case.get("classname") for case in cases} == {name}
        failed = {case.get("name") for case in cases if case.find("failure") is not None}
        assert failed == {check["name"] for check in checks[name]["checks"] if check["status"] == "fail"}
    # For people, on stderr: each cluster's lines and the table.
    assert re.search(r"^\[east\] FAIL ", err, re.M) and "\ncluster " in err, err


def test_a_fleet_on_a_terminal_shows_one_line_per_cluster_redrawn_instead_of_the_step_lines(
    fleet: Fleet, capsys: pytest.CaptureFixture[str]
) -> None:
    code = fleet.run(*contexts("sim", "sim2"), "--wait", "--stall-after", "60", "--progress", "tty")

    out = capsys.readouterr().out
    *_, last = out.split("\x1b[2F\x1b[J")  # the block's last redraw: two clusters, two lines
    assert code == 0, out
    assert last.splitlines()[:2] == ["sim   done     deployed", "sim2  done     deployed"], last
    # --wait's closing line, as sim's line of the block (the first line of a redraw follows its escape codes)
    assert re.search(r"(^|\x1b\[J)sim +running +\[wait\] rollout complete in ", out, re.M), out
    assert "[sim] [2/7] " not in out and "[sim2] [2/7] " not in out  # the steps went by in the block only
    assert out.startswith("[fleet] deploy on 2 clusters (sim, sim2)")
    assert {name: row[0] for name, row in rows(out).items()} == {"sim": "deployed", "sim2": "deployed"}


def test_per_cluster_props_reach_only_their_cluster(fleet: Fleet, tmp_path: Path) -> None:
    app = tmp_path / "app.py"
    app.write_text(PER_CLUSTER_APP)

    assert fleet.run(*contexts("east", "sim"), "--app", f"python {app}") == 0

    def tolerated(name: str) -> set[str]:
        daemon_set = fleet.planes[name].fixture_api().get(DAEMON_SET)
        assert daemon_set is not None
        return {t["key"] for t in daemon_set["spec"]["template"]["spec"].get("tolerations") or []}

    assert "dedicated" in tolerated("sim")
    assert "dedicated" not in tolerated("east")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (contexts("east", "south"), "error: context 'south' is not in kubeconfig {kubeconfig}"),
        (contexts("east", "east"), "error: --context: context 'east' is named twice: each cluster once"),
        (["--context", "east", "--all-contexts"], "error: --context, --all-contexts and --contexts-from: give one"),
        ([*contexts("east", "west"), "--waves", "3,rest"], "error: --waves 3,rest: 3 clusters in the waves, but"),
        ([*contexts("east", "west"), "soak"], "error: soak: no Prometheus for cluster 'east': give --prometheus URL"),
    ],
    ids=["unknown", "twice", "two-ways", "waves", "soak"],
)
def test_bad_fleet_input_is_refused_on_one_line_before_any_write(
    fleet: Fleet, args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    marks = fleet.marks()

    code = fleet.run(*args)

    err = capsys.readouterr().err
    assert code == ExitCode.INVALID, err
    assert len(err.splitlines()) == 1 and err.startswith(message.format(kubeconfig=fleet.kubeconfig)), err
    assert fleet.writes_since(marks) == {name: [] for name in fleet.planes}


def test_a_context_whose_credentials_fail_is_refused_before_any_cluster_is_written(
    fleet: Fleet, capsys: pytest.CaptureFixture[str]
) -> None:
    config = yaml.safe_load(fleet.kubeconfig.read_text())
    for user in config["users"]:
        if user["name"] == "north":
            user["user"] = {"token": "not-a-token"}
    fleet.kubeconfig.write_text(yaml.safe_dump(config))
    marks = fleet.marks()

    code = fleet.run(*contexts("east", "north"))

    assert code == ExitCode.INVALID
    assert capsys.readouterr().err == (
        "error: context 'north': the API server refused its credentials (401 Unauthorized)\n"
    )
    assert fleet.writes_since(marks) == {name: [] for name in fleet.planes}


def test_an_unexpected_error_in_one_cluster_fails_its_row_only_and_the_summary_prints(
    fleet: Fleet, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # north's API server is reached through a proxy whose kube-dns answer is JSON of the wrong shape.
    config = yaml.safe_load(fleet.kubeconfig.read_text())
    north = next(entry for entry in config["clusters"] if entry["name"] == "north")
    pki = make_pki(tmp_path / "pki")
    server = fleet.planes["north"]
    with FaultProxy(server.server, upstream_ca=server.ca_path, tls=(pki.server_cert, pki.server_key)) as proxy:
        north["cluster"] = {"server": proxy.url, "certificate-authority": str(pki.ca)}
        fleet.kubeconfig.write_text(yaml.safe_dump(config))
        wrong = (
            b'{"kind": "ServiceList", "items": [{"metadata": {"name": "kube-dns", "namespace": "kube-system"}, '
            b'"spec": "not a spec"}]}'
        )
        services = KUBE_DNS.rpartition("/")[0]
        proxy.fault(Fault("body", lambda method, path: method == "GET" and path.split("?")[0] == services, body=wrong))

        code = fleet.run(*contexts("east", "north", "west", "sim"), "--parallel", "2")

    out = capsys.readouterr().out
    table = rows(out)
    assert code == ExitCode.ERROR, out
    assert table["north"][:2] == ["failed", "1"], out
    assert {name: table[name][:2] for name in ("east", "west", "sim")} == dict.fromkeys(
        ("east", "west", "sim"), ["deployed", "0"]
    )
    assert re.search(r"^\[north\] error: unexpected AttributeError at \S+: .*NLD_TRACEBACK=1", out, re.M), out
    assert "Traceback" not in out
    assert "exit 1: north (failed); 1 of 4 failed" in out
    assert fleet.local_ip("north") is None  # nothing written there


def cluster_app(tmp_path: Path, cluster: str, image: str = defaults.IMAGE) -> str:
    """``--app`` for :data:`CLUSTER_APP`, whose only cluster is ``cluster``."""
    path = tmp_path / f"app-{cluster}-{image.rsplit(':', 1)[-1]}.py"
    path.write_text(CLUSTER_APP.format(cluster=cluster, image=image))
    return f"python {path}"


def daemon_set_of(fleet: Fleet, name: str) -> dict[str, Any]:
    daemon_set = fleet.planes[name].fixture_api().get(DAEMON_SET)
    assert daemon_set is not None
    return daemon_set


def tolerated(template: dict[str, Any]) -> set[str]:
    return {t["key"] for t in template["spec"].get("tolerations") or []}


def test_one_context_gets_its_clusters_props_for_deploy_verify_and_cutover_start(
    fleet: Fleet, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    app = cluster_app(tmp_path, "sim")
    bumped = cluster_app(tmp_path, "sim", NEW_IMAGE)

    assert fleet.run("--context", "sim", "--app", app, "--wait", "--stall-after", "60") == 0
    assert "dedicated" in tolerated(daemon_set_of(fleet, "sim")["spec"]["template"])
    assert fleet.run("--context", "sim", "--app", app, "verify") == 0, capsys.readouterr().out
    capsys.readouterr()

    assert fleet.run("--context", "sim", "--app", bumped, "cutover", "start", "--canary-nodes", "1") == 0
    out = capsys.readouterr().out
    assert re.search(r"^\[cutover\] 1 canary pod\(s\) ready on the new template ", out, re.M), out
    pods = fleet.planes["sim"].fixture_api().get("/api/v1/namespaces/kube-system/pods")
    assert pods is not None
    canary = [pod for pod in pods["items"] if pod["spec"]["containers"][0]["image"] == NEW_IMAGE]
    assert len(canary) == 1 and "dedicated" in tolerated(canary[0])


def test_a_cluster_the_app_does_not_know_is_refused_before_any_write(
    fleet: Fleet, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    app = cluster_app(tmp_path, "sim")
    marks = fleet.marks()

    code = fleet.run("--context", "east", "--app", app)

    err = capsys.readouterr().err
    assert code == ExitCode.INVALID, err
    assert err == (
        f"error: the app '{app}' failed: clusters: cluster 'east' is not among the app's clusters ('sim'): add its "
        "props under that name (a --contexts-from file's 'name:' sets it), or pass base_for_others=True to give "
        "every other cluster the base props\n"
    )
    assert fleet.writes_since(marks) == {name: [] for name in fleet.planes}


def test_a_clusters_file_names_the_cluster_whatever_its_context_is_called(
    fleet: Fleet, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    listed = tmp_path / "clusters.yaml"
    listed.write_text(
        yaml.safe_dump({"clusters": [{"context": "east", "name": "ci-west"}, {"context": "sim", "name": "ci-east"}]})
    )
    app = cluster_app(tmp_path, "ci-east")

    code = fleet.run(
        "--contexts-from", str(listed), "--context", "ci-east", "--app", app, "--wait", "--stall-after", "60"
    )

    out = capsys.readouterr().out
    assert code == 0, out
    assert "[fleet]" not in out and "[2/7] kube-dns ClusterIP: " in out  # one cluster: a fleet of one, plainly reported
    assert "dedicated" in tolerated(daemon_set_of(fleet, "sim")["spec"]["template"])
    assert fleet.local_ip("east") is None
    assert fleet.run("--contexts-from", str(listed), "--context", "ci-east", "--app", app, "verify") == 0
