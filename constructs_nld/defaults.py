"""Every default value of the component, in one place.

Each value comes from the spec (the production component this library reproduces) or its design
notes (the node-cache 1.26.8 source and the upstream reference manifest); docs/design.md says
where the library departs from them. Props dataclasses
reference these names; no other module retypes a spec value.
"""

from __future__ import annotations

from typing import Final, Literal

__all__ = [
    "A_FILTER_TTL",
    "ALERTS_NAMESPACE",
    "API_BURST",
    "API_PAGE_SIZE",
    "API_QPS",
    "API_RESPONSE_CAP",
    "ALERT_ROUTING_LABELS",
    "APPLYSET_NAME",
    "HISTORY_BYTES",
    "HISTORY_MAX",
    "HISTORY_NAME",
    "DEPLOY_LEASE_NAME",
    "DEPLOY_LEASE_SECONDS",
    "APP_NAME",
    "ARGOCD_SYNC_WAVE_ANNOTATION",
    "BINARY_METRICS_PORT",
    "BINARY_METRICS_PORT_NAME",
    "CACHE_ENTRY_BYTES",
    "CACHE_PLUGIN_CAPACITY",
    "CLUSTER_DOMAIN",
    "CLUSTER_DOMAIN_CACHE_DENIAL",
    "CLUSTER_DOMAIN_CACHE_SUCCESS",
    "CLUSTER_ENV",
    "CLUSTER_IP_ENV",
    "CLUSTER_IP_POLL",
    "CONTEXT_ENV",
    "CONFIG_MAP_NAME",
    "CONTAINER_NAME",
    "COREFILE_BASE_MOUNT",
    "COREFILE_KEY",
    "CPU_REQUEST",
    "DAEMON_SET_NAME",
    "DEPLOYER_RBAC_NAME",
    "DASHBOARD_KEY",
    "DASHBOARD_LABELS",
    "DASHBOARD_NAME",
    "DASHBOARD_TITLE",
    "DASHBOARD_UID",
    "DEGRADED_ALERT_FOR",
    "DEGRADED_ALERT_SEVERITY",
    "DEPLOY_TIMEOUT",
    "DNS_PORT",
    "DNS_TCP_PORT_NAME",
    "DNS_UDP_PORT_NAME",
    "HEALTH_PORT",
    "IMAGE",
    "IMAGE_PULL_POLICY",
    "IN_CLUSTER_NAME",
    "INTERCEPTION",
    "IPTABLES_WAIT_SECONDS",
    "KEEPER_CAPABILITIES",
    "KEEPER_CONFIG_MAP_NAME",
    "KEEPER_CONTAINER_NAME",
    "KEEPER_CPU_REQUEST",
    "KEEPER_MEMORY_REQUEST",
    "KEEPER_MOUNT",
    "KEEPER_READINESS_PERIOD_SECONDS",
    "KEEPER_READINESS_TIMEOUT_SECONDS",
    "KEEPER_RESYNC_SECONDS",
    "KEEPER_RULES_KEY",
    "KEEPER_SCRIPT_KEY",
    "KUBE_DNS_CONFIG_MAP_NAME",
    "KUBE_DNS_CONFIG_MOUNT",
    "KUBE_DNS_SELECTOR",
    "KUBE_DNS_SERVICE_NAME",
    "LIVENESS_FAILURE_THRESHOLD",
    "LIVENESS_INITIAL_DELAY_SECONDS",
    "LIVENESS_PERIOD_SECONDS",
    "LIVENESS_TIMEOUT_SECONDS",
    "LOCAL_IP",
    "MANAGED_BY_LABEL",
    "MAX_UNAVAILABLE",
    "MEMORY_REQUEST",
    "METRICS_PORT",
    "METRICS_PORT_NAME",
    "METRICS_SERVICE_NAME",
    "MONITORING_GROUP",
    "MONITORING_LABELS",
    "NAMESPACE",
    "NODE_CACHE_IDLE_BYTES",
    "NODE_SUPPORTED",
    "NODE_CACHE_APP_LABEL",
    "NODE_CACHE_CAPABILITIES",
    "NODE_CACHE_CAPABILITIES_WITHOUT_RULES",
    "NODE_CACHE_HEALTH_PORT_FLAG",
    "NODE_CACHE_METRICS_PORT_FLAG",
    "OTHER_ZONES_CACHE_TTL",
    "PID_FILE",
    "POD_MONITOR_NAME",
    "PRIORITY_CLASS_NAME",
    "PRIVILEGED",
    "PROGRESS_MODES",
    "PROMETHEUS_RULE_NAME",
    "RENDERED_COREFILE",
    "RESTARTING_ALERT_FOR",
    "RESTARTING_ALERT_SEVERITY",
    "SCRAPE_INTERVAL",
    "SERVICE_ACCOUNT_NAME",
    "SET_ENV",
    "SETUP_ERRORS_ALERT_FOR",
    "SETUP_ERRORS_ALERT_SEVERITY",
    "RETRY_AFTER_CAP",
    "RETRY_FIRST_DELAY",
    "RETRY_JITTER",
    "RETRY_MAX_DELAY",
    "SHELL",
    "SOAK_BASELINE_WINDOW",
    "SOAK_MIN_QPS_DROP",
    "SOAK_ROLLOUT_SETTLE",
    "CANARY_ERROR_RATIO",
    "CANARY_ERROR_SLACK",
    "CANARY_LATENCY_RATIO",
    "CANARY_LATENCY_SLACK",
    "CUTOVER_ANNOTATION",
    "CUTOVER_FIELD_MANAGER",
    "FLEET_PARALLEL",
    "LAST_CUTOVER_ANNOTATION",
    "POLL_BACKOFF_CAP",
    "POLL_BACKOFF_FACTOR",
    "POOL_LABELS",
    "SOAK_WINDOW",
    "STALL_AFTER",
    "TARGET_DOWN_ALERT_FOR",
    "TARGET_DOWN_ALERT_SEVERITY",
    "TERMINATION_GRACE_PERIOD_SECONDS",
    "TOLERATIONS",
    "TRAFFIC_DISTRIBUTION_SINCE",
    "UPSTREAM_SERVICE_NAME",
    "ZONE_LABEL",
    "VALUES_ENV",
    "XTABLES_LOCK_PATH",
]

