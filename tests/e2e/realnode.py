"""The data-plane test bed's node run by a real kubelet: the synthesized DaemonSet as a cluster runs it.

:class:`RealNodeBed` is the test bed of :mod:`tests.e2e.netns` (node, pod and cluster-DNS
namespaces, cluster CoreDNS) whose node is a real one (:class:`tests.harness.node.RealNode`):
containerd and kubelet v1.34.4 in the node's namespace, registered with the simulated
cluster's API server, where the real DaemonSet controller and scheduler give it the pod of
the synthesized DaemonSet; and the real kube-proxy v1.34.4, in iptables or nftables mode,
programming the kube-dns and kube-dns-upstream ClusterIPs from the real Services and their
EndpointSlices. By default the EndpointSlices name cluster CoreDNS's address (``fd01::53``, the
kube-dns pod's IP): no endpoint controller runs, and cluster CoreDNS is no pod of this
cluster, so the bed writes them as the EndpointSlice controller would. With
:class:`ClusterDNSPod` s, the real EndpointSlice controller writes them instead: each cluster
CoreDNS (one process each in the bed's cluster-dns namespace) is a ``hostNetwork`` pod on a
node of its zone that kwok plays, the node's InternalIP its address; the real nodes can carry a
zone label of their own, as kube-proxy reads it for the zone hints.

The synthesized objects are applied by ``deploy`` unchanged but for one flag, added by
:func:`setup_interface_off` and nowhere else: ``-setupinterface=false``. This kernel has no
dummy interfaces, so node-cache cannot create ``nodelocaldns``; ``fd00::10`` and the kube-dns
ClusterIP sit on the node's ``lo`` instead (local delivery, as on the dummy interface). A
pre-made interface of that name does not survive a rolling restart: node-cache deletes it
when it stops.

The images come from :mod:`tests.harness.images` (pause, and node-cache's image around the
binary the data-plane tests find); without that binary the tests are skipped.
"""

from __future__ import annotations

import contextlib
import copy
import ipaddress
import json
import os
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from constructs_nld import NodeLocalDNSProps, defaults, synthesize
from constructs_nld.deploy import DeployOptions, DeployReport, deploy, load_client, open_session, props_source, verify
from constructs_nld.deploy.checks import CheckResult
from constructs_nld.deploy.source import AppChart, AppSource
from tests.e2e import probes
from tests.e2e.netns import (
    CLUSTER_COREDNS_METRICS_PORT,
    KUBE_DNS_ENDPOINT,
    NODE_UPLINK_IP,
    SERVICE_CIDR,
    ClusterIPs,
    Testbed,
    allocate_cluster_ips,
)
from tests.e2e.serviceapi import endpoint_slice, pin_service
from tests.fleet import FleetNode
from tests.harness.components import CONTROLLERS
from tests.harness.images import ImageArchive, node_cache_image, pause_image
from tests.harness.node import KubeProxy, ProxyMode, RealNode, kube_proxy_user, node_user
from tests.harness.process import wait_until
from tests.harness.rest import Rest
from tests.harness.socat import Bridge
from tests.harness.stack import Stack
from tests.simcluster import SimulatedCluster

__all__ = [
    "IMAGE_DIR",
    "NODE_NAME",
    "MAX_REAL_NODES",
    "SERVED_NAMES",
    "ClusterDNSPod",
    "Deployed",
    "PodSpecChange",
    "RealNodeBed",
    "node_images",
    "node_name",
    "node_users",
    "environ",
    "is_ready",
    "kubectl_objects",
    "proc_status",
    "real_node",
    "real_nodes",
    "setup_interface_off",
]

NODE_NAME: Final = "nld-node-0"
"""The first real node's name; the next are ``nld-node-1``, ``nld-node-2``."""
MAX_REAL_NODES: Final = 3
"""The most real nodes a cluster of the suite runs (each about 150 MiB and a second of start)."""


