"""How production installs NodeLocal DNS today: the spec's ``deploy.sh``, step for step, with the real kubectl.

The migration tests and ``bench/deploy.py`` start from this state: objects written by
client-side ``kubectl apply`` (field manager ``kubectl-client-side-apply``, the
``last-applied-configuration`` annotation), from the spec's manifests
(``tests/integration/deploy_sh/``), which lack ``-pidfile``.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import Any, Final

import yaml

from tests.controlplane import ControlPlane

__all__ = ["KUBECTL", "MANIFESTS", "install_like_deploy_sh", "kubectl"]

REPO_ROOT: Final = Path(__file__).resolve().parent.parent
KUBECTL: Final = REPO_ROOT / ".cache" / "bin" / "kubectl"
"""kubectl v1.34.4, built by ``tools/build-binaries.sh kubectl`` from the same release as kube-apiserver."""
MANIFESTS: Final = REPO_ROOT / "tests" / "integration" / "deploy_sh"
PLACEHOLDER: Final = "__KUBE_DNS_CLUSTER_IP__"


def kubectl(cluster: ControlPlane, *args: str, input: str | None = None) -> str:
    """Run kubectl against ``cluster``; return stdout, or fail with its stderr."""
    if not KUBECTL.is_file():
        raise FileNotFoundError(f"{KUBECTL} missing: run `bash tools/build-binaries.sh kubectl`")
    result = subprocess.run(
        [str(KUBECTL), "--kubeconfig", str(cluster.kubeconfig_path), *args],
        input=input,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(f"kubectl {' '.join(args)} exited {result.returncode}: {result.stderr.strip()}")
    return result.stdout


def _dump(documents: list[dict[str, Any]]) -> str:
    return yaml.safe_dump_all(documents, sort_keys=False)


def install_like_deploy_sh(cluster: ControlPlane, *, monitoring: bool = True, pause: float = 0.0) -> str:
    """Install NodeLocal DNS as the spec's deploy.sh does on a first deploy, step for step; return the ClusterIP used.

    ``pause`` is deploy.sh's ``sleep`` between the Services and the rest (3 s in the spec):
    the tests leave it out, the benchmark keeps it, to compare with what the spec runs.
    """
    # Step 1: the precondition, kube-dns-upstream absent or selecting kube-dns.
    selector = kubectl(
        cluster,
        "get",
        "svc",
        "kube-dns-upstream",
        "-n",
        "kube-system",
        "--ignore-not-found",
        "-o",
        "jsonpath={.spec.selector.k8s-app}",
    )
    if selector not in ("", "kube-dns"):
        raise RuntimeError(f"kube-dns-upstream selects k8s-app={selector}: deploy.sh refuses")
    # Step 2: the live ClusterIP.
    cluster_ip = kubectl(cluster, "get", "svc", "kube-dns", "-n", "kube-system", "-o", "jsonpath={.spec.clusterIP}")
    # Step 3: the rendered manifests with the placeholder substituted (deploy.sh's sed).
    rendered = (MANIFESTS / "nodelocaldns.yaml").read_text().replace(PLACEHOLDER, cluster_ip)
    documents = [doc for doc in yaml.safe_load_all(rendered) if doc]
    # Step 4: split by kind; step 5: Services first (the ClusterIP is allocated by the create
    # itself, so the tests leave deploy.sh's `sleep 3` out); step 6: the rest.
    kubectl(cluster, "apply", "-f", "-", input=_dump([d for d in documents if d["kind"] == "Service"]))
    time.sleep(pause)
    kubectl(cluster, "apply", "-f", "-", input=_dump([d for d in documents if d["kind"] != "Service"]))
    # Step 7: first deploy, so a rollout restart.
    kubectl(cluster, "rollout", "restart", "daemonset/node-local-dns", "-n", "kube-system")
    if monitoring:
        kubectl(cluster, "apply", "-f", str(MANIFESTS / "monitoring.yaml"))
    return cluster_ip
