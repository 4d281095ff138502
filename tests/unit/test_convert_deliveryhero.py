"""``convert deliveryhero``: every key of the chart mapped, left as our default, or refused with a reason."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from constructs_nld import NodeLocalDNSProps
from constructs_nld.convert.deliveryhero import RULES, ConversionError, convert, load
from constructs_nld.values import props_from_values

# Every key of the chart's values.yaml (deliveryhero/helm-charts stable/node-local-dns 2.9.2),
# listed for this test as the chart's README names its values, each with a value that is not
# the chart's default, and the keys that must be on for it to be read (as in the chart).
CHART_KEYS: dict[str, tuple[Any, dict[str, Any]]] = {
    "image.repository": ("mirror.example/node-cache", {}),
    "image.tag": ("1.26.7", {}),
    "config.dnsDomain": ("corp.internal", {}),
    "config.dnsServer": ("10.96.0.10", {}),
    "config.localDns": ("fd00::20", {}),
    "config.customUpstreamsvc": ("my-upstream", {}),
    "config.upstreamServiceSelector": ({"app": "coredns"}, {}),
    "config.bindIp": (True, {}),
    "config.commProtocol": ("prefer_udp", {}),
    "config.enableLogging": (True, {}),
    "config.noIPv6Lookups": (True, {}),
    "config.cacheTTL": (60, {}),
    "config.prefetch.enabled": (True, {}),
    "config.prefetch.amount": (5, {"config": {"prefetch": {"enabled": True}}}),
    "config.prefetch.duration": ("1m", {"config": {"prefetch": {"enabled": True}}}),
    "config.prefetch.percentage": ("30%", {"config": {"prefetch": {"enabled": True}}}),
    "config.serveStale.enabled": (True, {}),
    "config.serveStale.duration": ("2h", {"config": {"serveStale": {"enabled": True}}}),
    "config.serveStale.mode": ("immediate", {"config": {"serveStale": {"enabled": True}}}),
    "config.healthPort": (8081, {}),
    "config.setupInterface": (False, {}),
    "config.setupIptables": (False, {}),
    "config.skipTeardown": (True, {}),
    "config.extraServerBlocks": ("corp.example:53 {\n    forward . fd10::53\n}\n", {}),
    "config.customConfig": (".:53 {\n    forward . /etc/resolv.conf\n}\n", {}),
    "config.port.number": (5353, {}),
    "config.port.tcp": ("tcp-dns", {}),
    "config.port.udp": ("udp-dns", {}),
    "config.upstreamServers": ("fd10::53", {}),
    "config.upstreamForwardConfig": (["max_concurrent 1000"], {}),
    "nameOverride": ("nld", {}),
    "fullnameOverride": ("nld", {}),
    "serviceAccount.create": (False, {}),
    "serviceAccount.annotations": ({"team": "dns"}, {}),
    "serviceAccount.name": ("nld", {}),
    "service.annotations": ({"team": "dns"}, {}),
    "podAnnotations": ({"team": "dns"}, {}),
    "podLabels": ({"team": "dns"}, {}),
    "configMapAnnotations": ({"team": "dns"}, {}),
    "configMapLabels": ({"team": "dns"}, {}),
    "daemonsetAnnotations": ({"team": "dns"}, {}),
    "daemonsetLabels": ({"team": "dns"}, {}),
    "updateStrategy.type": ("OnDelete", {}),
    "updateStrategy.rollingUpdate.maxUnavailable": (3, {}),
    "updateStrategy.rollingUpdate.maxSurge": (1, {}),
    "initContainers": ([{"name": "wait", "image": "busybox:1.36"}], {}),
    "securityContext": ({"runAsUser": 0}, {}),
    "serviceMonitor.enabled": (True, {}),
    "serviceMonitor.labels": ({"release": "prom"}, {"serviceMonitor": {"enabled": True}}),
    "serviceMonitor.path": ("/stats", {"serviceMonitor": {"enabled": True}}),
    "serviceMonitor.honorLabels": (True, {"serviceMonitor": {"enabled": True}}),
    "serviceMonitor.interval": ("30s", {"serviceMonitor": {"enabled": True}}),
    "serviceMonitor.scrapeTimeout": ("10s", {"serviceMonitor": {"enabled": True}}),
    "serviceMonitor.metricRelabelings": ([{"action": "drop"}], {"serviceMonitor": {"enabled": True}}),
    "serviceMonitor.relabelings": ([{"action": "keep"}], {"serviceMonitor": {"enabled": True}}),
    "serviceMonitor.namePrefix": ("kps", {"serviceMonitor": {"enabled": True}}),
    "serviceMonitor.prometheusNamespace": ("prometheus", {"serviceMonitor": {"enabled": True}}),
    "dashboard.enabled": (True, {}),
    "dashboard.namespace": ("grafana", {"dashboard": {"enabled": True}}),
    "dashboard.label": ("dashboards", {"dashboard": {"enabled": True}}),
    "dashboard.annotations": ({"folder": "dns"}, {"dashboard": {"enabled": True}}),
    "resources.requests.cpu": ("100m", {}),
    "resources.requests.memory": ("256Mi", {}),
    "resources.limits.memory": ("256Mi", {}),
    "lifecycle": ({"preStop": {"exec": {"command": ["sleep", "30"]}}}, {}),
    "resizePolicy": ([{"resourceName": "cpu", "restartPolicy": "NotRequired"}], {}),
    "affinity": ({"podAntiAffinity": {}}, {}),
    "imagePullSecrets": ([{"name": "registry"}], {}),
    "prometheusScraping.enabled": (False, {}),
    "tolerations": ([{"operator": "Exists"}], {}),
}

# The keys whose every value the library's behaviour already covers: neither a prop nor a refusal.
COVERED_EITHER_WAY = {"config.bindIp", "prometheusScraping.enabled"}


def nested(key: str, value: Any) -> dict[str, Any]:
    *parents, name = key.split(".")
    tree: dict[str, Any] = {name: value}
    for parent in reversed(parents):
        tree = {parent: tree}
    return tree


def merged(base: dict[str, Any], more: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in more.items():
        out[key] = merged(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def converted(text: str) -> tuple[str, list[str]]:
    conversion = convert(load(textwrap.dedent(text), "values.yaml"))
    return conversion.yaml(), [refusal.line() for refusal in conversion.refusals]


# --- the table covers the chart -------------------------------------------------------------


def test_every_key_of_the_chart_has_a_rule_and_every_rule_a_key_of_the_chart() -> None:
    rules = [rule.key for rule in RULES]

    uncovered = [key for key in CHART_KEYS if not any(key == r or key.startswith(f"{r}.") for r in rules)]
    unknown = [r for r in rules if not any(key == r or key.startswith(f"{r}.") for key in CHART_KEYS)]

    assert uncovered == []
    assert unknown == []
    assert len(set(rules)) == len(rules)


@pytest.mark.parametrize("key", sorted(CHART_KEYS))
def test_no_key_of_the_chart_is_silently_ignored(key: str) -> None:
    sample, switch = CHART_KEYS[key]
    before = convert(merged(switch, nested(key, None)))  # null: the key removed, as Helm reads it
    after = convert(merged(switch, nested(key, sample)))

    refused = [refusal.key for refusal in after.refusals if refusal not in before.refusals]
    if key in COVERED_EITHER_WAY:
        assert (after.values, after.refusals) == (before.values, before.refusals)
    else:
        assert after.values != before.values or any(r == key or r.startswith((key, f"{key}.")) for r in refused), key


# --- whole files ----------------------------------------------------------------------------------

CHART_DEFAULTS = """
    image:
      repository: registry.k8s.io/dns/k8s-dns-node-cache
      tag: ""
    config:
      dnsDomain: cluster.local
      dnsServer: 172.20.0.10
      localDns: 169.254.20.25
      customUpstreamsvc: ""
      upstreamServiceSelector:
        k8s-app: kube-dns
      bindIp: false
      commProtocol: force_tcp
      enableLogging: false
      noIPv6Lookups: false
      cacheTTL: 30
      prefetch: {enabled: false, amount: 3, duration: 30s, percentage: 20%}
      serveStale: {enabled: false, duration: 1h, mode: verify}
      healthPort: 8080
      setupInterface: true
      setupIptables: true
      skipTeardown: false
      extraServerBlocks: ""
      customConfig: ""
      port: {number: 53, tcp: dns-tcp, udp: dns}
      upstreamServers: __PILLAR__UPSTREAM__SERVERS__
      upstreamForwardConfig: {}
    nameOverride: ""
    fullnameOverride: ""
    serviceAccount: {create: true, annotations: {}, name: ""}
    service: {annotations: {}}
    podAnnotations: {}
    podLabels: {}
    configMapAnnotations: {}
    configMapLabels: {}
    daemonsetAnnotations: {}
    daemonsetLabels: {}
    updateStrategy:
      type: RollingUpdate
      rollingUpdate: {maxUnavailable: 10%}
    initContainers: []
    securityContext:
      capabilities: {add: [NET_ADMIN]}
    serviceMonitor:
      enabled: false
      labels: {}
      path: /metrics
      honorLabels: false
      metricRelabelings: []
      relabelings: []
      namePrefix: ""
      prometheusNamespace: kube-system
    dashboard: {enabled: false, namespace: kube-system, label: grafana_dashboard, annotations: {}}
    resources:
      requests: {cpu: 25m, memory: 128Mi}
      limits: {memory: 128Mi}
    lifecycle: {}
    resizePolicy: []
    affinity: {}
    imagePullSecrets: []
    prometheusScraping: {enabled: true}
    tolerations:
      - {key: CriticalAddonsOnly, operator: Exists}
      - {effect: NoExecute, operator: Exists}
      - {effect: NoSchedule, operator: Exists}
