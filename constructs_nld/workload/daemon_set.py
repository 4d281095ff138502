"""The ``node-local-dns`` DaemonSet: one node-cache per node, on the host network.

In the spec's interception mode node-cache writes its own rules; in the fallthrough mode
(:mod:`constructs_nld.fallthrough`) it writes none and a second container of the same image
keeps socket-conditional rules. Privileged as the spec says, or with only the capabilities
each container needs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from cdk8s_plus_28 import k8s
from constructs import Construct

from constructs_nld import defaults
from constructs_nld.fallthrough import KEEPER_COMMAND, READINESS_COMMAND, SETUP_IPTABLES_OFF
from constructs_nld.placeholders import KUBE_DNS_CLUSTER_IP, KUBE_DNS_SERVICE_HOST
from constructs_nld.props import (
    SAFE_INT_MAX,
    LivenessProbe,
    ObjectProps,
    Ports,
    Toleration,
    canonical_ipv6,
    check_dns_name,
    check_dns_subdomain,
    check_labels,
    check_positive,
    check_qualified_name,
    check_same_family,
    check_selector,
    check_service_name,
    check_tolerations,
    default_tolerations,
    props_or_defaults,
)

__all__ = ["NodeCacheDaemonSet", "NodeCacheDaemonSetProps", "node_cache_args"]

_QUANTITY = re.compile(r"[0-9]+(\.[0-9]+)?(m|k|Ki|M|Mi|G|Gi|T|Ti|P|Pi|E|Ei)?")
_WHOLE_NUMBER = re.compile(r"[0-9]+(k|Ki|M|Mi|G|Gi|T|Ti|P|Pi|E|Ei)?")
_PERCENT = re.compile(r"([1-9][0-9]?|100)%")
_HOST_LABEL = r"[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?"
_IMAGE = re.compile(
    # distribution/reference: [host[:port]/]path[:tag][@digest]. A first component is a host
    # only with a dot, a port or as localhost; path components are lower case.
    rf"((localhost|{_HOST_LABEL}(\.{_HOST_LABEL})+)(:[0-9]+)?/|{_HOST_LABEL}:[0-9]+/)?"
    r"[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*(/[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*)*"
    r"(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?"
    r"(@[A-Za-z][A-Za-z0-9]*([-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?"
)
_NODE_CACHE_HEALTH_PORT = 8080
_NODE_CACHE_METRICS_PORT = 9353


def _check_quantity(prop: str, value: str) -> None:
    if not isinstance(value, str) or not _QUANTITY.fullmatch(value):
        raise ValueError(f"{prop}: must be a Kubernetes quantity such as '25m' or '100Mi', got {value!r}")


def _check_limit(resource: str, value: str) -> None:
    """Raise unless ``resource`` may be limited on node-cache, to ``value``.

    CPU and memory are refused (spec); huge pages need a CPU or memory limit beside them
    (API server). What is left: ``ephemeral-storage``, and extended resources
    (``example.com/device``), which the API server counts in whole units.
    """
    if resource in ("cpu", "memory"):
        raise ValueError(
            f"limits: no {resource} limit may be set, got {resource}={value!r} "
            "(an OOM kill orphans node-cache's iptables rules and black-holes the "
            "node's DNS; CPU throttling is DNS latency)"
        )
    domain = resource.partition("/")[0] if "/" in resource else ""
    native = not domain or domain == "kubernetes.io" or domain.endswith(".kubernetes.io")
    if resource != "ephemeral-storage":
        check_qualified_name("limits", resource, "resource name")
        if native:
            raise ValueError(
                f"limits: {resource!r} cannot be limited on node-cache: only ephemeral-storage and "
                "extended resources such as 'example.com/device' (huge pages would need a memory limit)"
            )
        if not isinstance(value, str) or not _WHOLE_NUMBER.fullmatch(value):
            raise ValueError(
                f"limits.{resource}: must be a whole number of the extended resource such as '1', got {value!r}"
            )
    _check_quantity(f"limits.{resource}", value)


@dataclass(frozen=True, kw_only=True)
class NodeCacheDaemonSetProps(ObjectProps):
    """Props of :class:`NodeCacheDaemonSet`."""

    name: str = defaults.DAEMON_SET_NAME
    """DaemonSet name. Default: node-local-dns."""

    namespace: str = defaults.NAMESPACE
    """Namespace; must hold the kube-dns-upstream Service. Default: kube-system."""

    labels: Mapping[str, str] = field(
        default_factory=lambda: {**defaults.NODE_CACHE_APP_LABEL, **defaults.MANAGED_BY_LABEL}
    )
    """Labels of the DaemonSet. Default: ``k8s-app: node-local-dns`` and the managed-by label."""

    selector: Mapping[str, str] = field(default_factory=lambda: dict(defaults.NODE_CACHE_APP_LABEL))
    """Pod selector; immutable once applied. Default: ``k8s-app: node-local-dns``."""

    pod_labels: Mapping[str, str] = field(
        default_factory=lambda: {**defaults.NODE_CACHE_APP_LABEL, **defaults.MANAGED_BY_LABEL}
    )
    """Labels of the pods; must include the selector. Default: same as ``labels``."""

    image: str = defaults.IMAGE
    """node-cache image. Default: registry.k8s.io/dns/k8s-dns-node-cache:1.26.8."""

    image_pull_policy: str = defaults.IMAGE_PULL_POLICY
    """Pull policy. Default: IfNotPresent (the image is lazily pulled through a proxy cache)."""

    local_ip: str = defaults.LOCAL_IP
    """Address node-cache binds and the probe targets. Default: fd00::10 (a ULA: link-local needs a zone)."""

    kube_dns_cluster_ip: str | None = None
    """Live kube-dns ClusterIP, also bound and intercepted. Default: - ``__KUBE_DNS_CLUSTER_IP__`` (preview).

    Must stay unset with ``portable``, where kubelet gives node-cache the address.
    """

    portable: bool = False
    """Let kubelet give node-cache the kube-dns ClusterIP: ``-localip <local_ip>,$(KUBE_DNS_SERVICE_HOST)``.

    kubelet expands ``$(VAR)`` in args from the Service variables of the pod's namespace,
    so the manifests hold no cluster value and apply as they are (GitOps). It needs what
    ``-upstreamsvc`` needs already: Service links enabled, and kube-dns created before the
    pod. Default: False (the spec's pinned address).
    """

    tolerations: tuple[Toleration, ...] = field(default_factory=default_tolerations)
    """Taints tolerated, explicitly (never a keyless Exists). Default: - the spec's four."""

    cpu_request: str = defaults.CPU_REQUEST
    """CPU request. Default: 25m."""

    memory_request: str = defaults.MEMORY_REQUEST
    """Memory request: cache headroom, not a cap. Default: 100Mi."""

    limits: Mapping[str, str] = field(default_factory=dict)
    """Resource limits other than CPU and memory. Default: - none.

    CPU and memory limits are refused: an OOM kill orphans the NOTRACK rules and
    black-holes the node's DNS; CPU throttling is DNS latency.
    """

    liveness: LivenessProbe = field(default_factory=LivenessProbe)
    """Liveness probe timings. Default: - 60 s delay, every 15 s, 5 s timeout, 5 failures."""

    ports: Ports = field(default_factory=Ports)
    """Listener ports. Default: - 53, health 8080, metrics 9253 and 9353."""

    max_unavailable: str | int = defaults.MAX_UNAVAILABLE
    """Rolling-update budget. Default: 1% (about 7 nodes at once on 700 nodes)."""

    termination_grace_period_seconds: int = defaults.TERMINATION_GRACE_PERIOD_SECONDS
    """Time for node-cache's SIGTERM cleanup of its rules and interface. Default: 30."""

    priority_class_name: str = defaults.PRIORITY_CLASS_NAME
    """Priority class; prevents eviction. Default: system-node-critical."""

    service_account_name: str = defaults.SERVICE_ACCOUNT_NAME
    """ServiceAccount of the pods. Default: node-local-dns."""

    config_map_name: str = defaults.CONFIG_MAP_NAME
    """ConfigMap holding the Corefile. Default: node-local-dns."""

    upstream_service_name: str = defaults.UPSTREAM_SERVICE_NAME
    """Service whose ClusterIP node-cache forwards to (``-upstreamsvc``). Default: kube-dns-upstream."""

    interception: Literal["node-cache", "fallthrough"] = defaults.INTERCEPTION
    """Who diverts the pods' queries to node-cache. Default: node-cache (the spec's).

    ``node-cache``: node-cache's own NOTRACK rules, unconditional, left behind by a SIGKILL
    or an OOM kill (the node's DNS is black-holed until node-cache is back).
    ``fallthrough``: node-cache with ``-setupiptables=false`` and a ``fallthrough-rules``
    container that keeps rules applying only while node-cache listens, so lookups fall
    through to cluster CoreDNS the moment it is gone (:mod:`constructs_nld.fallthrough`).
    """

    privileged: bool = defaults.PRIVILEGED
    """Run the containers privileged (the spec's). Default: True.

    False: drop every capability and add back only what each container needs (node-cache:
    NET_ADMIN, NET_BIND_SERVICE, and NET_RAW when it writes rules; the keeper: NET_ADMIN,
    NET_RAW), without privilege escalation.
    """

    fallthrough_config_map_name: str = defaults.FALLTHROUGH_CONFIG_MAP_NAME
    """ConfigMap of the keeper's script and rules, in the fallthrough mode. Default: node-local-dns-fallthrough."""

    def __post_init__(self) -> None:
        """Validate every prop; the first bad one raises, naming itself."""
        super().__post_init__()
        check_selector("selector", self.selector, "the node-cache pods")
        check_labels("pod_labels", self.pod_labels)
        missing = {k: v for k, v in self.selector.items() if self.pod_labels.get(k) != v}
        if missing:
            raise ValueError(f"pod_labels: must include the selector, missing {missing!r}")
        if len(self.image) > 4096 or not _IMAGE.fullmatch(self.image):
            raise ValueError(
                f"image: must be an image reference such as 'registry.k8s.io/dns/k8s-dns-node-cache:1.26.8', "
                f"got {self.image!r}"
            )
        if self.image_pull_policy not in ("Always", "IfNotPresent", "Never"):
            raise ValueError(
                f"image_pull_policy: must be Always, IfNotPresent or Never, got {self.image_pull_policy!r}"
            )
        if self.portable and self.kube_dns_cluster_ip is not None:
            raise ValueError(
                f"kube_dns_cluster_ip: must be unset with portable=True, got {self.kube_dns_cluster_ip!r} "
                "(portable manifests take the address from kubelet's $(KUBE_DNS_SERVICE_HOST); set portable=False "
                "to pin it)"
            )
        if self.kube_dns_cluster_ip is not None:
            check_same_family("kube_dns_cluster_ip", self.local_ip, self.kube_dns_cluster_ip)
        # Kept in RFC 5952 form, so every place that writes an address spells it one way.
        object.__setattr__(self, "local_ip", canonical_ipv6("local_ip", self.local_ip))
        if self.kube_dns_cluster_ip is not None:
            cluster_ip = canonical_ipv6("kube_dns_cluster_ip", self.kube_dns_cluster_ip)
            if cluster_ip == self.local_ip:
                raise ValueError(
                    f"kube_dns_cluster_ip: {self.kube_dns_cluster_ip!r} is the address of local_ip {self.local_ip!r}; "
                    "node-cache binds both, so they must differ"
                )
            object.__setattr__(self, "kube_dns_cluster_ip", cluster_ip)
        check_tolerations("tolerations", self.tolerations)
        _check_quantity("cpu_request", self.cpu_request)
        _check_quantity("memory_request", self.memory_request)
        for resource, value in self.limits.items():
            _check_limit(resource, value)
        if isinstance(self.max_unavailable, str):
            if not _PERCENT.fullmatch(self.max_unavailable):
                raise ValueError(
                    f"max_unavailable: must be a percentage 1%-100% or a positive integer, got {self.max_unavailable!r}"
                )
        else:
            check_positive("max_unavailable", self.max_unavailable)
        grace = self.termination_grace_period_seconds
        check_positive("termination_grace_period_seconds", grace, allow_zero=True, maximum=SAFE_INT_MAX)
        check_dns_subdomain("priority_class_name", self.priority_class_name)
        check_dns_name("service_account_name", self.service_account_name)
        check_dns_name("config_map_name", self.config_map_name)
        check_service_name("upstream_service_name", self.upstream_service_name)
        if self.interception not in ("node-cache", "fallthrough"):
            raise ValueError(
                f"interception: must be 'node-cache' (the spec's) or 'fallthrough', got {self.interception!r}"
            )
        if self.interception == "fallthrough" and self.portable:
            raise ValueError(
                "interception: 'fallthrough' needs portable=False, got portable=True (the keeper's rules "
                "name the kube-dns ClusterIP, which portable manifests leave to kubelet and never hold)"
            )
        check_dns_name("fallthrough_config_map_name", self.fallthrough_config_map_name)


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
    if props.ports.health != _NODE_CACHE_HEALTH_PORT:
        args += ["-health-port", str(props.ports.health)]
    if props.ports.binary_metrics != _NODE_CACHE_METRICS_PORT:
        args += ["-metrics-listen-address", f"[::]:{props.ports.binary_metrics}"]
    if props.interception == "fallthrough":
        # The keeper container writes the rules: node-cache writes none and removes none.
        args.append(SETUP_IPTABLES_OFF)
    return args


def _security_context(props: NodeCacheDaemonSetProps, capabilities: tuple[str, ...]) -> k8s.SecurityContext:
    """Privileged as the spec says, or ``capabilities`` alone, measured on node-cache 1.26.8 and ip6tables 1.8.9."""
    if props.privileged:
        return k8s.SecurityContext(privileged=True)
    return k8s.SecurityContext(
        privileged=False,
        allow_privilege_escalation=False,
        capabilities=k8s.Capabilities(drop=["ALL"], add=list(capabilities)),
    )


def _keeper(props: NodeCacheDaemonSetProps) -> k8s.Container:
    """The fallthrough keeper: the node-cache image's shell runs the ConfigMap's script (no node-cache in it)."""
    return k8s.Container(
        name=defaults.FALLTHROUGH_CONTAINER_NAME,
        image=props.image,
        image_pull_policy=props.image_pull_policy,
        command=list(KEEPER_COMMAND),
        security_context=_security_context(props, defaults.KEEPER_CAPABILITIES),
        resources=k8s.ResourceRequirements(
            requests={
                "cpu": k8s.Quantity.from_string(defaults.FALLTHROUGH_CPU_REQUEST),
                "memory": k8s.Quantity.from_string(defaults.FALLTHROUGH_MEMORY_REQUEST),
            }
        ),
        # Not ready while a jump is missing or node-cache's unconditional NOTRACK of the ClusterIP
        # is in place: the node's rules, made visible through the API (verify reads it).
        readiness_probe=k8s.Probe(
            exec=k8s.ExecAction(command=list(READINESS_COMMAND)),
            period_seconds=defaults.FALLTHROUGH_READINESS_PERIOD_SECONDS,
            timeout_seconds=defaults.FALLTHROUGH_READINESS_TIMEOUT_SECONDS,
        ),
        volume_mounts=[
            k8s.VolumeMount(name="xtables-lock", mount_path=defaults.XTABLES_LOCK_PATH, read_only=False),
            k8s.VolumeMount(name="fallthrough-rules", mount_path=defaults.FALLTHROUGH_MOUNT, read_only=True),
        ],
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
                k8s.VolumeMount(name="kube-dns-config", mount_path=defaults.KUBE_DNS_CONFIG_MOUNT),
            ],
        )
        self.api_object = k8s.KubeDaemonSet(
            self,
            "Resource",
            metadata=p.object_meta(),
            spec=k8s.DaemonSetSpec(
                selector=k8s.LabelSelector(match_labels=dict(p.selector)),
                update_strategy=k8s.DaemonSetUpdateStrategy(
                    type="RollingUpdate",
                    rolling_update=k8s.RollingUpdateDaemonSet(
                        max_unavailable=(
                            k8s.IntOrString.from_string(p.max_unavailable)
                            if isinstance(p.max_unavailable, str)
                            else k8s.IntOrString.from_number(p.max_unavailable)
                        )
                    ),
                ),
                template=k8s.PodTemplateSpec(
                    metadata=k8s.ObjectMeta(labels=dict(p.pod_labels)),
                    spec=k8s.PodSpec(
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
                            k8s.Volume(
                                name="kube-dns-config",
                                config_map=k8s.ConfigMapVolumeSource(
                                    name=defaults.KUBE_DNS_CONFIG_MAP_NAME, optional=True
                                ),
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
                                        name="fallthrough-rules",
                                        config_map=k8s.ConfigMapVolumeSource(name=p.fallthrough_config_map_name),
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
