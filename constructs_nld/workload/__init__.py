"""The workload, applied after the Services: ServiceAccount, Corefile ConfigMap and DaemonSet."""

from __future__ import annotations

from constructs_nld.workload.config_map import CorefileConfigMap, CorefileConfigMapProps
from constructs_nld.workload.daemon_set import NodeCacheDaemonSet, NodeCacheDaemonSetProps
from constructs_nld.workload.service_account import ServiceAccount, ServiceAccountProps

__all__ = [
    "CorefileConfigMap",
    "CorefileConfigMapProps",
    "NodeCacheDaemonSet",
    "NodeCacheDaemonSetProps",
    "ServiceAccount",
    "ServiceAccountProps",
]
