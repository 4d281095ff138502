"""Raw JSON access to the test API server as the user of an official ``ApiClient``, for setup and assertions.

Each function takes the test's ``ApiClient`` (its server, token and CA: the admin user, whose
requests the audit counts see) and sends the request with the harness's one JSON client,
:class:`tests.harness.rest.Rest`. Independent of the product's own client
(``constructs_nld.deploy.kube``), so a test that checks what the deploy wrote does not read it
back through the code under test.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from kubernetes import client as k8s

from tests.harness.rest import ANY_STATUS, Rest

Json = dict[str, Any]

PATHS = {
    "upstream": "/api/v1/namespaces/kube-system/services/kube-dns-upstream",
    "metrics": "/api/v1/namespaces/kube-system/services/node-local-dns-metrics",
    "kube-dns": "/api/v1/namespaces/kube-system/services/kube-dns",
    "service-account": "/api/v1/namespaces/kube-system/serviceaccounts/node-local-dns",
    "config-map": "/api/v1/namespaces/kube-system/configmaps/node-local-dns",
    "daemon-set": "/apis/apps/v1/namespaces/kube-system/daemonsets/node-local-dns",
    "pod-monitor": "/apis/monitoring.coreos.com/v1/namespaces/monitoring/podmonitors/nodelocaldns",
    "prometheus-rule": "/apis/monitoring.coreos.com/v1/namespaces/monitoring/prometheusrules/nodelocaldns-alerts",
}
"""Every object a deploy writes, by a short name."""


def request(
    api: k8s.ApiClient, method: str, path: str, body: Any = None, content_type: str = "application/json"
) -> tuple[int, Json | None]:
    """Send one request; return the status and the decoded JSON body (None when empty or not JSON)."""
    # Model objects as the client sends them.
    data = None if body is None else api.sanitize_for_serialization(body)  # type: ignore[no-untyped-call]
    status, parsed = Rest.of_api_client(api).request(method, path, body=data, content_type=content_type, ok=ANY_STATUS)
    return status, parsed if isinstance(parsed, dict) else None


def get(api: k8s.ApiClient, path: str) -> Json | None:
    """The object at ``path``, or None when it does not exist."""
    status, body = request(api, "GET", path)
    if status == 404:
        return None
    assert status == 200, (path, status, body)
    return body


def create(api: k8s.ApiClient, collection: str, body: Json) -> Json:
    """POST ``body`` to ``collection``; fail the test on any error."""
    status, result = request(api, "POST", collection, body)
    assert status == 201, (collection, status, result)
    assert result is not None
    return result


def patch_status(api: k8s.ApiClient, path: str, status_body: Json) -> Json:
    """Merge-patch the status subresource (what kubelet and the controllers would write)."""
    status, result = request(api, "PATCH", f"{path}/status", {"status": status_body}, "application/merge-patch+json")
    assert status == 200, (path, status, result)
    assert result is not None
    return result


def delete(api: k8s.ApiClient, path: str) -> None:
    """Delete the object at ``path`` (already gone is fine)."""
    status, result = request(api, "DELETE", path)
    assert status in (200, 202, 404), (path, status, result)


def resource_versions(api: k8s.ApiClient) -> dict[str, str | None]:
    """The resourceVersion of every deployed object (None when absent)."""
    return {
        name: (obj or {}).get("metadata", {}).get("resourceVersion")
        for name, obj in ((name, get(api, path)) for name, path in PATHS.items())
    }


def create_kube_dns_config_map(api: k8s.ApiClient, data: dict[str, str]) -> Json:
    """Create ``kube-system/kube-dns``, the ConfigMap kube-dns users keep stub domains in; reset deletes it."""
    return create(
        api,
        "/api/v1/namespaces/kube-system/configmaps",
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "kube-dns", "labels": {"app.kubernetes.io/managed-by": "osdc-base"}},
            "data": data,
        },
    )


def service_account_token(admin: Rest, namespace: str, account: str) -> str:
    """A token of ServiceAccount ``namespace/account`` (both created if absent), from the TokenRequest API."""
    admin.request("POST", "/api/v1/namespaces", body={"metadata": {"name": namespace}}, ok=(201, 409))
    admin.request(
        "POST", f"/api/v1/namespaces/{namespace}/serviceaccounts", body={"metadata": {"name": account}}, ok=(201, 409)
    )
    _, answer = admin.request(
        "POST",
        f"/api/v1/namespaces/{namespace}/serviceaccounts/{account}/token",
        body={"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {"expirationSeconds": 3600}},
    )
    return str(answer["status"]["token"])


def kubeconfig_for(admin_kubeconfig: Path, user: str, token: str, path: Path) -> Path:
    """``admin_kubeconfig`` with ``user`` and its ``token`` in every context, written to ``path``."""
    config = yaml.safe_load(admin_kubeconfig.read_text())
    config["users"] = [{"name": user, "user": {"token": token}}]
    for context in config["contexts"]:
        context["context"]["user"] = user
    path.write_text(yaml.safe_dump(config))
    return path
