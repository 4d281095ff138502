"""The ``node-local-dns`` DaemonSet: one node-cache per node, on the host network.

In the spec's interception mode node-cache writes its own rules; in the fallthrough mode it
writes none and a second container of the same image, the keeper (:mod:`constructs_nld.keeper`),
keeps socket-conditional rules. Privileged as the spec says, or with only the capabilities each
container needs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from constructs_nld import defaults
from constructs_nld.keeper import KEEPER_COMMAND, READINESS_COMMAND, SETUP_IPTABLES_OFF
from constructs_nld.metadata import object_meta
from constructs_nld.placeholders import KUBE_DNS_CLUSTER_IP, KUBE_DNS_SERVICE_HOST
from constructs_nld.props import (
    ObjectProps,
    Toleration,
    check_dns_name,
    check_labels,
    check_selector,
    check_service_name,
    props_or_defaults,
)
from constructs_nld.roles import Role
from constructs_nld.runtime import Construct, k8s
from constructs_nld.scheduling import NodeAffinity, NodeSelectorTerm
from constructs_nld.workload.node_cache_options import NodeCacheOptions

__all__ = ["NodeCacheDaemonSet", "NodeCacheDaemonSetProps", "node_cache_args"]

_KEEPER_VOLUME = "keeper"


@dataclass(frozen=True, kw_only=True)
class NodeCacheDaemonSetProps(ObjectProps, NodeCacheOptions):
    """Props of :class:`NodeCacheDaemonSet`: its identity, what it references, and the node-cache options."""

    name: str = defaults.DAEMON_SET_NAME
    """DaemonSet name. Default: node-local-dns."""

    namespace: str = defaults.NAMESPACE
    """Namespace; must hold the kube-dns-upstream Service. Default: kube-system."""

    labels: Mapping[str, str] = field(
        default_factory=lambda: {**defaults.NODE_CACHE_APP_LABEL, **defaults.MANAGED_BY_LABEL}
    )
    """Labels of the DaemonSet. Default: ``k8s-app: node-local-dns``, ``app.kubernetes.io/managed-by: osdc-base``."""

    selector: Mapping[str, str] = field(default_factory=lambda: dict(defaults.NODE_CACHE_APP_LABEL))
    """Pod selector; immutable once applied. Default: ``k8s-app: node-local-dns``."""

    pod_labels: Mapping[str, str] = field(
        default_factory=lambda: {**defaults.NODE_CACHE_APP_LABEL, **defaults.MANAGED_BY_LABEL}
    )
    """Labels of the pods; must include the selector.

    Default: ``k8s-app: node-local-dns``, ``app.kubernetes.io/managed-by: osdc-base``.
    """

    service_account_name: str = defaults.SERVICE_ACCOUNT_NAME
    """ServiceAccount of the pods. Default: node-local-dns."""

    config_map_name: str = defaults.CONFIG_MAP_NAME
    """ConfigMap holding the Corefile. Default: node-local-dns."""

    upstream_service_name: str = defaults.UPSTREAM_SERVICE_NAME
    """Service whose ClusterIP node-cache forwards to (``-upstreamsvc``). Default: kube-dns-upstream."""

    keeper_config_map_name: str = defaults.KEEPER_CONFIG_MAP_NAME
    """ConfigMap of the keeper's script and rules, in the fallthrough mode. Default: node-local-dns-keeper."""

    def __post_init__(self) -> None:
        """Validate every prop; the first bad one raises, naming itself."""
        super().__post_init__()
        check_selector("selector", self.selector, "the node-cache pods")
        check_labels("pod_labels", self.pod_labels)
        missing = {k: v for k, v in self.selector.items() if self.pod_labels.get(k) != v}
        if missing:
            raise ValueError(f"pod_labels: must include the selector, missing {missing!r}")
        self.check_node_cache_options()
        check_dns_name("service_account_name", self.service_account_name)
        check_dns_name("config_map_name", self.config_map_name)
        check_service_name("upstream_service_name", self.upstream_service_name)
        check_dns_name("keeper_config_map_name", self.keeper_config_map_name)


def node_cache_args(props: NodeCacheDaemonSetProps) -> list[str]:
    """The node-cache command line.

    ``-conf /etc/Corefile`` is where node-cache writes the rendered Corefile that CoreDNS
    loads; ``-pidfile`` makes it install the NOTRACK rules as soon as CoreDNS is up
    instead of at the first 60 s sync tick. Port flags appear only when a port differs
    from node-cache's own default, so the default command line is the spec's.
    """
    cluster_ip = KUBE_DNS_SERVICE_HOST if props.portable else props.kube_dns_cluster_ip or KUBE_DNS_CLUSTER_IP
    args = [
        "-localip",
        f"{props.local_ip},{cluster_ip}",
        "-conf",
        defaults.RENDERED_COREFILE,
        "-upstreamsvc",
        props.upstream_service_name,
        "-pidfile",
        defaults.PID_FILE,
    ]
    if props.ports.health != defaults.NODE_CACHE_HEALTH_PORT_FLAG:
        args += ["-health-port", str(props.ports.health)]
    if props.ports.binary_metrics != defaults.NODE_CACHE_METRICS_PORT_FLAG:
        args += ["-metrics-listen-address", f"[::]:{props.ports.binary_metrics}"]
    if props.interception == "fallthrough":
        # The keeper container writes the rules: node-cache writes none and removes none.
        args.append(SETUP_IPTABLES_OFF)
    return args