# --- how the address reaches a synth -----------------------------------------------------
CLUSTER_IP_ENV: Final = "KUBE_DNS_CLUSTER_IP"
"""Environment variable holding the live kube-dns ClusterIP for ``cdk8s synth`` (``deploy.py`` sets it)."""
CLUSTER_ENV: Final = "NLD_CLUSTER"
"""Environment variable naming the cluster ``deploy.py`` synthesizes the app for: the ``name:`` of its
``clusters.yaml`` entry, else its kubeconfig context (unset: a preview). An app keeps per-cluster props in a
dict keyed by it. Set in ``deploy.py``'s own environment, it names an in-cluster run."""
CONTEXT_ENV: Final = "NLD_CONTEXT"
"""Environment variable holding the kubeconfig context of that cluster (unset: a preview, or in-cluster)."""
VALUES_ENV: Final = "NLD_VALUES"
"""Environment variable holding the values files ``deploy.py --values`` names: a JSON list of absolute paths, in
order, which :func:`constructs_nld.app.props_from_environment` layers over the app's props."""
SET_ENV: Final = "NLD_SET"
"""Environment variable holding ``deploy.py --set``'s ``key.path=value`` strings: a JSON list, in order, applied
after the values files."""
IN_CLUSTER_NAME: Final = "in-cluster"
"""The cluster's name in an in-cluster run (a pod's service account, no kubeconfig) unless ``$NLD_CLUSTER`` names it."""

# --- where things live ------------------------------------------------------------------
NAMESPACE: Final = "kube-system"
ALERTS_NAMESPACE: Final = "monitoring"
MONITORING_GROUP: Final = "monitoring.coreos.com"
"""The prometheus-operator API group of the PodMonitor and PrometheusRule: served only where its CRDs are installed."""

