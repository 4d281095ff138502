"""The ``node-local-dns-fallthrough`` ConfigMap: the fallthrough keeper's script and the rules it installs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from cdk8s_plus_28 import k8s
from constructs import Construct

from constructs_nld import defaults
from constructs_nld.fallthrough import FallthroughRules
from constructs_nld.props import ObjectProps, props_or_defaults

__all__ = ["FallthroughConfigMap", "FallthroughConfigMapProps"]


@dataclass(frozen=True, kw_only=True)
class FallthroughConfigMapProps(ObjectProps):
    """Props of :class:`FallthroughConfigMap`."""

    name: str = defaults.FALLTHROUGH_CONFIG_MAP_NAME
    """ConfigMap name, mounted by the DaemonSet's keeper container. Default: node-local-dns-fallthrough."""

    namespace: str = defaults.NAMESPACE
    """Namespace of the node-cache pods. Default: kube-system."""

    labels: Mapping[str, str] = field(
        default_factory=lambda: {**defaults.NODE_CACHE_APP_LABEL, **defaults.MANAGED_BY_LABEL}
    )
    """Labels. Default: ``k8s-app: node-local-dns`` and the managed-by label."""

    rules: FallthroughRules = field(default_factory=FallthroughRules)
    """The rules, for the addresses and ports of the DaemonSet's node-cache. Default: - fd00::10, preview ClusterIP."""


class FallthroughConfigMap(Construct):
    """The ConfigMap holding ``keeper.sh`` and ``rules``, which the keeper container mounts."""

    def __init__(self, scope: Construct, id: str, props: FallthroughConfigMapProps | None = None) -> None:
        """Define the ConfigMap in ``scope``."""
        super().__init__(scope, id)
        self.props = props_or_defaults(props, FallthroughConfigMapProps)
        self.api_object = k8s.KubeConfigMap(
            self, "Resource", metadata=self.props.object_meta(), data=self.props.rules.files()
        )