def node_name(index: int) -> str:
    """The name of the real node ``index`` of a cluster."""
    return f"nld-node-{index}"


def node_users(count: int) -> tuple[str, ...]:
    """The API users of ``count`` real nodes' kubelets and kube-proxies."""
    return tuple(user for i in range(count) for user in (node_user(node_name(i)), kube_proxy_user(node_name(i))))


IMAGE_DIR: Final = Path(os.environ.get("NLD_IMAGE_DIR", "/tmp/nld-test-images"))
"""Where the tests build the node's images (``$NLD_IMAGE_DIR``), kept across runs."""
SERVED_NAMES: Final = ("kubernetes.default.svc.cluster.local", "kube-dns.kube-system.svc.cluster.local")
"""Names the bed's cluster CoreDNS serves: its zone holds only the API server's Services."""

_NAMESPACE: Final = defaults.NAMESPACE
_PODS: Final = f"/api/v1/namespaces/{_NAMESPACE}/pods"
_SLICES: Final = f"/apis/discovery.k8s.io/v1/namespaces/{_NAMESPACE}/endpointslices"
_UNUSED_CLUSTER_IP: Final = str(SERVICE_CIDR.broadcast_address - 1)
"""The zone's record for kube-dns-upstream before the API server allocates it (never queried)."""


@dataclass(frozen=True)
class ClusterDNSPod:
    """A cluster CoreDNS as a pod of the cluster: its address in the bed's cluster-dns namespace, its node's zone."""

    address: str
    zone: str

    @property
    def name(self) -> str:
        """The kube-dns pod's name."""
        return f"coredns-{self.zone}"

    @property
    def node(self) -> FleetNode:
        """The node it runs on: kwok plays it; tainted, so no DaemonSet pod of the tests lands there."""
        name = f"cluster-dns-{self.address.replace(':', '-')}"
        return FleetNode(
            name,
            "dedicated",
            {"kubernetes.io/hostname": name, defaults.ZONE_LABEL: self.zone},
            ({"key": "nld.test/cluster-dns", "value": "true", "effect": "NoSchedule"},),
            address=self.address,
        )

    def manifest(self) -> dict[str, Any]:
        """The kube-dns pod: ``hostNetwork``, so kwok gives it its node's address, as the bed's CoreDNS has."""
        ports = [
            {"name": "dns", "containerPort": 53, "protocol": "UDP"},
            {"name": "dns-tcp", "containerPort": 53, "protocol": "TCP"},
            {"name": "metrics", "containerPort": CLUSTER_COREDNS_METRICS_PORT, "protocol": "TCP"},
        ]
        return {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": self.name,
                "namespace": _NAMESPACE,
                "labels": dict(defaults.KUBE_DNS_SELECTOR),
            },
            "spec": {
                "nodeName": self.node.name,
                "hostNetwork": True,
                "tolerations": [{"operator": "Exists"}],
                "containers": [{"name": "coredns", "image": "coredns/coredns:1.13.2", "ports": ports}],
            },
        }


def place_cluster_dns(rest: Rest, pods: tuple[ClusterDNSPod, ...]) -> None:
    """Create the kube-dns pods of ``pods`` (those missing) and wait until kwok reports each Ready at its address."""
    for pod in pods:
        rest.request("POST", _PODS, body=pod.manifest(), ok=(201, 409))

    def running() -> bool:
        selector = ",".join(f"{key}={value}" for key, value in defaults.KUBE_DNS_SELECTOR.items())
        live = {p["metadata"]["name"]: p for p in rest.items(_PODS, labelSelector=selector)}
        return all(
            (p := live.get(pod.name)) is not None and is_ready(p) and p["status"].get("podIP") == pod.address
            for pod in pods
        )

    wait_until("the kube-dns pods to run at their addresses", running, 60, 0.2)


def node_images(directory: Path, node_cache: Path) -> list[ImageArchive]:
    """pause and the image of the ``node_cache`` binary under the manifests' name, built once into ``directory``."""
    return [pause_image(directory), node_cache_image(directory, name=defaults.IMAGE, node_cache=node_cache)]