# --- object names (public API: deploy and verify look them up by these names) ------------
APP_NAME: Final = "node-local-dns"
"""The application's name: ``app.kubernetes.io/name`` of every object of ours (constructs_nld.roles)."""
APPLYSET_NAME: Final = "node-local-dns-applyset"
DEPLOY_LEASE_NAME: Final = "node-local-dns-deploy"
"""The Lease (coordination.k8s.io) a deploy holds while it writes, in the component's namespace."""
DEPLOY_LEASE_SECONDS: Final = 60
"""How long a deploy's Lease holds without a renewal (renewed every third of it): a killed deploy's lapses."""
"""The ApplySet parent ConfigMap, in the DaemonSet's namespace, that tracks what a deploy applied (KEP-3659)."""
HISTORY_NAME: Final = "node-local-dns-history"
"""The ConfigMap that keeps the release history (one key per revision), in the component's namespace."""
HISTORY_MAX: Final = 10
"""Revisions the history keeps (``--history-max``): Helm's ``--history-max`` default is 10 as well."""
HISTORY_BYTES: Final = 1_000_000
"""The most the history's revisions may take, compressed: an object's whole size is capped at 1 MiB (etcd)."""
DAEMON_SET_NAME: Final = "node-local-dns"
DEPLOYER_RBAC_NAME: Final = "node-local-dns-deployer"
"""The prefix of the deployer's Roles, ClusterRoles and bindings: ``<prefix>-<command>`` (constructs_nld.rbac)."""
CONFIG_MAP_NAME: Final = "node-local-dns"
SERVICE_ACCOUNT_NAME: Final = "node-local-dns"
UPSTREAM_SERVICE_NAME: Final = "kube-dns-upstream"
METRICS_SERVICE_NAME: Final = "node-local-dns-metrics"
TRAFFIC_DISTRIBUTION_SINCE: Final = {"PreferClose": "1.31", "PreferSameZone": "1.34", "PreferSameNode": "1.34"}
"""Each ``trafficDistribution`` kube-dns-upstream may take, with the Kubernetes minor that serves it by default.

``PreferClose`` is beta, on by default, from 1.31 (GA in 1.33); ``PreferSameZone`` (what ``PreferClose``
means, under a clearer name) and ``PreferSameNode`` from 1.34 (feature gate
``PreferSameTrafficDistribution``). An older API server drops the field, or refuses the value."""
KUBE_DNS_SERVICE_NAME: Final = "kube-dns"
KUBE_DNS_CONFIG_MAP_NAME: Final = "kube-dns"
POD_MONITOR_NAME: Final = "nodelocaldns"
PROMETHEUS_RULE_NAME: Final = "nodelocaldns-alerts"
CONTAINER_NAME: Final = "node-cache"

# --- labels and annotations ---------------------------------------------------------------
NODE_CACHE_APP_LABEL: Final = {"k8s-app": "node-local-dns"}
KUBE_DNS_SELECTOR: Final = {"k8s-app": "kube-dns"}
ZONE_LABEL: Final = "topology.kubernetes.io/zone"
"""The node label the EndpointSlice controller reads an endpoint's zone from, and kube-proxy its node's."""
MANAGED_BY_LABEL: Final = {"app.kubernetes.io/managed-by": "osdc-base"}
MONITORING_LABELS: Final = {"app.kubernetes.io/part-of": "osdc-monitoring"}
ARGOCD_SYNC_WAVE_ANNOTATION: Final = "argocd.argoproj.io/sync-wave"
"""Argo CD applies lower waves first and waits for them to be healthy."""

# --- addresses and ports ------------------------------------------------------------------
LOCAL_IP: Final = "fd00::10"
CLUSTER_DOMAIN: Final = "cluster.local"
DNS_PORT: Final = 53
HEALTH_PORT: Final = 8080
METRICS_PORT: Final = 9253
BINARY_METRICS_PORT: Final = 9353
NODE_CACHE_HEALTH_PORT_FLAG: Final = 8080
"""node-cache's own ``-health-port`` default: the DaemonSet passes the flag only for another port."""
NODE_CACHE_METRICS_PORT_FLAG: Final = 9353
"""The port of node-cache's own ``-metrics-listen-address`` default (``0.0.0.0:9353``, both families)."""
DNS_UDP_PORT_NAME: Final = "dns"
DNS_TCP_PORT_NAME: Final = "dns-tcp"
METRICS_PORT_NAME: Final = "metrics"
BINARY_METRICS_PORT_NAME: Final = "metrics-binary"

