"""The app behind ``main.py`` and ``cdk8s synth``: environment, files written, and dist/ freshness."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from constructs_nld import (
    NodeLocalDNSProps,
    Ports,
    cluster_from_environment,
    context_from_environment,
    props_from_environment,
)
from constructs_nld.app import main

FILE_NAMES = [
    "0000-nodelocaldns-services.k8s.yaml",
    "0001-nodelocaldns-workload.k8s.yaml",
    "0002-nodelocaldns-monitoring.k8s.yaml",
]


@dataclass(frozen=True)
class Run:
    """One finished synth subprocess and the directory it wrote to."""

    returncode: int
    stdout: str
    stderr: str
    outdir: Path

    def files(self) -> dict[str, bytes]:
        if not self.outdir.exists():
            return {}
        return {path.name: path.read_bytes() for path in sorted(self.outdir.iterdir())}


def _environment(**overrides: str) -> dict[str, str]:
    """This process's environment without anything that would change the synth or hide its banner."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("KUBE_DNS_CLUSTER_IP", "CDK8S_OUTDIR") and not key.startswith("JSII_")
    }
    env.update(overrides)
    return env


def _run_main(repo_root: Path, outdir: Path, **env: str) -> Run:
    done = subprocess.run(
        [sys.executable, "main.py"],
        cwd=repo_root,
        env=_environment(CDK8S_OUTDIR=str(outdir), **env),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return Run(done.returncode, done.stdout, done.stderr, outdir)


@pytest.fixture(scope="module")
def preview_run(repo_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Run:
    return _run_main(repo_root, tmp_path_factory.mktemp("preview") / "out")


@pytest.fixture(scope="module")
def deployable_run(repo_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Run:
    return _run_main(repo_root, tmp_path_factory.mktemp("deployable") / "out", KUBE_DNS_CLUSTER_IP="fd00:ec2::a")


@pytest.fixture(scope="module")
def ipv4_run(repo_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Run:
    return _run_main(repo_root, tmp_path_factory.mktemp("ipv4") / "out", KUBE_DNS_CLUSTER_IP="10.100.0.10")


# --- props_from_environment ----------------------------------------------------------------


@pytest.mark.parametrize("environ", [{}, {"KUBE_DNS_CLUSTER_IP": ""}, {"KUBE_DNS_CLUSTER_IP": "  "}])
def test_unset_or_empty_variable_gives_a_preview(environ: dict[str, str]) -> None:
    props = props_from_environment(environ)

    assert props.kube_dns_cluster_ip is None
    assert props == NodeLocalDNSProps()


def test_ipv6_variable_sets_the_cluster_ip() -> None:
    props = props_from_environment({"KUBE_DNS_CLUSTER_IP": "fd00:ec2::a"})

    assert props.kube_dns_cluster_ip == "fd00:ec2::a"


def test_variable_is_stripped() -> None:
    assert props_from_environment({"KUBE_DNS_CLUSTER_IP": " fd00:ec2::a\n"}).kube_dns_cluster_ip == "fd00:ec2::a"


def test_variable_keeps_the_other_props() -> None:
    base = NodeLocalDNSProps(monitoring_namespace="observability", ports=Ports(health=8081))

    props = props_from_environment({"KUBE_DNS_CLUSTER_IP": "fd00:ec2::a"}, base)

    assert (props.monitoring_namespace, props.ports.health, props.kube_dns_cluster_ip) == (
        "observability",
        8081,
        "fd00:ec2::a",
    )


def test_the_context_picks_the_props_of_its_cluster_and_others_get_the_apps_own() -> None:
    base = NodeLocalDNSProps(monitoring_namespace="observability")
    clusters = {"ci-east": NodeLocalDNSProps(cpu_request="50m")}
    ip = {"KUBE_DNS_CLUSTER_IP": "fd00:ec2::a"}

    east = props_from_environment({**ip, "NLD_CONTEXT": " ci-east "}, base, clusters=clusters)
    west = props_from_environment({**ip, "NLD_CONTEXT": "ci-west"}, base, clusters=clusters, base_for_others=True)
    preview = props_from_environment({"NLD_CONTEXT": "ci-east"}, base, clusters=clusters)

    assert (east.cpu_request, east.monitoring_namespace, east.kube_dns_cluster_ip) == (
        "50m",
        "monitoring",
        "fd00:ec2::a",
    )
    assert (west.cpu_request, west.monitoring_namespace) == (NodeLocalDNSProps().cpu_request, "observability")
    assert preview.kube_dns_cluster_ip is None and preview.cpu_request == "50m"
    assert context_from_environment({"NLD_CONTEXT": "ci-east"}) == "ci-east"
    assert context_from_environment({"NLD_CONTEXT": " "}) is None
    assert context_from_environment({}) is None


def test_fails_when_variable_is_ipv4() -> None:
    with pytest.raises(
        ValueError, match=r"^kube_dns_cluster_ip: .*different address families.*\(from \$KUBE_DNS_CLUSTER_IP\)$"
    ):
        props_from_environment({"KUBE_DNS_CLUSTER_IP": "10.100.0.10"})


def test_fails_when_variable_is_link_local() -> None:
    with pytest.raises(
        ValueError, match=r"^kube_dns_cluster_ip: must not be link-local.*\(from \$KUBE_DNS_CLUSTER_IP\)$"
    ):
        props_from_environment({"KUBE_DNS_CLUSTER_IP": "fe80::a"})


def test_main_returns_2_and_prints_the_error_on_a_bad_variable(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(environ={"KUBE_DNS_CLUSTER_IP": "10.100.0.10"}) == 2

    captured = capsys.readouterr()
    assert captured.out == ""
    assert re.fullmatch(r"error: kube_dns_cluster_ip: .*\(from \$KUBE_DNS_CLUSTER_IP\)\n", captured.err)


# --- python main.py ------------------------------------------------------------------------


def test_main_writes_three_files_in_apply_order(preview_run: Run) -> None:
    assert preview_run.returncode == 0, preview_run.stderr

    assert list(preview_run.files()) == FILE_NAMES


def test_files_hold_the_kinds_of_their_chart(preview_run: Run) -> None:
    kinds = [[doc["kind"] for doc in yaml.safe_load_all(content)] for content in preview_run.files().values()]

    assert kinds == [
        ["Service", "Service"],
        ["ServiceAccount", "ConfigMap", "DaemonSet"],
        ["PodMonitor", "PrometheusRule"],
    ]


def test_a_run_says_in_one_line_what_it_wrote_and_where(preview_run: Run, deployable_run: Run) -> None:
    names = ", ".join(preview_run.files())
    assert preview_run.stdout == ""
    assert preview_run.stderr == (
        "synthesized a preview (not deployable: __KUBE_DNS_CLUSTER_IP__ stands for the kube-dns ClusterIP): "
        f"wrote {preview_run.outdir}/{{{names}}}\n"
    )
    assert deployable_run.stderr == (
        f"synthesized deployable output (kube-dns ClusterIP fd00:ec2::a): wrote {deployable_run.outdir}/{{{names}}}\n"
    )


def test_cluster_ip_variable_reaches_binds_and_localip(deployable_run: Run) -> None:
    assert deployable_run.returncode == 0, deployable_run.stderr
    files = deployable_run.files()
    (workload,) = [content.decode() for name, content in files.items() if "-workload" in name]
    docs = {doc["kind"]: doc for doc in yaml.safe_load_all(workload)}

    corefile = docs["ConfigMap"]["data"]["Corefile"]
    binds = [line.strip() for line in corefile.splitlines() if line.strip().startswith("bind ")]
    assert binds == ["bind fd00::10 fd00:ec2::a"] * 4
    args = docs["DaemonSet"]["spec"]["template"]["spec"]["containers"][0]["args"]
    assert args[:2] == ["-localip", "fd00::10,fd00:ec2::a"]
    for content in files.values():
        assert b"__KUBE_DNS_CLUSTER_IP__" not in content


def test_ipv4_variable_exits_2_with_an_error_and_writes_nothing(ipv4_run: Run) -> None:
    assert ipv4_run.returncode == 2
    assert ipv4_run.stdout == ""
    assert re.fullmatch(r"error: kube_dns_cluster_ip: .*\(from \$KUBE_DNS_CLUSTER_IP\)\n", ipv4_run.stderr)
    assert ipv4_run.files() == {}


def test_committed_dist_is_fresh(preview_run: Run, repo_root: Path) -> None:
    assert preview_run.returncode == 0, preview_run.stderr
    committed = {path.name: path.read_bytes() for path in sorted((repo_root / "dist").iterdir())}
    fresh = preview_run.files()

    hint = "dist/ is stale: run `python main.py` (with KUBE_DNS_CLUSTER_IP unset) and commit dist/"
    assert sorted(committed) == sorted(fresh), f"{hint}; file names differ"
    stale = [name for name in fresh if committed[name] != fresh[name]]
    assert not stale, f"{hint}; contents differ in {stale}"


# --- cdk8s synth ---------------------------------------------------------------------------


def test_cdk8s_synth_writes_the_same_bytes_as_python_main(preview_run: Run, repo_root: Path, tmp_path: Path) -> None:
    cli = repo_root / "node_modules" / ".bin" / "cdk8s"
    assert cli.exists(), f"{cli} is missing: run `npm ci` in the repo root"
    outdir = tmp_path / "cdk8s-out"
    # cdk8s.yaml runs `python main.py`: make that the python running these tests.
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])

    done = subprocess.run(
        [str(cli), "synth", "--check-upgrade", "false", "--output", str(outdir)],
        cwd=repo_root,
        env=_environment(PATH=path),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )

    assert done.returncode == 0, done.stderr
    synthesized = {path.name: path.read_bytes() for path in sorted(outdir.iterdir())}
    assert synthesized == preview_run.files()


# --- dist/ is never left empty or half-written ---------------------------------------------


@pytest.fixture
def project(repo_root: Path, tmp_path: Path) -> Path:
    """A copy of this project's app, sharing the tests' venv and the repo's node_modules, with a committed dist/."""
    for name in ("main.py", "cdk8s.yaml", ".npmrc", "package.json", "tools/cdk8s-no-upgrade-check.cjs"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes((repo_root / name).read_bytes())
    (tmp_path / ".venv").symlink_to(sys.prefix)  # the venv running the tests, whichever Python it is
    (tmp_path / "node_modules").symlink_to(repo_root / "node_modules")
    (tmp_path / "dist").mkdir()
    for path in (repo_root / "dist").iterdir():
        (tmp_path / "dist" / path.name).write_bytes(path.read_bytes())
    return tmp_path


def _dist(project: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted((project / "dist").iterdir())}


def _bare_environment(**overrides: str) -> dict[str, str]:
    """A shell with no venv activated and no cdk8s options set, on the supported Node.js the suite runs."""
    env = _environment(**overrides)
    env.pop("VIRTUAL_ENV", None)
    node = shutil.which("node")
    assert node is not None, "the suite needs Node.js on PATH (make test installs it)"
    env["PATH"] = os.pathsep.join((str(Path(node).parent), "/usr/local/bin", "/usr/bin", "/bin"))
    return {k: v for k, v in env.items() if not k.startswith("CDK8S_")} | overrides


def test_python_main_without_an_outdir_replaces_dist_with_the_preview(project: Path) -> None:
    (project / "dist" / "stale.k8s.yaml").write_text("kind: Stale\n")
    committed = _dist(project)

    done = subprocess.run(
        [str(project / ".venv" / "bin" / "python"), "main.py"],
        cwd=project,
        env=_bare_environment(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert done.returncode == 0, done.stderr
    assert "wrote dist/{0000-" in done.stderr
    assert _dist(project) == {name: data for name, data in committed.items() if name != "stale.k8s.yaml"}
    assert sorted(p.name for p in project.iterdir() if p.name.startswith(".dist")) == []


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"KUBE_DNS_CLUSTER_IP": "None"}, "error: kube_dns_cluster_ip: must be an IPv6 address, got 'None'"),
        (
            {"KUBE_DNS_CLUSTER_IP": "fd00:ec2::a"},
            "error: $KUBE_DNS_CLUSTER_IP is set, and dist/ holds the committed preview: write deployable output "
            "elsewhere: make synth OUT=DIR",
        ),
    ],
)
def test_python_main_refusing_leaves_dist_as_it_was(project: Path, env: dict[str, str], message: str) -> None:
    committed = _dist(project)

    done = subprocess.run(
        [str(project / ".venv" / "bin" / "python"), "main.py"],
        cwd=project,
        env=_bare_environment(**env),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert done.returncode == 2
    assert done.stderr.startswith(message) and len(done.stderr.splitlines()) == 1
    assert _dist(project) == committed


def test_npx_cdk8s_synth_in_the_activated_venv_checks_no_upgrade_and_keeps_dist_on_failure(
    project: Path,
) -> None:
    committed = _dist(project)
    activated = os.pathsep.join((str(project / ".venv" / "bin"), _bare_environment()["PATH"]))

    def synth(**env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["npx", "cdk8s", "synth"],
            cwd=project,
            env=_bare_environment(HOME=str(project), PATH=activated, **env),
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )

    good = synth()

    assert good.returncode == 0, good.stderr
    assert "A new version" not in good.stdout + good.stderr
    assert not (project / ".cdk8s-cli.version").exists()  # the upgrade check's cache: it never ran
    assert _dist(project) == committed
    assert {p.name for p in (project / ".cache" / "synth").iterdir()} == set(committed)

    bad = synth(KUBE_DNS_CLUSTER_IP="None")

    assert bad.returncode != 0
    assert "error: kube_dns_cluster_ip: must be an IPv6 address, got 'None'" in bad.stderr
    assert _dist(project) == committed


def test_portable_props_ignore_the_cluster_ip_variable() -> None:
    base = NodeLocalDNSProps(portable=True)

    assert props_from_environment({"KUBE_DNS_CLUSTER_IP": "fd00:ec2::a"}, base) is base


def test_a_portable_run_says_its_output_is_deployable_as_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outdir = tmp_path / "out"

    assert (
        main(NodeLocalDNSProps(portable=True), {"CDK8S_OUTDIR": str(outdir), "KUBE_DNS_CLUSTER_IP": "fd00:ec2::a"}) == 0
    )

    err = capsys.readouterr().err
    assert err.startswith(
        "synthesized portable output (deployable as it is: kubelet gives node-cache the address as "
        f"$(KUBE_DNS_SERVICE_HOST)): wrote {outdir}/{{0000-nodelocaldns-services.k8s.yaml"
    )


def test_the_cluster_name_picks_the_props_whatever_the_context_is_called() -> None:
    clusters = {"ci-east": NodeLocalDNSProps(cpu_request="50m")}
    environ = {"NLD_CLUSTER": "ci-east", "NLD_CONTEXT": "arn:aws:eks:us-east-1:123456789012:cluster/ci-east"}

    props = props_from_environment(environ, clusters=clusters)

    assert props.cpu_request == "50m"
    assert cluster_from_environment(environ) == "ci-east"
    assert cluster_from_environment({"NLD_CONTEXT": "ci-west"}) == "ci-west"
    assert cluster_from_environment({}) is None


def test_fails_when_the_cluster_is_not_among_the_apps_clusters() -> None:
    clusters = {"ci-east": NodeLocalDNSProps(cpu_request="50m"), "ci-west": NodeLocalDNSProps()}

    with pytest.raises(
        ValueError,
        match=r"^clusters: cluster 'arn:aws:eks:x:cluster/ci-east' is not among the app's clusters "
        r"\('ci-east', 'ci-west'\): add its props under that name .*, or pass base_for_others=True to give every "
        r"other cluster the base props$",
    ):
        props_from_environment({"NLD_CONTEXT": "arn:aws:eks:x:cluster/ci-east"}, clusters=clusters)


def test_the_app_refuses_an_unknown_cluster_in_one_line_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    environ = {"NLD_CLUSTER": "ci-north", "CDK8S_OUTDIR": str(out)}

    code = main(NodeLocalDNSProps(), environ, clusters={"ci-east": NodeLocalDNSProps()})

    assert code == 2
    assert capsys.readouterr().err == (
        "error: clusters: cluster 'ci-north' is not among the app's clusters ('ci-east'): add its props under that "
        "name (a --contexts-from file's 'name:' sets it), or pass base_for_others=True to give every other cluster "
        "the base props\n"
    )
    assert not out.exists()
