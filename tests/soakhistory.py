"""Days of a cluster's history as Prometheus would have scraped it, in OpenMetrics, for backfilling.

One :class:`Cluster` is the series a real scrape of one NodeLocal DNS install produces —
node-cache's ``up`` and ``coredns_nodecache_setup_errors_total`` (labels as the operator's
PodMonitor configuration writes them), kube-state-metrics' DaemonSet and restart series,
cluster CoreDNS's ``coredns_dns_requests_total`` — one sample per minute, with the events a
soak must judge: node-cache's first scrape, a rollout, setup errors, unavailability, restarts,
the CoreDNS rate before and after. :func:`openmetrics` writes several clusters (told apart by
their names) into one file for ``promtool tsdb create-blocks-from openmetrics``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

__all__ = ["STEP", "Cluster", "CutoverHistory", "cutover_openmetrics", "openmetrics"]

STEP = 60
"""Seconds between samples: the PodMonitor's default scrape interval."""


@dataclass(frozen=True, kw_only=True)
class Cluster:
    """One install's history from ``start`` to ``end`` (unix seconds)."""

    start: float
    end: float
    nld_from: float
    """node-cache's first scrape (its pods' creation)."""
    job: str = "monitoring/nodelocaldns"
    coredns_job: str = "monitoring/coredns"
    daemon_set: str = "node-local-dns"
    namespace: str = "kube-system"
    qps_before: float = 200.0
    qps_after: float = 20.0
    rollouts: tuple[float, ...] = ()
    """When each rollout starts: updated pods drop to 0, the old pod goes, the new one starts."""
    setup_errors_at: tuple[float, ...] = ()
    """When node-cache counts an ``iptables`` setup error."""
    unavailable: tuple[tuple[float, float], ...] = ()
    """(from, to) spans with the pod unavailable, no rollout going."""
    restarts_at: tuple[float, ...] = ()
    """When the node-cache container restarts."""
    coredns_from: float | None = None
    """Cluster CoreDNS's first scrape. Default: - ``start``."""
    nodes: int = 1
    """Nodes, each with its node-cache pod; the setup errors and restarts above happen on the first."""

    def times(self, since: float) -> Iterator[float]:
        """The sample times from ``since`` to the end."""
        t = self.start
        while t <= self.end:
            if t >= since:
                yield t
            t += STEP

    def pod_spans(self, node: int = 0) -> list[tuple[str, float, float]]:
        """(pod name, from, to) of each node-cache pod of ``node``: a new one after each rollout."""
        spans, begin = [], self.nld_from
        for index, at in enumerate(sorted(self.rollouts)):
            spans.append((f"{self.daemon_set}-{node * 1000 + index:05d}", begin, at + STEP))
            begin = at + 2 * STEP
        spans.append((f"{self.daemon_set}-{node * 1000 + len(self.rollouts):05d}", begin, self.end))
        return spans


def _labels(**labels: str) -> str:
    return "{" + ",".join(f'{key}="{value}"' for key, value in labels.items()) + "}"


def _node_cache(c: Cluster) -> Iterator[str]:
    for node in range(c.nodes):
        for pod, begin, end in c.pod_spans(node):
            target = {"job": c.job, "namespace": c.namespace, "pod": pod, "container": "node-cache"}
            for endpoint, port in (("metrics", 9253), ("metrics-binary", 9353)):
                labels = _labels(
                    **target, node=f"node-{node + 1}", endpoint=endpoint, instance=f"[fd01::{node + 1:x}]:{port}"
                )
                yield from (f"up{labels} 1 {t:.0f}" for t in c.times(begin) if t <= end)
    for node in range(c.nodes):
        yield from _setup_errors(c, node)


def _setup_errors(c: Cluster, node: int) -> Iterator[str]:
    for pod, begin, end in c.pod_spans(node):
        # Two of node-cache's five errortypes: enough to tell them apart, cheaper to backfill.
        for errortype in ("configmap", "iptables"):
            labels = _labels(
                job=c.job, namespace=c.namespace, pod=pod, container="node-cache", node=f"node-{node + 1}",
                endpoint="metrics-binary", instance=f"[fd01::{node + 1:x}]:9353", errortype=errortype,
            )  # fmt: skip
            counted = c.setup_errors_at if errortype == "iptables" and node == 0 else ()
            for t in c.times(begin):
                if t > end:
                    break
                count = sum(1 for at in counted if begin <= at <= t)
                yield f"coredns_nodecache_setup_errors_total{labels} {count} {t:.0f}"


def _rolling(c: Cluster, t: float) -> tuple[int, int]:
    """(updated pods, unavailable pods) at ``t`` as the DaemonSet controller reports them."""
    for at in c.rollouts:
        if at <= t < at + STEP:
            return 0, 0
        if at + STEP <= t < at + 3 * STEP:
            return (0 if t < at + 2 * STEP else 1), 1
    down = any(begin <= t < end for begin, end in c.unavailable)
    return 1, 1 if down else 0


def _kube_state_metrics(c: Cluster) -> Iterator[str]:
    ds = {"job": "monitoring/kube-state-metrics", "namespace": c.namespace, "daemonset": c.daemon_set}
    # The first node's pod rolls and goes unavailable as told; the others stay updated and available.
    for name, index in (
        ("kube_daemonset_status_desired_number_scheduled", -1),
        ("kube_daemonset_status_updated_number_scheduled", 0),
        ("kube_daemonset_status_number_unavailable", 1),
    ):
        for t in c.times(c.nld_from):
            value = c.nodes if index < 0 else _rolling(c, t)[index] + (c.nodes - 1 if index == 0 else 0)
            yield f"{name}{_labels(**ds)} {value} {t:.0f}"
    for node in range(c.nodes):
        counted = c.restarts_at if node == 0 else ()
        for pod, begin, end in c.pod_spans(node):
            labels = _labels(
                job="monitoring/kube-state-metrics",
                namespace=c.namespace,
                pod=pod,
                uid=f"uid-{pod}",
                container="node-cache",
            )
            for t in c.times(begin):
                if t > end:
                    break
                restarts = sum(1 for at in counted if begin <= at <= t)
                yield f"kube_pod_container_status_restarts_total{labels} {restarts} {t:.0f}"


