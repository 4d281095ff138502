"""A cluster's monitoring around the test bed's node: real API server, operator, Prometheus and node-cache.

:class:`MonitoringStack` puts together, for one :class:`~tests.e2e.netns.Testbed`:

- the test kube-apiserver (:class:`tests.controlplane.ControlPlane`) holding what the app
  synthesizes — the node-cache ServiceAccount and DaemonSet, the PodMonitor and the
  PrometheusRule — plus what a cluster's monitoring already has: a ``coredns`` PodMonitor for
  cluster CoreDNS (the spec's soak watches its QPS), a kube-state-metrics PodMonitor
  (``honorLabels``, as kube-prometheus scrapes it) and a Prometheus object selecting them by
  the app's monitoring labels;
- prometheus-operator v0.93.0 (:mod:`tests.e2e.operator`) generating the Prometheus
  configuration and rule files from them;
- Prometheus (3.13.1, built from source: Debian's lacks Kubernetes service discovery) running
  as the generated StatefulSet runs it: its container args, the
  configuration expanded as config-reloader writes it, the rule-file ConfigMaps and the web
  configuration at their mount paths (a private mount over ``/etc/prometheus``), only
  ``--storage.tsdb.path`` relocated into the test's directory. It runs in the node's network
  namespace, finds its targets through its own Kubernetes service discovery with the
  ``prometheus`` ServiceAccount's token, over a :class:`~tests.e2e.pods.Bridge` to the API
  server; its API is bridged out to 127.0.0.1 for the tests and ``deploy.py soak``;
- the real kube-state-metrics (:mod:`tests.e2e.kubestatemetrics`);
- what kubelet and the DaemonSet controller would report, which no process here does
  (:class:`Kubelet`): the node-cache Pod, created from the synthesized DaemonSet's template
  with the node's address as its (hostNetwork) IP, its status (Ready while the container
  runs: the DaemonSet has no readiness probe; restart count), and the DaemonSet's status.

Pods are found by Prometheus through their API objects' ``status.podIP``, as on a cluster:
node-cache and kube-state-metrics at the node's address ``fd01::1``, cluster CoreDNS at its
endpoint ``fd01::53``.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from constructs_nld import NodeLocalDNSProps
from tests.controlplane import ControlPlane
from tests.e2e.kubestatemetrics import KubeStateMetrics
from tests.e2e.netns import CLUSTER_COREDNS_METRICS_PORT, KUBE_DNS_ENDPOINT, NODE_UPLINK_IP, Testbed
from tests.e2e.nodecache import NodeCache, synthesized_objects
from tests.e2e.operator import PrometheusOperator, apply_rbac, module_dir, service_account_token
from tests.e2e.pods import Bridge, InClusterCredentials, pod_argv
from tests.harness.process import free_port
from tests.prometheus import Prometheus, prometheus_version, server_binary

__all__ = ["COREDNS_JOB", "KSM_JOB", "NODE_NAME", "Kubelet", "MonitoringStack"]

NODE_NAME: Final = "node-1"
"""The test bed's node, as the API server knows it."""
CLUSTER_DNS_NODE: Final = "node-2"
"""Where cluster CoreDNS runs (the cluster-dns namespace)."""
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


def _container_status(name: str, image: str, *, running: bool, restarts: int) -> dict[str, Any]:
    state: dict[str, Any] = (
        {"running": {"startedAt": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}}
        if running
        else {"waiting": {"reason": "CrashLoopBackOff"}}
    )
    return {
        "name": name,
        "image": image,
        "imageID": "",
        "ready": running,
        "started": running,
        "restartCount": restarts,
        "state": state,
    }