"""

DEFAULTS_OUTPUT = """\
max_unavailable: 10%
privileged: false
memory_request: 128Mi
tolerations:
- key: CriticalAddonsOnly
  operator: Exists
"""

DEFAULTS_REFUSED = [
    "config.dnsServer: 172.20.0.10 is IPv4: this library serves IPv6-only clusters (the deploy reads the live "
    "kube-dns ClusterIP, and refuses an IPv4 one)",
    "config.localDns: must be an IPv6 address, got IPv4 '169.254.20.25' (this component is IPv6-only); local_ip "
    "stays fd00::10",
    "resources.limits.memory: the spec sets no memory limit by design: an OOM kill leaves node-cache's rules behind "
    "and black-holes the node's DNS until it is back (memory_request is the headroom)",
    "tolerations[1]: {operator: Exists, effect: NoExecute} has no key: it tolerates every taint "
    "(karpenter.sh/unschedulable and the not-ready taints among them); list your nodes' taint keys in tolerations",
    "tolerations[2]: {operator: Exists, effect: NoSchedule} has no key: it tolerates every taint "
    "(karpenter.sh/unschedulable and the not-ready taints among them); list your nodes' taint keys in tolerations",
]


def test_the_charts_defaults_written_out() -> None:
    assert converted(CHART_DEFAULTS) == (DEFAULTS_OUTPUT, DEFAULTS_REFUSED)


def test_an_empty_file_is_the_charts_defaults() -> None:
    assert converted("") == (DEFAULTS_OUTPUT, DEFAULTS_REFUSED)


TYPICAL = """
    image:
      repository: registry.example.com/mirror/k8s-dns-node-cache
      tag: "1.26.8"
    config:
      localDns: 169.254.20.10
      dnsServer: fd00:10:96::a
      customConfig: |
        cluster.local:53 {
            errors
            forward . __PILLAR__CLUSTER__DNS__
        }
    resources:
      requests: {cpu: 50m, memory: 200Mi}
      limits: {memory: 200Mi}
    tolerations:
      - {key: dedicated, operator: Equal, value: ci, effect: NoSchedule}
      - {key: nvidia.com/gpu, operator: Exists}
      - {operator: Exists}
    podLabels:
      team: platform
    updateStrategy:
      rollingUpdate:
        maxUnavailable: 10%
    serviceMonitor:
      enabled: true
      labels:
        release: kube-prometheus-stack
      prometheusNamespace: monitoring
    dashboard:
      enabled: true
      namespace: monitoring
