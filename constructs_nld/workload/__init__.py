"""The workload, applied after the Services: ServiceAccount, ConfigMaps and DaemonSet."""

from __future__ import annotations

from constructs_nld.workload.config_map import CorefileConfigMap, CorefileConfigMapProps
from constructs_nld.workload.daemon_set import NodeCacheDaemonSet, NodeCacheDaemonSetProps
from constructs_nld.workload.keeper_config_map import KeeperConfigMap, KeeperConfigMapProps
from constructs_nld.workload.node_cache_options import NodeCacheOptions
from constructs_nld.workload.service_account import ServiceAccount, ServiceAccountProps

__all__ = [
    "CorefileConfigMap",
    "CorefileConfigMapProps",
    "KeeperConfigMap",
    "KeeperConfigMapProps",
    "NodeCacheDaemonSet",
    "NodeCacheDaemonSetProps",
    "NodeCacheOptions",
    "ServiceAccount",
    "ServiceAccountProps",
]