# --- workload -------------------------------------------------------------------------------
IMAGE: Final = "registry.k8s.io/dns/k8s-dns-node-cache:1.26.8"
IMAGE_PULL_POLICY: Final = "IfNotPresent"
PRIORITY_CLASS_NAME: Final = "system-node-critical"
CPU_REQUEST: Final = "25m"
MEMORY_REQUEST: Final = "100Mi"
TERMINATION_GRACE_PERIOD_SECONDS: Final = 30
MAX_UNAVAILABLE: Final = "1%"
LIVENESS_INITIAL_DELAY_SECONDS: Final = 60
LIVENESS_PERIOD_SECONDS: Final = 15
LIVENESS_TIMEOUT_SECONDS: Final = 5
LIVENESS_FAILURE_THRESHOLD: Final = 5
PID_FILE: Final = "/tmp/node-cache.pid"
RENDERED_COREFILE: Final = "/etc/Corefile"
COREFILE_BASE_MOUNT: Final = "/etc/coredns"
COREFILE_KEY: Final = "Corefile"
KUBE_DNS_CONFIG_MOUNT: Final = "/etc/kube-dns"
XTABLES_LOCK_PATH: Final = "/run/xtables.lock"
PRIVILEGED: Final = True
"""The spec runs node-cache privileged; ``privileged=False`` grants only the capabilities below."""
NODE_CACHE_CAPABILITIES: Final = ("NET_ADMIN", "NET_BIND_SERVICE", "NET_RAW")
"""What node-cache needs when it writes its own rules: NET_ADMIN for the dummy interface and
ip6tables, NET_BIND_SERVICE for port 53, NET_RAW for ip6tables on a node whose backend is
iptables-legacy (its socket is a raw one; the image's iptables-wrapper picks the node's backend)."""
NODE_CACHE_CAPABILITIES_WITHOUT_RULES: Final = ("NET_ADMIN", "NET_BIND_SERVICE")
"""What node-cache needs in the fallthrough mode (``-setupiptables=false``): no ip6tables, so no NET_RAW."""
KEEPER_CAPABILITIES: Final = ("NET_ADMIN", "NET_RAW")
"""What the fallthrough keeper needs: ip6tables on either backend."""

# --- the fallthrough interception mode and its keeper (constructs_nld.keeper) ----------------
INTERCEPTION: Final = "node-cache"
"""The spec's: node-cache writes its own unconditional NOTRACK rules."""
KEEPER_CONTAINER_NAME: Final = "keeper"
KEEPER_CONFIG_MAP_NAME: Final = "node-local-dns-keeper"
KEEPER_MOUNT: Final = "/etc/nodelocaldns-keeper"
KEEPER_SCRIPT_KEY: Final = "keeper.sh"
KEEPER_RULES_KEY: Final = "rules"
KEEPER_RESYNC_SECONDS: Final = 60
"""How often the fallthrough keeper re-asserts its rules: node-cache's own ``-syncinterval`` default."""
KEEPER_CPU_REQUEST: Final = "5m"
KEEPER_MEMORY_REQUEST: Final = "20Mi"
KEEPER_READINESS_PERIOD_SECONDS: Final = 15
KEEPER_READINESS_TIMEOUT_SECONDS: Final = 10
"""Longer than the probe's ip6tables calls may wait for the xtables lock (``-w 5``)."""
IPTABLES_WAIT_SECONDS: Final = 5
"""``ip6tables -w``: how long to wait for the xtables lock, as node-cache's own calls do."""
SHELL: Final = "/bin/sh"
"""The node-cache image's shell (dash, from distroless-iptables), which its ip6tables wrapper needs too."""
TOLERATIONS: Final[
    tuple[
        tuple[str, Literal["Equal", "Exists"], str | None, Literal["NoSchedule", "PreferNoSchedule", "NoExecute"]], ...
    ]
] = (
    ("CriticalAddonsOnly", "Equal", "true", "NoSchedule"),
    ("nvidia.com/gpu", "Exists", None, "NoSchedule"),
    ("node-fleet", "Exists", None, "NoSchedule"),
    ("instance-type", "Exists", None, "NoSchedule"),
)
"""(key, operator, value, effect) per toleration, in the spec's order."""

