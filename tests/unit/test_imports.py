"""``imports/`` is exactly what ``cdk8s import`` generates from ../shared/crds (never hand-edited)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_committed_imports_match_a_fresh_cdk8s_import(tmp_path: Path) -> None:
    out = tmp_path / "imports"
    env = {**os.environ, "PATH": f"{REPO / 'node_modules' / '.bin'}{os.pathsep}{os.environ['PATH']}"}

    result = subprocess.run(
        ["cdk8s", "import", "--check-upgrade", "false", "--output", str(out)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )

    assert result.returncode == 0, result.stderr
    fresh, committed = tree(out), tree(REPO / "imports")
    assert sorted(fresh) == sorted(committed), "imports/ file list differs: run `make imports`"
    stale = [name for name in fresh if fresh[name] != committed[name]]
    assert not stale, f"imports/ is stale or hand-edited ({stale}): run `make imports`"