def _coredns(c: Cluster) -> Iterator[str]:
    labels = _labels(job=c.coredns_job, namespace="kube-system", pod="coredns-0", server="dns://:53", zone=".",
                     proto="udp", family="1", type="AAAA")  # fmt: skip
    total = 0.0
    first = c.coredns_from if c.coredns_from is not None else c.start
    for t in c.times(first):
        yield f"coredns_dns_requests_total{labels} {total:.0f} {t:.0f}"
        total += STEP * (c.qps_before if t < c.nld_from else c.qps_after)


def openmetrics(clusters: Sequence[Cluster]) -> str:
    """Every cluster's series, each metric family contiguous and each series in time order, ending ``# EOF``."""
    families: dict[str, list[str]] = {}
    for cluster in clusters:
        for line in (*_node_cache(cluster), *_kube_state_metrics(cluster), *_coredns(cluster)):
            families.setdefault(line.split("{", 1)[0], []).append(line)
    return "".join(line + "\n" for lines in families.values() for line in lines) + "# EOF\n"


@dataclass(frozen=True, kw_only=True)
class CutoverHistory:
    """A cutover's history from ``start`` to ``end``: canary and baseline pods of one PodMonitor job.

    Each pod answers ``qps`` lookups a second, a share of them SERVFAIL (node-cache's answer
    when forwarding fails), and forwards them with a mean upstream latency; the first canary
    pod counts the setup errors and restarts given.
    """

    start: float
    end: float
    name: str = "healthy"
    """Tells this history's job, namespace and pods from the others'."""
    canaries: int = 2
    baselines: int = 3
    qps: float = 50.0
    servfail: float = 0.002
    canary_servfail: float = 0.002
    latency: float = 0.010
    canary_latency: float = 0.011
    setup_errors_at: tuple[float, ...] = ()
    restarts_at: tuple[float, ...] = ()

    @property
    def job(self) -> str:
        return f"monitoring/nodelocaldns-cutover-{self.name}"

    @property
    def namespace(self) -> str:
        return f"kube-system-cutover-{self.name}"

    @property
    def canary_pods(self) -> tuple[str, ...]:
        return tuple(f"nld-{self.name}-canary-{i}" for i in range(self.canaries))

    @property
    def baseline_pods(self) -> tuple[str, ...]:
        return tuple(f"nld-{self.name}-base-{i}" for i in range(self.baselines))

    def times(self) -> Iterator[float]:
        t = self.start
        while t <= self.end:
            yield t
            t += STEP


def _cutover(c: CutoverHistory) -> Iterator[str]:
    """Each series of each pod, in time order."""
    times = list(c.times())
    for pod in (*c.canary_pods, *c.baseline_pods):
        canary, first = pod in c.canary_pods, pod == c.canary_pods[0]
        share = c.canary_servfail if canary else c.servfail
        latency = c.canary_latency if canary else c.latency
        lookups = [index * STEP * c.qps for index in range(len(times))]
        errors = [sum(1 for at in c.setup_errors_at if first and at <= t) for t in times]
        restarts = [sum(1 for at in c.restarts_at if first and at <= t) for t in times]
        target = {"job": c.job, "namespace": c.namespace, "pod": pod, "container": "node-cache"}
        answers = {**target, "server": "dns://[fd00::10]:53", "zone": "cluster.local.", "endpoint": "metrics"}
        forward = {
            **target,
            "to": "[fd00:ec2::a]:53",
            "rcode": "NOERROR",
            "proxy_name": "forward",
            "endpoint": "metrics",
        }
        ksm = {"job": "monitoring/kube-state-metrics", "namespace": c.namespace, "pod": pod, "container": "node-cache"}
        series: tuple[tuple[str, dict[str, str], list[float]], ...] = (
            ("coredns_dns_responses_total", {**answers, "rcode": "NOERROR"}, [n * (1 - share) for n in lookups]),
            ("coredns_dns_responses_total", {**answers, "rcode": "SERVFAIL"}, [n * share for n in lookups]),
            ("coredns_proxy_request_duration_seconds_count", forward, lookups),
            ("coredns_proxy_request_duration_seconds_sum", forward, [n * latency for n in lookups]),
            ("coredns_nodecache_setup_errors_total", {**target, "errortype": "iptables"}, [float(e) for e in errors]),
            ("kube_pod_container_status_restarts_total", ksm, [float(r) for r in restarts]),
        )
        for name, labels, values in series:
            text = _labels(**labels)
            yield from (f"{name}{text} {value:.3f} {t:.0f}" for value, t in zip(values, times, strict=True))


def cutover_openmetrics(histories: Sequence[CutoverHistory]) -> str:
    """Every cutover history's series, for ``promtool tsdb create-blocks-from openmetrics``."""
    families: dict[str, list[str]] = {}
    for history in histories:
        for line in _cutover(history):
            families.setdefault(line.split("{", 1)[0], []).append(line)
    return "".join(line + "\n" for lines in families.values() for line in lines) + "# EOF\n"