class Kubelet:
    """What kubelet and the DaemonSet controller report for the node-cache DaemonSet on the test bed's node."""

    def __init__(self, control_plane: ControlPlane, daemon_set: Mapping[str, Any]) -> None:
        """Report for ``daemon_set`` (the synthesized manifest, already applied)."""
        self.control_plane = control_plane
        self.namespace = daemon_set["metadata"]["namespace"]
        self.name = daemon_set["metadata"]["name"]
        self.template = daemon_set["spec"]["template"]
        self.pod_name = ""
        self.pod_generation = 0
        self.restarts = 0

    @property
    def _path(self) -> str:
        return f"/apis/apps/v1/namespaces/{self.namespace}/daemonsets/{self.name}"

    def generation(self) -> int:
        """The DaemonSet's ``metadata.generation``: bumped by the API server on each spec change."""
        live = self.control_plane.get(self._path)
        assert live is not None
        return int(live["metadata"]["generation"])

    def create_pod(self) -> str:
        """Create the node-cache Pod from the DaemonSet's template, on the node, as the controller does."""
        self.pod_name = f"{self.name}-{secrets.token_hex(3)[:5]}"
        self.pod_generation = self.generation()
        self.restarts = 0
        pod = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": self.pod_name,
                "namespace": self.namespace,
                "labels": dict(self.template["metadata"]["labels"]),
            },
            "spec": {**self.template["spec"], "nodeName": NODE_NAME},
        }
        self.control_plane.request("POST", f"/api/v1/namespaces/{self.namespace}/pods", body=pod)
        return self.pod_name

    def delete_pod(self) -> None:
        """Delete the current Pod (its container is stopped by the caller first, as kubelet does)."""
        self.control_plane.request(
            "DELETE",
            f"/api/v1/namespaces/{self.namespace}/pods/{self.pod_name}",
            body={"gracePeriodSeconds": 0},
            ok=(200, 202, 404),
        )
        self.pod_name = ""

    def report(self, node_cache: NodeCache) -> None:
        """Pod status from node-cache's process (Ready while it runs), then the DaemonSet's status from the Pod."""
        running = node_cache.alive()
        generation = self.generation()
        if self.pod_name:
            container = self.template["spec"]["containers"][0]
            status = _pod_status(
                NODE_UPLINK_IP,
                NODE_UPLINK_IP,
                [_container_status(container["name"], container["image"], running=running, restarts=self.restarts)],
                ready=running,
            )
            self.control_plane.request(
                "PATCH",
                f"/api/v1/namespaces/{self.namespace}/pods/{self.pod_name}/status",
                body={"status": status},
                content_type="application/merge-patch+json",
            )
        available = 1 if self.pod_name and running else 0
        updated = 1 if self.pod_name and self.pod_generation == generation else 0
        self.control_plane.request(
            "PATCH",
            f"{self._path}/status",
            body={
                "status": {
                    "currentNumberScheduled": 1 if self.pod_name else 0,
                    "desiredNumberScheduled": 1,
                    "numberMisscheduled": 0,
                    "numberReady": available,
                    "numberAvailable": available,
                    "numberUnavailable": 1 - available,
                    "updatedNumberScheduled": updated,
                    "observedGeneration": generation,
                }
            },
            content_type="application/merge-patch+json",
        )

    def restart_template(self) -> None:
        """Change the pod template as ``kubectl rollout restart`` does (a new generation)."""
        self.control_plane.request(
            "PATCH",
            self._path,
            body={
                "spec": {
                    "template": {
                        "metadata": {
                            "annotations": {"kubectl.kubernetes.io/restartedAt": datetime.now(UTC).isoformat()}
                        }
                    }
                }
            },
            content_type="application/merge-patch+json",
        )


def _collection(obj: Mapping[str, Any]) -> str:
    kind, namespace = obj["kind"], obj["metadata"].get("namespace")
    plural = {
        "ServiceAccount": "serviceaccounts",
        "DaemonSet": "daemonsets",
        "PodMonitor": "podmonitors",
        "PrometheusRule": "prometheusrules",
        "Prometheus": "prometheuses",
        "Pod": "pods",
        "ClusterRole": "clusterroles",
        "ClusterRoleBinding": "clusterrolebindings",
    }[kind]
    group = obj["apiVersion"]
    prefix = "/api/v1" if group == "v1" else f"/apis/{group}"
    return f"{prefix}/namespaces/{namespace}/{plural}" if namespace else f"{prefix}/{plural}"


