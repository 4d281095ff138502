"""``kube-dns-configmap``: what the live ``kube-dns`` ConfigMap makes node-cache do, outside the app.

node-cache 1.26.8 reads the ConfigMap wherever the pods mount it at ``/etc/kube-dns`` (the
spec's mount). A stub domain the app's Corefile serves too stops node-cache on every node: a
failure. Any other setting there is DNS configured outside the app, and a warning says where
it belongs: the app's ``zones`` and ``upstream_servers``, typed and checked, with
``read_kube_dns_config_map=False``. An app that does not mount the ConfigMap is told what
node-cache does not read.

Cause: a stub domain served twice (node-cache appends it to its Corefile, CoreDNS refuses the
zone and node-cache exits); otherwise DNS configured where the app neither reviews nor checks
it.

Fix: move the settings to ``NodeLocalDNSProps.zones`` and ``upstream_servers`` in the app and
set ``read_kube_dns_config_map=False``; a clashing stub domain can also just be removed from
the ConfigMap.
"""

from __future__ import annotations

from constructs_nld import defaults
from constructs_nld.deploy.checks.cluster import CheckResult, Cluster
from constructs_nld.deploy.kube import ObjectRef
from constructs_nld.deploy.kube_dns_config import KubeDnsConfig, collisions, upstreams_ignored

NAME = "kube-dns-configmap"

_MOVE = "move them to NodeLocalDNSProps.zones and upstream_servers in the app"


def check(cluster: Cluster) -> CheckResult:
    """Fail on a stub domain node-cache would serve twice; warn on settings that live outside the app."""
    name = f"configmap/{cluster.namespace}/{defaults.KUBE_DNS_CONFIG_MAP_NAME}"
    ref = ObjectRef("v1", "ConfigMap", cluster.namespace, defaults.KUBE_DNS_CONFIG_MAP_NAME)
    config = KubeDnsConfig.of(cluster.client.get(ref))
    if config.empty:
        return CheckResult(NAME, "pass", f"{name} sets nothing for node-cache")
    component = cluster.component
    if not component.reads_kube_dns_config:
        return CheckResult(
            NAME,
            "warn",
            f"{name} sets {config.describe()}, which node-cache does not read (the app does not mount it)",
            "those lookups go where the app's Corefile sends them, not where the ConfigMap says",
            _MOVE,
        )
    if config.unreadable:
        return CheckResult(
            NAME,
            "warn",
            f"{name} sets {config.describe()}",
            "node-cache fails to parse it and reads nothing of the ConfigMap",
            _MOVE,
        )
    clashing = collisions(component, config)
    if clashing:
        return CheckResult(
            NAME,
            "fail",
            f"{name} has stubDomains {', '.join(clashing)}, which the app's Corefile serves too",
            "node-cache appends them to its Corefile and CoreDNS refuses a zone served twice: node-cache exits",
            "remove them from the ConfigMap (the app's zones serve them), or set read_kube_dns_config_map=False",
        )
    ignored = " (its upstreamNameservers are ignored: the app's upstream_servers win)"
    return CheckResult(
        NAME,
        "warn",
        f"node-cache serves {config.describe()} from {name}, outside the app"
        + (ignored if upstreams_ignored(component, config) else ""),
        "DNS configured there is neither reviewed with the app nor checked by it",
        f"{_MOVE}, and set read_kube_dns_config_map=False",
    )
