"""prometheus-operator v0.93.0 against the test kube-apiserver, running as its Deployment runs.

``tools/build-binaries.sh prometheus-operator`` builds the real operator from source through
the Go module proxy; this harness runs it in the root network namespace with the in-cluster
credentials of its ServiceAccount (:mod:`tests.harness.pods`), bound to upstream's own
ClusterRole. Its CRDs other than PodMonitor and PrometheusRule (which come from
``../shared/crds``, as for every suite) and its RBAC manifests are read from the module's
download (``$(go env GOMODCACHE)/github.com/prometheus-operator/prometheus-operator@v0.93.0``),
never copied into the repository.

The operator turns a Prometheus object and the PodMonitors and PrometheusRules it selects
into what its StatefulSet mounts: the configuration Secret ``prometheus-<name>`` (gzipped)
and the rule-file ConfigMaps. :meth:`PrometheusOperator.prometheus_pod` reads them back,
with the StatefulSet's container args, for :class:`tests.harness.prometheus.Prometheus`.
"""

from __future__ import annotations

import base64
import functools
import gzip
import os
import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Self

import yaml

from tests.harness.controlplane import REPO_ROOT, ControlPlane
from tests.harness.health import http_ok
from tests.harness.pods import InCluster, InClusterCredentials, pod_argv
from tests.harness.process import Process, free_port, require_binary, wait_until

__all__ = [
    "OPERATOR_BINARY",
    "OPERATOR_VERSION",
    "PrometheusOperator",
    "PrometheusPod",
    "apply_rbac",
    "load_yaml",
    "module_dir",
    "service_account_token",
]

OPERATOR_VERSION: Final = "v0.93.0"
"""The release whose CRDs ``../shared/crds`` holds."""

OPERATOR_BINARY: Final = REPO_ROOT / ".cache" / "bin" / "prometheus-operator"
_BUILD: Final = "bash tools/build-binaries.sh prometheus-operator"
_MODULE: Final = "github.com/prometheus-operator/prometheus-operator"
_OWN_CRDS: Final = ("monitoring.coreos.com_podmonitors.yaml", "monitoring.coreos.com_prometheusrules.yaml")
_CRDS_PATH: Final = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
_RBAC: Final = "/apis/rbac.authorization.k8s.io/v1"
_MONITORING: Final = "/apis/monitoring.coreos.com/v1"


class _Loader(yaml.SafeLoader):
    """YAML 1.1 reads a bare ``=`` (an enum value in the CRDs) as the obscure ``!!value`` tag: a string here."""

    def construct_value(self, node: yaml.Node) -> str:
        """The scalar as written."""
        return str(self.construct_scalar(node))  # type: ignore[arg-type]


_Loader.add_constructor("tag:yaml.org,2002:value", _Loader.construct_value)


def load_yaml(path: Path) -> Any:
    """One YAML document, with ``=`` read as a string."""
    return yaml.load(path.read_text(), _Loader)


def module_dir() -> Path:
    """The operator module's download, or fail naming the command that fetches it."""
    cache = subprocess.run(["go", "env", "GOMODCACHE"], capture_output=True, text=True, check=True).stdout.strip()
    path = Path(cache) / f"{_MODULE}@{OPERATOR_VERSION}"
    if not path.is_dir():
        raise FileNotFoundError(f"{path} missing: run `{_BUILD}` (it downloads the module)")
    return path