@contextlib.contextmanager
def real_nodes(
    workdir: Path,
    images: list[ImageArchive],
    count: int,
    *,
    proxy_mode: ProxyMode = "iptables",
    max_restart_period: int | None = None,
    zone: str | None = None,
    cluster_dns: tuple[ClusterDNSPod, ...] = (),
) -> Iterator[tuple[RealNodeBed, ...]]:
    """A simulated cluster (kwok for its simulated nodes) with ``count`` real nodes, a bed each; torn down after.

    ``max_restart_period``: kubelet's longest crash-loop back-off, in seconds
    (:class:`tests.harness.node.Kubelet`); default: kubelet's own. ``zone``: the real nodes'
    ``topology.kubernetes.io/zone``; default: none. ``cluster_dns``: cluster CoreDNS as pods,
    the first at :data:`~tests.e2e.netns.KUBE_DNS_ENDPOINT`, with the real EndpointSlice
    controller writing the slices (default: one CoreDNS, its slices written by the bed).

    Each real node has its namespaces, cluster CoreDNS, containerd, kubelet and kube-proxy;
    they share the cluster's API server, controllers and scheduler, as the nodes of one
    cluster do, and :meth:`RealNodeBed.reset` of any one resets the cluster for all.
    """
    if not 1 <= count <= MAX_REAL_NODES:
        raise ValueError(f"count: 1 to {MAX_REAL_NODES} real nodes, got {count}")
    with contextlib.ExitStack() as stack:
        controllers = (*CONTROLLERS, "endpointslice-controller") if cluster_dns else CONTROLLERS
        sim = stack.enter_context(SimulatedCluster(node_users=node_users(count), controllers=controllers))
        if cluster_dns:
            sim.add_nodes(pod.node for pod in cluster_dns)
            place_cluster_dns(sim.control_plane.fixture_api(), cluster_dns)
        beds = tuple(
            stack.enter_context(
                RealNodeBed(
                    sim,
                    workdir / node_name(i),
                    images,
                    name=node_name(i),
                    proxy_mode=proxy_mode,
                    max_restart_period=max_restart_period,
                    zone=zone,
                    cluster_dns=cluster_dns,
                )
            )
            for i in range(count)
        )
        yield beds


@contextlib.contextmanager
def real_node(
    workdir: Path,
    images: list[ImageArchive],
    *,
    proxy_mode: ProxyMode = "iptables",
    max_restart_period: int | None = None,
) -> Iterator[RealNodeBed]:
    """A simulated cluster with one real node, and the bed of that node, torn down after (see :func:`real_nodes`)."""
    with real_nodes(workdir, images, 1, proxy_mode=proxy_mode, max_restart_period=max_restart_period) as (bed,):
        yield bed


PodSpecChange = Callable[[dict[str, Any]], None]
"""A test's own change to the pod template's spec, made after the bed's and named in that test."""


def _on_the_bed(obj: dict[str, Any], change: PodSpecChange | None) -> dict[str, Any]:
    """``obj`` as the bed runs it: a DaemonSet's node-cache gets ``-setupinterface=false``, then ``change``."""
    if obj["kind"] == "DaemonSet":
        spec = obj["spec"]["template"]["spec"]
        for container in spec["containers"]:
            if "-localip" in (container.get("args") or []):
                container["args"].append("-setupinterface=false")
        if change is not None:
            change(spec)
    return obj


def setup_interface_off(source: AppSource, change: PodSpecChange | None = None) -> AppSource:
    """``source`` with ``-setupinterface=false`` added to node-cache's args: the bed's only change (and ``change``)."""

    def synthesize(cluster_ip: str | None) -> tuple[AppChart, ...]:
        charts = tuple(source(cluster_ip))
        for chart in charts:
            for obj in chart.objects:
                _on_the_bed(obj, change)
        return charts

    return synthesize


