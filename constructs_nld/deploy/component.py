"""Where NodeLocal DNS sits in a synthesized app, found from the manifests themselves.

A deploy and a verify work on the user's whole app, which may hold their own charts
beside ``NodeLocalDNS`` or the reusable constructs composed their own way. The spec's
rules (Services first, the restart triggers, the checks) concern the NodeLocal DNS
objects, so they are located by what they are, not by the names of the defaults: the
DaemonSet whose container runs node-cache (``-localip`` and ``-upstreamsvc``), the
Service its ``-upstreamsvc`` names, and what its pods mount, run as and are scraped by.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from constructs_nld.deploy.errors import InvalidConfigError, PreconditionError
from constructs_nld.deploy.kube import Manifest, ObjectRef
from constructs_nld.deploy.source import AppChart
from constructs_nld.fallthrough import Interception, interception_of, is_keeper
from constructs_nld.placeholders import KUBE_DNS_SERVICE_HOST

__all__ = ["MONITORING_GROUP", "Component", "is_monitoring", "locate"]

MONITORING_GROUP: Final = "monitoring.coreos.com"
"""The prometheus-operator API group: served only where its CRDs are installed."""

_NODE_CACHE_FLAGS: Final = ("-localip", "-upstreamsvc")


def is_monitoring(manifest: Mapping[str, Any]) -> bool:
    """True for a prometheus-operator object (PodMonitor, PrometheusRule, …)."""
    return str(manifest.get("apiVersion", "")).startswith(f"{MONITORING_GROUP}/")


def _flag(args: Sequence[str], flag: str) -> str:
    index = list(args).index(flag)
    return args[index + 1] if index + 1 < len(args) else ""


def _node_cache_container(daemon_set: Mapping[str, Any]) -> Mapping[str, Any] | None:
    pod = daemon_set.get("spec", {}).get("template", {}).get("spec", {})
    for container in pod.get("containers") or []:
        args = [str(arg) for arg in container.get("args") or []]
        if all(flag in args for flag in _NODE_CACHE_FLAGS):
            return dict(container)
    return None


def _selects(selector: Mapping[str, str] | None, labels: Mapping[str, str]) -> bool:
    return bool(selector) and all(labels.get(key) == value for key, value in (selector or {}).items())


@dataclass(frozen=True)
class Component:
    """The NodeLocal DNS objects of an app, as the app configured them."""

    daemon_set: Manifest
    """The node-cache DaemonSet."""

    upstream_service: Manifest
    """The Service node-cache forwards to (its ``-upstreamsvc``)."""

    metrics_services: tuple[Manifest, ...]
    """Headless Services selecting the node-cache pods."""

    config_maps: tuple[Manifest, ...]
    """ConfigMaps of the app mounted by the node-cache pods (the Corefile)."""

    service_account: Manifest | None
    """The pods' ServiceAccount, when the app defines it."""

    pod_monitors: tuple[Manifest, ...]
    """PodMonitors selecting the node-cache pods."""

    prometheus_rules: tuple[Manifest, ...]
    """PrometheusRules whose queries are about node-cache (its metrics or its DaemonSet)."""

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
        match: Mapping[str, str] = self.daemon_set["spec"]["selector"].get("matchLabels") or {}
        return ",".join(f"{key}={value}" for key, value in match.items())

    @property
    def container(self) -> Mapping[str, Any]:
        """The node-cache container."""
        container = _node_cache_container(self.daemon_set)
        assert container is not None  # locate() found the DaemonSet by it
        return container

    @property
    def interception(self) -> Interception:
        """The app's interception mode: node-cache's own rules, or the fallthrough keeper's."""
        return interception_of(self.pod_spec)

    @property
    def keeper(self) -> Mapping[str, Any] | None:
        """The fallthrough keeper container, when the app's pods have one."""
        return next((dict(c) for c in self.pod_spec.get("containers") or [] if is_keeper(c)), None)

    @property
    def local_ips(self) -> tuple[str, ...]:
        """The addresses node-cache binds and intercepts (``-localip``)."""
        return tuple(_flag([str(a) for a in self.container["args"]], "-localip").split(","))

    @property
    def tolerations(self) -> tuple[Mapping[str, Any], ...]:
        """The tolerations the app gives the pods."""
        return tuple(self.pod_spec.get("tolerations") or ())

    def objects(self) -> tuple[Manifest, ...]:
        """Every NodeLocal DNS object the app defines, Services first."""
        parts: list[Manifest] = [self.upstream_service, *self.metrics_services]
        if self.service_account is not None:
            parts.append(self.service_account)
        parts += [*self.config_maps, self.daemon_set, *self.pod_monitors, *self.prometheus_rules]
        return tuple(parts)

    @property
    def upstream_selector(self) -> Mapping[str, str]:
        """The selector the app gives kube-dns-upstream (``k8s-app: kube-dns``)."""
        selector: Mapping[str, str] = self.upstream_service["spec"].get("selector") or {}
        return selector

    def check_upstream(self, live: Mapping[str, Any] | None, *, refusing: str) -> None:
        """The spec's step 1: refuse when the live kube-dns-upstream selects something else than the app's.

        Such a Service belongs to a stale or foreign install: neither a deploy (which would
        overwrite it) nor an uninstall (which would delete it) touches it. ``refusing`` says
        what is refused (``"to overwrite it"``).
        """
        if live is None:
            return
        selector = live.get("spec", {}).get("selector") or {}
        if selector != self.upstream_selector:
            ref = ObjectRef.of(self.upstream_service)
            raise PreconditionError(
                f"{ref} exists with selector {selector!r}, not {dict(self.upstream_selector)!r}: "
                f"a stale or foreign install; refusing {refusing}. Inspect it with "
                f"'kubectl get svc -n {ref.namespace} {ref.name} -o yaml' "
                "and delete it if it is not in use, then rerun."
            )

    @property
    def portable(self) -> bool:
        """Whether kubelet gives node-cache the kube-dns ClusterIP (``$(KUBE_DNS_SERVICE_HOST)``)."""
        return KUBE_DNS_SERVICE_HOST in self.local_ips

    @property
    def service_links(self) -> bool:
        """Whether kubelet injects the Service variables node-cache reads (``enableServiceLinks`` not false)."""
        return self.pod_spec.get("enableServiceLinks") is not False

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


