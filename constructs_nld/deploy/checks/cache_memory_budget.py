"""``cache-memory-budget``: the live caches, full, fit in node-cache's memory request; a warning when they do not.

Reads the live Corefile ConfigMap (what node-cache runs) for each server block's cache
capacities, success and denial, and the live DaemonSet's memory request; the worst case is
node-cache's idle memory plus every cache full, at the cost of an entry measured on the real
node-cache (``defaults.CACHE_ENTRY_BYTES``, ``bench/cachememory.py``). A cache that outgrows
the request is no failure (node-cache has no memory limit, by design), so this check warns.

Cause: a larger cache capacity, or zones with caches of their own, than the memory request
was sized for.

Fix: raise ``NodeLocalDNSProps.memory_request`` to the size the warning names, or lower the
capacities (docs/configuration.md, "Sizing the memory request").
"""

from __future__ import annotations

from constructs_nld.cachememory import cache_budget
from constructs_nld.deploy.checks.cluster import CheckResult, Cluster

NAME = "cache-memory-budget"


def check(cluster: Cluster) -> CheckResult:
    """Warn when every live cache full would exceed the live memory request; pass when it fits."""
    app_config_map = cluster.component.corefile
    live_config_map = cluster.live(app_config_map) if app_config_map is not None else None
    daemon_set = cluster.daemon_set
    if live_config_map is None or daemon_set is None:
        return CheckResult(NAME, "warn", "not judged: the live Corefile ConfigMap or DaemonSet is missing")
    try:
        budget = cache_budget(live_config_map, daemon_set)
    except ValueError as error:
        return CheckResult(NAME, "warn", f"not judged: the live DaemonSet's {error}")
    if budget is None:
        return CheckResult(
            NAME,
            "warn",
            "not judged: the live DaemonSet's node-cache requests no memory, or the ConfigMap holds no Corefile",
            "without a memory request the node-cache pods are the first the kubelet evicts under memory pressure",
            "set NodeLocalDNSProps.memory_request (the spec's is 100Mi) and deploy",
        )
    warning = budget.warning()
    if warning is None:
        return CheckResult(NAME, "pass", budget.summary())
    return CheckResult(
        NAME,
        "warn",
        budget.summary(),
        "full caches would take more memory than node-cache requests: the node may evict the pod under memory pressure",
        f"set NodeLocalDNSProps.memory_request to at least {budget.covering_request} and deploy, or lower the cache "
        'capacities (docs/configuration.md, "Sizing the memory request")',
    )