def environ(pid: int) -> dict[str, str]:
    """The environment of process ``pid``."""
    pairs = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(p.decode().split("=", 1) for p in pairs if b"=" in p)


_COLLECTIONS: Final = {
    "ConfigMap": "/api/v1/namespaces/{namespace}/configmaps",
    "Service": "/api/v1/namespaces/{namespace}/services",
    "ServiceAccount": "/api/v1/namespaces/{namespace}/serviceaccounts",
    "DaemonSet": "/apis/apps/v1/namespaces/{namespace}/daemonsets",
}


def kubectl_objects(props: NodeLocalDNSProps) -> list[dict[str, Any]]:
    """The objects of the synth of ``props`` that ``kubectl apply`` of its services and workload would write.

    A test applies them with :meth:`RealNodeBed.apply` to run what ``deploy`` refuses.
    """
    return [obj for chart in synthesize(props) for obj in chart.objects if obj["kind"] in _COLLECTIONS]


@dataclass(frozen=True)
class Deployed:
    """What a deploy reported, and its lines."""

    report: DeployReport
    output: str


def proc_status(pid: int) -> dict[str, str]:
    """The fields of ``/proc/PID/status``."""
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    return {key: value.strip() for key, _, value in (line.partition(":") for line in lines)}


def is_ready(pod: dict[str, Any]) -> bool:
    """``pod`` reports its Ready condition True (every container ready) and is not being deleted."""
    conditions = pod["status"].get("conditions") or []
    return not pod["metadata"].get("deletionTimestamp") and any(
        c["type"] == "Ready" and c["status"] == "True" for c in conditions
    )


def _cri_text(log: str) -> str:
    """The text of kubelet's CRI log lines (``<time> <stream> <tag> <text>``)."""
    return "\n".join(line.split(" ", 3)[-1] for line in log.splitlines())


