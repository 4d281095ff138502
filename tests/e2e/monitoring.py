"""A cluster's monitoring around a real node: API server, operator, Prometheus, kube-state-metrics, node-cache.

:class:`MonitoringStack` puts together, for one :class:`~tests.e2e.realnode.RealNodeBed`:

- its cluster's kube-apiserver, which holds what a cluster's monitoring already has: a
  ``coredns`` PodMonitor for cluster CoreDNS (the spec's soak watches its QPS), a
  kube-state-metrics PodMonitor (``honorLabels``, as kube-prometheus scrapes it), a Prometheus
  object selecting them by the app's monitoring labels, and the app's PodMonitor and
  PrometheusRule (created first, so that Prometheus starts with them; ``deploy`` takes them
  over when the app is deployed);
- prometheus-operator v0.93.0 (:mod:`tests.harness.operator`) generating the Prometheus
  configuration and rule files from them;
- Prometheus (3.13.1, built from source: Debian's lacks Kubernetes service discovery) running
  as the generated StatefulSet runs it: its container args, the
  configuration expanded as config-reloader writes it, the rule-file ConfigMaps and the web
  configuration at their mount paths (a private mount over ``/etc/prometheus``), only
  ``--storage.tsdb.path`` relocated into the test's directory. It runs in the node's network
  namespace, finds its targets through its own Kubernetes service discovery with the
  ``prometheus`` ServiceAccount's token, over the bed's bridge to the API server; its API is
  bridged out to 127.0.0.1 for the tests and ``deploy.py soak``;
- the real kube-state-metrics (:mod:`tests.harness.kubestatemetrics`), watching what the real
  DaemonSet controller and kubelet report of the node-cache DaemonSet and its pod.

Pods are found by Prometheus through their API objects' ``status.podIP``, as on a cluster:
node-cache (hostNetwork, from kubelet) at the node's address ``fd01::1``. Cluster CoreDNS and
kube-state-metrics run as processes of the bed (at ``fd01::53`` and ``fd01::1``), not as pods
of a kubelet: their Pod objects, with the status a kubelet would give them, are bound to
:data:`SYSTEM_NODE`, a Node without a kubelet whose taint keeps the node-local-dns DaemonSet
off it (and the pod garbage collector from deleting pods of an unknown node).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from constructs_nld import NodeLocalDNSProps
from tests.e2e.netns import CLUSTER_COREDNS_METRICS_PORT, KUBE_DNS_ENDPOINT, NODE_UPLINK_IP
from tests.e2e.nodecache import synthesized_objects
from tests.e2e.realnode import RealNodeBed
from tests.harness.kubestatemetrics import KubeStateMetrics
from tests.harness.operator import PrometheusOperator, apply_rbac, module_dir, service_account_token
from tests.harness.pods import InClusterCredentials, pod_argv
from tests.harness.process import free_port
from tests.harness.prometheus import Prometheus, prometheus_version, server_binary
from tests.harness.socat import Bridge
from tests.harness.stack import Stack

__all__ = ["COREDNS_JOB", "KSM_JOB", "SYSTEM_NODE", "MonitoringStack"]

SYSTEM_NODE: Final = "nld-system-0"
"""The Node that cluster CoreDNS's and kube-state-metrics' Pod objects are bound to."""
SYSTEM_TAINT: Final = {"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}
"""The system node's taint: the node-local-dns DaemonSet does not tolerate it."""
PROMETHEUS_NAME: Final = "k8s"
COREDNS_POD_MONITOR: Final = "coredns"
COREDNS_JOB: Final = f"monitoring/{COREDNS_POD_MONITOR}"
KSM_JOB: Final = "monitoring/kube-state-metrics"
KSM_PORT: Final = 8080
PROMETHEUS_PORT: Final = 9090


