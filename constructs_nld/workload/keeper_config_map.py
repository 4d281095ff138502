"""The ``node-local-dns-keeper-<hash>`` ConfigMap: the fallthrough keeper's script and the rules it keeps.

Immutable and named by its content (:meth:`~constructs_nld.keeper.Keeper.config_map_name`, which
``NodeLocalDNS`` gives it): a change is a new ConfigMap, which the pods get as they are replaced.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from constructs_nld import defaults
from constructs_nld.keeper import Keeper
from constructs_nld.metadata import object_meta
from constructs_nld.props import ObjectProps, props_or_defaults
from constructs_nld.roles import Role
from constructs_nld.runtime import Construct, k8s

__all__ = ["KeeperConfigMap", "KeeperConfigMapProps"]


@dataclass(frozen=True, kw_only=True)
class KeeperConfigMapProps(ObjectProps):
    """Props of :class:`KeeperConfigMap`."""

    name: str = defaults.KEEPER_CONFIG_MAP_NAME
    """ConfigMap name, mounted by the DaemonSet's keeper container. Default: node-local-dns-keeper.

    ``NodeLocalDNS`` names it ``node-local-dns-keeper-<hash of its content>``.
    """

    namespace: str = defaults.NAMESPACE
    """Namespace of the node-cache pods. Default: kube-system."""

    labels: Mapping[str, str] = field(
        default_factory=lambda: {**defaults.NODE_CACHE_APP_LABEL, **defaults.MANAGED_BY_LABEL}
    )
    """Labels. Default: ``k8s-app: node-local-dns``, ``app.kubernetes.io/managed-by: osdc-base``."""

    keeper: Keeper = field(default_factory=Keeper)
    """The rules and the script, for the DaemonSet's node-cache addresses and ports.

    Default: - the default local IP and the preview's ClusterIP placeholder.
    """


class KeeperConfigMap(Construct):
    """The ConfigMap holding the keeper's ``keeper.sh`` and ``rules``, which the keeper container mounts."""

    def __init__(self, scope: Construct, id: str, props: KeeperConfigMapProps | None = None) -> None:
        """Define the ConfigMap in ``scope``."""
        super().__init__(scope, id)
        self.props = props_or_defaults(props, KeeperConfigMapProps)
        self.api_object = k8s.KubeConfigMap(
            self,
            "Resource",
            metadata=object_meta(self.props, Role.KEEPER_CONFIG),
            data=self.props.keeper.files(),
            immutable=True,
        )
