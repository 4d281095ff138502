"""The README's app is main.py, its props table names every prop, its exit-code table every code; the
configuration page's example apps run."""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from constructs_nld import NodeLocalDNSProps
from constructs_nld.deploy import ExitCode
from constructs_nld.dns import CacheSettings, ForwardOptions, ZoneCache

README = Path(__file__).resolve().parents[2] / "README.md"
CONFIGURATION = README.parent / "docs" / "configuration.md"


def section(title: str, page: Path = README) -> str:
    text = page.read_text()
    start = text.index(f"## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else None]


def test_main_py_is_what_the_readme_shows(repo_root: Path) -> None:
    shown = re.findall(r"```python\n(.*?)```", section("Configure"), re.S)[0]
    on_the_page = re.findall(
        r"```python\n(.*?)```", section("Configure: one app, read by every command", CONFIGURATION), re.S
    )
    code = (repo_root / "main.py").read_text()

    assert code.endswith(shown)
    assert code.endswith(on_the_page[0])


def test_own_app_example_synthesizes_with_the_cluster_ip_and_no_banner(tmp_path: Path) -> None:
    code = re.findall(
        r"```python\n(.*?)```", section("Configure: one app, read by every command", CONFIGURATION), re.S
    )[1]
    (tmp_path / "example.py").write_text(code)
    env = {k: v for k, v in os.environ.items() if k != "CDK8S_OUTDIR" and not k.startswith("JSII_")}
    env["KUBE_DNS_CLUSTER_IP"] = "fd00:ec2::a"

    result = subprocess.run(
        [sys.executable, "example.py"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False
    )

    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    files = sorted(p.name for p in (tmp_path / "dist").iterdir())
    objects = {name: list(yaml.safe_load_all((tmp_path / "dist" / name).read_text())) for name in files}
    kinds = [(name, obj["kind"]) for name in files for obj in objects[name]]
    order = [kind for _, kind in kinds]
    assert order.index("Namespace") < order.index("PodMonitor")
    daemon_set = next(obj for name in files for obj in objects[name] if obj["kind"] == "DaemonSet")
    assert daemon_set["spec"]["template"]["spec"]["tolerations"][-1] == {
        "key": "dedicated",
        "operator": "Exists",
        "effect": "NoSchedule",
    }
    assert daemon_set["spec"]["template"]["spec"]["containers"][0]["args"][1] == "fd00::10,fd00:ec2::a"
    monitor = next(obj for name in files for obj in objects[name] if obj["kind"] == "PodMonitor")
    assert monitor["metadata"]["namespace"] == "observability"


def test_props_table_names_every_prop() -> None:
    for table in (section("Configure"), section("Props (`NodeLocalDNSProps`)", CONFIGURATION)):
        for prop in dataclasses.fields(NodeLocalDNSProps):
            if prop.init:
                assert f"`{prop.name}`" in table, f"a props table lacks {prop.name}"


def test_the_forward_and_cache_table_names_every_field_and_what_it_replaces() -> None:
    table = CONFIGURATION.read_text().split("<!-- generated: nested-props -->", 1)[1].split("<!-- end generated -->")[0]
    rows = {
        match["field"]: match["replaces"]
        for match in re.finditer(r"^\| `(?P<field>[A-Za-z]+\.[a-z_]+)` \|.*\| (?P<replaces>[^|]*) \|$", table, re.M)
    }

    for cls in (ForwardOptions, CacheSettings, ZoneCache):
        for field in dataclasses.fields(cls):
            name = f"{cls.__name__}.{field.name}"
            assert name in rows, f"the forward and cache table lacks {name}"
            assert rows[name].strip(), f"{name}: no deployer value it replaces, nor 'none offers this'"


def test_exit_code_table_lists_every_exit_code() -> None:
    rows = re.findall(r"^\| (\d+) \| ", section("Commands"), re.M)

    assert sorted({int(code) for code in rows}) == [code.value for code in ExitCode]


def test_the_second_cluster_example_synthesizes_its_zones_and_node_selector(tmp_path: Path) -> None:
    code = re.findall(
        r"```python\n(.*?)```",
        section("A second cluster: zones, upstreams, cache behaviour, scheduling", CONFIGURATION),
        re.S,
    )[0]
    (tmp_path / "example.py").write_text(code)
    env = {k: v for k, v in os.environ.items() if k != "CDK8S_OUTDIR"} | {"CDK8S_OUTDIR": str(tmp_path / "dist")}

    subprocess.run([sys.executable, "example.py"], cwd=tmp_path, env=env, check=True, capture_output=True, text=True)

    objects = [o for f in sorted((tmp_path / "dist").glob("*.yaml")) for o in yaml.safe_load_all(f.read_text()) if o]
    corefile = next(o for o in objects if o["kind"] == "ConfigMap" and "Corefile" in o.get("data", {}))
    assert "corp.example:53 corp.internal:53 {" in corefile["data"]["Corefile"]
    assert "forward . fd10::153 {" in corefile["data"]["Corefile"]
    daemon_set = next(o for o in objects if o["kind"] == "DaemonSet")
    assert daemon_set["spec"]["template"]["spec"]["nodeSelector"] == {"node-fleet": "cpu"}


@pytest.mark.parametrize(
    ("page", "title", "namespace"),
    [
        (README, "Deploying from CI with least privilege", "monitoring"),
        (README.parent / "docs" / "rbac.md", "Granting them: `DeployerRBAC`", "observability"),
    ],
    ids=["README", "docs/rbac.md"],
)
def test_the_deployer_rbac_example_synthesizes_roles_bound_to_the_ci_account(
    page: Path, title: str, namespace: str, tmp_path: Path
) -> None:
    code = re.findall(r"```python\n(.*?)```", section(title, page), re.S)[0]
    (tmp_path / "rbac.py").write_text(code)
    env = {k: v for k, v in os.environ.items() if k != "CDK8S_OUTDIR"} | {"CDK8S_OUTDIR": str(tmp_path / "dist")}

    subprocess.run([sys.executable, "rbac.py"], cwd=tmp_path, env=env, check=True, capture_output=True, text=True)

    objects = [o for f in sorted((tmp_path / "dist").glob("*.yaml")) for o in yaml.safe_load_all(f.read_text()) if o]
    roles = {(o["kind"], o["metadata"].get("namespace")) for o in objects if o["kind"].endswith("Role")}
    assert roles == {(kind, where) for kind in ("Role",) for where in ("kube-system", namespace)} | {
        ("ClusterRole", None)
    }
    bindings = [o for o in objects if o["kind"].endswith("Binding")]
    assert len(bindings) == 2 * 2 + 2 * 3  # deploy, uninstall: two Roles; verify, cutover: two Roles, a ClusterRole
    assert all(
        b["subjects"] == [{"kind": "ServiceAccount", "name": "nodelocaldns-deployer", "namespace": "ci"}]
        for b in bindings
    )
