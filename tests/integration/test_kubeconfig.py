"""The kubeconfig as kubectl reads it, against real API servers: ``$KUBECONFIG`` merged, and a pod's service account.

Two control planes, ``east`` (the session's) and ``west`` (this module's), each in its own
kubeconfig file: a command given either context reaches that cluster alone (its audit log
says so), ``--all-contexts`` takes both, and where the files define the same name twice we
resolve it as ``kubectl config view --merge`` does. Last, the CLI runs as a pod runs, with no
kubeconfig at all: a real ServiceAccount token from the TokenRequest API and the control
plane's CA at ``/var/run/secrets/kubernetes.io/serviceaccount`` (a private mount namespace
of the process), ``KUBERNETES_SERVICE_HOST``/``PORT`` at the API server, and it deploys.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from constructs_nld.deploy.cli import main
from constructs_nld.deploy.exitcodes import ExitCode
from constructs_nld.deploy.kubeconfig import client_config, current_context, kubeconfig_contexts
from tests.controlplane import REPO_ROOT, ControlPlane
from tests.harness.pods import InClusterCredentials, pod_argv
from tests.harness.process import wait_until

DAEMON_SET = "/apis/apps/v1/namespaces/kube-system/daemonsets/node-local-dns"
ACCOUNT = "nld-in-cluster"
ACCOUNT_USER = f"system:serviceaccount:kube-system:{ACCOUNT}"


@pytest.fixture(scope="module")
def west_plane() -> Iterator[ControlPlane]:
    """A second control plane, for the module's life."""
    with ControlPlane() as plane:
        yield plane


@pytest.fixture
def planes(cluster: ControlPlane, west_plane: ControlPlane) -> dict[str, ControlPlane]:
    """Both control planes, reset, by the name of their context."""
    west_plane.reset()
    return {"east": cluster, "west": west_plane}


