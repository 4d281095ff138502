"""``upstream-traffic-distribution``: kube-dns-upstream keeps the app's ``trafficDistribution``, with zone hints.

Skipped (a pass) when the app sets no ``upstream_traffic_distribution``. Otherwise reads the
live kube-dns-upstream, then its EndpointSlices (label ``kubernetes.io/service-name``):
kube-proxy keeps a node's cache misses in its zone only when every ready endpoint has a
zone hint, which the EndpointSlice controller writes from the ``topology.kubernetes.io/zone``
label of the endpoint's node. Without them, misses go to every CoreDNS pod, as without the
field: a warning, since DNS still works.

Cause: an API server before Kubernetes 1.31 (``PreferSameZone``, ``PreferSameNode``: 1.34), or
with the feature gate off, dropped the field (a failure); or nodes that run cluster CoreDNS
lack the zone label (a warning naming the endpoints).

Fix: upgrade the control plane, or unset ``upstream_traffic_distribution``; label the nodes
with ``topology.kubernetes.io/zone`` (cloud providers do).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from constructs_nld import defaults
from constructs_nld.deploy.checks.cluster import CheckResult, Cluster
from constructs_nld.deploy.program import command_line

NAME = "upstream-traffic-distribution"

SERVICE_NAME_LABEL = "kubernetes.io/service-name"
"""The label that ties an EndpointSlice to its Service."""


def unhinted(slices: Iterable[Mapping[str, Any]]) -> tuple[int, list[str]]:
    """How many ready endpoints ``slices`` hold, and those without the zone hint kube-proxy needs (address, node)."""
    ready = 0
    missing: list[str] = []
    for endpoint_slice in slices:
        for endpoint in endpoint_slice.get("endpoints") or ():
            if (endpoint.get("conditions") or {}).get("ready") is False:
                continue
            ready += 1
            zones = ((endpoint.get("hints") or {}).get("forZones")) or ()
            if not any(isinstance(zone, Mapping) and zone.get("name") for zone in zones):
                address = ",".join(str(a) for a in endpoint.get("addresses") or ()) or "?"
                missing.append(f"{address} (node {endpoint.get('nodeName') or '?'})")
    return ready, missing


def check(cluster: Cluster) -> CheckResult:
    """The live Service keeps the app's trafficDistribution, and every ready endpoint has a zone hint."""
    wanted = cluster.component.traffic_distribution
    if wanted is None:
        return CheckResult(NAME, "pass", "not asked for: cache misses go to every cluster CoreDNS pod")
    name = cluster.component.upstream_service["metadata"]["name"]
    if cluster.upstream is None:
        return cluster.not_deployed(NAME, f"service {name}", "node-cache's cache misses have nowhere to go")
    dropped = cluster.component.dropped_traffic_distribution(cluster.upstream)
    if dropped is not None:
        return CheckResult(
            NAME,
            "fail",
            dropped,
            "cache misses go to every cluster CoreDNS pod, in every zone",
            "upgrade the control plane, or unset upstream_traffic_distribution and deploy "
            f"({command_line()} refuses what a dry run drops)",
        )
    slices = cluster.client.list(
        "discovery.k8s.io/v1", "EndpointSlice", cluster.namespace, label_selector=f"{SERVICE_NAME_LABEL}={name}"
    )
    ready, missing = unhinted(slices)
    if not ready:
        selected = ",".join(f"{k}={v}" for k, v in cluster.component.upstream_selector.items())
        return CheckResult(
            NAME,
            "warn",
            f"{wanted}, but {name} has no ready endpoint",
            "no cluster CoreDNS pod is ready",
            f"kubectl -n {cluster.namespace} get pods -l {selected}",
        )
    if missing:
        return CheckResult(
            NAME,
            "warn",
            f"{wanted}, but {len(missing)} of {ready} ready endpoint(s) have no zone hint: {', '.join(missing)}",
            "kube-proxy ignores the hints unless every endpoint has one: cache misses go to every zone",
            f"label the nodes that run cluster CoreDNS with {defaults.ZONE_LABEL}",
        )
    return CheckResult(NAME, "pass", f"{wanted}: all {ready} ready endpoint(s) have a zone hint")
