"""The README's reuse example runs, and its props table names every prop."""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

from constructs_nld import NodeLocalDNSProps

README = Path(__file__).resolve().parents[2] / "README.md"


def section(title: str) -> str:
    text = README.read_text()
    start = text.index(f"## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else None]


def test_reuse_example_synthesizes_the_component_and_a_reused_construct(tmp_path: Path) -> None:
    code = re.search(r"```python\n(.*?)```", section("Reuse"), re.S)
    assert code is not None
    (tmp_path / "example.py").write_text(code.group(1))
    env = {k: v for k, v in os.environ.items() if k != "CDK8S_OUTDIR"}

    result = subprocess.run(
        [sys.executable, "example.py"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False
    )

    assert result.returncode == 0, result.stderr

    files = sorted(p.name for p in (tmp_path / "dist").iterdir())
    assert files[:3] == [
        "0000-nodelocaldns-services.k8s.yaml",
        "0001-nodelocaldns-workload.k8s.yaml",
        "0002-nodelocaldns-monitoring.k8s.yaml",
    ]
    workload = list(yaml.safe_load_all((tmp_path / "dist" / files[1]).read_text()))
    daemon_set = next(o for o in workload if o["kind"] == "DaemonSet")
    assert daemon_set["spec"]["template"]["spec"]["tolerations"][-1] == {
        "key": "dedicated",
        "operator": "Exists",
        "effect": "NoSchedule",
    }
    assert daemon_set["spec"]["template"]["spec"]["containers"][0]["args"][1] == "fd00::10,fd00:ec2::a"
    mine = [p for p in files if "my-chart" in p]
    assert len(mine) == 1
    (service,) = yaml.safe_load_all((tmp_path / "dist" / mine[0]).read_text())
    assert service["metadata"] == {
        "name": "kube-dns-upstream",
        "namespace": "kube-system",
        "labels": {"k8s-app": "kube-dns", "team": "dns"},
    }


def test_props_table_names_every_prop() -> None:
    table = section("Props (`NodeLocalDNSProps`)")
    for prop in dataclasses.fields(NodeLocalDNSProps):
        assert f"`{prop.name}`" in table, f"README props table lacks {prop.name}"