def _pod_status(ip: str, node_ip: str, containers: list[dict[str, Any]], *, ready: bool) -> dict[str, Any]:
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {
        "phase": "Running",
        "hostIP": node_ip,
        "podIP": ip,
        "podIPs": [{"ip": ip}],
        "startTime": now,
        "conditions": [
            {"type": kind, "status": "True" if ready or kind == "PodScheduled" else "False", "lastTransitionTime": now}
            for kind in ("PodScheduled", "Initialized", "ContainersReady", "Ready")
        ],
        "containerStatuses": containers,
    }


def _container_status(name: str, image: str) -> dict[str, Any]:
    return {
        "name": name,
        "image": image,
        "imageID": "",
        "ready": True,
        "started": True,
        "restartCount": 0,
        "state": {"running": {"startedAt": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}},
    }


def _collection(obj: Mapping[str, Any]) -> str:
    kind, namespace = obj["kind"], obj["metadata"].get("namespace")
    plural = {
        "ServiceAccount": "serviceaccounts",
        "DaemonSet": "daemonsets",
        "PodMonitor": "podmonitors",
        "PrometheusRule": "prometheusrules",
        "Prometheus": "prometheuses",
        "Pod": "pods",
        "Node": "nodes",
        "ClusterRole": "clusterroles",
        "ClusterRoleBinding": "clusterrolebindings",
    }[kind]
    group = obj["apiVersion"]
    prefix = "/api/v1" if group == "v1" else f"/apis/{group}"
    return f"{prefix}/namespaces/{namespace}/{plural}" if namespace else f"{prefix}/{plural}"


