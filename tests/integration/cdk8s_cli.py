"""The real ``cdk8s synth`` on a user's project, as the suite runs it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import yaml

from tests.controlplane import REPO_ROOT

__all__ = ["cdk8s_synth"]


def cdk8s_synth(
    python: Path, project: Path, *, cluster_ip: str | None = None, output: Path | None = None
) -> list[dict[str, Any]]:
    """The manifests ``cdk8s synth`` writes for ``project`` with ``python`` first on PATH.

    ``cluster_ip``: ``$KUBE_DNS_CLUSTER_IP`` (None: unset, the preview). ``output``: where the
    charts go (None: the project's ``dist/``).
    """
    env = dict(os.environ, PATH=f"{python.parent}:{os.environ['PATH']}")
    env.pop("KUBE_DNS_CLUSTER_IP", None)
    if cluster_ip is not None:
        env["KUBE_DNS_CLUSTER_IP"] = cluster_ip
    argv = [str(REPO_ROOT / "node_modules" / ".bin" / "cdk8s"), "--check-upgrade", "false", "synth"]
    if output is not None:
        argv += ["--output", str(output)]
    done = subprocess.run(argv, cwd=project, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    out = output or project / "dist"
    return [doc for path in sorted(out.glob("*.yaml")) for doc in yaml.safe_load_all(path.read_text()) if doc]
