"""The ``node-local-dns`` ConfigMap: the Corefile node-cache reads as ``Corefile.base``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from constructs_nld import defaults
from constructs_nld.corefile import Corefile
from constructs_nld.dns import CacheSettings, node_local_dns_corefile
from constructs_nld.metadata import object_meta
from constructs_nld.placeholders import KUBE_DNS_CLUSTER_IP
from constructs_nld.props import ObjectProps, Ports, props_or_defaults
from constructs_nld.roles import Role
from constructs_nld.runtime import Construct, k8s

__all__ = ["CorefileConfigMap", "CorefileConfigMapProps"]


def _default_corefile() -> Corefile:
    return node_local_dns_corefile(
        cluster_domain=defaults.CLUSTER_DOMAIN,
        bind_addresses=(defaults.LOCAL_IP, KUBE_DNS_CLUSTER_IP),
        health_address=defaults.LOCAL_IP,
        ports=Ports(),
        cache=CacheSettings(),
    )


@dataclass(frozen=True, kw_only=True)
class CorefileConfigMapProps(ObjectProps):
    """Props of :class:`CorefileConfigMap`."""

    name: str = defaults.CONFIG_MAP_NAME
    """ConfigMap name, mounted by the DaemonSet. Default: node-local-dns."""

    namespace: str = defaults.NAMESPACE
    """Namespace of the node-cache pods. Default: kube-system."""

    labels: Mapping[str, str] = field(
        default_factory=lambda: {**defaults.NODE_CACHE_APP_LABEL, **defaults.MANAGED_BY_LABEL}
    )
    """Labels. Default: ``k8s-app: node-local-dns``, ``app.kubernetes.io/managed-by: osdc-base``."""

    corefile: Corefile = field(default_factory=_default_corefile)
    """The Corefile model (linted when built). Default: - the spec's four blocks, preview ClusterIP."""


class CorefileConfigMap(Construct):
    """The ConfigMap holding the Corefile under the key ``Corefile``."""

    def __init__(self, scope: Construct, id: str, props: CorefileConfigMapProps | None = None) -> None:
        """Define the ConfigMap in ``scope``."""
        super().__init__(scope, id)
        self.props = props_or_defaults(props, CorefileConfigMapProps)
        self.api_object = k8s.KubeConfigMap(
            self,
            "Resource",
            metadata=object_meta(self.props, Role.COREFILE),
            data={defaults.COREFILE_KEY: self.props.corefile.render()},
        )