def _security_context(props: NodeCacheDaemonSetProps, capabilities: tuple[str, ...]) -> k8s.SecurityContext:
    """Privileged as the spec says, or ``capabilities`` alone under the runtime's default seccomp profile.

    The capabilities were measured on node-cache 1.26.8 and ip6tables 1.8.9; both run under
    ``RuntimeDefault`` on containerd. The privileged mode names no profile: the runtime
    runs privileged containers unconfined whatever the pod says.
    """
    if props.privileged:
        return k8s.SecurityContext(privileged=True)
    return k8s.SecurityContext(
        privileged=False,
        allow_privilege_escalation=False,
        capabilities=k8s.Capabilities(drop=["ALL"], add=list(capabilities)),
        seccomp_profile=k8s.SeccompProfile(type="RuntimeDefault"),
    )


def _keeper(props: NodeCacheDaemonSetProps) -> k8s.Container:
    """The fallthrough keeper: the node-cache image's shell runs the ConfigMap's script (no node-cache in it)."""
    return k8s.Container(
        name=defaults.KEEPER_CONTAINER_NAME,
        image=props.image,
        image_pull_policy=props.image_pull_policy,
        command=list(KEEPER_COMMAND),
        security_context=_security_context(props, defaults.KEEPER_CAPABILITIES),
        resources=k8s.ResourceRequirements(
            requests={
                "cpu": k8s.Quantity.from_string(defaults.KEEPER_CPU_REQUEST),
                "memory": k8s.Quantity.from_string(defaults.KEEPER_MEMORY_REQUEST),
            }
        ),
        # Not ready while a jump is missing or node-cache's unconditional NOTRACK of the ClusterIP
        # is in place: the node's rules, made visible through the API (verify reads it).
        readiness_probe=k8s.Probe(
            exec=k8s.ExecAction(command=list(READINESS_COMMAND)),
            period_seconds=defaults.KEEPER_READINESS_PERIOD_SECONDS,
            timeout_seconds=defaults.KEEPER_READINESS_TIMEOUT_SECONDS,
        ),
        volume_mounts=[
            k8s.VolumeMount(name="xtables-lock", mount_path=defaults.XTABLES_LOCK_PATH, read_only=False),
            k8s.VolumeMount(name=_KEEPER_VOLUME, mount_path=defaults.KEEPER_MOUNT, read_only=True),
        ],
    )


def _update_strategy(p: NodeCacheDaemonSetProps) -> k8s.DaemonSetUpdateStrategy:
    """RollingUpdate by ``max_unavailable`` (the spec's), or OnDelete: pods take a new template once deleted."""
    if p.update_strategy == "OnDelete":
        return k8s.DaemonSetUpdateStrategy(type="OnDelete")
    budget = (
        k8s.IntOrString.from_string(p.max_unavailable)
        if isinstance(p.max_unavailable, str)
        else k8s.IntOrString.from_number(p.max_unavailable)
    )
    return k8s.DaemonSetUpdateStrategy(
        type="RollingUpdate", rolling_update=k8s.RollingUpdateDaemonSet(max_unavailable=budget)
    )


def _term(term: NodeSelectorTerm) -> k8s.NodeSelectorTerm:
    return k8s.NodeSelectorTerm(
        match_expressions=[
            k8s.NodeSelectorRequirement(key=r.key, operator=r.operator, values=list(r.values) or None)
            for r in term.match_expressions
        ]
    )


def _affinity(affinity: NodeAffinity) -> k8s.Affinity:
    required = (
        k8s.NodeSelector(node_selector_terms=[_term(t) for t in affinity.required]) if affinity.required else None
    )
    preferred = [k8s.PreferredSchedulingTerm(weight=t.weight, preference=_term(t.term)) for t in affinity.preferred]
    return k8s.Affinity(
        node_affinity=k8s.NodeAffinity(
            required_during_scheduling_ignored_during_execution=required,
            preferred_during_scheduling_ignored_during_execution=preferred or None,
        )
    )


def _toleration(t: Toleration) -> k8s.Toleration:
    return k8s.Toleration(key=t.key, operator=t.operator, value=t.value, effect=t.effect)


