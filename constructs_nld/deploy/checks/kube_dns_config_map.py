"""``kube-dns-configmap-not-read``: settings in the ``kube-dns`` ConfigMap that node-cache does not read.

The spec mounts the optional ``kube-system/kube-dns`` ConfigMap but never passes
``-kubednscm``, so node-cache ignores its ``stubDomains`` and ``upstreamNameservers``: their
lookups go to cluster CoreDNS and the node's resolvers instead. This project keeps that, and
says it (a warning): the app's ``zones`` and ``upstream_servers`` are where those settings
go, typed and checked.
"""

from __future__ import annotations

import json

from constructs_nld import defaults
from constructs_nld.deploy.checks.cluster import CheckResult, Cluster
from constructs_nld.deploy.kube import ObjectRef
from constructs_nld.deploy.manifest import flag

NAME = "kube-dns-configmap-not-read"

_KEYS = {"stubDomains": "zones", "upstreamNameservers": "upstream_servers"}


def check(cluster: Cluster) -> CheckResult:
    """Warn when the live kube-dns ConfigMap holds settings the app's node-cache does not read."""
    if flag(cluster.component.container.get("args") or [], "-kubednscm") is not None:
        return CheckResult(NAME, "pass", "node-cache reads the kube-dns ConfigMap (-kubednscm)")
    live = cluster.client.get(ObjectRef("v1", "ConfigMap", cluster.namespace, defaults.KUBE_DNS_CONFIG_MAP_NAME))
    data = (live or {}).get("data") or {}
    ignored = {key: data[key] for key in _KEYS if _meaningful(data.get(key))}
    if not ignored:
        return CheckResult(NAME, "pass", "no stubDomains or upstreamNameservers for node-cache to miss")
    listed = "; ".join(f"{key}: {' '.join(value.split())}" for key, value in ignored.items())
    props = " and ".join(f"NodeLocalDNSProps.{_KEYS[key]}" for key in ignored)
    return CheckResult(
        NAME,
        "warn",
        f"configmap/{cluster.namespace}/{defaults.KUBE_DNS_CONFIG_MAP_NAME} sets {listed}, which node-cache does not "
        "read (no -kubednscm)",
        "those lookups go to cluster CoreDNS and the node's resolvers, not where the ConfigMap says",
        f"move them to {props} in the app",
    )


def _meaningful(text: str | None) -> bool:
    """A non-empty JSON value (``{}`` and ``[]`` say nothing)."""
    if not text or not text.strip():
        return False
    try:
        return bool(json.loads(text))
    except ValueError:
        return True