def _named(objects: Iterable[Manifest], kind: str, namespace: str, name: str) -> Manifest | None:
    for obj in objects:
        metadata = obj.get("metadata") or {}
        if obj.get("kind") == kind and metadata.get("namespace") == namespace and metadata.get("name") == name:
            return obj
    return None


def locate(charts: Sequence[AppChart]) -> Component:
    """Find NodeLocal DNS in ``charts``, or refuse with a message saying what is missing or misordered."""
    ordered = [obj for chart in charts for obj in chart.objects]
    found = [obj for obj in ordered if obj.get("kind") == "DaemonSet" and _node_cache_container(obj) is not None]
    if not found:
        raise InvalidConfigError(
            "the app defines no NodeLocal DNS DaemonSet (a container running node-cache with -localip and "
            "-upstreamsvc): add NodeLocalDNS (or NodeCacheDaemonSet) to the app"
        )
    if len(found) > 1:
        names = ", ".join(str(ObjectRef.of(obj)) for obj in found)
        raise InvalidConfigError(f"the app defines {len(found)} node-cache DaemonSets ({names}); deploy one per app")
    daemon_set = found[0]
    namespace = (daemon_set.get("metadata") or {}).get("namespace")
    if not namespace:
        raise InvalidConfigError(f"{ObjectRef.of(daemon_set)} has no metadata.namespace; node-cache needs one")
    container = _node_cache_container(daemon_set)
    assert container is not None
    upstream_name = _flag([str(a) for a in container["args"]], "-upstreamsvc")
    upstream = _named(ordered, "Service", namespace, upstream_name)
    if upstream is None:
        raise InvalidConfigError(
            f"node-cache's -upstreamsvc names service/{namespace}/{upstream_name}, which the app does not define: "
            "add UpstreamService (NodeLocalDNS includes it)"
        )
    if ordered.index(upstream) > ordered.index(daemon_set):
        raise InvalidConfigError(
            f"the app orders {ObjectRef.of(daemon_set)} before {ObjectRef.of(upstream)}: kubelet injects "
            f"{upstream_name.upper().replace('-', '_')}_SERVICE_HOST only into pods created after the Service; "
            "make the DaemonSet's chart depend on the Service's (chart.add_dependency)"
        )
    pod = daemon_set["spec"]["template"]
    labels = (pod.get("metadata") or {}).get("labels") or {}
    pod_spec = pod.get("spec") or {}
    metrics = tuple(
        obj
        for obj in ordered
        if obj.get("kind") == "Service"
        and obj["metadata"].get("namespace") == namespace
        and obj.get("spec", {}).get("clusterIP") == "None"
        and _selects(obj.get("spec", {}).get("selector"), labels)
    )
    config_map_names = [
        volume["configMap"]["name"]
        for volume in pod_spec.get("volumes") or []
        if volume.get("configMap", {}).get("name")
    ]
    config_maps = tuple(
        obj for name in config_map_names if (obj := _named(ordered, "ConfigMap", namespace, name)) is not None
    )
    account = pod_spec.get("serviceAccountName")
    service_account = _named(ordered, "ServiceAccount", namespace, account) if account else None
    pod_monitors = tuple(
        obj
        for obj in ordered
        if obj.get("kind") == "PodMonitor"
        and _selects(obj.get("spec", {}).get("selector", {}).get("matchLabels"), labels)
        and _watches(obj.get("spec", {}).get("namespaceSelector") or {}, obj["metadata"].get("namespace"), namespace)
    )
    about_node_cache = ("coredns_nodecache_", f'daemonset="{daemon_set["metadata"]["name"]}"')
    prometheus_rules = tuple(
        obj
        for obj in ordered
        if obj.get("kind") == "PrometheusRule"
        and any(
            marker in str(rule.get("expr", ""))
            for group in obj.get("spec", {}).get("groups") or []
            for rule in group.get("rules") or []
            for marker in about_node_cache
        )
    )
    return Component(
        daemon_set=daemon_set,
        upstream_service=upstream,
        metrics_services=metrics,
        config_maps=config_maps,
        service_account=service_account,
        pod_monitors=pod_monitors,
        prometheus_rules=prometheus_rules,
    )


def _watches(namespace_selector: Mapping[str, Any], own: str | None, namespace: str) -> bool:
    """Whether a PodMonitor's ``namespaceSelector`` covers ``namespace`` (default: its own namespace)."""
    if namespace_selector.get("any"):
        return True
    names = namespace_selector.get("matchNames")
    return namespace in names if names else own == namespace
