"""NodeLocal DNS in a synthesized app, found by what its objects say they are, and checked against their YAML.

Every construct labels its object with its role (:mod:`constructs_nld.roles`), so the
component is found in any app: ``NodeLocalDNS``, the per-object constructs composed the
user's way, beside the user's own charts. :func:`locate` reads the labels, then checks
each labelled object against the YAML that refers to it: the DaemonSet runs node-cache,
its ``-upstreamsvc`` names the upstream Service, its volumes mount the Corefile and the
keeper's ConfigMaps, its pods are what the metrics Service and the PodMonitor select. An
object the YAML refers to but whose labels do not say what it is (a hand-written one) is
reported by name, and so is an object whose labels and YAML disagree.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from constructs_nld import defaults
from constructs_nld.deploy.errors import InvalidConfigError, PreconditionError
from constructs_nld.deploy.kube import Manifest, ObjectRef
from constructs_nld.deploy.manifest import flag, interception_of, keeper_container, selector
from constructs_nld.deploy.source import AppChart
from constructs_nld.placeholders import KUBE_DNS_SERVICE_HOST
from constructs_nld.props import Interception
from constructs_nld.roles import COMPONENT_LABEL, NAME_LABEL, ROLES, Role, role_of

__all__ = ["Component", "locate"]

_NODE_CACHE_FLAGS = ("-localip", "-upstreamsvc")
_FIX = "build it with the construct of its role (NodeLocalDNS includes them all), or give it the labels"


def _labels_of(role: Role) -> str:
    return f"{NAME_LABEL}={defaults.APP_NAME}, {COMPONENT_LABEL}={role.value}"


@dataclass(frozen=True)
class Component:
    """The NodeLocal DNS objects of an app, as the app configured them, each by its role."""

    members: tuple[tuple[Role, Manifest], ...]
    """Every labelled object with its role, in the app's apply order."""

    def _one(self, role: Role) -> Manifest | None:
        return next((obj for r, obj in self.members if r == role), None)

    @property
    def daemon_set(self) -> Manifest:
        """The node-cache DaemonSet (always there: :func:`locate` requires it)."""
        found = self._one(Role.NODE_CACHE)
        assert found is not None
        return found

    @property
    def upstream_service(self) -> Manifest:
        """The Service node-cache forwards to, the one its ``-upstreamsvc`` names (required too)."""
        found = self._one(Role.UPSTREAM_SERVICE)
        assert found is not None
        return found

    @property
    def metrics_service(self) -> Manifest | None:
        """The headless Service over the pods' metrics ports."""
        return self._one(Role.METRICS_SERVICE)

    @property
    def service_account(self) -> Manifest | None:
        """The pods' ServiceAccount, when the app defines it."""
        return self._one(Role.SERVICE_ACCOUNT)

    @property
    def corefile(self) -> Manifest | None:
        """The Corefile ConfigMap the pods mount, when the app defines it."""
        return self._one(Role.COREFILE)

    @property
    def keeper_config(self) -> Manifest | None:
        """The fallthrough keeper's ConfigMap, in the fallthrough mode."""
        return self._one(Role.KEEPER_CONFIG)

    @property
    def pod_monitor(self) -> Manifest | None:
        """The PodMonitor scraping the node-cache pods."""
        return self._one(Role.POD_MONITOR)

    @property
    def prometheus_rule(self) -> Manifest | None:
        """The PrometheusRule of the alerts."""
        return self._one(Role.ALERT_RULES)

    def objects(self) -> tuple[Manifest, ...]:
        """Every NodeLocal DNS object the app defines, in the app's apply order (Services first)."""
        return tuple(obj for _, obj in self.members)

    def role(self, ref: ObjectRef) -> Role | None:
        """The role of the app's object ``ref``, or None when it is not one of ours."""
        return next((role for role, obj in self.members if ObjectRef.of(obj) == ref), None)

    @property
    def namespace(self) -> str:
        """Namespace of the DaemonSet, which kube-dns-upstream and kube-dns share."""
        return str(self.daemon_set["metadata"]["namespace"])

    @property
    def pod_spec(self) -> Mapping[str, Any]:
        """The DaemonSet's pod template spec."""
        spec: Mapping[str, Any] = self.daemon_set["spec"]["template"]["spec"]
        return spec

    @property
    def pod_labels(self) -> Mapping[str, str]:
        """Labels of the node-cache pods."""
        labels: Mapping[str, str] = self.daemon_set["spec"]["template"].get("metadata", {}).get("labels") or {}
        return labels

    @property
    def pod_selector(self) -> str:
        """The DaemonSet's selector as a label-selector query."""
        return selector(self.daemon_set["spec"]["selector"].get("matchLabels") or {})

    @property
    def container(self) -> Mapping[str, Any]:
        """The node-cache container."""
        container = _node_cache_container(self.daemon_set)
        assert container is not None  # locate() checked it
        return container

    @property
    def interception(self) -> Interception:
        """The app's interception mode: node-cache's own rules, or the fallthrough keeper's."""
        return interception_of(self.pod_spec)

    @property
    def keeper(self) -> Mapping[str, Any] | None:
        """The fallthrough keeper container, when the app's pods have one."""
        return keeper_container(self.pod_spec)

    @property
    def local_ips(self) -> tuple[str, ...]:
        """The addresses node-cache binds and intercepts (``-localip``)."""
        return tuple((flag(self.container.get("args") or [], "-localip") or "").split(","))

    @property
    def tolerations(self) -> tuple[Mapping[str, Any], ...]:
        """The tolerations the app gives the pods."""
        return tuple(self.pod_spec.get("tolerations") or ())

    @property
    def upstream_selector(self) -> Mapping[str, str]:
        """The selector the app gives kube-dns-upstream (``k8s-app: kube-dns``)."""
        found: Mapping[str, str] = self.upstream_service["spec"].get("selector") or {}
        return found

    @property
    def traffic_distribution(self) -> str | None:
        """The ``trafficDistribution`` the app gives kube-dns-upstream, if any (zone-local cache misses)."""
        value = self.upstream_service["spec"].get("trafficDistribution")
        return value if isinstance(value, str) else None

    def dropped_traffic_distribution(self, live: Mapping[str, Any] | None) -> str | None:
        """What to say when ``live`` (kube-dns-upstream as the server keeps it) lacks the app's ``trafficDistribution``.

        An API server before Kubernetes 1.31, or with the feature gate off, drops the field
        without an error: the Service works, its traffic is not kept in the zone.
        """
        wanted = self.traffic_distribution
        if wanted is None or live is None:
            return None
        kept = (live.get("spec") or {}).get("trafficDistribution")
        if kept == wanted:
            return None
        since = defaults.TRAFFIC_DISTRIBUTION_SINCE.get(wanted, "1.31")
        held = f"holds {kept!r}" if kept is not None else "dropped the field"
        return (
            f"the API server {held} where the app sets spec.trafficDistribution {wanted!r} "
            f"(served from Kubernetes {since} on, unless its feature gate is off)"
        )

    @property
    def portable(self) -> bool:
        """Whether kubelet gives node-cache the kube-dns ClusterIP (``$(KUBE_DNS_SERVICE_HOST)``)."""
        return KUBE_DNS_SERVICE_HOST in self.local_ips

    @property
    def reads_kube_dns_config(self) -> bool:
        """Whether node-cache reads the ``kube-dns`` ConfigMap: mounted where it looks, by ``-kubednscm`` or by default.

        node-cache 1.26.8 reads ``/etc/kube-dns`` whenever the directory exists, so the
        spec's mount alone makes it read the ConfigMap.
        """
        directory = flag(self.container.get("args") or [], "-kubednscm") or defaults.KUBE_DNS_CONFIG_MOUNT
        mounted = _volume_config_map(self.pod_spec, self.container, directory)
        return mounted == defaults.KUBE_DNS_CONFIG_MAP_NAME

    @property
    def service_links(self) -> bool:
        """Whether kubelet injects the Service variables node-cache reads (``enableServiceLinks`` not false)."""
        return self.pod_spec.get("enableServiceLinks") is not False

    def check_upstream(self, live: Mapping[str, Any] | None, *, refusing: str) -> None:
        """The spec's step 1: refuse when the live kube-dns-upstream selects something else than the app's.

        Such a Service belongs to a stale or foreign install: neither a deploy (which would
        overwrite it) nor an uninstall (which would delete it) touches it. ``refusing`` says
        what is refused (``"to overwrite it"``).
        """
        if live is None:
            return
        live_selector = live.get("spec", {}).get("selector") or {}
        if live_selector != self.upstream_selector:
            ref = ObjectRef.of(self.upstream_service)
            raise PreconditionError(
                f"{ref} exists with selector {live_selector!r}, not {dict(self.upstream_selector)!r}: "
                f"a stale or foreign install; refusing {refusing}. Inspect it with "
                f"'kubectl get svc -n {ref.namespace} {ref.name} -o yaml' "
                "and delete it if it is not in use, then rerun."
            )

    def check_cluster_ip(self, cluster_ip: str) -> None:
        """Refuse an app whose node-cache would not intercept the live kube-dns ClusterIP.

        A pinned app must have taken the address into ``-localip`` (``main.py`` takes it
        from ``$KUBE_DNS_CLUSTER_IP``); an app that ignores the variable, or pins another
        address, would intercept the wrong address on every node. A portable app leaves it
        to kubelet, which needs the Service variables — as ``-upstreamsvc`` does in both.
        """
        if not self.service_links:
            raise InvalidConfigError(
                f"the app's {ObjectRef.of(self.daemon_set)} sets enableServiceLinks: false: kubelet would give "
                "node-cache no KUBE_DNS_UPSTREAM_SERVICE_HOST (nor KUBE_DNS_SERVICE_HOST), and it exits at start"
            )
        if self.portable:
            return
        live = ipaddress.ip_address(cluster_ip)
        for address in self.local_ips:
            try:
                if ipaddress.ip_address(address) == live:
                    return
            except ValueError:
                continue
        raise InvalidConfigError(
            f"the app's node-cache -localip is {','.join(self.local_ips)}, which lacks kube-dns's live ClusterIP "
            f"{cluster_ip}: let the app take it from $KUBE_DNS_CLUSTER_IP "
            "(constructs_nld.props_from_environment, as main.py does)"
        )