def service_account_token(control_plane: ControlPlane, namespace: str, name: str) -> str:
    """A token of ServiceAccount ``namespace/name``, issued by the API server (TokenRequest), valid a day."""
    issued = control_plane.request(
        "POST",
        f"/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token",
        body={"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {"expirationSeconds": 86400}},
    )
    return str(issued["status"]["token"])


def _create(control_plane: ControlPlane, collection: str, obj: Mapping[str, Any]) -> None:
    control_plane.request("POST", collection, body=obj, ok=(201, 409))


def _in_namespace(obj: dict[str, Any], namespace: str) -> dict[str, Any]:
    """Upstream's RBAC examples live in ``default``: move the ServiceAccount and its bindings' subjects."""
    if obj["kind"] == "ServiceAccount":
        obj["metadata"]["namespace"] = namespace
    for subject in obj.get("subjects") or []:
        subject["namespace"] = namespace
    return obj


def apply_rbac(control_plane: ControlPlane, files: list[Path], namespace: str) -> None:
    """Create upstream's ServiceAccount, ClusterRole and ClusterRoleBinding manifests in ``namespace``."""
    for path in files:
        obj = _in_namespace(load_yaml(path), namespace)
        collection = {
            "ServiceAccount": f"/api/v1/namespaces/{namespace}/serviceaccounts",
            "ClusterRole": f"{_RBAC}/clusterroles",
            "ClusterRoleBinding": f"{_RBAC}/clusterrolebindings",
        }[obj["kind"]]
        _create(control_plane, collection, obj)


@dataclass(frozen=True)
class PrometheusPod:
    """What the operator generated for one Prometheus: its StatefulSet's container and its volumes' contents."""

    args: tuple[str, ...]
    """The ``prometheus`` container's args, as the StatefulSet gives them."""

    env: Mapping[str, str]
    """The config-reloader's environment: what ``$(VAR)`` in the configuration expands to."""

    config: str
    """The configuration, gunzipped from the Secret and expanded, as config-reloader writes ``prometheus.env.yaml``."""

    files: Mapping[str, str]
    """Every other file the container mounts, by path (rule files, the web configuration)."""


class PrometheusOperator(Process):
    """The operator process, as its Deployment runs it, with its CRDs and RBAC installed first."""

    health_interval = 0.2

    def __init__(
        self, control_plane: ControlPlane, workdir: Path, *, namespace: str = "monitoring", binary: Path | None = None
    ) -> None:
        """Plan the operator for ``control_plane``; :meth:`start` installs its CRDs and RBAC and runs it."""
        super().__init__("prometheus-operator", workdir / "prometheus-operator.log", grace_period=10)
        self.control_plane = control_plane
        self.workdir = workdir
        self.namespace = namespace
        self.binary = binary or OPERATOR_BINARY
        self.port = 0
        self._in_cluster: InCluster | None = None

    def start(self, *, wait: bool = True, attempts: int | None = None) -> Self:
        """Install the CRDs and RBAC, start the operator, wait for its ``/healthz``; return self."""
        require_binary(self.binary, f"run `{_BUILD}`")
        module = module_dir()
        self._install_crds(module / "example" / "prometheus-operator-crd")
        rbac = module / "example" / "rbac"
        apply_rbac(
            self.control_plane,
            [
                rbac / "prometheus-operator" / f"prometheus-operator-{kind}.yaml"
                for kind in ("service-account", "cluster-role", "cluster-role-binding")
            ],
            self.namespace,
        )
        self.workdir.mkdir(parents=True, exist_ok=True)
        credentials = InClusterCredentials(
            self.workdir / "prometheus-operator-run",
            token=service_account_token(self.control_plane, self.namespace, "prometheus-operator"),
            ca_pem=self.control_plane.ca_path.read_text(),
            namespace=self.namespace,
        )
        self._in_cluster = credentials.at("127.0.0.1", int(self.control_plane.server.rsplit(":", 1)[1]))
        return super().start(wait=wait, attempts=attempts)

    def prepare(self, attempt: int) -> None:
        """A free port for its web server."""
        self.port = free_port()

    def _credentials(self) -> InCluster:
        if self._in_cluster is None:
            raise RuntimeError("prometheus-operator: its credentials are made by start()")
        return self._in_cluster

    def argv(self) -> list[str]:
        """Upstream's Deployment args that apply here (``example/rbac/prometheus-operator/...-deployment.yaml``)."""
        return pod_argv(
            [
                str(self.binary),
                f"--web.listen-address=127.0.0.1:{self.port}",
                "--watch-referenced-objects-in-all-namespaces=true",
                "--disable-unmanaged-prometheus-configuration=true",
            ],
            namespace=None,
            in_cluster=self._credentials(),
        )

    def environment(self) -> Mapping[str, str]:
        """``PATH`` and the in-cluster variables of the ``kubernetes`` Service."""
        return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **self._credentials().environment}

    def healthy(self) -> bool:
        """``/healthz`` answers 200."""
        return http_ok(f"http://127.0.0.1:{self.port}/healthz")

    def _install_crds(self, directory: Path) -> None:
        for path in sorted(directory.glob("*.yaml")):
            if path.name not in _OWN_CRDS:
                _create(self.control_plane, _CRDS_PATH, load_yaml(path))
        for path in sorted(directory.glob("*.yaml")):
            name = load_yaml(path)["metadata"]["name"]
            wait_until(f"CRD {name} established", functools.partial(_established, self.control_plane, name), 60, 0.2)

    # ------------------------------------------------------------------ its output ---
    def prometheus_pod(self, name: str, *, timeout: float = 60) -> PrometheusPod:
        """The generated StatefulSet of Prometheus ``name``, with its Secret and ConfigMaps read back.

        Waits until the operator has written the StatefulSet and every volume it mounts.
        """
        path = f"/apis/apps/v1/namespaces/{self.namespace}/statefulsets/prometheus-{name}"
        wait_until(
            f"statefulset prometheus-{name}",
            lambda: self.control_plane.get(path) is not None,
            timeout,
            0.2,
            watch=(self,),
        )
        pod = self.control_plane.get(path)
        assert pod is not None
        spec = pod["spec"]["template"]["spec"]
        (container,) = [c for c in spec["containers"] if c["name"] == "prometheus"]
        (reloader,) = [c for c in spec["containers"] if c["name"] == "config-reloader"]
        volumes = {volume["name"]: volume for volume in spec["volumes"]}
        env = {"POD_NAME": f"prometheus-{name}-0"}
        env.update({e["name"]: e["value"] for e in reloader.get("env") or [] if "value" in e})
        config = ""
        files: dict[str, str] = {}
        for mount in container["volumeMounts"]:
            volume = volumes[mount["name"]]
            if "secret" in volume:
                data = self._wait_data("secrets", volume["secret"]["secretName"], timeout)
            elif "configMap" in volume:
                data = self._wait_data("configmaps", volume["configMap"]["name"], timeout, optional=True)
            else:
                continue  # emptyDir (data) and the projected TLS assets, empty here
            for key, value in data.items():
                target = mount["mountPath"] if mount.get("subPath") == key else f"{mount['mountPath']}/{key}"
                files[target] = value
        for mount in reloader["volumeMounts"]:
            if mount["name"] == "config":
                secret = self._wait_data("secrets", volumes["config"]["secret"]["secretName"], timeout)
                config = _expand(gzip.decompress(base64.b64decode(secret["prometheus.yaml.gz"])).decode(), env)
        decoded = {
            path: base64.b64decode(value).decode() if path.endswith("web-config.yaml") else value
            for path, value in files.items()
        }
        return PrometheusPod(args=tuple(container["args"]), env=env, config=config, files=decoded)

    def _wait_data(self, kind: str, name: str, timeout: float, *, optional: bool = False) -> dict[str, str]:
        path = f"/api/v1/namespaces/{self.namespace}/{kind}/{name}"
        found = self.control_plane.get(path)
        if found is None and not optional:
            wait_until(
                f"{kind}/{name} written by the operator",
                lambda: self.control_plane.get(path) is not None,
                timeout,
                0.2,
                watch=(self,),
            )
            found = self.control_plane.get(path)
        return dict((found or {}).get("data") or {})


_VARIABLE = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)")


def _expand(text: str, env: Mapping[str, str]) -> str:
    """config-reloader's ``--config-envsubst-file``: ``$(VAR)`` replaced by the container's variable."""
    return _VARIABLE.sub(lambda match: env.get(match.group(1), match.group(0)), text)


def _established(control_plane: ControlPlane, name: str) -> bool:
    crd = control_plane.get(f"{_CRDS_PATH}/{name}")
    conditions = (crd or {}).get("status", {}).get("conditions") or []
    return any(c.get("type") == "Established" and c.get("status") == "True" for c in conditions)
