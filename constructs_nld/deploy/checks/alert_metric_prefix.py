"""``alert-metric-prefix``: no live PrometheusRule queries a ``nodelocaldns_*`` metric, which does not exist.

Every PrometheusRule of the cluster is read, not only the app's. Without the
prometheus-operator CRDs it warns and checks nothing.

Cause: a rule (named) queries ``nodelocaldns_*``: the query silently returns nothing, and its
alert never fires.

Fix: query node-cache's metrics by their real prefix, ``coredns_nodecache_`` (e.g.
``coredns_nodecache_setup_errors_total``).
"""

from __future__ import annotations

from constructs_nld.alerts import find_wrong_metric_prefix
from constructs_nld.deploy.checks.cluster import CheckResult, Cluster
from constructs_nld.deploy.manifest import MONITORING_GROUP

NAME = "alert-metric-prefix"


def check(cluster: Cluster) -> CheckResult:
    """Every live rule queries node-cache's metrics by their real prefix."""
    if "prometheusrules" not in cluster.monitoring_served:
        return CheckResult(NAME, "warn", f"{MONITORING_GROUP} PrometheusRule not served; not checked")
    wrong: list[str] = []
    for rule_object in cluster.client.list(f"{MONITORING_GROUP}/v1", "PrometheusRule", None):
        where = f"{rule_object['metadata'].get('namespace')}/{rule_object['metadata']['name']}"
        for group in rule_object.get("spec", {}).get("groups") or []:
            for rule in group.get("rules") or []:
                metric = find_wrong_metric_prefix(str(rule.get("expr", "")))
                if metric:
                    wrong.append(f"{where} {rule.get('alert') or rule.get('record')}: {metric}")
    if wrong:
        return CheckResult(
            NAME,
            "fail",
            "; ".join(wrong),
            "nodelocaldns_* metrics do not exist: the query silently returns nothing",
            "use the coredns_nodecache_ prefix (e.g. coredns_nodecache_setup_errors_total)",
        )
    return CheckResult(NAME, "pass", "no rule queries a nodelocaldns_* metric")
