"""The Services the test bed's real kube-proxy programs: one API server per test process.

Every :class:`~tests.e2e.netns.Testbed` node runs kube-proxy v1.34.4
(:class:`tests.harness.node.KubeProxy`, built with the other binaries) in its namespace. It
programs what a real API server holds, here :class:`ServiceAPI`: a control plane (etcd and
kube-apiserver, no controllers) with

- ``kube-system/kube-dns`` at the tenth address of the service range, as AWS assigns it;
- ``kube-system/kube-dns-upstream``: the synthesized Service of the spec's props, applied as it
  is synthesized, its ClusterIP the one the bed's zone names;
- an EndpointSlice of each, with cluster CoreDNS's address (``fd01::53``, the kube-dns pod's
  IP in every bed), written as the EndpointSlice controller would (no controller runs, and
  cluster CoreDNS is no pod of this cluster);
- the Node the beds' kube-proxies run as, with the node's address, as kubelet would register it.

Every bed of a process has the same addresses (:func:`~tests.e2e.netns.allocate_cluster_ips`
of the process id), so one API server serves them all: :func:`shared` starts it on first use
(a few seconds, once) and stops it at interpreter exit. The data-plane tests that run a real kubelet bring a
cluster of their own (:mod:`tests.e2e.realnode`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from constructs_nld import NodeLocalDNSProps, defaults, synthesize
from tests.harness.controlplane import ControlPlane
from tests.harness.node import kube_proxy_user
from tests.harness.rest import Rest
from tests.harness.stack import Stack

if TYPE_CHECKING:
    from tests.e2e.netns import ClusterIPs

__all__ = ["NODE_NAME", "PROXY_USER", "ServiceAPI", "endpoint_slice", "pin_service", "service_at", "shared"]

NODE_NAME: Final = "nld-test-bed"
"""The Node every bed's kube-proxy runs as (``hostnameOverride``)."""
PROXY_USER: Final = kube_proxy_user(NODE_NAME)
"""The API user of the beds' kube-proxies."""

_NAMESPACE: Final = defaults.NAMESPACE
_SERVICES: Final = f"/api/v1/namespaces/{_NAMESPACE}/services"
_SLICES: Final = f"/apis/discovery.k8s.io/v1/namespaces/{_NAMESPACE}/endpointslices"
_DELETE: Final = {"apiVersion": "v1", "kind": "DeleteOptions", "gracePeriodSeconds": 0}


def endpoint_slice(service: str, address: str) -> dict[str, Any]:
    """An EndpointSlice of ``service`` with one ready endpoint at ``address``, ports dns (UDP) and dns-tcp."""
    return {
        "apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice",
        "metadata": {
            "name": f"{service}-test-bed",
            "namespace": _NAMESPACE,
            "labels": {
                "kubernetes.io/service-name": service,
                "endpointslice.kubernetes.io/managed-by": "nld-test-bed",
            },
        },
        "addressType": "IPv6",
        "endpoints": [{"addresses": [address], "conditions": {"ready": True}}],
        "ports": [
            {"name": "dns", "port": 53, "protocol": "UDP"},
            {"name": "dns-tcp", "port": 53, "protocol": "TCP"},
        ],
    }


def _synthesized_upstream_service() -> dict[str, Any]:
    """The kube-dns-upstream Service the spec's props synthesize."""
    (service,) = [
        obj
        for chart in synthesize(NodeLocalDNSProps())
        for obj in chart.objects
        if obj["kind"] == "Service" and obj["metadata"]["name"] == defaults.UPSTREAM_SERVICE_NAME
    ]
    return service


def service_at(live: dict[str, Any], cluster_ip: str) -> dict[str, Any]:
    """The Service ``live`` as a body to create it again, at ``cluster_ip`` (its other fields as they are)."""
    spec = {key: value for key, value in live["spec"].items() if key not in ("clusterIP", "clusterIPs")}
    metadata = {key: live["metadata"][key] for key in ("name", "namespace", "labels") if key in live["metadata"]}
    return {"apiVersion": "v1", "kind": "Service", "metadata": metadata, "spec": {**spec, "clusterIP": cluster_ip}}


def pin_service(rest: Rest, namespace: str, name: str, cluster_ip: str) -> None:
    """Service ``namespace/name`` at ``cluster_ip``: recreated there with its spec unless it is there already.

    A Service's ClusterIP is immutable, and one a test names (kube-dns at the tenth address)
    must be asked for at creation.
    """
    path = f"/api/v1/namespaces/{namespace}/services/{name}"
    live = rest.get(path)
    if live is None:
        raise LookupError(f"service {namespace}/{name} missing")
    if live["spec"].get("clusterIP") == cluster_ip:
        return
    rest.request("DELETE", path, body=_DELETE, ok=(200,))
    rest.request("POST", f"/api/v1/namespaces/{namespace}/services", body=service_at(live, cluster_ip), ok=(201,))


class ServiceAPI(Stack):
    """The API server of the beds' kube-proxies, holding the Services of :attr:`ips`; a context manager."""

    def __init__(self, ips: ClusterIPs, *, endpoint: str, node_ip: str) -> None:
        """Plan the API server: Services at ``ips``, their endpoint at ``endpoint``, the Node at ``node_ip``."""
        super().__init__()
        self.ips = ips
        self.endpoint = endpoint
        self.node_ip = node_ip
        self.control_plane = ControlPlane(component_users=(PROXY_USER,))

    @property
    def port(self) -> int:
        """The API server's port on ``127.0.0.1``."""
        return int(self.control_plane.server.rsplit(":", 1)[1])

    @property
    def kubeconfig(self) -> Path:
        """The kube-proxies' kubeconfig."""
        return self.control_plane.kubeconfig_for(PROXY_USER)

    def start_parts(self) -> None:
        """Start the control plane and write the Services, their EndpointSlices and the Node."""
        self.enter_context(self.control_plane)
        rest = self.control_plane.fixture_api()
        pin_service(rest, _NAMESPACE, "kube-dns", self.ips.kube_dns)
        upstream = _synthesized_upstream_service()
        upstream["spec"] = {**upstream["spec"], "clusterIP": self.ips.kube_dns_upstream}
        rest.request("POST", _SERVICES, body=upstream, ok=(201,))
        for service in ("kube-dns", defaults.UPSTREAM_SERVICE_NAME):
            rest.request("POST", _SLICES, body=endpoint_slice(service, self.endpoint), ok=(201,))
        node = {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": NODE_NAME, "labels": {"kubernetes.io/hostname": NODE_NAME}},
        }
        rest.request("POST", "/api/v1/nodes", body=node, ok=(201,))
        status = {"status": {"addresses": [{"type": "InternalIP", "address": self.node_ip}]}}
        rest.request(
            "PATCH",
            f"/api/v1/nodes/{NODE_NAME}/status",
            body=status,
            content_type="application/merge-patch+json",
        )


_shared: ServiceAPI | None = None


def shared(ips: ClusterIPs, *, endpoint: str, node_ip: str) -> ServiceAPI:
    """This process's :class:`ServiceAPI` (as :class:`ServiceAPI` takes them), started on first use, stopped at exit.

    Every bed of a process has the same addresses; a call with others is an error.
    """
    global _shared  # noqa: PLW0603 (one API server per process, for every bed it builds)
    if _shared is None:
        _shared = ServiceAPI(ips, endpoint=endpoint, node_ip=node_ip).start()
    if (_shared.ips, _shared.endpoint, _shared.node_ip) != (ips, endpoint, node_ip):
        raise ValueError("the test beds of one process share one API server, so they must share its addresses")
    return _shared
