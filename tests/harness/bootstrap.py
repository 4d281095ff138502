"""What an IPv6 EKS cluster has before anything is deployed, and the reset to it between tests.

:class:`ClusterState` makes, through the fixture user's :class:`~tests.harness.rest.Rest`,
``kube-system/kube-dns`` with an IPv6 ClusterIP, namespace ``monitoring``, the ``default``
ServiceAccounts and the prometheus-operator CRDs; :meth:`ClusterState.reset` deletes what
tests leave behind.

On a control plane without controllers nothing reconciles: deletions use
``gracePeriodSeconds=0`` and ``Background`` propagation (no kubelet or garbage collector would
ever finish a graceful or ``Orphan``/``Foreground`` deletion), finalizers nobody would remove
are stripped, and a deleted namespace is finalized by hand.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final, cast

import yaml

from tests.harness.process import wait_until
from tests.harness.rest import Rest

__all__ = [
    "CRD_FILES",
    "KUBE_DNS_PORTS",
    "KUBE_DNS_SELECTOR",
    "MANAGED_BY_SELECTOR",
    "MONITORING_GROUP",
    "MONITORING_PLURALS",
    "MONITORING_VERSION",
    "ClusterState",
]

CRD_FILES: Final = (
    "monitoring.coreos.com_podmonitors.yaml",
    "monitoring.coreos.com_prometheusrules.yaml",
)
"""CRD manifests installed at bootstrap, relative to the CRD directory."""

MONITORING_GROUP: Final = "monitoring.coreos.com"
MONITORING_VERSION: Final = "v1"
MONITORING_PLURALS: Final = ("podmonitors", "prometheusrules")

MANAGED_BY_SELECTOR: Final = "app.kubernetes.io/managed-by=osdc-base"
"""Label selector of every object the deploy tool creates (see the spec)."""

KUBE_DNS_SELECTOR: Final = {"k8s-app": "kube-dns"}
KUBE_DNS_PORTS: Final = (
    {"name": "dns", "port": 53, "protocol": "UDP", "targetPort": 53},
    {"name": "dns-tcp", "port": 53, "protocol": "TCP", "targetPort": 53},
)

_CRDS_PATH: Final = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
_MONITORING_PATH: Final = f"/apis/{MONITORING_GROUP}/{MONITORING_VERSION}"
_KUBE_DNS_PATH: Final = "/api/v1/namespaces/kube-system/services/kube-dns"
# Immediate deletion: grace 0 because no kubelet confirms a graceful Pod deletion, and
# Background because Orphan/Foreground add finalizers only the garbage collector removes.
_DELETE_OPTIONS: Final = {
    "apiVersion": "v1",
    "kind": "DeleteOptions",
    "gracePeriodSeconds": 0,
    "propagationPolicy": "Background",
}
# Collections in kube-system whose objects labelled MANAGED_BY_SELECTOR reset() deletes.
# Pods are not listed here: reset() deletes every Pod in kube-system.
_MANAGED_COLLECTIONS: Final = (
    "/api/v1/namespaces/kube-system/services",
    "/api/v1/namespaces/kube-system/configmaps",
    "/api/v1/namespaces/kube-system/serviceaccounts",
    "/apis/apps/v1/namespaces/kube-system/daemonsets",
)
# Namespaces that get a `default` ServiceAccount, as the absent controller-manager would create.
_BOOTSTRAP_NAMESPACES: Final = ("default", "kube-system", "monitoring")


def _is_bootstrap_kube_dns(service: Mapping[str, Any]) -> bool:
    """Tell whether kube-dns still has the bootstrap selector, ports and IPv6 family."""
    spec = service.get("spec", {})
    ports = {(p.get("name"), p.get("port"), p.get("protocol"), p.get("targetPort")) for p in spec.get("ports", [])}
    expected = {(p["name"], p["port"], p["protocol"], p["targetPort"]) for p in KUBE_DNS_PORTS}
    return (
        spec.get("ipFamilies") == ["IPv6"]
        and spec.get("ipFamilyPolicy") == "SingleStack"
        and spec.get("selector") == KUBE_DNS_SELECTOR
        and ports == expected
    )


def _crd_established(rest: Rest, path: str) -> bool:
    crd = rest.get(path)
    conditions = (crd or {}).get("status", {}).get("conditions") or []
    return any(c.get("type") == "Established" and c.get("status") == "True" for c in conditions)


class ClusterState:
    """The bootstrap objects of the cluster behind ``rest``, and the reset to them.

    Parameters:
        rest: The fixture user's client.
        crd_dir: Directory holding :data:`CRD_FILES`.
        timeout: Seconds each wait (an object gone, a CRD served) may take.
    """

    def __init__(self, rest: Rest, crd_dir: Path, *, timeout: float) -> None:
        """Act through ``rest``; nothing is sent until asked."""
        self.rest = rest
        self.crd_dir = crd_dir
        self.timeout = timeout

    def bootstrap(self) -> None:
        """Make the objects an IPv6 EKS cluster has; return once the CRDs are served."""
        # The apiserver creates kube-system itself, shortly after /readyz turns ok.
        wait_until(
            "namespace kube-system",
            lambda: self.rest.get("/api/v1/namespaces/kube-system") is not None,
            self.timeout,
        )
        self.ensure_namespace("monitoring")
        self.ensure_default_service_accounts()
        self.ensure_kube_dns()
        self.install_crds()

    def reset(self, *, nodes: bool = True) -> None:
        """Return the cluster to its bootstrap state; CRDs stay (or are put back); ``nodes=False`` keeps the Nodes.

        Deletes, and waits until gone: objects labelled :data:`MANAGED_BY_SELECTOR` in
        kube-system (Services, ConfigMaps, ServiceAccounts, DaemonSets), Service
        ``kube-system/kube-dns-upstream`` whatever its labels, every Pod in kube-system,
        every Node, every PodMonitor and PrometheusRule in ``monitoring``, the deploy's ApplySet
        parent and the ConfigMaps of its set, the release history's ConfigMap. Recreates
        ``kube-system/kube-dns`` (IPv6 SingleStack) if it is missing or drifted, and the
        ``monitoring`` namespace and ``default`` ServiceAccounts if missing.
        """
        self.ensure_namespace("monitoring")
        self.install_crds()
        for collection in _MANAGED_COLLECTIONS:
            self.delete_collection(collection, label_selector=MANAGED_BY_SELECTOR)
        self.delete_collection(
            "/api/v1/namespaces/kube-system/services", field_selector="metadata.name=kube-dns-upstream"
        )
        # The deploy's ApplySet parent (it carries the set's id, not the app's labels), and what
        # a test's app put in the set beside NodeLocal DNS.
        for namespace in ("kube-system", "monitoring"):
            for selector in ("applyset.kubernetes.io/id", "applyset.kubernetes.io/part-of"):
                self.delete_collection(f"/api/v1/namespaces/{namespace}/configmaps", label_selector=selector)
        # The release history the deploy keeps beside them (constructs_nld.deploy.history).
        self.delete_collection(
            "/api/v1/namespaces/kube-system/configmaps", field_selector="metadata.name=node-local-dns-history"
        )
        self.delete_collection("/api/v1/namespaces/kube-system/pods")
        if nodes:
            self.delete_collection("/api/v1/nodes")
        for plural in MONITORING_PLURALS:
            self.delete_collection(f"{_MONITORING_PATH}/namespaces/monitoring/{plural}")
        self.ensure_default_service_accounts()
        self.ensure_kube_dns()

    # --------------------------------------------------------------------- objects ---
    def ensure_namespace(self, name: str) -> None:
        """Create namespace ``name`` if absent; finish its deletion by hand first if it is terminating."""
        path = f"/api/v1/namespaces/{name}"
        current = self.rest.get(path)
        if current is not None and current["metadata"].get("deletionTimestamp"):
            # A deleted namespace stays Terminating without a namespace controller: do
            # its last step (empty spec.finalizers, delete again) by hand.
            current["spec"] = {"finalizers": []}
            self.rest.request("PUT", f"{path}/finalize", body=current, ok=(200, 404, 409))
            self.rest.request("DELETE", path, body=_DELETE_OPTIONS, ok=(200, 202, 404))
            self.wait_gone(path)
            current = None
        if current is None:
            self.rest.request(
                "POST",
                "/api/v1/namespaces",
                body={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}},
                ok=(201, 409),
            )

    def ensure_default_service_accounts(self) -> None:
        """The ``default`` ServiceAccounts the absent controller-manager would create (Pods need them)."""
        for namespace in _BOOTSTRAP_NAMESPACES:
            self.rest.request(
                "POST",
                f"/api/v1/namespaces/{namespace}/serviceaccounts",
                body={"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "default"}},
                ok=(201, 409),
            )

    def ensure_kube_dns(self) -> None:
        """``kube-system/kube-dns`` as EKS has it, IPv6 SingleStack; recreated if missing or drifted."""
        current = self.rest.get(_KUBE_DNS_PATH)
        if current is not None and not _is_bootstrap_kube_dns(current):
            self.rest.request("DELETE", _KUBE_DNS_PATH, body=_DELETE_OPTIONS, ok=(200, 202, 404))
            self.wait_gone(_KUBE_DNS_PATH)
            current = None
        if current is None:
            self.rest.request(
                "POST",
                "/api/v1/namespaces/kube-system/services",
                body={
                    "apiVersion": "v1",
                    "kind": "Service",
                    "metadata": {
                        "name": "kube-dns",
                        "namespace": "kube-system",
                        "labels": {"k8s-app": "kube-dns", "kubernetes.io/name": "CoreDNS"},
                    },
                    "spec": {
                        "selector": dict(KUBE_DNS_SELECTOR),
                        "ports": [dict(p) for p in KUBE_DNS_PORTS],
                        "ipFamilyPolicy": "SingleStack",
                        "ipFamilies": ["IPv6"],
                    },
                },
            )

    # ------------------------------------------------------------------------ CRDs ---
    def _crd_manifests(self) -> list[dict[str, Any]]:
        manifests: list[dict[str, Any]] = []
        for name in CRD_FILES:
            path = self.crd_dir / name
            try:
                manifests.append(cast("dict[str, Any]", yaml.safe_load(path.read_text())))
            except FileNotFoundError:
                raise RuntimeError(
                    f"CRD manifest {path} not found; CRDs are read from shared/crds "
                    "beside the repository (pass crd_dir= to use another directory)"
                ) from None
        return manifests

    def install_crds(self) -> None:
        """Create the PodMonitor and PrometheusRule CRDs if absent; wait until served.

        Returns once both are Established and their resources are listed in (and
        answer on) ``/apis/monitoring.coreos.com/v1``.
        """
        for crd in self._crd_manifests():
            path = f"{_CRDS_PATH}/{crd['metadata']['name']}"
            current = self.rest.get(path)
            if current is not None and current["metadata"].get("deletionTimestamp"):
                self.wait_gone(path)
                current = None
            if current is None:
                self.rest.request("POST", _CRDS_PATH, body=crd)
            wait_until(
                f"CRD {crd['metadata']['name']} Established",
                functools.partial(_crd_established, self.rest, path),
                self.timeout,
            )
        wait_until(f"{MONITORING_GROUP}/{MONITORING_VERSION} served", self._monitoring_api_served, self.timeout)

    def uninstall_crds(self) -> None:
        """Delete both CRDs (and so all their objects); wait until the group is gone."""
        for crd in self._crd_manifests():
            path = f"{_CRDS_PATH}/{crd['metadata']['name']}"
            self.rest.request("DELETE", path, ok=(200, 202, 404))
            self.wait_gone(path)
        wait_until(
            f"{MONITORING_GROUP}/{MONITORING_VERSION} no longer served",
            lambda: self.rest.get(_MONITORING_PATH) is None,
            self.timeout,
        )

    def _monitoring_api_served(self) -> bool:
        group_version = self.rest.get(_MONITORING_PATH)
        if group_version is None:
            return False
        served = {r.get("name") for r in group_version.get("resources", [])}
        if not set(MONITORING_PLURALS) <= served:
            return False
        # Discovery can list a resource a moment before its handler answers.
        return all(
            self.rest.get(f"{_MONITORING_PATH}/namespaces/monitoring/{plural}") is not None
            for plural in MONITORING_PLURALS
        )

    # ------------------------------------------------------------------- deletions ---
    def delete_collection(self, collection: str, *, label_selector: str = "", field_selector: str = "") -> None:
        """Delete every listed object, stripping finalizers; wait until all are gone."""
        query = {k: v for k, v in (("labelSelector", label_selector), ("fieldSelector", field_selector)) if v}
        items = self.rest.items(collection, **query)
        for item in items:
            path = f"{collection}/{item['metadata']['name']}"
            if item["metadata"].get("finalizers"):
                self._strip_finalizers(path)
            self.rest.request("DELETE", path, body=_DELETE_OPTIONS, ok=(200, 202, 404))
        if items:
            wait_until(
                f"{collection}?{query} to be empty", lambda: not self.rest.items(collection, **query), self.timeout
            )

    def _strip_finalizers(self, path: str) -> None:
        self.rest.request(
            "PATCH",
            path,
            body={"metadata": {"finalizers": None}},
            content_type="application/merge-patch+json",
            ok=(200, 404),
        )

    def wait_gone(self, path: str) -> None:
        """Wait until the object at ``path`` is deleted, removing finalizers no controller here would."""

        def gone() -> bool:
            current = self.rest.get(path)
            if current is None:
                return True
            # Only the CRD finalizer has a controller here (inside the apiserver), so
            # it is left to run; any other finalizer would block forever and is removed.
            if (
                current["metadata"].get("deletionTimestamp")
                and current["metadata"].get("finalizers")
                and not path.startswith("/apis/apiextensions.k8s.io/")
            ):
                self._strip_finalizers(path)
            return False

        wait_until(f"{path} to be deleted", gone, self.timeout)