class MonitoringStack(Stack):
    """The monitoring of one test bed's node, from the app's monitoring objects; a context manager."""

    def __init__(
        self,
        node: RealNodeBed,
        props: NodeLocalDNSProps,
        workdir: Path,
        *,
        evaluation_interval: str = "5s",
    ) -> None:
        """Plan the stack for the cluster of ``node``, which is to run the synth of ``props``; starting builds it."""
        super().__init__()
        self.node = node
        self.bed = node.bed
        self.props = props
        self.workdir = workdir
        self.evaluation_interval = evaluation_interval
        self.objects = synthesized_objects(props)
        self.control_plane = node.sim.control_plane
        self.operator: PrometheusOperator | None = None
        self.kube_state_metrics: KubeStateMetrics | None = None
        self.prometheus: Prometheus | None = None

    def _of(self, kind: str) -> dict[str, Any]:
        (found,) = [o for o in self.objects if o["kind"] == kind]
        return found

    @property
    def monitoring_namespace(self) -> str:
        """Where the app puts its PodMonitor and PrometheusRule."""
        return str(self._of("PodMonitor")["metadata"]["namespace"])

    def _create(self, obj: Mapping[str, Any]) -> None:
        self.control_plane.request("POST", _collection(obj), body=obj, ok=(201, 409))

    def start_parts(self) -> None:
        """The operator, the cluster's monitoring objects, kube-state-metrics, then Prometheus."""
        server_binary()
        self.workdir.mkdir(parents=True, exist_ok=True)
        cp = self.control_plane
        namespace = self.monitoring_namespace
        self.operator = self.start_process(PrometheusOperator(cp, self.workdir, namespace=namespace))
        rbac = module_dir() / "example" / "rbac" / "prometheus"
        apply_rbac(
            cp,
            [rbac / f"prometheus-{kind}.yaml" for kind in ("service-account", "cluster-role", "cluster-role-binding")],
            namespace,
        )
        self._kube_state_metrics_rbac(namespace)
        for kind in ("PodMonitor", "PrometheusRule"):
            self._create(self._of(kind))
        # Prometheus selects the app's monitoring objects by the labels the app gives them (each
        # object's role labels aside, which say what the object is, not whose monitoring it joins).
        labels = dict(self.props.monitoring_labels)
        for obj in self._cluster_objects(namespace, labels):
            self._create(obj)
        # The bed bridges the API server into the node's namespace at the same address and port.
        port = int(cp.server.rsplit(":", 1)[1])

        ksm_credentials = InClusterCredentials(
            self.workdir / "kube-state-metrics-run",
            token=service_account_token(cp, namespace, "kube-state-metrics"),
            ca_pem=cp.ca_path.read_text(),
            namespace=namespace,
        )
        self.kube_state_metrics = self.start_process(
            KubeStateMetrics(
                self.bed.node,
                ksm_credentials.at("127.0.0.1", port),
                binary=cp.binary("kube-state-metrics"),
                address=NODE_UPLINK_IP,
                port=KSM_PORT,
                workdir=self.workdir,
            )
        )
        self.prometheus = self._start_prometheus(port)

    def _kube_state_metrics_rbac(self, namespace: str) -> None:
        for obj in (
            {
                "apiVersion": "v1",
                "kind": "ServiceAccount",
                "metadata": {"name": "kube-state-metrics", "namespace": namespace},
            },
            {
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "ClusterRole",
                "metadata": {"name": "kube-state-metrics"},
                "rules": [
                    {"apiGroups": [""], "resources": ["pods"], "verbs": ["list", "watch"]},
                    {"apiGroups": ["apps"], "resources": ["daemonsets"], "verbs": ["list", "watch"]},
                ],
            },
            {
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "ClusterRoleBinding",
                "metadata": {"name": "kube-state-metrics"},
                "roleRef": {
                    "apiGroup": "rbac.authorization.k8s.io",
                    "kind": "ClusterRole",
                    "name": "kube-state-metrics",
                },
                "subjects": [{"kind": "ServiceAccount", "name": "kube-state-metrics", "namespace": namespace}],
            },
        ):
            self._create(obj)

    def _cluster_objects(self, namespace: str, labels: Mapping[str, str]) -> Iterator[dict[str, Any]]:
        """What the cluster's monitoring has besides the app: CoreDNS and kube-state-metrics, their pods, Prometheus."""
        interval = self.props.scrape_interval
        yield {
            "apiVersion": "monitoring.coreos.com/v1",
            "kind": "PodMonitor",
            "metadata": {"name": COREDNS_POD_MONITOR, "namespace": namespace, "labels": dict(labels)},
            "spec": {
                "selector": {"matchLabels": {"k8s-app": "kube-dns"}},
                "namespaceSelector": {"matchNames": ["kube-system"]},
                "podMetricsEndpoints": [{"port": "metrics", "interval": interval}],
            },
        }
        yield {
            "apiVersion": "monitoring.coreos.com/v1",
            "kind": "PodMonitor",
            "metadata": {"name": "kube-state-metrics", "namespace": namespace, "labels": dict(labels)},
            "spec": {
                "selector": {"matchLabels": {"app.kubernetes.io/name": "kube-state-metrics"}},
                "podMetricsEndpoints": [{"port": "http-metrics", "interval": interval, "honorLabels": True}],
            },
        }
        yield {
            "apiVersion": "monitoring.coreos.com/v1",
            "kind": "Prometheus",
            "metadata": {"name": PROMETHEUS_NAME, "namespace": namespace},
            "spec": {
                "version": f"v{prometheus_version(server_binary())}",
                "serviceAccountName": "prometheus",
                "podMonitorSelector": {"matchLabels": dict(labels)},
                "podMonitorNamespaceSelector": {},
                "ruleSelector": {"matchLabels": dict(labels)},
                "ruleNamespaceSelector": {},
                "scrapeInterval": interval,
                "evaluationInterval": self.evaluation_interval,
            },
        }

    def cluster_pods(self) -> None:
        """Create cluster CoreDNS's and kube-state-metrics' Pods on the system node, with their status."""
        assert self.kube_state_metrics is not None
        self._create(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": SYSTEM_NODE},
                "spec": {"taints": [SYSTEM_TAINT]},
            }
        )
        pods = (
            (
                "kube-system",
                "coredns-6b9d5-x4k2p",
                {"k8s-app": "kube-dns"},
                "coredns",
                KUBE_DNS_ENDPOINT,
                [("dns", 53, "UDP"), ("dns-tcp", 53, "TCP"), ("metrics", CLUSTER_COREDNS_METRICS_PORT, "TCP")],
                False,
            ),
            (
                self.monitoring_namespace,
                "kube-state-metrics-7c8d9-q2w3e",
                {"app.kubernetes.io/name": "kube-state-metrics"},
                "kube-state-metrics",
                NODE_UPLINK_IP,
                [("http-metrics", KSM_PORT, "TCP")],
                True,
            ),
        )
        for namespace, name, labels, container, ip, ports, host_network in pods:
            image = f"registry.k8s.io/{container}:test"
            self._create(
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "metadata": {"name": name, "namespace": namespace, "labels": labels},
                    "spec": {
                        "nodeName": SYSTEM_NODE,
                        "tolerations": [{"operator": "Exists"}],
                        "hostNetwork": host_network,
                        "containers": [
                            {
                                "name": container,
                                "image": image,
                                "ports": [
                                    {"name": port_name, "containerPort": number, "protocol": protocol}
                                    for port_name, number, protocol in ports
                                ],
                            }
                        ],
                    },
                }
            )
            self.control_plane.request(
                "PATCH",
                f"/api/v1/namespaces/{namespace}/pods/{name}/status",
                body={"status": _pod_status(ip, ip, [_container_status(container, image)], ready=True)},
                content_type="application/merge-patch+json",
            )

    def _start_prometheus(self, apiserver_port: int) -> Prometheus:
        assert self.operator is not None
        pod = self.operator.prometheus_pod(PROMETHEUS_NAME)
        etc = self.workdir / "prometheus-etc"
        config_out = etc / "config_out"
        config_out.mkdir(parents=True, exist_ok=True)
        (config_out / "prometheus.env.yaml").write_text(pod.config)
        for path, text in pod.files.items():
            target = etc / Path(path).relative_to("/etc/prometheus")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
        data = self.workdir / "prometheus-data"
        args = [f"--storage.tsdb.path={data}" if a.startswith("--storage.tsdb.path=") else a for a in pod.args]
        credentials = InClusterCredentials(
            self.workdir / "prometheus-run",
            token=service_account_token(self.control_plane, self.monitoring_namespace, "prometheus"),
            ca_pem=self.control_plane.ca_path.read_text(),
            namespace=self.monitoring_namespace,
        )
        in_cluster = credentials.at("127.0.0.1", apiserver_port)
        argv = pod_argv(
            [str(server_binary()), *args],
            namespace=self.bed.node,
            in_cluster=in_cluster,
            mounts={"/etc/prometheus": etc},
        )
        local_port = free_port()
        api_bridge = Bridge(
            listen_namespace=None,
            listen=("127.0.0.1", local_port),
            target_namespace=self.bed.node,
            target=("127.0.0.1", PROMETHEUS_PORT),
            directory=self.workdir / "bridges",
        )
        prometheus = Prometheus(
            argv,
            api_url=f"http://127.0.0.1:{local_port}",
            log_path=self.workdir / "prometheus.log",
            env={"PATH": "/usr/bin:/bin:/usr/sbin:/sbin", **in_cluster.environment},
        )
        self.enter_context(api_bridge)
        return self.start_process(prometheus)

    def wait_scraped(self, job: str, targets: int, timeout: float = 60) -> None:
        """Wait until ``targets`` targets of ``job`` have been scraped, all up."""
        assert self.prometheus is not None
        api = self.prometheus.api

        def all_up() -> bool:
            result = api.query(f'up{{job="{job}"}}')
            return len(result) == targets and all(series.samples[0][1] == 1 for series in result)

        self.prometheus.wait_for(f"{targets} {job} targets up", all_up, timeout=timeout, interval=0.5)