def _node_cache_container(daemon_set: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The container named ``node-cache`` that runs node-cache (``-localip`` and ``-upstreamsvc``), if any."""
    pod = daemon_set.get("spec", {}).get("template", {}).get("spec", {})
    for container in pod.get("containers") or []:
        args = [str(arg) for arg in container.get("args") or []]
        if container.get("name") == defaults.CONTAINER_NAME and all(f in args for f in _NODE_CACHE_FLAGS):
            return dict(container)
    return None


def _named(objects: Iterable[Manifest], kind: str, namespace: str, name: str) -> Manifest | None:
    for obj in objects:
        metadata = obj.get("metadata") or {}
        if obj.get("kind") == kind and metadata.get("namespace") == namespace and metadata.get("name") == name:
            return obj
    return None


def _selects(match: Mapping[str, str] | None, labels: Mapping[str, str]) -> bool:
    return bool(match) and all(labels.get(key) == value for key, value in (match or {}).items())


def _labelled(ordered: Sequence[Manifest]) -> list[tuple[Role, Manifest]]:
    """Every object whose labels say it is NodeLocal DNS's, with its role; refuses unknown roles and wrong kinds."""
    found: list[tuple[Role, Manifest]] = []
    for obj in ordered:
        role = role_of(obj)
        if role is None:
            continue
        ref = ObjectRef.of(obj)
        if not isinstance(role, Role):
            known = ", ".join(r.value for r in Role)
            raise InvalidConfigError(
                f"{ref} is labelled {COMPONENT_LABEL}={role!r}, which is not a role of NodeLocal DNS (one of {known})"
            )
        spec = ROLES[role]
        if (obj.get("apiVersion"), obj.get("kind")) != (spec.api_version, spec.kind):
            raise InvalidConfigError(
                f"{ref} is labelled {COMPONENT_LABEL}={role.value}, which is a {spec.kind} ({spec.api_version}), "
                f"but it is a {obj.get('kind')} ({obj.get('apiVersion')}): its labels and its YAML disagree"
            )
        found.append((role, obj))
    daemon_sets = [str(ObjectRef.of(obj)) for r, obj in found if r == Role.NODE_CACHE]
    if len(daemon_sets) > 1:
        raise InvalidConfigError(
            f"the app defines {len(daemon_sets)} node-cache DaemonSets ({', '.join(daemon_sets)}); deploy one per app"
        )
    for role in Role:
        same = [ObjectRef.of(obj) for r, obj in found if r == role]
        if len(same) > 1:
            raise InvalidConfigError(
                f"the app labels {len(same)} objects {COMPONENT_LABEL}={role.value} "
                f"({', '.join(str(ref) for ref in same)}): one NodeLocal DNS per app, one object per role"
            )
    return found


def _referenced(
    ordered: Sequence[Manifest],
    labelled: Mapping[Role, Manifest],
    role: Role,
    namespace: str,
    name: str | None,
    referrer: str,
) -> None:
    """Check that the object ``referrer`` names is the one labelled ``role`` (when the app defines either).

    A labelled object of another name, or an unlabelled object of the referenced name, means
    the labels and the YAML disagree: refused, naming both.
    """
    spec = ROLES[role]
    ours = labelled.get(role)
    if name is None:
        if ours is not None:
            raise InvalidConfigError(
                f"{ObjectRef.of(ours)} is labelled {COMPONENT_LABEL}={role.value}, but {referrer} refers to no "
                f"{spec.kind}: its labels and the YAML disagree"
            )
        return
    if ours is not None:
        if ours["metadata"].get("name") != name or ours["metadata"].get("namespace") != namespace:
            raise InvalidConfigError(
                f"{referrer} names {spec.kind.lower()}/{namespace}/{name}, but the app labels "
                f"{ObjectRef.of(ours)} as its {role.value}: the labels and the YAML disagree"
            )
        return
    hand_written = _named(ordered, spec.kind, namespace, name)
    if hand_written is not None:
        raise InvalidConfigError(
            f"{ObjectRef.of(hand_written)}, which {referrer} names, does not say what it is (no labels "
            f"{_labels_of(role)}): {_FIX}"
        )


def _volume_config_map(pod_spec: Mapping[str, Any], container: Mapping[str, Any] | None, path: str) -> str | None:
    """The ConfigMap that ``container`` mounts at ``path``, if it mounts one there."""
    if container is None:
        return None
    mounted = next((m.get("name") for m in container.get("volumeMounts") or [] if m.get("mountPath") == path), None)
    for volume in pod_spec.get("volumes") or []:
        if volume.get("name") == mounted and volume.get("configMap", {}).get("name"):
            return str(volume["configMap"]["name"])
    return None


def locate(charts: Sequence[AppChart]) -> Component:
    """Find NodeLocal DNS in ``charts`` by its labels, or refuse with a message naming what is missing or wrong."""
    ordered = [obj for chart in charts for obj in chart.objects]
    members = _labelled(ordered)
    labelled = dict(members)
    daemon_set = labelled.get(Role.NODE_CACHE)
    if daemon_set is None:
        unlabelled = [str(ObjectRef.of(obj)) for obj in ordered if obj.get("kind") == "DaemonSet"]
        which = f"; its DaemonSets {', '.join(unlabelled)} do not say what they are" if unlabelled else ""
        raise InvalidConfigError(
            f"the app defines no NodeLocal DNS DaemonSet (labels {_labels_of(Role.NODE_CACHE)}){which}: "
            "add NodeLocalDNS (or NodeCacheDaemonSet) to the app"
        )
    ref = ObjectRef.of(daemon_set)
    namespace = (daemon_set.get("metadata") or {}).get("namespace")
    if not namespace:
        raise InvalidConfigError(f"{ref} has no metadata.namespace; node-cache needs one")
    container = _node_cache_container(daemon_set)
    if container is None:
        raise InvalidConfigError(
            f"{ref} is labelled {COMPONENT_LABEL}={Role.NODE_CACHE.value} but has no container "
            f"{defaults.CONTAINER_NAME!r} running node-cache with -localip and -upstreamsvc: "
            "its labels and its YAML disagree"
        )
    upstream_name = flag(container.get("args") or [], "-upstreamsvc") or ""
    _referenced(ordered, labelled, Role.UPSTREAM_SERVICE, namespace, upstream_name, f"{ref}'s -upstreamsvc")
    upstream = labelled.get(Role.UPSTREAM_SERVICE)
    if upstream is None:
        raise InvalidConfigError(
            f"node-cache's -upstreamsvc names service/{namespace}/{upstream_name}, which the app does not define: "
            "add UpstreamService (NodeLocalDNS includes it)"
        )
    if ordered.index(upstream) > ordered.index(daemon_set):
        raise InvalidConfigError(
            f"the app orders {ref} before {ObjectRef.of(upstream)}: kubelet injects "
            f"{upstream_name.upper().replace('-', '_')}_SERVICE_HOST only into pods created after the Service; "
            "make the DaemonSet's chart depend on the Service's (chart.add_dependency)"
        )
    pod_spec = daemon_set["spec"]["template"].get("spec") or {}
    pod_labels = (daemon_set["spec"]["template"].get("metadata") or {}).get("labels") or {}
    _referenced(
        ordered,
        labelled,
        Role.COREFILE,
        namespace,
        _volume_config_map(pod_spec, container, defaults.COREFILE_BASE_MOUNT),
        f"{ref}'s Corefile volume",
    )
    _referenced(
        ordered,
        labelled,
        Role.KEEPER_CONFIG,
        namespace,
        _volume_config_map(pod_spec, keeper_container(pod_spec), defaults.KEEPER_MOUNT),
        f"{ref}'s keeper volume",
    )
    _referenced(ordered, labelled, Role.SERVICE_ACCOUNT, namespace, pod_spec.get("serviceAccountName"), f"{ref}'s pods")
    _check_selects_pods(labelled.get(Role.METRICS_SERVICE), namespace, pod_labels, ref)
    _check_selects_pods(labelled.get(Role.POD_MONITOR), namespace, pod_labels, ref)
    return Component(tuple(members))


def _check_selects_pods(obj: Manifest | None, namespace: str, pod_labels: Mapping[str, str], ref: ObjectRef) -> None:
    """A labelled metrics Service or PodMonitor must select the node-cache pods where they run."""
    if obj is None:
        return
    spec = obj.get("spec") or {}
    if obj["kind"] == "Service":
        selects = obj["metadata"].get("namespace") == namespace and _selects(spec.get("selector"), pod_labels)
        if selects and spec.get("clusterIP") != "None":
            raise InvalidConfigError(
                f"{ObjectRef.of(obj)} is labelled {COMPONENT_LABEL}={Role.METRICS_SERVICE.value} but is not headless "
                "(clusterIP: None): its labels and its YAML disagree"
            )
    else:
        selects = _selects((spec.get("selector") or {}).get("matchLabels"), pod_labels) and _watches(
            spec.get("namespaceSelector") or {}, obj["metadata"].get("namespace"), namespace
        )
    if not selects:
        raise InvalidConfigError(
            f"{ObjectRef.of(obj)} is labelled {COMPONENT_LABEL}={role_of(obj)} but does not select the pods of "
            f"{ref} in {namespace}: its labels and its YAML disagree"
        )


def _watches(namespace_selector: Mapping[str, Any], own: str | None, namespace: str) -> bool:
    """Whether a PodMonitor's ``namespaceSelector`` covers ``namespace`` (default: its own namespace)."""
    if namespace_selector.get("any"):
        return True
    names = namespace_selector.get("matchNames")
    return namespace in names if names else own == namespace
