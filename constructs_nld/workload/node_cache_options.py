"""``NodeCacheOptions``: how node-cache runs, declared once for the DaemonSet's props and ``NodeLocalDNSProps``.

In the cdk8s-plus manner (``DaemonSetProps extends WorkloadProps``): the fields, their
docstrings and their validation are written here once; :class:`NodeCacheDaemonSetProps`
adds the DaemonSet's identity and references, ``NodeLocalDNSProps`` the component's own
settings, and each hands these options on unchanged.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from constructs_nld import defaults
from constructs_nld.props import (
    SAFE_INT_MAX,
    Interception,
    LivenessProbe,
    Ports,
    Toleration,
    canonical_ipv6,
    check_dns_subdomain,
    check_labels,
    check_positive,
    check_qualified_name,
    check_same_family,
    check_tolerations,
    default_tolerations,
)
from constructs_nld.scheduling import NodeAffinity

__all__ = ["NodeCacheOptions", "node_cache_options"]

_QUANTITY = re.compile(r"[0-9]+(\.[0-9]+)?(m|k|Ki|M|Mi|G|Gi|T|Ti|P|Pi|E|Ei)?")
_WHOLE_NUMBER = re.compile(r"[0-9]+(k|Ki|M|Mi|G|Gi|T|Ti|P|Pi|E|Ei)?")
_PERCENT = re.compile(r"([1-9][0-9]?|100)%")
_HOST_LABEL = r"[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?"
_IMAGE = re.compile(
    # distribution/reference: [host[:port]/]path[:tag], the digest checked apart. A first
    # component is a host only with a dot, a port or as localhost; path components are lower case.
    rf"((localhost|{_HOST_LABEL}(\.{_HOST_LABEL})+)(:[0-9]+)?/|{_HOST_LABEL}:[0-9]+/)?"
    r"[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*(/[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*)*"
    r"(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?"
)
# The OCI image spec's registered digest algorithms, each with its length of lowercase hex.
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}|sha512:[0-9a-f]{128}")


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
class NodeCacheOptions:
    """How node-cache runs on every node: image, addresses, interception, resources, probe and rollout."""

    image: str = defaults.IMAGE
    """node-cache image. Default: registry.k8s.io/dns/k8s-dns-node-cache:1.26.8.

    A tag, a digest or both (``repo:tag@sha256:<digest>``): a digest pins the image, which a tag
    does not. The digest is ``sha256:`` and 64 lowercase hex digits, or ``sha512:`` and 128.
    Replaces: deliveryhero ``image.repository`` and ``image.tag``; kubespray ``nodelocaldns_image_repo`` and
    ``nodelocaldns_image_tag``; kops ``image``.
    """

    image_pull_policy: str = defaults.IMAGE_PULL_POLICY
    """Pull policy: Always, IfNotPresent or Never. Default: IfNotPresent (lazily pulled through a proxy cache)."""

    local_ip: str = defaults.LOCAL_IP
    """Node-local address node-cache binds and the liveness probe targets.

    Kept in RFC 5952 form, as every other address: ``bind``, ``-localip``, ``health`` and the
    probe host spell it one way. Default: fd00::10 (a ULA: link-local would need a zone).
    Replaces: deliveryhero ``config.localDns`` (an IPv6 one); kubespray ``nodelocaldns_ip``; kops ``localIP``.
    """

    kube_dns_cluster_ip: str | None = None
    """The live kube-dns ClusterIP (IPv6), which node-cache binds and intercepts too.

    ``deploy.py`` gives the app the live address (``$KUBE_DNS_CLUSTER_IP``). Must stay unset
    with ``portable``, where kubelet gives node-cache the address. Default: - the placeholder
    ``__KUBE_DNS_CLUSTER_IP__``, a preview that is never deployed.
    Replaces: deliveryhero ``config.dnsServer`` (read live by the deploy instead).
    """

    portable: bool = False
    """Manifests that hold no cluster value: kubelet gives node-cache the kube-dns ClusterIP.

    The DaemonSet passes ``-localip <local_ip>,$(KUBE_DNS_SERVICE_HOST)``, which kubelet
    expands from the Service variables of the pod's namespace, and the Corefile binds
    ``__PILLAR__LOCAL__DNS__``, which node-cache fills with every ``-localip`` value. The
    output is deployable as synthesized, so a GitOps controller can apply it. It needs what
    ``-upstreamsvc`` needs already: Service links enabled, and kube-dns created before the
    pod. Default: False (the spec's form: the address pinned by the deploy, visible in review).
    """

    tolerations: tuple[Toleration, ...] = field(default_factory=default_tolerations)
    """Taints tolerated, listed explicitly (never a keyless ``Exists``, never empty).

    Default: - the spec's list: CriticalAddonsOnly, nvidia.com/gpu, node-fleet and instance-type.
    Replaces: deliveryhero ``tolerations`` (each with a key).
    """

    cpu_request: str = defaults.CPU_REQUEST
    """CPU request. Default: 25m.

    Replaces: deliveryhero ``resources.requests.cpu``; kubespray ``nodelocaldns_cpu_requests``; kops ``cpuRequest``.
    """

    memory_request: str = defaults.MEMORY_REQUEST
    """Memory request: cache headroom, not a cap. Default: 100Mi.

    Replaces: deliveryhero ``resources.requests.memory``; kubespray ``nodelocaldns_memory_requests``; kops
    ``memoryRequest``.
    """

    limits: Mapping[str, str] = field(default_factory=dict)
    """Resource limits other than CPU and memory: ``ephemeral-storage`` or extended resources. Default: - none.

    CPU and memory limits are refused: an OOM kill orphans the NOTRACK rules and
    black-holes the node's DNS; CPU throttling is DNS latency.
    Replaces: deliveryhero ``resources.limits`` but its memory and cpu (refused, as kubespray's
    ``nodelocaldns_memory_limit``).
    """

    liveness: LivenessProbe = field(default_factory=LivenessProbe)
    """Liveness probe timings. Default: - the spec's (see ``LivenessProbe``)."""

    ports: Ports = field(default_factory=Ports)
    """Listener ports. Default: - the spec's (see ``Ports``).

    Replaces: deliveryhero ``config.healthPort`` (``health``); kubespray ``nodelocaldns_health_port`` and
    ``nodelocaldns_prometheus_port``.
    """

    max_unavailable: str | int = defaults.MAX_UNAVAILABLE
    """Rolling-update budget: a percentage or a number of pods.

    A percentage, 1% to 100%, or a number of pods from 1. Default: 1% (seven nodes at once on a 700-node cluster).
    Replaces: deliveryhero ``updateStrategy.rollingUpdate.maxUnavailable``; kubespray's ``serial``.
    """

    termination_grace_period_seconds: int = defaults.TERMINATION_GRACE_PERIOD_SECONDS
    """Time for node-cache's SIGTERM cleanup of its rules and interface. Default: 30."""

    interception: Interception = defaults.INTERCEPTION
    """Who diverts the pods' queries to node-cache. Default: node-cache (the spec's).

    ``node-cache``: node-cache's own NOTRACK rules, unconditional, left behind by a SIGKILL
    or an OOM kill (the node's DNS is black-holed until node-cache is back).
    ``fallthrough``: node-cache with ``-setupiptables=false`` and a ``keeper`` container that
    keeps rules applying only while node-cache listens, so lookups fall through to cluster
    CoreDNS the moment it is gone (:mod:`constructs_nld.keeper`).
    Replaces: kubespray ``enable_nodelocaldns_secondary`` (``fallthrough`` answers its purpose, a node whose
    node-cache is down still resolving).
    """

    privileged: bool = defaults.PRIVILEGED
    """Run the containers privileged (the spec's). Default: True.

    False: drop every capability and add back only what each container needs (node-cache:
    NET_ADMIN, NET_BIND_SERVICE, and NET_RAW when it writes rules; the keeper: NET_ADMIN,
    NET_RAW), without privilege escalation, under the runtime's default seccomp profile
    (``RuntimeDefault``). Privileged containers run unconfined: the runtime applies no
    seccomp profile to them.
    Replaces: deliveryhero ``securityContext`` (its NET_ADMIN alone is ``privileged=False``).
    """

    node_selector: Mapping[str, str] = field(default_factory=dict)
    """Run only on nodes carrying these labels. Default: - every node the tolerations allow.

    Replaces: lablabs ``nodeSelector``; kubespray ``nodelocaldns_ds_nodeselector``.
    """

    affinity: NodeAffinity | None = None
    """Node affinity: required terms (ORed) and preferred ones. Default: - none.

    Replaces: deliveryhero ``affinity``.
    """

    priority_class_name: str = defaults.PRIORITY_CLASS_NAME
    """Priority class; prevents eviction. Default: system-node-critical."""

    image_pull_secrets: tuple[str, ...] = ()
    """Secrets (in the pods' namespace) to pull the image with, from a private registry. Default: - none.

    Replaces: deliveryhero ``imagePullSecrets``.
    """

    pod_annotations: Mapping[str, str] = field(default_factory=dict)
    """Annotations of the pods (a change rolls them); not the restart stamp nor the tool's own. Default: - none.

    ``kubectl.kubernetes.io/restartedAt`` (which deploy's restarts write) and keys under
    ``nodelocaldns.constructs-nld.io/`` or ``nodelocaldns.osdc/`` are refused.

    Replaces: deliveryhero ``podAnnotations``; kops ``podAnnotations``.
    """

    update_strategy: Literal["RollingUpdate", "OnDelete"] = "RollingUpdate"
    """``RollingUpdate`` by ``max_unavailable``, or ``OnDelete``: a pod takes a new template only once deleted.

    ``OnDelete`` is kops' way: nodes take the change as they are replaced. Default: RollingUpdate.
    Replaces: deliveryhero ``updateStrategy.type``; kops' ``OnDelete``.
    """

    read_kube_dns_config_map: bool = True
    """Mount the optional ``kube-dns`` ConfigMap at ``/etc/kube-dns`` (the spec's). Default: True.

    node-cache 1.26.8 reads that directory whenever it exists, ``-kubednscm`` or not: the
    ConfigMap's ``stubDomains`` become server blocks of their own and its
    ``upstreamNameservers`` replace the node's resolvers, outside the app and unchecked by
    it. ``False`` leaves the volume out, so only the app's ``zones`` and
    ``upstream_servers`` decide. ``verify`` reports what the ConfigMap holds either way.
    Replaces: kube-dns ``stubDomains`` and ``upstreamNameservers`` (move them to ``zones``
    and ``upstream_servers``).
    """

    def check_node_cache_options(self) -> None:
        """Validate the options (the first bad one raises, naming itself); write the addresses in RFC 5952 form."""
        name, at, digest = self.image.partition("@")
        if len(self.image) > 4096 or not _IMAGE.fullmatch(name):
            raise ValueError(
                f"image: must be an image reference such as 'registry.k8s.io/dns/k8s-dns-node-cache:1.26.8', "
                f"got {self.image!r}"
            )
        if at and not _DIGEST.fullmatch(digest):
            raise ValueError(
                f"image: digest must be sha256:<64 lowercase hex> or sha512:<128 lowercase hex>, got {self.image!r}"
            )
        if not at and ":" not in name.rpartition("/")[2]:
            raise ValueError(
                f"image: must carry a tag or a digest (without one it is ':latest', which moves), got {self.image!r}"
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
        if self.interception not in ("node-cache", "fallthrough"):
            raise ValueError(
                f"interception: must be 'node-cache' (the spec's) or 'fallthrough', got {self.interception!r}"
            )
        check_labels("node_selector", self.node_selector)
        check_dns_subdomain("priority_class_name", self.priority_class_name)
        for secret in self.image_pull_secrets:
            check_dns_subdomain("image_pull_secrets", secret)
        if len(set(self.image_pull_secrets)) != len(self.image_pull_secrets):
            raise ValueError(f"image_pull_secrets: a secret is listed twice, got {self.image_pull_secrets!r}")
        _check_annotations("pod_annotations", self.pod_annotations)
        if self.update_strategy not in ("RollingUpdate", "OnDelete"):
            raise ValueError(f"update_strategy: must be 'RollingUpdate' or 'OnDelete', got {self.update_strategy!r}")
        if self.interception == "fallthrough" and self.portable:
            raise ValueError(
                "interception: 'fallthrough' needs portable=False, got portable=True (the keeper's rules "
                "name the kube-dns ClusterIP, which portable manifests leave to kubelet and never hold)"
            )


_ANNOTATIONS_MAX_BYTES = 256 * 1024
"""The API server's limit on the total size of an object's annotations."""


def _check_annotations(prop: str, annotations: Mapping[str, str]) -> None:
    """Raise unless the keys are qualified names the tool does not write, the values strings, within the size limit."""
    for key, value in annotations.items():
        check_qualified_name(prop, key, "annotation key")
        if not isinstance(value, str):
            raise ValueError(f"{prop}: value of {key!r} must be a string, got {value!r}")
    size = sum(len(k.encode()) + len(v.encode()) for k, v in annotations.items())
    if size > _ANNOTATIONS_MAX_BYTES:
        raise ValueError(f"{prop}: must be at most 256 KiB in all (the API server's limit), got {size} bytes")
    for key in annotations:
        if key == defaults.RESTART_ANNOTATION:
            raise ValueError(
                f"{prop}: {key!r} is the restart stamp that deploy and 'kubectl rollout restart' write; "
                "a value here would undo their restarts at every deploy"
            )
        prefix = next((p for p in defaults.TOOL_ANNOTATION_PREFIXES if key.startswith(p)), None)
        if prefix is not None:
            raise ValueError(f"{prop}: {key!r} is under {prefix!r}, which the tool writes itself")


def node_cache_options(options: NodeCacheOptions) -> dict[str, Any]:
    """The node-cache options of ``options`` (any subclass) as keyword arguments, to hand them on unchanged."""
    return {f.name: getattr(options, f.name) for f in dataclasses.fields(NodeCacheOptions)}
