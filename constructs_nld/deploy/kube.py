"""A small typed client for the few API calls a deploy makes, over the official client's transport.

The official client's generated methods cover one kind each and hide the request
shape; a deploy needs the same four verbs on seven kinds (two of them custom), with
server-side apply and server-side dry run. The transport, auth and kubeconfig handling
stay the official client's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import quote

from kubernetes import config as kube_config
from kubernetes.client import ApiClient
from kubernetes.client.exceptions import ApiException

from constructs_nld.deploy.errors import ApiUnreachableError

__all__ = ["FIELD_MANAGER", "KubeClient", "Manifest", "ObjectRef", "ResourceType", "load_client"]

Manifest = dict[str, Any]
"""One Kubernetes object as plain data."""

FIELD_MANAGER: Final = "nld-deploy"
"""Field manager of our server-side applies: the fields it owns are ours to change or remove."""


@dataclass(frozen=True)
class ResourceType:
    """Where a kind lives in the API."""

    api_version: str
    kind: str
    plural: str

    def collection_path(self, namespace: str | None) -> str:
        """URL path of the collection, namespaced when ``namespace`` is given."""
        prefix = f"/api/{self.api_version}" if "/" not in self.api_version else f"/apis/{self.api_version}"
        if namespace is None:
            return f"{prefix}/{self.plural}"
        return f"{prefix}/namespaces/{quote(namespace)}/{self.plural}"


_TYPES: Final = {
    (t.api_version, t.kind): t
    for t in (
        ResourceType("v1", "Service", "services"),
        ResourceType("v1", "ServiceAccount", "serviceaccounts"),
        ResourceType("v1", "ConfigMap", "configmaps"),
        ResourceType("v1", "Pod", "pods"),
        ResourceType("v1", "Node", "nodes"),
        ResourceType("apps/v1", "DaemonSet", "daemonsets"),
        ResourceType("monitoring.coreos.com/v1", "PodMonitor", "podmonitors"),
        ResourceType("monitoring.coreos.com/v1", "PrometheusRule", "prometheusrules"),
    )
}


def resource_type(api_version: str, kind: str) -> ResourceType:
    """The resource type of ``kind``; only the kinds this component uses are known."""
    try:
        return _TYPES[(api_version, kind)]
    except KeyError:
        raise ValueError(f"kind: {api_version} {kind} is not a kind this deploy manages") from None


@dataclass(frozen=True)
class ObjectRef:
    """Identity of one object."""

    api_version: str
    kind: str
    namespace: str | None
    name: str

    @classmethod
    def of(cls, manifest: Mapping[str, Any]) -> ObjectRef:
        """The identity of a manifest."""
        metadata = manifest["metadata"]
        return cls(manifest["apiVersion"], manifest["kind"], metadata.get("namespace"), metadata["name"])

    @property
    def path(self) -> str:
        """URL path of the object."""
        return f"{resource_type(self.api_version, self.kind).collection_path(self.namespace)}/{quote(self.name)}"

    def __str__(self) -> str:
        """``kind/namespace/name``, as in the step lines."""
        where = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind.lower()}/{where}{self.name}"


class KubeClient:
    """GET, LIST, server-side apply and merge patch, raising ``ApiException`` on HTTP errors."""

    def __init__(self, api_client: ApiClient, *, timeout: float = 30.0) -> None:
        """Wrap a configured ``kubernetes.client.ApiClient``."""
        self._api = api_client
        self._timeout = timeout

    def _request(
        self,
        method: str,
        path: str,
        *,
        query: list[tuple[str, str]] | None = None,
        body: Any = None,
        content_type: str | None = None,
    ) -> Any:
        headers = {"Accept": "application/json"}
        if content_type:
            headers["Content-Type"] = content_type
        method, url, headers, body, _ = self._api.param_serialize(
            method=method,
            resource_path=path,
            query_params=query or [],
            header_params=headers,
            body=body,
            auth_settings=["BearerToken"],
        )
        try:
            response = self._api.call_api(method, url, header_params=headers, body=body, _request_timeout=self._timeout)
        except ApiException as error:
            if error.status:
                raise
            raise self._unreachable(error) from error
        except Exception as error:  # urllib3's connection errors have no common base worth naming
            raise self._unreachable(error) from error
        data = response.read()  # type: ignore[no-untyped-call]
        text = data.decode("utf-8") if data else ""
        if not 200 <= response.status <= 299:
            raise ApiException.from_response(http_resp=response, body=text, data=None)
        return json.loads(text) if text else None

    def _unreachable(self, error: Exception) -> ApiUnreachableError:
        return ApiUnreachableError(f"cannot reach the API server at {self._api.configuration.host}: {error}")

    def get(self, ref: ObjectRef) -> Manifest | None:
        """The live object, or None when it does not exist."""
        try:
            result: Manifest = self._request("GET", ref.path)
        except ApiException as error:
            if error.status == 404:
                return None
            raise
        return result

    def list(self, api_version: str, kind: str, namespace: str | None, *, label_selector: str = "") -> list[Manifest]:
        """Every object of ``kind`` in ``namespace`` (or the cluster when None)."""
        query = [("labelSelector", label_selector)] if label_selector else []
        result = self._request("GET", resource_type(api_version, kind).collection_path(namespace), query=query)
        items: list[Manifest] = result.get("items", [])
        for item in items:
            item.setdefault("apiVersion", api_version)
            item.setdefault("kind", kind)
        return items

    def apply(self, manifest: Manifest, *, dry_run: bool = False) -> Manifest:
        """Server-side apply ``manifest`` as :data:`FIELD_MANAGER`, forcing ownership of our fields."""
        query = [("fieldManager", FIELD_MANAGER), ("force", "true")]
        if dry_run:
            query.append(("dryRun", "All"))
        result: Manifest = self._request(
            "PATCH",
            ObjectRef.of(manifest).path,
            query=query,
            body=manifest,
            content_type="application/apply-patch+yaml",
        )
        return result

    def merge_patch(
        self, ref: ObjectRef, patch: Mapping[str, Any], *, field_manager: str, dry_run: bool = False
    ) -> Manifest:
        """JSON merge patch of ``ref``, owned by ``field_manager``."""
        query = [("fieldManager", field_manager)]
        if dry_run:
            query.append(("dryRun", "All"))
        result: Manifest = self._request(
            "PATCH", ref.path, query=query, body=dict(patch), content_type="application/merge-patch+json"
        )
        return result

    def served_resources(self, group_version: str) -> set[str] | None:
        """The resource plurals served under ``group_version``, or None when the group is not served."""
        try:
            result = self._request("GET", f"/apis/{group_version}")
        except ApiException as error:
            if error.status == 404:
                return None
            raise
        return {resource["name"] for resource in result.get("resources", [])}


def load_client(kubeconfig: str | None, context: str | None, *, timeout: float) -> KubeClient:
    """A client for ``context`` of ``kubeconfig`` (default: ``$KUBECONFIG`` or ``~/.kube/config``)."""
    try:
        api_client = kube_config.new_client_from_config(  # type: ignore[no-untyped-call]
            config_file=kubeconfig, context=context, persist_config=False
        )
    except (kube_config.ConfigException, OSError) as error:
        raise ApiUnreachableError(f"cannot load kubeconfig: {error}") from error
    return KubeClient(api_client, timeout=timeout)
