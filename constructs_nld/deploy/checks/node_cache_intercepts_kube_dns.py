"""``node-cache-intercepts-kube-dns``: node-cache intercepts kube-dns's live address, pinned or from kubelet.

The live DaemonSet's ``-localip`` holds kube-dns's current ClusterIP or, in portable output,
``$(KUBE_DNS_SERVICE_HOST)``, which kubelet fills only in pods created after kube-dns. The
pods keep Service links on (``enableServiceLinks``): without them kubelet injects no
Service variable.

Cause: kube-dns recreated with a new address since the last deploy (node-cache intercepts
nothing pods ask); in portable output, pods older than kube-dns (node-cache exits: ``invalid
localip``); Service links turned off (node-cache exits at start); or no kube-dns at all.

Fix: ``python deploy.py``, which pins the live ClusterIP and leaves Service links on; in
portable output, a rollout restart of the DaemonSet; without kube-dns, the cluster's DNS
add-on restored.
"""

from __future__ import annotations

from constructs_nld import defaults
from constructs_nld.deploy.checks.cluster import CheckResult, Cluster
from constructs_nld.deploy.manifest import created_at, flag, same_address
from constructs_nld.deploy.program import command_line
from constructs_nld.placeholders import KUBE_DNS_SERVICE_HOST

NAME = "node-cache-intercepts-kube-dns"


def check(cluster: Cluster) -> CheckResult:
    """The live ``-localip`` holds kube-dns's ClusterIP, or (portable) every pod got it from kubelet."""
    if cluster.kube_dns is None:
        return CheckResult(
            NAME,
            "fail",
            f"service {defaults.KUBE_DNS_SERVICE_NAME} not found",
            "there is no cluster DNS to cache",
            "restore kube-dns (the cluster's CoreDNS Service)",
        )
    if cluster.daemon_set is None:
        return CheckResult(NAME, "warn", f"daemonset {cluster.ds_name} not found; see daemonset-healthy")
    live_ip = str(cluster.kube_dns.get("spec", {}).get("clusterIP"))
    pod_spec = cluster.daemon_set["spec"]["template"]["spec"]
    if pod_spec.get("enableServiceLinks") is False:
        return CheckResult(
            NAME,
            "fail",
            f"{cluster.ds_name} sets enableServiceLinks: false",
            "kubelet injects no Service variables: node-cache gets no KUBE_DNS_UPSTREAM_SERVICE_HOST "
            "(nor, portable, KUBE_DNS_SERVICE_HOST) and exits at start",
            f"{command_line()} (the app leaves Service links on)",
        )
    args = [a for container in pod_spec.get("containers") or [] for a in container.get("args") or []]
    local_ips = (flag(args, "-localip") or "").split(",")
    if KUBE_DNS_SERVICE_HOST in local_ips:
        created = created_at(cluster.kube_dns)
        early = sorted(p["metadata"]["name"] for p in cluster.pods if created_at(p) < created)
        if early:
            return CheckResult(
                NAME,
                "fail",
                f"{len(early)} pod(s) predate {defaults.KUBE_DNS_SERVICE_NAME}: {', '.join(early)}",
                "kubelet gave them no KUBE_DNS_SERVICE_HOST: $(KUBE_DNS_SERVICE_HOST) stays literal and "
                "node-cache exits ('invalid localip')",
                cluster.rollout_restart,
            )
        return CheckResult(
            NAME, "pass", f"portable: kubelet gives {len(cluster.pods)} pod(s) {live_ip} as $(KUBE_DNS_SERVICE_HOST)"
        )
    if not any(same_address(address, live_ip) for address in local_ips):
        return CheckResult(
            NAME,
            "fail",
            f"-localip is {','.join(local_ips)}, kube-dns's ClusterIP is {live_ip}",
            "kube-dns was recreated with a new address since the last deploy: node-cache intercepts nothing pods ask",
            f"{command_line()} (it pins the live ClusterIP)",
        )
    return CheckResult(NAME, "pass", f"-localip holds kube-dns's ClusterIP {live_ip}")
