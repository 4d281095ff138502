"""The workload, applied after the Services: ServiceAccount, ConfigMaps and DaemonSet."""

from __future__ import annotations

from constructs_nld.workload.config_map import CorefileConfigMap, CorefileConfigMapProps
from constructs_nld.workload.daemon_set import NodeCacheDaemonSet, NodeCacheDaemonSetProps
from constructs_nld.workload.fallthrough_config_map import FallthroughConfigMap, FallthroughConfigMapProps
from constructs_nld.workload.service_account import ServiceAccount, ServiceAccountProps

__all__ = [
    "CorefileConfigMap",
    "CorefileConfigMapProps",
    "FallthroughConfigMap",
    "FallthroughConfigMapProps",
    "NodeCacheDaemonSet",
    "NodeCacheDaemonSetProps",
    "ServiceAccount",
    "ServiceAccountProps",
]