class MonitoringStack:
    """The monitoring of one test bed's node, from the app's monitoring objects; a context manager."""

    def __init__(
        self,
        bed: Testbed,
        props: NodeLocalDNSProps,
        workdir: Path,
        *,
        evaluation_interval: str = "5s",
    ) -> None:
        """Plan the stack for ``bed``, whose node runs the synth of ``props``; entering the context builds it."""
        self.bed = bed
        self.props = props
        self.workdir = workdir
        self.evaluation_interval = evaluation_interval
        self.objects = synthesized_objects(props)
        self.control_plane = ControlPlane()
        self.operator: PrometheusOperator | None = None
        self.kube_state_metrics: KubeStateMetrics | None = None
        self.prometheus: Prometheus | None = None
        self.kubelet: Kubelet | None = None
        self._stack = contextlib.ExitStack()

    def __enter__(self) -> MonitoringStack:
        """Build everything; tear down what was built if a step fails."""
        try:
            self._start()
        except BaseException:
            self._stack.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        """Stop everything, newest first."""
        self._stack.close()

    def _of(self, kind: str) -> dict[str, Any]:
        (found,) = [o for o in self.objects if o["kind"] == kind]
        return found

    @property
    def monitoring_namespace(self) -> str:
        """Where the app puts its PodMonitor and PrometheusRule."""
        return str(self._of("PodMonitor")["metadata"]["namespace"])

    def _create(self, obj: Mapping[str, Any]) -> None:
        self.control_plane.request("POST", _collection(obj), body=obj, ok=(201, 409))

    def _start(self) -> None:
        server_binary()
        self.workdir.mkdir(parents=True, exist_ok=True)
        cp = self.control_plane
        self._stack.callback(cp.stop)
        cp.start()
        namespace = self.monitoring_namespace
        self.operator = PrometheusOperator(cp, self.workdir, namespace=namespace)
        self._stack.callback(self.operator.stop)
        self.operator.start()
        rbac = module_dir() / "example" / "rbac" / "prometheus"
        apply_rbac(
            cp,
            [rbac / f"prometheus-{kind}.yaml" for kind in ("service-account", "cluster-role", "cluster-role-binding")],
            namespace,
        )
        self._kube_state_metrics_rbac(namespace)
        for kind in ("ServiceAccount", "DaemonSet", "PodMonitor", "PrometheusRule"):
            self._create(self._of(kind))
        # Prometheus selects the app's monitoring objects by the labels the app gives them (each
        # object's role labels aside, which say what the object is, not whose monitoring it joins).
        labels = dict(self.props.monitoring_labels)
        for obj in self._cluster_objects(namespace, labels):
            self._create(obj)
        self.kubelet = Kubelet(cp, self._of("DaemonSet"))

        port = int(cp.server.rsplit(":", 1)[1])
        api_bridge = Bridge(
            listen_namespace=self.bed.node,
            listen=("127.0.0.1", port),
            target_namespace=None,
            target=("127.0.0.1", port),
            directory=self.workdir / "bridges",
        )
        self._stack.callback(api_bridge.stop)
        api_bridge.start()

        ksm_credentials = InClusterCredentials(
            self.workdir / "kube-state-metrics-run",
            token=service_account_token(cp, namespace, "kube-state-metrics"),
            ca_pem=cp.ca_path.read_text(),
            namespace=namespace,
        )
        self.kube_state_metrics = KubeStateMetrics(
            self.bed.node,
            ksm_credentials.at("127.0.0.1", port),
            binary=cp.binary("kube-state-metrics"),
            address=NODE_UPLINK_IP,
            port=KSM_PORT,
            workdir=self.workdir,
        )
        self._stack.callback(self.kube_state_metrics.stop)
        self.kube_state_metrics.start()
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
        """Create cluster CoreDNS's and kube-state-metrics' Pods, with their status, so Prometheus finds them."""
        assert self.kube_state_metrics is not None
        pods = (
            (
                "kube-system",
                "coredns-6b9d5-x4k2p",
                {"k8s-app": "kube-dns"},
                "coredns",
                CLUSTER_DNS_NODE,
                KUBE_DNS_ENDPOINT,
                [("dns", 53, "UDP"), ("dns-tcp", 53, "TCP"), ("metrics", CLUSTER_COREDNS_METRICS_PORT, "TCP")],
                False,
            ),
            (
                self.monitoring_namespace,
                "kube-state-metrics-7c8d9-q2w3e",
                {"app.kubernetes.io/name": "kube-state-metrics"},
                "kube-state-metrics",
                NODE_NAME,
                NODE_UPLINK_IP,
                [("http-metrics", KSM_PORT, "TCP")],
                True,
            ),
        )
        for namespace, name, labels, container, node, ip, ports, host_network in pods:
            image = f"registry.k8s.io/{container}:test"
            self._create(
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "metadata": {"name": name, "namespace": namespace, "labels": labels},
                    "spec": {
                        "nodeName": node,
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
                body={
                    "status": _pod_status(
                        ip, ip, [_container_status(container, image, running=True, restarts=0)], ready=True
                    )
                },
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
        # Registered before starting, so that a start that fails still tears both down.
        self._stack.callback(api_bridge.stop)
        api_bridge.start()
        self._stack.callback(prometheus.stop)
        prometheus.start()
        return prometheus

    def wait_scraped(self, job: str, targets: int, timeout: float = 60) -> None:
        """Wait until ``targets`` targets of ``job`` have been scraped, all up."""
        assert self.prometheus is not None
        api = self.prometheus.api

        def all_up() -> bool:
            result = api.query(f'up{{job="{job}"}}')
            return len(result) == targets and all(series.samples[0][1] == 1 for series in result)

        self.prometheus.wait_for(f"{targets} {job} targets up", all_up, timeout=timeout, interval=0.5)
