"""One kubeconfig for several of the suite's clusters: a context per cluster, named as the caller says."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from tests.controlplane import ControlPlane

__all__ = ["merged_kubeconfig"]


def merged_kubeconfig(planes: Mapping[str, ControlPlane], path: Path) -> Path:
    """Write ``path``: each plane's admin kubeconfig as a cluster, user and context called by its key."""
    merged: dict[str, Any] = {"apiVersion": "v1", "kind": "Config", "clusters": [], "users": [], "contexts": []}
    for name, plane in planes.items():
        config = yaml.safe_load(plane.kubeconfig_path.read_text())
        merged["clusters"].append({"name": name, "cluster": config["clusters"][0]["cluster"]})
        merged["users"].append({"name": name, "user": config["users"][0]["user"]})
        merged["contexts"].append({"name": name, "context": {"cluster": name, "user": name}})
    merged["current-context"] = next(iter(planes))
    path.write_text(yaml.safe_dump(merged))
    path.chmod(0o600)
    return path
