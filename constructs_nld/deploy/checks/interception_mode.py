"""``interception-mode``: the live template's and every pod's mode are the app's; in fallthrough, keepers ready.

The rules themselves live in each node's ip6tables, out of the API's sight. What the API
shows is which mode each pod runs (node-cache's ``-setupiptables=false``), and in the
fallthrough mode each keeper's readiness, whose probe runs on the node: ready only while
every jump into the keeper's chains is in place and node-cache's unconditional NOTRACK of
the kube-dns ClusterIP is not.

Cause: the live DaemonSet runs another mode than the app's (an older deploy); a rollout from
one mode to the other is unfinished; node-cache sets up no rules but no keeper does either;
or a keeper is not ready (a jump missing, or node-cache's NOTRACK in place: a black hole
whenever node-cache dies).

Fix: ``python deploy.py``, then ``kubectl rollout status``; without a keeper,
``NodeLocalDNSProps(interception='fallthrough')``; a keeper that is not ready shows why in its
probe's output (``kubectl describe pod``) and its logs.
"""

from __future__ import annotations

from typing import Final

from constructs_nld.deploy.checks.cluster import CheckResult, Cluster
from constructs_nld.deploy.manifest import interception_of
from constructs_nld.deploy.program import command_line
from constructs_nld.props import Interception

NAME = "interception-mode"

_MODE_RULES: Final[dict[Interception, str]] = {
    "node-cache": "node-cache's own NOTRACK rules, unconditional: a SIGKILLed or OOM-killed node-cache "
    "leaves them and black-holes the node's DNS until it is back",
    "fallthrough": "the keeper's socket-conditional rules: lookups fall through to cluster CoreDNS "
    "whenever node-cache is not listening",
}


def _keepers(cluster: Cluster, keeper_name: str) -> CheckResult:
    unready: list[str] = []
    restarts = 0
    for pod in cluster.pods:
        statuses = [s for s in pod.get("status", {}).get("containerStatuses") or [] if s.get("name") == keeper_name]
        node = pod.get("spec", {}).get("nodeName", "?")
        if not statuses:
            unready.append(f"{node} (no status)")
            continue
        status = statuses[0]
        restarts += int(status.get("restartCount", 0))
        if not status.get("ready"):
            reason = status.get("state", {}).get("waiting", {}).get("reason", "not ready")
            unready.append(f"{node} ({reason}, {status.get('restartCount', 0)} restart(s))")
    if unready:
        return CheckResult(
            NAME,
            "fail",
            f"{keeper_name} not ready on {len(unready)} node(s): {', '.join(sorted(unready))}",
            "its readiness probe fails while a jump into its chains is missing or node-cache's unconditional "
            "NOTRACK of the kube-dns ClusterIP is in place (a black hole whenever node-cache dies); a "
            "restarting keeper cannot write its rules",
            f"kubectl describe pod -n {cluster.namespace} <pod> (the probe's output); "
            f"kubectl logs -n {cluster.namespace} <pod> -c {keeper_name}",
        )
    return CheckResult(
        NAME,
        "pass",
        f"fallthrough: {keeper_name} ready on {len(cluster.pods)} pod(s) ({restarts} restart(s)): "
        f"{_MODE_RULES['fallthrough']}",
    )


def check(cluster: Cluster) -> CheckResult:
    """The app's interception mode runs everywhere, and in the fallthrough mode every keeper is ready."""
    app = cluster.component.interception
    if cluster.daemon_set is None:
        return cluster.not_deployed(NAME, f"daemonset {cluster.ds_name}", "NodeLocal DNSCache is not deployed")
    live = interception_of(cluster.daemon_set["spec"]["template"]["spec"])
    if live != app:
        return CheckResult(
            NAME,
            "fail",
            f"the live DaemonSet runs the {live} mode, the app configures {app}",
            f"the nodes run {_MODE_RULES[live]}",
            command_line(),
        )
    others = sorted(
        f"{pod.get('spec', {}).get('nodeName', '?')} ({pod['metadata']['name']})"
        for pod in cluster.pods
        if interception_of(pod.get("spec") or {}) != app
    )
    if others:
        other: Interception = "fallthrough" if app == "node-cache" else "node-cache"
        return CheckResult(
            NAME,
            "fail",
            f"{len(others)} pod(s) still run the {other} mode: {', '.join(others)}",
            f"the rollout to {app} is unfinished: those nodes run {_MODE_RULES[other]}",
            cluster.rollout_status,
        )
    if app == "node-cache":
        return CheckResult(
            NAME,
            "pass",
            f"node-cache (the spec's) on {len(cluster.pods)} pod(s): {_MODE_RULES[app]}; "
            "the rules are seen only on the node (ip6tables-save -t raw)",
        )
    keeper = cluster.component.keeper
    if keeper is None:
        return CheckResult(
            NAME,
            "fail",
            "node-cache runs with -setupiptables=false but the app's pods have no keeper container",
            "nothing installs the rules: node-cache is never reached through the kube-dns ClusterIP",
            "use NodeLocalDNSProps(interception='fallthrough'), which adds the keeper",
        )
    return _keepers(cluster, str(keeper["name"]))