class NodeCacheDaemonSet(Construct):
    """The node-cache DaemonSet, shaped by the spec: host network, privileged, requests only; a keeper when asked."""

    def __init__(self, scope: Construct, id: str, props: NodeCacheDaemonSetProps | None = None) -> None:
        """Define the DaemonSet in ``scope``."""
        super().__init__(scope, id)
        self.props = props_or_defaults(props, NodeCacheDaemonSetProps)
        p = self.props
        container = k8s.Container(
            name=defaults.CONTAINER_NAME,
            image=p.image,
            image_pull_policy=p.image_pull_policy,
            args=node_cache_args(p),
            # node-cache creates an interface and, unless the keeper does, writes ip6tables rules.
            security_context=_security_context(
                p,
                defaults.NODE_CACHE_CAPABILITIES
                if p.interception == "node-cache"
                else defaults.NODE_CACHE_CAPABILITIES_WITHOUT_RULES,
            ),
            resources=k8s.ResourceRequirements(
                requests={
                    "cpu": k8s.Quantity.from_string(p.cpu_request),
                    "memory": k8s.Quantity.from_string(p.memory_request),
                },
                limits={key: k8s.Quantity.from_string(value) for key, value in p.limits.items()} or None,
            ),
            ports=[
                k8s.ContainerPort(container_port=p.ports.dns, name=defaults.DNS_UDP_PORT_NAME, protocol="UDP"),
                k8s.ContainerPort(container_port=p.ports.dns, name=defaults.DNS_TCP_PORT_NAME, protocol="TCP"),
                k8s.ContainerPort(container_port=p.ports.metrics, name=defaults.METRICS_PORT_NAME, protocol="TCP"),
                # Not in the upstream manifest: node-cache's own metrics (setup errors) live only here.
                k8s.ContainerPort(
                    container_port=p.ports.binary_metrics, name=defaults.BINARY_METRICS_PORT_NAME, protocol="TCP"
                ),
            ],
            # On the local IP, the probe proves both the interface and the binary are up;
            # kubelet brackets the IPv6 host itself.
            liveness_probe=k8s.Probe(
                http_get=k8s.HttpGetAction(
                    host=p.local_ip, path="/health", port=k8s.IntOrString.from_number(p.ports.health)
                ),
                initial_delay_seconds=p.liveness.initial_delay_seconds,
                period_seconds=p.liveness.period_seconds,
                timeout_seconds=p.liveness.timeout_seconds,
                failure_threshold=p.liveness.failure_threshold,
            ),
            volume_mounts=[
                # The host's iptables lock, shared with kube-proxy and the CNI.
                k8s.VolumeMount(name="xtables-lock", mount_path=defaults.XTABLES_LOCK_PATH, read_only=False),
                k8s.VolumeMount(name="config-volume", mount_path=defaults.COREFILE_BASE_MOUNT),
                *(
                    [k8s.VolumeMount(name="kube-dns-config", mount_path=defaults.KUBE_DNS_CONFIG_MOUNT)]
                    if p.read_kube_dns_config_map
                    else []
                ),
            ],
        )
        self.api_object = k8s.KubeDaemonSet(
            self,
            "Resource",
            metadata=object_meta(p, Role.NODE_CACHE),
            spec=k8s.DaemonSetSpec(
                selector=k8s.LabelSelector(match_labels=dict(p.selector)),
                update_strategy=_update_strategy(p),
                template=k8s.PodTemplateSpec(
                    metadata=k8s.ObjectMeta(labels=dict(p.pod_labels), annotations=dict(p.pod_annotations) or None),
                    spec=k8s.PodSpec(
                        node_selector=dict(p.node_selector) or None,
                        affinity=_affinity(p.affinity) if p.affinity is not None else None,
                        image_pull_secrets=[k8s.LocalObjectReference(name=name) for name in p.image_pull_secrets]
                        or None,
                        priority_class_name=p.priority_class_name,
                        service_account_name=p.service_account_name,
                        # The pod-level field is what admission and scanners read (CKV_K8S_38);
                        # the ServiceAccount's own false covers only pods that do not set it.
                        automount_service_account_token=False,
                        host_network=True,
                        # The node's resolvers, not cluster DNS: node-cache is cluster DNS here.
                        dns_policy="Default",
                        termination_grace_period_seconds=p.termination_grace_period_seconds,
                        tolerations=[_toleration(t) for t in p.tolerations],
                        containers=[container, *([_keeper(p)] if p.interception == "fallthrough" else [])],
                        volumes=[
                            k8s.Volume(
                                name="xtables-lock",
                                host_path=k8s.HostPathVolumeSource(
                                    path=defaults.XTABLES_LOCK_PATH, type="FileOrCreate"
                                ),
                            ),
                            *(
                                [
                                    k8s.Volume(
                                        name="kube-dns-config",
                                        config_map=k8s.ConfigMapVolumeSource(
                                            name=defaults.KUBE_DNS_CONFIG_MAP_NAME, optional=True
                                        ),
                                    )
                                ]
                                if p.read_kube_dns_config_map
                                else []
                            ),
                            k8s.Volume(
                                name="config-volume",
                                config_map=k8s.ConfigMapVolumeSource(
                                    name=p.config_map_name,
                                    items=[k8s.KeyToPath(key=defaults.COREFILE_KEY, path="Corefile.base")],
                                ),
                            ),
                            *(
                                [
                                    k8s.Volume(
                                        name=_KEEPER_VOLUME,
                                        config_map=k8s.ConfigMapVolumeSource(name=p.keeper_config_map_name),
                                    )
                                ]
                                if p.interception == "fallthrough"
                                else []
                            ),
                        ],
                    ),
                ),
            ),
        )