# --- Corefile cache -------------------------------------------------------------------------
CLUSTER_DOMAIN_CACHE_SUCCESS: Final = (9984, 30)
"""(capacity, max TTL seconds) of positive answers in the cluster-domain block."""
CLUSTER_DOMAIN_CACHE_DENIAL: Final = (9984, 5)
"""(capacity, max TTL seconds) of negative answers in the cluster-domain block."""
OTHER_ZONES_CACHE_TTL: Final = 30
CACHE_PLUGIN_CAPACITY: Final = 9984
"""The cache plugin's own default capacity, written where a line of it needs one (``denial CAPACITY TTL``)."""
CACHE_ENTRY_BYTES: Final = 1280
"""Resident memory one cached entry costs node-cache 1.26.8, rounded up: measured by ``bench/cachememory.py``."""
NODE_CACHE_IDLE_BYTES: Final = 44 * 2**20
"""node-cache 1.26.8's resident memory with the spec's Corefile and empty caches: measured by the same bench."""
A_FILTER_TTL: Final = 30
"""Seconds the A-query filter's empty answer may be cached (its SOA's TTL and minimum): the other blocks' max TTL."""

# --- monitoring -----------------------------------------------------------------------------
SCRAPE_INTERVAL: Final = "60s"
SETUP_ERRORS_ALERT_FOR: Final = "5m"
SETUP_ERRORS_ALERT_SEVERITY: Final = "critical"
RESTARTING_ALERT_FOR: Final = "10m"
RESTARTING_ALERT_SEVERITY: Final = "warning"
DEGRADED_ALERT_FOR: Final = "15m"
DEGRADED_ALERT_SEVERITY: Final = "warning"
TARGET_DOWN_ALERT_FOR: Final = "10m"
TARGET_DOWN_ALERT_SEVERITY: Final = "warning"
ALERT_ROUTING_LABELS: Final = {"team": "pytorch-dev-infra", "priority": "P3"}
"""Labels production's alerts carry beside ``severity``, for Alertmanager routing."""

# --- the runtimes the library is supported and tested on ----------------------------------
NODE_SUPPORTED: Final = (22, 24)
"""The Node.js lines jsii supports (its support of 20 ended on 2026-10-30): cdk8s runs its constructs in
jsii's Node.js process. The suite runs on 24, and the unit and snapshot tests on 22 too."""

# --- the deploy CLI (constructs_nld.deploy) ------------------------------------------------
DEPLOY_TIMEOUT: Final = 30.0
"""Seconds each timed wait of a command may take (``--timeout`` sets them all): an API request with its retries,
kube-dns-upstream's ClusterIP, the restart under conflicts, a Prometheus query."""
CLUSTER_IP_POLL: Final = 0.2
"""Seconds between the first two reads of a Service waiting for its ClusterIP (it usually has one at once)."""
STALL_AFTER: Final = 300.0
"""Seconds without progress after which a rollout (or an uninstall's wait) counts as stalled: several
times what a batch takes when a cold node lazily pulls the image through the registry cache (30-60 s,
see the spec)."""
PROGRESS_MODES: Final = ("plain", "tty", "auto")
"""How ``--wait`` shows the rollout: a line per change, one redrawn line, or the one that suits the output."""
SOAK_WINDOW: Final = "3d"
"""The spec's minimum soak."""
SOAK_BASELINE_WINDOW: Final = "1d"
"""How much of the time before node-cache's first scrape makes the CoreDNS baseline."""
SOAK_MIN_QPS_DROP: Final = 0.5
"""The spec's "should drop dramatically", made a number: cluster CoreDNS QPS at least halved."""
SOAK_ROLLOUT_SETTLE: Final = 60.0
"""Seconds a DaemonSet must stay whole after a rollout for the rollout to be over. The spec's pods
have no readiness probe, so a new pod that crash-loops looks available each time its container
starts; unavailability that comes back sooner belongs to the rollout that made the pod."""