"""

TYPICAL_OUTPUT = """\
image: registry.example.com/mirror/k8s-dns-node-cache:1.26.8
pod_labels:
  team: platform
max_unavailable: 10%
privileged: false
monitoring_labels:
  release: kube-prometheus-stack
dashboard: true
cpu_request: 50m
memory_request: 200Mi
tolerations:
- key: dedicated
  operator: Equal
  value: ci
  effect: NoSchedule
- key: nvidia.com/gpu
  operator: Exists
"""

TYPICAL_REFUSED = [
    "config.localDns: must be an IPv6 address, got IPv4 '169.254.20.10' (this component is IPv6-only); local_ip "
    "stays fd00::10",
    "config.customConfig: a whole Corefile: the library writes it from props; its usual cases are zones, "
    "upstream_servers, upstream_forward, cluster_forward, cache, hosts, query_log, dns64 and extra_server_blocks",
    "resources.limits.memory: the spec sets no memory limit by design: an OOM kill leaves node-cache's rules behind "
    "and black-holes the node's DNS until it is back (memory_request is the headroom)",
    "tolerations[2]: {operator: Exists} has no key: it tolerates every taint (karpenter.sh/unschedulable and the "
    "not-ready taints among them); list your nodes' taint keys in tolerations",
]


def test_a_typical_customized_values_file() -> None:
    assert converted(TYPICAL) == (TYPICAL_OUTPUT, TYPICAL_REFUSED)


def test_an_ipv6_file_that_carries_everything() -> None:
    text = """
        config:
          localDns: fd00::20
          dnsServer: fd00:10:96::a
          commProtocol: prefer_udp
          enableLogging: true
          cacheTTL: 60
          prefetch: {enabled: true, amount: 5, duration: 1m, percentage: 30%}
          serveStale: {enabled: true, duration: "", mode: immediate}
          healthPort: 8081
          upstreamServers: "fd10::53 [fd10::54]:5353"
          upstreamForwardConfig:
            - max_concurrent 1000
            - policy sequential
            - health_check 1s
            - failover refused
            - failfast_all_unhealthy_upstreams
        updateStrategy: {type: OnDelete}
        resources:
          requests: {cpu: 25m, memory: 100Mi}
          limits: null
        securityContext: {privileged: true}
        affinity:
          nodeAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
              nodeSelectorTerms:
                - matchExpressions: [{key: pool, operator: In, values: [ci]}]
            preferredDuringSchedulingIgnoredDuringExecution:
              - weight: 10
                preference:
                  matchExpressions: [{key: spot, operator: DoesNotExist}]
        imagePullSecrets: [{name: registry}]
        podAnnotations: {team: dns}
        tolerations:
          - {key: CriticalAddonsOnly, operator: Equal, value: "true", effect: NoSchedule}
          - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
          - {key: node-fleet, operator: Exists, effect: NoSchedule}
          - {key: instance-type, operator: Exists, effect: NoSchedule}
    """
    output = converted(text)

    assert isinstance(props_from_values(yaml.safe_load(output[0])), NodeLocalDNSProps)
    assert output == (
        textwrap.dedent("""\
            local_ip: fd00::20
            cluster_forward:
              protocol: prefer_udp
            query_log:
            - all
            cache:
              other_zones_ttl: 60
              prefetch:
                amount: 5
                duration: 1m
                percentage: 30
              serve_stale:
                mode: immediate
            ports:
              health: 8081
            upstream_servers:
            - fd10::53
            - '[fd10::54]:5353'
            upstream_forward:
              max_concurrent: 1000
              policy: sequential
              health_check: 1s
              failover:
              - REFUSED
              failfast_all_unhealthy_upstreams: true
            pod_annotations:
              team: dns
            update_strategy: OnDelete
            affinity:
              required:
              - match_expressions:
                - key: pool
                  operator: In
                  values:
                  - ci
              preferred:
              - weight: 10
                term:
                  match_expressions:
                  - key: spot
                    operator: DoesNotExist
            image_pull_secrets:
            - registry
        """),
        [],
    )


def test_each_refusal_names_its_key_and_reason() -> None:
    text = """
        config:
          localDns: fe80::10
          dnsServer: fd00:10:96::a
          upstreamServers: "8.8.8.8 fd10::53"
          upstreamForwardConfig: {a: "tls", b: "force_tcp", c: "max_connect_attempts 2"}
          noIPv6Lookups: true
          extraServerBlocks: "corp.example:53 {\\n  rewrite name a.example b.example\\n  forward . fd10::53\\n}\\n"
          port: {number: 5353}
        nameOverride: nld
        updateStrategy: {rollingUpdate: {maxUnavailable: 0%, maxSurge: 1}}
        securityContext: {runAsUser: 0}
        resources: {limits: {memory: null, cpu: 100m, ephemeral-storage: 1Gi}}
        tolerations: [{key: dedicated, operator: Exists, tolerationSeconds: 30}]
        affinity: {podAntiAffinity: {}}
        serviceMonitor: {enabled: true, scrapeTimeout: 10s, relabelings: [{action: keep}], namePrefix: kps}
        dashboard: {enabled: true, annotations: {folder: dns}, namespace: grafana}
        nodeSelector: {pool: ci}
    """
    output, refused = converted(text)

    assert output == textwrap.dedent("""\
        upstream_servers:
        - fd10::53
        upstream_forward:
          protocol: force_tcp
          max_connect_attempts: 2
        monitoring_namespace: kube-system
        dashboard: true
        memory_request: 128Mi
        limits:
          ephemeral-storage: 1Gi
        tolerations:
        - key: dedicated
          operator: Exists
    """)
    assert refused == [
        "config.localDns: must not be link-local, got 'fe80::10' (binding fe80::/10 needs a zone, which CoreDNS does "
        "not support; use a ULA such as fd00::10); local_ip stays fd00::10",
        "config.noIPv6Lookups: on an IPv6-only cluster an empty answer to every AAAA query leaves pods no address to "
        "reach",
        "config.extraServerBlocks corp.example:53: it uses rewrite, which a forward zone has not: write it as an "
        "extra_server_blocks block",
        "config.port.number: pods ask the kube-dns ClusterIP on port 53, which resolv.conf cannot change",
        "config.upstreamServers 8.8.8.8: must be an IPv6 address (the cluster is IPv6-only), got IPv4 '8.8.8.8'",
        "config.upstreamForwardConfig 'tls': not an option upstream_forward has (force_tcp, prefer_udp, max_fails, "
        "expire, health_check, policy, max_concurrent, max_connect_attempts, failfast_all_unhealthy_upstreams, "
        "failover); put it in an extra_server_blocks block of your own",
        "nameOverride: object names are fixed (the DaemonSet, ConfigMap and ServiceAccount node-local-dns, the "
        "Services kube-dns-upstream and node-local-dns-metrics): verify and the deploy find the objects by them",
        "updateStrategy.rollingUpdate.maxUnavailable: must be a percentage 1%-100% or a number of pods from 1, "
        "got '0%'",
        "updateStrategy.rollingUpdate.maxSurge: node-cache binds its ports on the node's network, so a second pod on "
        "a node cannot start beside the first: the library rolls by max_unavailable only",
        "securityContext: the library writes the containers' security context itself: privileged (the spec's), or "
        "with privileged: false only NET_ADMIN, NET_BIND_SERVICE and NET_RAW, without privilege escalation, under "
        "the RuntimeDefault seccomp profile",
        "serviceMonitor.scrapeTimeout: the PodMonitor has no scrapeTimeout prop: it keeps Prometheus' default",
        "serviceMonitor.relabelings: the PodMonitor has no relabelling prop: relabel in your own chart, through the "
        "object's escape hatch (add_json_patch)",
        "serviceMonitor.namePrefix: object names are fixed: the PodMonitor is nodelocaldns",
        "dashboard.namespace: the dashboard goes to monitoring_namespace with the PodMonitor, here kube-system "
        "(serviceMonitor.prometheusNamespace)",
        "dashboard.annotations: the dashboard ConfigMap has no annotations prop",
        "resources.limits.cpu: the spec sets no CPU limit by design: throttling node-cache is DNS latency on every "
        "pod of the node",
        "affinity.podAntiAffinity: a DaemonSet runs one pod per node: only node affinity applies",
        "tolerations[0].tolerationSeconds: node-cache is never evicted on a timer: tolerated without it",
        "nodeSelector: not a key of the chart (deliveryhero node-local-dns 2.9.2): Helm ignored it",
    ]


# --- what comes out is a values file of NodeLocalDNSProps --------------------------------------


@pytest.mark.parametrize("text", [CHART_DEFAULTS, TYPICAL], ids=["defaults", "typical"])
def test_the_output_loads_through_the_values_loader(text: str) -> None:
    props = props_from_values(yaml.safe_load(converted(text)[0]))

    assert isinstance(props, NodeLocalDNSProps)


def test_every_sample_value_converts_to_values_that_load() -> None:
    for key, (sample, switch) in CHART_KEYS.items():
        values = convert(merged(switch, nested(key, sample))).values

        assert isinstance(props_from_values(values), NodeLocalDNSProps), key


# --- input that is not the chart's values -----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("config: [a]", "config: must be a mapping, got ['a']"),
        ("config: {port: 53}", "config.port: must be a mapping, got 53"),
        ("podLabels: [a]", "podLabels: must be a mapping, got ['a']"),
        ("tolerations: {key: a}", "tolerations: must be a list, got {'key': 'a'}"),
        ("config: {cacheTTL: '30'}", "config.cacheTTL: must be an integer, got '30'"),
        ("config: {bindIp: 'yes'}", "config.bindIp: must be true or false, got 'yes'"),
        ("updateStrategy: {rollingUpdate: {maxUnavailable: true}}",
         "updateStrategy.rollingUpdate.maxUnavailable: must be a string or an integer, got True"),
    ],
)  # fmt: skip
def test_fails_when_a_key_holds_the_wrong_type(text: str, message: str) -> None:
    with pytest.raises(ConversionError) as raised:
        convert(load(text, "values.yaml"))

    assert str(raised.value) == message


def test_fails_when_the_file_is_not_yaml_or_not_a_mapping() -> None:
    with pytest.raises(ConversionError, match=r"^values.yaml: not YAML \(line 3\)$"):
        load("a: 1\nb: [\n", "values.yaml")
    with pytest.raises(ConversionError, match=r"^values.yaml: must be a mapping of the chart's keys, got list$"):
        load("- a\n", "values.yaml")


def test_the_pages_example_is_what_the_command_prints_for_the_charts_defaults() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "from-deliveryhero.md").read_text()
    example = page.split("```console\n$ nld-deploy convert deliveryhero empty.yaml\n", 1)[1].split("```", 1)[0]
    lines = [f"not carried: {line}" for line in DEFAULTS_REFUSED]

    assert example == DEFAULTS_OUTPUT + "\n".join(lines) + "\n5 not carried; everything else is in the values\n"


# The chart keys a team looks up first (issue 36), each named by some prop's "replaces" column.
MOST_USED = (
    "image.repository", "image.tag", "resources.requests.cpu", "resources.requests.memory", "resources.limits",
    "tolerations", "podLabels", "updateStrategy.rollingUpdate.maxUnavailable", "config.localDns",
    "config.dnsServer", "config.dnsDomain", "config.healthPort", "serviceMonitor.enabled", "serviceMonitor.labels",
    "serviceMonitor.interval", "serviceMonitor.prometheusNamespace", "dashboard.enabled", "dashboard.label",
    "dashboard.namespace", "config.customConfig", "config.commProtocol",
)  # fmt: skip


def test_the_props_tables_replaces_column_names_the_most_used_chart_keys() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    table = readme.split("<!-- generated: props -->", 1)[1].split("<!-- end generated -->", 1)[0]
    replaces = {row.split(" | ")[0].strip("| `"): row.split(" | ")[-1] for row in table.strip().splitlines()[2:]}

    named = {key: [p for p, text in replaces.items() if f"deliveryhero `{key}`" in text or f"`{key}`" in text]
             for key in MOST_USED}  # fmt: skip

    assert [key for key, props in named.items() if not props] == []
    assert named["config.commProtocol"] == ["cluster_forward"]


def test_a_toleration_or_a_label_the_props_would_refuse_is_refused_here_with_the_props_reason() -> None:
    text = """
        tolerations: [{key: dedicated, operator: Exists, value: ci}, {key: pool, effect: Sometimes}]
        podLabels: {"bad key!": x}
    """
    assert converted(text) == (
        DEFAULTS_OUTPUT.split("tolerations:")[0],
        [
            DEFAULTS_REFUSED[0],
            DEFAULTS_REFUSED[1],
            "podLabels: 'bad key!' is not a valid label key: the name part must be 1-63 alphanumerics, '-', '_' or "
            "'.', starting and ending with an alphanumeric",
            DEFAULTS_REFUSED[2],
            "tolerations[0]: operator 'Exists' takes no value, got 'ci' for key 'dedicated'",
            "tolerations[1]: effect must be NoSchedule, PreferNoSchedule or NoExecute, got 'Sometimes'",
        ],
    )


EXTRA_SERVER_BLOCKS = """
    # forwarded to the company's resolvers
    corp.example:53 {
        errors
        cache 60
        reload
        loop
        bind fd00::10
        forward . fd10::53 [fd10::54]:5353 {
            force_tcp
            max_concurrent 100
        }
        prometheus :9253
    }
    lab.example legacy.example. {
        forward . fd10::55
    }
    v4.example:53 {
        forward . 10.0.0.1
    }
    static.example:53 {
        hosts {
            fd10::1 x.static.example
        }
        forward . fd10::53
    }
    svc.cluster.local:53 {
        forward . fd10::53
    }
    alt.example:5353 {
        forward . fd10::53
    }
    policy.example:53 {
        forward . fd10::53 {
            max_connect_attempts 2
        }
    }
    tls.example:53 {
        forward . fd10::53 {
            tls
        }
    }