@pytest.fixture(autouse=True)
def _only_the_tests_kubeconfig(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("KUBECONFIG", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT", "POD_NAMESPACE"):
        monkeypatch.delenv(name, raising=False)


def _admin(plane: ControlPlane) -> tuple[dict[str, Any], dict[str, Any]]:
    """The plane's admin kubeconfig's cluster and user bodies."""
    config = yaml.safe_load(plane.kubeconfig_path.read_text())
    return config["clusters"][0]["cluster"], config["users"][0]["user"]


def _write_file(
    path: Path,
    *,
    clusters: dict[str, ControlPlane],
    contexts: dict[str, str],
    current: str | None = None,
    ca_as: str | None = None,
) -> Path:
    """A kubeconfig at ``path``: a cluster and user per plane, contexts naming a cluster; the CA copied beside it.

    ``ca_as``: the relative path, from the file's directory, the CA is copied to and named by.
    """
    config: dict[str, Any] = {"apiVersion": "v1", "kind": "Config", "clusters": [], "users": [], "contexts": []}
    path.parent.mkdir(parents=True, exist_ok=True)
    for name, plane in clusters.items():
        cluster, user = _admin(plane)
        if ca_as is not None:
            copied = path.parent / ca_as.format(name=name)
            copied.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(plane.ca_path, copied)
            cluster = {**cluster, "certificate-authority": ca_as.format(name=name)}
        config["clusters"].append({"name": name, "cluster": cluster})
        config["users"].append({"name": name, "user": user})
    for context, cluster_name in contexts.items():
        config["contexts"].append({"name": context, "context": {"cluster": cluster_name, "user": cluster_name}})
    if current is not None:
        config["current-context"] = current
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    path.chmod(0o600)
    return path


def _reached(planes: dict[str, ControlPlane], command: list[str]) -> tuple[int, dict[str, int]]:
    """Run the CLI; its exit code and how many requests each plane received from it."""
    marks = {name: plane.audit_mark() for name, plane in planes.items()}
    code = main(["--timeout", "10", *command])
    return code, {name: len(plane.requests_since(marks[name])) for name, plane in planes.items()}


def test_each_context_of_a_merged_kubeconfig_reaches_its_own_cluster(
    planes: dict[str, ControlPlane], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    east = _write_file(
        tmp_path / "east" / "config", clusters={"east": planes["east"]}, contexts={"east": "east"}, ca_as="ca.crt"
    )
    west = _write_file(
        tmp_path / "west" / "nested" / "config",
        clusters={"west": planes["west"]},
        contexts={"west": "west"},
        current="west",
        ca_as="../certs/{name}.crt",
    )
    monkeypatch.setenv("KUBECONFIG", os.pathsep.join([str(east), str(tmp_path / "missing"), str(west)]))
    assert kubeconfig_contexts(None) == ("east", "west")
    for context, other in (("east", "west"), ("west", "east")):
        code, reached = _reached(planes, ["--context", context, "verify"])
        assert code == ExitCode.CHECKS_FAILED  # nothing is installed: verify read the cluster and said so
        assert reached[context] > 0
        assert reached[other] == 0
    code, reached = _reached(planes, ["verify"])  # the current context: the second file's
    assert code == ExitCode.CHECKS_FAILED
    assert reached == {"east": 0, "west": reached["west"]}
    assert reached["west"] > 0


def test_all_contexts_takes_every_files_contexts(
    planes: dict[str, ControlPlane], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    east = _write_file(tmp_path / "east.yaml", clusters={"east": planes["east"]}, contexts={"east": "east"})
    west = _write_file(tmp_path / "west.yaml", clusters={"west": planes["west"]}, contexts={"west": "west"})
    monkeypatch.setenv("KUBECONFIG", os.pathsep.join([str(east), str(west)]))
    code, reached = _reached(planes, ["--all-contexts", "verify"])
    out = capsys.readouterr().out
    assert code == ExitCode.CHECKS_FAILED
    assert reached["east"] > 0
    assert reached["west"] > 0
    summary = out[out.index("\ncluster ") + 1 :].splitlines()
    assert [line.split()[0] for line in summary[1:3]] == ["east", "west"]


def _kubectl_view(kubectl: Path, kubeconfig: str) -> dict[str, Any]:
    done = subprocess.run(
        [str(kubectl), "config", "view", "--merge", "--raw", "-o", "json"],
        env={"KUBECONFIG": kubeconfig, "HOME": os.environ["HOME"], "PATH": os.environ.get("PATH", "")},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    view: dict[str, Any] = json.loads(done.stdout)
    return view


def test_names_defined_in_several_files_resolve_as_kubectl_resolves_them(
    planes: dict[str, ControlPlane], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cluster and user ``east`` and context ``shared`` are in two files, at two servers; three set current-context."""
    first = _write_file(
        tmp_path / "first" / "config",
        clusters={"east": planes["east"]},
        contexts={"shared": "east", "east": "east"},
        current="",
        ca_as="ca/{name}.crt",
    )
    second = _write_file(
        tmp_path / "second" / "config",
        clusters={"west": planes["west"]},
        contexts={"shared": "west", "west": "west"},
        current="west",
        ca_as="{name}.crt",
    )
    config = yaml.safe_load(second.read_text())
    west_cluster = config["clusters"][0]["cluster"]
    # "east" again, at west's server and with west's token: the first file's win
    config["clusters"].append({"name": "east", "cluster": west_cluster})
    config["users"].append({"name": "east", "user": config["users"][0]["user"]})
    config["contexts"].append({"name": "east-by-name", "context": {"cluster": "east", "user": "east"}})
    second.write_text(yaml.safe_dump(config, sort_keys=False))
    third = tmp_path / "third.yaml"
    third.write_text("current-context: shared\n")
    kubeconfig = os.pathsep.join([str(first), str(tmp_path / "missing.yaml"), str(second), str(third)])
    monkeypatch.setenv("KUBECONFIG", kubeconfig)

    view = _kubectl_view(planes["east"].binary("kubectl"), kubeconfig)
    servers = {c["name"]: c["cluster"]["server"] for c in view["clusters"]}
    kubectl_contexts = {c["name"]: servers[c["context"]["cluster"]] for c in view["contexts"]}
    assert set(kubeconfig_contexts(None)) == set(kubectl_contexts)
    assert kubeconfig_contexts(None) == ("shared", "east", "west", "east-by-name")  # the first file's first
    assert current_context(None) == view["current-context"] == "west"
    ours = {name: client_config(None, name).configuration.host for name in kubeconfig_contexts(None)}
    assert ours == {name: server.rstrip("/") for name, server in kubectl_contexts.items()}
    assert ours["shared"] == ours["east-by-name"] == planes["east"].server

    # And the CLI goes where both say: "shared" and "east-by-name" to east, no context to west.
    for command, target in ((["--context", "shared"], "east"), (["--context", "east-by-name"], "east"), ([], "west")):
        code, reached = _reached(planes, [*command, "verify"])
        assert code == ExitCode.CHECKS_FAILED
        assert {name for name, count in reached.items() if count} == {target}


# --- in a pod ----------------------------------------------------------------------------------
@pytest.fixture
def service_account_token(cluster: ControlPlane) -> Iterator[str]:
    """A ServiceAccount bound to cluster-admin, and a token for it from the TokenRequest API (once RBAC allows it).

    Both are deleted after the test: the session's cluster keeps no extra admin.
    """
    try:
        yield _service_account_token(cluster)
    finally:
        for path in (
            f"/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/{ACCOUNT}",
            f"/api/v1/namespaces/kube-system/serviceaccounts/{ACCOUNT}",
        ):
            cluster.request("DELETE", path, ok=(200, 202, 404))


def _service_account_token(plane: ControlPlane) -> str:
    plane.request(
        "POST",
        "/api/v1/namespaces/kube-system/serviceaccounts",
        body={"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": ACCOUNT}},
        ok=(201, 409),
    )
    plane.request(
        "POST",
        "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
        body={
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {"name": ACCOUNT},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
            "subjects": [{"kind": "ServiceAccount", "name": ACCOUNT, "namespace": "kube-system"}],
        },
        ok=(201, 409),
    )
    review = {
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SubjectAccessReview",
        "spec": {
            "user": ACCOUNT_USER,
            "groups": ["system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"],
            "resourceAttributes": {
                "verb": "patch",
                "group": "apps",
                "resource": "daemonsets",
                "namespace": "kube-system",
            },
        },
    }
    wait_until(
        "RBAC to allow the binding",
        lambda: bool(
            plane.request("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", body=review)["status"].get(
                "allowed"
            )
        ),
        timeout=30,
    )
    answer = plane.request(
        "POST",
        f"/api/v1/namespaces/kube-system/serviceaccounts/{ACCOUNT}/token",
        body={"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {"expirationSeconds": 600}},
    )
    return str(answer["status"]["token"])


def test_in_a_pod_with_no_kubeconfig_the_cli_deploys_with_the_service_account(
    cluster: ControlPlane, service_account_token: str, tmp_path: Path
) -> None:
    token = service_account_token
    with tempfile.TemporaryDirectory(prefix="nld-pod-run-") as run_dir:  # the token never outlives the test
        credentials = InClusterCredentials(
            Path(run_dir), token=token, ca_pem=cluster.ca_path.read_text(), namespace="kube-system"
        )
        pod = credentials.at("127.0.0.1", int(urlsplit(cluster.server).port or 443))
        environment = {
            name: value
            for name, value in os.environ.items()
            if name not in ("KUBECONFIG", "POD_NAMESPACE") and not name.startswith("KUBERNETES_")
        }
        environment.update(pod.environment, HOME=str(tmp_path / "home"))
        mark = cluster.audit_mark()
        done = subprocess.run(
            pod_argv([sys.executable, "deploy.py", "--timeout", "30"], namespace=None, in_cluster=pod),
            cwd=REPO_ROOT,
            env=environment,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    assert done.returncode == 0, done.stdout + done.stderr
    assert token not in done.stdout + done.stderr
    assert cluster.get(DAEMON_SET) is not None
    assert cluster.mutating_requests_since(mark, user=ACCOUNT_USER)
    assert cluster.requests_since(mark) == []  # nothing as the admin of a kubeconfig
    assert not Path("/run/secrets").exists()  # the mounts were the process's own