class RealNodeBed(Stack):
    """The test bed with the real node ``name``, on ``sim`` (which must know its :func:`node_users`); a context manager.

    ``proxy_mode`` picks kube-proxy's mode; ``zone`` and ``cluster_dns`` as :func:`real_nodes` says.
    :meth:`deploy` runs ``deploy`` on an app;
    :meth:`close` deletes the DaemonSet and waits for its pods to go (kubelet stops them as on
    any node), then stops the node and the bed.
    """

    def __init__(
        self,
        sim: SimulatedCluster,
        workdir: Path,
        images: list[ImageArchive],
        *,
        name: str = NODE_NAME,
        proxy_mode: ProxyMode = "iptables",
        max_restart_period: int | None = None,
        zone: str | None = None,
        cluster_dns: tuple[ClusterDNSPod, ...] = (),
    ) -> None:
        """Plan the bed; :meth:`start` builds it."""
        super().__init__()
        self.sim = sim
        self.name = name
        self.rest = sim.control_plane.fixture_api()
        self.ips: ClusterIPs
        self.workdir = workdir
        self.images = images
        self.proxy_mode = proxy_mode
        self.max_restart_period = max_restart_period
        self.zone = zone
        self.cluster_dns = cluster_dns
        self.bed: Testbed
        self.node: RealNode
        self.proxy: KubeProxy

    def _service_ip(self, namespace: str, name: str) -> str:
        service = self.rest.get(f"/api/v1/namespaces/{namespace}/services/{name}")
        assert service is not None, f"service {namespace}/{name} missing"
        return str(ipaddress.ip_address(service["spec"]["clusterIP"]))

    def start_parts(self) -> None:
        """Build the namespaces and cluster DNS, bridge the API server into the node, start the node."""
        control_plane = self.sim.control_plane
        allocated = allocate_cluster_ips(os.getpid())
        pin_service(self.rest, _NAMESPACE, "kube-dns", allocated.kube_dns)
        self.ips = ips = ClusterIPs(
            kubernetes=self._service_ip("default", "kubernetes"),
            kube_dns=self._service_ip(_NAMESPACE, "kube-dns"),
            kube_dns_upstream=_UNUSED_CLUSTER_IP,
            others=allocated.others,
        )
        endpoints = tuple(pod.address for pod in self.cluster_dns) or (KUBE_DNS_ENDPOINT,)
        self.bed = self.enter_context(Testbed(workdir=self.workdir / "bed", ips=ips, cluster_dns_endpoints=endpoints))
        for service in () if self.cluster_dns else ("kube-dns", defaults.UPSTREAM_SERVICE_NAME):
            self.rest.request("POST", _SLICES, body=endpoint_slice(service, KUBE_DNS_ENDPOINT), ok=(201, 409))
            self.at_close(self.rest.request, "DELETE", f"{_SLICES}/{service}-test-bed", ok=(200, 202, 404))
        port = int(control_plane.server.rsplit(":", 1)[1])
        bridge = Bridge(
            listen_namespace=self.bed.node,
            listen=("127.0.0.1", port),
            target_namespace=None,
            target=("127.0.0.1", port),
            directory=self.workdir / "bridge",
        )
        self.enter_context(bridge)
        resolv = self.bed.node.etc_dir / "resolv.conf"
        binaries = control_plane.cache_dir / "bin"
        self.proxy = proxy = KubeProxy(
            name=self.name,
            netns=self.bed.node.name,
            mode=self.proxy_mode,
            directory=self.workdir / "kube-proxy",
            binary=binaries / "kube-proxy",
            kubeconfig=control_plane.kubeconfig_for(kube_proxy_user(self.name)),
        )
        self.node = self.enter_context(
            RealNode(
                name=self.name,
                netns=self.bed.node.name,
                node_ip=NODE_UPLINK_IP,
                directory=self.workdir / "node",
                kubelet_binary=binaries / "kubelet",
                kubeconfig=control_plane.kubeconfig_for(node_user(self.name)),
                rest=self.rest,
                images=self.images,
                resolv_conf=resolv,
                cluster_dns=ips.kube_dns,
                proxy=proxy,
                max_restart_period=self.max_restart_period,
            )
        )
        self.at_close(self.delete_daemon_sets)
        if self.zone is not None:
            self.label_zone(self.zone)
        self.wait_for("kube-proxy to program kube-dns", lambda: self.proxy.programs(ips.kube_dns), 60)

    def label_zone(self, zone: str) -> None:
        """Put the node in ``zone`` (its ``topology.kubernetes.io/zone``), as kube-proxy reads it for the zone hints."""
        self.rest.request(
            "PATCH",
            f"/api/v1/nodes/{self.name}",
            body={"metadata": {"labels": {defaults.ZONE_LABEL: zone}}},
            content_type="application/strategic-merge-patch+json",
        )

    def reset(self) -> None:
        """The cluster reset for the next test (the Nodes stay), once kubelet has stopped this node's pods.

        The cluster's other real nodes then :meth:`settle` too.
        """
        self.sim.reset(nodes=False)
        pin_service(self.rest, _NAMESPACE, "kube-dns", self.ips.kube_dns)
        place_cluster_dns(self.rest, self.cluster_dns)
        self.settle()

    def settle(self) -> None:
        """Until kubelet has stopped this node's node-cache pods and their rules are gone."""
        wait_until("the node's pods to be stopped", lambda: not self.pods(), 90, 0.2, watch=(self.node.kubelet,))
        wait_until("node-cache's rules to be gone", lambda: not probes.node_cache_rules(self.bed.node), 30, 0.2)

    def delete_daemon_sets(self) -> None:
        """Delete every DaemonSet of the namespace and wait until kubelet has stopped their pods."""
        collection = f"/apis/apps/v1/namespaces/{_NAMESPACE}/daemonsets"
        for item in self.rest.items(collection):
            self.rest.request(
                "DELETE",
                f"{collection}/{item['metadata']['name']}",
                body={"apiVersion": "v1", "kind": "DeleteOptions", "propagationPolicy": "Foreground"},
                ok=(200, 202, 404),
            )
        wait_until("the node's pods to be stopped", lambda: not self.pods(), 90, 0.2)

    # --------------------------------------------------------------------- the app ---
    def deploy(
        self, props: NodeLocalDNSProps | None = None, *, change: PodSpecChange | None = None, **options: Any
    ) -> Deployed:
        """``deploy`` of ``props`` (default: the spec's) with ``options``, as a user runs it; its report and lines.

        ``change``: a test's own deviation in the pod template's spec (see :data:`PodSpecChange`).
        """
        client = load_client(str(self.sim.control_plane.kubeconfig_path), None, timeout=10)
        lines: list[str] = []
        source = setup_interface_off(props_source(props or NodeLocalDNSProps()), change)
        report = deploy(open_session(client, source, read="deployable", out=lines.append), DeployOptions(**options))
        return Deployed(report, "\n".join(lines))

    def verify(
        self, props: NodeLocalDNSProps | None = None, *, change: PodSpecChange | None = None
    ) -> list[CheckResult]:
        """``verify`` of ``props`` (default: the spec's), the app as :meth:`deploy` runs it."""
        client = load_client(str(self.sim.control_plane.kubeconfig_path), None, timeout=10)
        return verify(
            open_session(
                client, setup_interface_off(props_source(props or NodeLocalDNSProps()), change), read="installed"
            )
        )

    def apply(self, objects: list[dict[str, Any]], *, change: PodSpecChange | None = None) -> None:
        """Server-side apply ``objects`` as ``kubectl apply --server-side`` would: what ``deploy`` would refuse."""
        for obj in objects:
            collection = _COLLECTIONS[obj["kind"]].format(namespace=obj["metadata"]["namespace"])
            self.rest.request(
                "PATCH",
                f"{collection}/{obj['metadata']['name']}",
                body=_on_the_bed(copy.deepcopy(obj), change),
                query={"fieldManager": "kubectl", "force": "true"},
                content_type="application/apply-patch+yaml",
            )

    def container_process(self, pod_uid: str, container: str = "node-cache") -> dict[str, Any]:
        """The process containerd runs as ``container`` of pod ``pod_uid`` (its OCI spec), even between crashes.

        Its ``args`` are as kubelet expanded them, its ``env`` as kubelet gave it.
        """
        found: list[dict[str, Any]] = []

        def recorded() -> bool:
            for line in self.node.containerd.ctr("containers", "list", "--quiet").split():
                try:
                    info = json.loads(self.node.containerd.ctr("containers", "info", line))
                except RuntimeError:
                    continue
                labels = info.get("Labels") or {}
                if (
                    labels.get("io.kubernetes.pod.uid") == pod_uid
                    and labels.get("io.kubernetes.container.name") == container
                ):
                    found.append(info["Spec"]["process"])
                    return True
            return False

        self.wait_for(f"containerd to hold a {container} container of pod {pod_uid}", recorded, 30)
        return found[0]

    def container_env(self, pod_uid: str, container: str = "node-cache") -> dict[str, str]:
        """The environment of :meth:`container_process`."""
        return dict(pair.split("=", 1) for pair in self.container_process(pod_uid, container)["env"])

    def _log_files(self, pod_uid: str, container: str) -> list[Path]:
        """kubelet's log files of ``container`` in pod ``pod_uid``, one per run, oldest first."""
        return sorted(
            self.node.kubelet.pod_logs_dir.glob(f"*_{pod_uid}/{container}/*.log"),
            key=lambda path: int(path.stem) if path.stem.isdigit() else -1,
        )

    def run_log(self, pod_uid: str, container: str, run: int) -> str:
        """What run ``run`` (kubelet's restart count at its start) of ``container`` in pod ``pod_uid`` wrote so far.

        Empty while kubelet has not started that run. kubelet keeps the files of the current
        and the previous run only.
        """
        runs = [path for path in self._log_files(pod_uid, container) if path.stem == str(run)]
        return _cri_text(runs[0].read_text(errors="replace")) if runs else ""

    def running_tasks(self, pod_uid: str, container: str = "node-cache") -> list[str]:
        """The ids of the running tasks of ``container`` in pod ``pod_uid``, as containerd lists them now."""
        selector = f'labels."io.kubernetes.pod.uid"=={pod_uid},labels."io.kubernetes.container.name"=={container}'
        ids = set(self.node.containerd.ctr("containers", "list", "--quiet", selector).split())
        rows = (line.split() for line in self.node.containerd.ctr("tasks", "list").splitlines()[1:])
        return [row[0] for row in rows if len(row) >= 3 and row[0] in ids and row[2] == "RUNNING"]

    def container_log(self, pod_uid: str, container: str = "node-cache") -> str:
        """What every run of ``container`` in pod ``pod_uid`` wrote, from kubelet's log files, oldest run first."""
        return "\n".join(_cri_text(run.read_text(errors="replace")) for run in self._log_files(pod_uid, container))

    @contextlib.contextmanager
    def kept_log(self, pod_uid: str, container: str = "node-cache") -> Iterator[Callable[[], str]]:
        """The log of ``container``'s current run, readable after kubelet removes a deleted pod's logs.

        Yields a function giving what the run wrote so far; an open handle keeps the file's
        contents when kubelet removes it.
        """
        with self._log_files(pod_uid, container)[-1].open(errors="replace") as handle:
            chunks: list[str] = []

            def read() -> str:
                chunks.append(handle.read())
                return _cri_text("".join(chunks))

            yield read

    def pods(self, selector: str = "k8s-app=node-local-dns") -> list[dict[str, Any]]:
        """The node-cache pods of this node (any phase, deleting ones too); ``selector``: another DaemonSet's."""
        return self.rest.items(_PODS, labelSelector=selector, fieldSelector=f"spec.nodeName={self.name}")

    def current_pod(self) -> dict[str, Any]:
        """The node's one node-cache pod that is not being deleted, ready or not."""
        (pod,) = [p for p in self.pods() if not p["metadata"].get("deletionTimestamp")]
        return pod

    def node_cache_pod(self, timeout: float = 60, selector: str = "k8s-app=node-local-dns") -> dict[str, Any]:
        """The one pod on the node once it is Ready (and not deleting); ``selector``: another DaemonSet's."""
        found: list[dict[str, Any]] = []

        def ready() -> bool:
            found[:] = [p for p in self.pods(selector) if is_ready(p)]
            return len(found) == 1

        wait_until("the node-cache pod to be Ready", ready, timeout, 0.2, watch=(self.node.kubelet,))
        return found[0]

    def container_pid(self, pod: dict[str, Any], container: str = "node-cache") -> int:
        """The host pid of ``container``'s process in ``pod`` (from containerd's task list)."""
        container_id = self.container_id(pod, container)
        for line in self.node.containerd.ctr("tasks", "list").splitlines()[1:]:
            fields = line.split()
            if fields and fields[0] == container_id:
                return int(fields[1])
        raise LookupError(f"no task for container {container} ({container_id}) of {pod['metadata']['name']}")

    def node_cache_requests(self, metrics_port: int = defaults.METRICS_PORT) -> float:
        """Lookups node-cache received on the kube-dns ClusterIP (its metrics at the node's address)."""
        url = f"http://[{NODE_UPLINK_IP}]:{metrics_port}/metrics"
        server = f"dns://[{self.bed.ips.kube_dns}]:53"
        return probes.scrape(self.bed.node, url).total("coredns_dns_requests_total", server=server)

    def wait_intercepting(
        self,
        name: str = "kubernetes.default.svc.cluster.local",
        *,
        metrics_port: int = defaults.METRICS_PORT,
        selector: str = "k8s-app=node-local-dns",
        upstream_service: str = defaults.UPSTREAM_SERVICE_NAME,
        timeout: float = 30,
    ) -> None:
        """Until the pod is Ready, kube-proxy programs its upstream Service and a lookup of ``name`` reaches node-cache.

        ``selector`` and ``upstream_service``: another DaemonSet's pods (a Helm chart's) and their upstream;
        ``timeout``: how long the lookup may take to reach node-cache once the pod is Ready.
        """
        self.node_cache_pod(selector=selector)
        upstream = self.rest.get(f"/api/v1/namespaces/{_NAMESPACE}/services/{upstream_service}")
        assert upstream is not None, f"{upstream_service} missing"
        address = upstream["spec"]["clusterIP"]
        self.wait_for(f"kube-proxy to program {upstream_service}", lambda: self.proxy.programs(address))

        def intercepted() -> bool:
            try:
                served = self.node_cache_requests(metrics_port)
            except RuntimeError:  # its metrics listener not up yet
                return False
            probes.dig(self.bed.pod, name, "AAAA")
            return self.node_cache_requests(metrics_port) > served

        self.wait_for("a pod's lookup to reach node-cache", intercepted, timeout)

    def container_id(self, pod: dict[str, Any], container: str = "node-cache") -> str:
        """The containerd id of ``container``'s current run in ``pod``."""
        (status,) = [s for s in pod["status"]["containerStatuses"] if s["name"] == container]
        return str(status["containerID"]).removeprefix("containerd://")

    @contextlib.contextmanager
    def task_exits(self) -> Iterator[dict[str, int]]:
        """Exit statuses of the containers that end meanwhile, by container id, from containerd's ``/tasks/exit``.

        The dict is filled when the block ends. containerd reports every exit; kubelet's log
        may not, when it removes a container before its next relist. The exits of exec'd
        processes (a probe's command) are left out.
        """
        argv = ["ctr", "--address", str(self.node.containerd.socket), "--namespace", "k8s.io", "events"]
        events = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
        time.sleep(0.5)
        exits: dict[str, int] = {}
        try:
            yield exits
        finally:
            time.sleep(0.5)
            events.terminate()
            output, _ = events.communicate(timeout=10)
            for line in output.splitlines():
                if " /tasks/exit " in line:
                    event = json.loads(line.split(" /tasks/exit ", 1)[1])
                    if event.get("id") == event["container_id"]:  # the container's process, not an exec's
                        exits[event["container_id"]] = int(event.get("exit_status", 0))

    def wait_crash(self, container: str = "node-cache", timeout: float = 90) -> tuple[dict[str, Any], dict[str, Any]]:
        """The first node-cache pod (not deleting) whose ``container`` has ended once, and how it ended."""
        found: list[tuple[dict[str, Any], dict[str, Any]]] = []

        def ended() -> bool:
            found[:] = [
                (pod, ending)
                for pod in self.pods()
                if not pod["metadata"].get("deletionTimestamp")
                for status in pod["status"].get("containerStatuses") or []
                if status["name"] == container
                for ending in (status.get("lastState", {}).get("terminated"), status["state"].get("terminated"))
                if ending
            ]
            return bool(found)

        self.wait_for(f"{container} to end once", ended, timeout)
        return found[0]

    def roll(self) -> None:
        """A rolling update as a change makes one: a new template annotation; the controller and kubelet do the rest."""
        self.rest.request(
            "PATCH",
            f"/apis/apps/v1/namespaces/{_NAMESPACE}/daemonsets/node-local-dns",
            body={"spec": {"template": {"metadata": {"annotations": {"test/rolled": str(time.time())}}}}},
            content_type="application/merge-patch+json",
        )

    def wait_for(self, what: str, check: Callable[[], bool], timeout: float = 60) -> float:
        """Poll ``check`` while the node runs; fail naming ``what``."""
        return wait_until(what, check, timeout, 0.2, watch=(self.node.kubelet, self.node.containerd))