"""


def test_extra_server_blocks_that_only_forward_become_zones_and_the_others_are_refused() -> None:
    values = {"config": {"localDns": "fd00::10", "dnsServer": "fd00::a", "extraServerBlocks": EXTRA_SERVER_BLOCKS}}

    conversion = convert(merged(values, {"resources": {"limits": None}, "tolerations": None}))

    assert conversion.values["zones"] == [
        {
            "names": ["corp.example"],
            "upstreams": ["fd10::53", "[fd10::54]:5353"],
            "forward": {"protocol": "force_tcp", "max_concurrent": 100},
            "cache": {"ttl": 60},
        },
        {"names": ["lab.example", "legacy.example"], "upstreams": ["fd10::55"]},
        {"names": ["policy.example"], "upstreams": ["fd10::53"], "forward": {"max_connect_attempts": 2}},
    ]
    assert [refusal.line() for refusal in conversion.refusals] == [
        "config.extraServerBlocks v4.example:53: must be an IPv6 address (the cluster is IPv6-only), got IPv4 "
        "'10.0.0.1'",
        "config.extraServerBlocks static.example:53: it uses hosts, which a forward zone has not: write it as an "
        "extra_server_blocks block",
        "config.extraServerBlocks svc.cluster.local:53: svc.cluster.local is the cluster's (a zones entry with "
        "overrides_cluster_zones takes it, if meant)",
        "config.extraServerBlocks alt.example:5353: it listens on port 5353, and pods ask on 53",
        "config.extraServerBlocks tls.example:53: its forward has tls, which ForwardOptions has not: write it as an "
        "extra_server_blocks block",
    ]
    props_from_values(conversion.values)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("a.example {\n  forward . fd10::53\n", "the block 'a.example' is not closed"),
        ("}\n", "line 1: '}' closes no block"),
        ("forward . fd10::53\n", "line 1: 'forward . fd10::53' is outside a server block"),
        ("a.example { forward . fd10::53 }\n", "line 1: a brace must end its line or stand alone, got "
         "'a.example { forward . fd10::53 }'"),
    ],
)  # fmt: skip
def test_extra_server_blocks_it_cannot_read_are_refused_whole(text: str, why: str) -> None:
    conversion = convert({"config": {"extraServerBlocks": text}})

    assert conversion.refusals[2].line() == f"config.extraServerBlocks: not a Corefile this converter reads ({why})"