API_QPS: Final = 50.0
"""Requests a second each client paces itself to, after its burst: kubectl's rate for discovery (client-go's
default, which kubectl keeps for its other requests, is 5). The server protects itself (API Priority and
Fairness answers a client over its share with 429, which the client waits out); this is the backstop against
a loop of ours. At 5 a second a no-op deploy, about 30 requests, would sit seconds in its own pacing:
docs/throttling.md has the numbers."""
API_BURST: Final = 100
"""Requests a client may send at once before :data:`API_QPS` paces it (client-go's default is 10): more than
any command's whole run at one node, so an unloaded run never waits on itself."""
API_PAGE_SIZE: Final = 500
"""Objects a list asks for at a time (``limit``, then ``continue``): kubectl's own chunk size. A 5,000-node list
read whole is the API server's most expensive request, held in its memory and ours at once."""
API_RESPONSE_CAP: Final = 64 << 20
"""The most bytes one answer may hold, from the API server or Prometheus: a page of 500 of the largest objects we
read (Nodes with their images) is under 10 MiB; anything past this is refused rather than read into memory."""
RETRY_FIRST_DELAY: Final = 0.25
"""Seconds before the first retry of a request the server gave no ``Retry-After`` for (a refused
connection, a 503 while it starts); doubled after each retry, up to :data:`RETRY_MAX_DELAY`."""
RETRY_MAX_DELAY: Final = 4.0
"""The longest back-off without ``Retry-After``: a restarted API server is back within seconds."""
RETRY_AFTER_CAP: Final = 32.0
"""The longest wait a server's ``Retry-After`` is honoured for: Priority and Fairness's own maximum (it asks for 1 s,
doubled while it keeps dropping a priority level's requests, up to 32 s)."""
RETRY_JITTER: Final = 0.25
"""Each retry waits its delay times a random factor in [1, 1.25): never sooner than asked, and clients
throttled together do not come back together."""
POLL_BACKOFF_FACTOR: Final = 1.5
"""A wait's poll interval grows by this factor after each read that showed no change."""
POLL_BACKOFF_CAP: Final = 5.0
"""The longest interval between two reads of a wait (``--wait``, uninstall, the canary): a change is seen
within 5 s, and a still rollout of hundreds of nodes costs a request every 5 s."""

FLEET_PARALLEL: Final = 4
"""Clusters a fleet command works on at once. Each cluster's run waits on its API server most of the time,
but first synthesizes the app (about a second of CPU): 4 keeps a 2-core CI runner busy without queueing
synths behind each other, and keeps 4 rollouts' output readable."""

# --- annotations the tool writes itself ---------------------------------------------------------
RESTART_ANNOTATION: Final = "kubectl.kubernetes.io/restartedAt"
"""The pod-template annotation ``kubectl rollout restart`` sets, as deploy's restarts do; changing it rolls the pods."""
TOOL_ANNOTATION_PREFIXES: Final = ("nodelocaldns.constructs-nld.io/", "nodelocaldns.osdc/")
"""The annotation prefixes the tool writes under (the cutover's state, the restarts' records). The app may
not set keys under them, nor :data:`RESTART_ANNOTATION`: a value in the template would fight the tool's own."""

# --- the staged cutover (deploy.py cutover; not in the spec: issue 22) ----------------------
CUTOVER_ANNOTATION: Final = "nodelocaldns.constructs-nld.io/cutover"
"""The DaemonSet annotation holding a cutover's state (JSON), so that any machine can continue it."""
LAST_CUTOVER_ANNOTATION: Final = "nodelocaldns.constructs-nld.io/last-cutover"
"""How the last cutover ended (promoted, forced or not; rolled back), kept on the DaemonSet for the record."""
CUTOVER_FIELD_MANAGER: Final = "nld-cutover"
"""Who writes that annotation: not the deploy's field manager, so a deploy's apply leaves it alone."""
POOL_LABELS: Final = ("node-fleet", "instance-type", "node.kubernetes.io/instance-type")
"""Node labels that tell pools apart, beside the taints: the spec's ``node-fleet`` and ``instance-type``
(taint keys too), and the well-known label EKS and Karpenter set. GPU and CPU pools fail differently,
so the canary takes a node of each."""
CANARY_ERROR_RATIO: Final = 1.5
CANARY_ERROR_SLACK: Final = 0.001
"""A canary node's SERVFAIL share may be at most 1.5 times the baseline nodes' plus 0.1 percentage
point: the slack keeps a baseline of 0 from failing the canary on its first error."""
CANARY_LATENCY_RATIO: Final = 1.5
CANARY_LATENCY_SLACK: Final = 0.005
"""A canary node's mean forward latency may be at most 1.5 times the baseline nodes' plus 5 ms."""

# --- Grafana dashboard (not in the spec: issue 10) ----------------------------------------
DASHBOARD_NAME: Final = "nodelocaldns-dashboard"
DASHBOARD_KEY: Final = "nodelocaldns.json"
DASHBOARD_LABELS: Final = {"grafana_dashboard": "1"}
"""The label Grafana's dashboard sidecar looks for by default."""
DASHBOARD_UID: Final = "nodelocaldns"
DASHBOARD_TITLE: Final = "NodeLocal DNSCache"
