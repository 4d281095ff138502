"""cdk8s constructs that synthesize NodeLocal DNSCache for IPv6-only clusters.

``NodeLocalDNS`` composes the whole component as ordered charts; each object also has a
construct of its own for reuse in other charts.

The names below are loaded on first use (PEP 562), so ``import constructs_nld`` costs
nothing: the deploy CLI, which lives in this package, answers ``--help`` without loading
cdk8s, whose first import starts jsii's Node.js process.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from constructs_nld.lazy import lazy_names

if TYPE_CHECKING:
    from constructs_nld.alerts import AlertGroup, AlertRule, AlertSettings, NodeLocalDNSAlerts
    from constructs_nld.app import (
        SynthesizedChart,
        cluster_from_environment,
        context_from_environment,
        props_from_environment,
        synthesize,
    )
    from constructs_nld.corefile import Corefile, Directive, ServerBlock
    from constructs_nld.dns import (
        AQueryFilter,
        CacheSettings,
        Dns64,
        DnsOptions,
        ForwardOptions,
        ForwardZone,
        HostEntry,
        Prefetch,
        ServeStale,
        ZoneCache,
    )
    from constructs_nld.keeper import Keeper
    from constructs_nld.monitoring import (
        GrafanaDashboard,
        GrafanaDashboardProps,
        PodMonitor,
        PodMonitorProps,
        PrometheusRule,
        PrometheusRuleProps,
    )
    from constructs_nld.nodelocaldns import NodeLocalDNS, NodeLocalDNSProps
    from constructs_nld.placeholders import (
        NotDeployableError,
        check_deployable,
        find_unresolved_placeholders,
        is_deployable,
    )
    from constructs_nld.props import LivenessProbe, Ports, Toleration, default_tolerations
    from constructs_nld.rbac import DeployerRBAC, DeployerRBACProps, DeployerSubject
    from constructs_nld.release import version
    from constructs_nld.roles import Role
    from constructs_nld.scheduling import NodeAffinity, NodeSelectorRequirement, NodeSelectorTerm, PreferredTerm
    from constructs_nld.services import (
        MetricsService,
        MetricsServiceProps,
        UpstreamService,
        UpstreamServiceProps,
    )
    from constructs_nld.workload import (
        CorefileConfigMap,
        CorefileConfigMapProps,
        KeeperConfigMap,
        KeeperConfigMapProps,
        NodeCacheDaemonSet,
        NodeCacheDaemonSetProps,
        NodeCacheOptions,
        ServiceAccount,
        ServiceAccountProps,
    )

_HOMES: dict[str, tuple[str, ...]] = {
    "constructs_nld.alerts": ("AlertGroup", "AlertRule", "AlertSettings", "NodeLocalDNSAlerts"),
    "constructs_nld.app": (
        "SynthesizedChart",
        "cluster_from_environment",
        "context_from_environment",
        "props_from_environment",
        "synthesize",
    ),
    "constructs_nld.corefile": ("Corefile", "Directive", "ServerBlock"),
    "constructs_nld.keeper": ("Keeper",),
    "constructs_nld.monitoring": (
        "GrafanaDashboard",
        "GrafanaDashboardProps",
        "PodMonitor",
        "PodMonitorProps",
        "PrometheusRule",
        "PrometheusRuleProps",
    ),
    "constructs_nld.nodelocaldns": ("NodeLocalDNS", "NodeLocalDNSProps"),
    "constructs_nld.placeholders": (
        "NotDeployableError",
        "check_deployable",
        "find_unresolved_placeholders",
        "is_deployable",
    ),
    "constructs_nld.dns": (
        "AQueryFilter",
        "CacheSettings",
        "Dns64",
        "DnsOptions",
        "ForwardOptions",
        "ForwardZone",
        "HostEntry",
        "Prefetch",
        "ServeStale",
        "ZoneCache",
    ),
    "constructs_nld.props": ("LivenessProbe", "Ports", "Toleration", "default_tolerations"),
    "constructs_nld.rbac": ("DeployerRBAC", "DeployerRBACProps", "DeployerSubject"),
    "constructs_nld.scheduling": ("NodeAffinity", "NodeSelectorRequirement", "NodeSelectorTerm", "PreferredTerm"),
    "constructs_nld.roles": ("Role",),
    "constructs_nld.release": ("version",),
    "constructs_nld.services": ("MetricsService", "MetricsServiceProps", "UpstreamService", "UpstreamServiceProps"),
    "constructs_nld.workload": (
        "CorefileConfigMap",
        "CorefileConfigMapProps",
        "KeeperConfigMap",
        "KeeperConfigMapProps",
        "NodeCacheDaemonSet",
        "NodeCacheDaemonSetProps",
        "NodeCacheOptions",
        "ServiceAccount",
        "ServiceAccountProps",
    ),
}

__all__ = [
    "AlertGroup",
    "AlertRule",
    "AlertSettings",
    "AQueryFilter",
    "CacheSettings",
    "Corefile",
    "CorefileConfigMap",
    "CorefileConfigMapProps",
    "DeployerRBAC",
    "DeployerRBACProps",
    "DeployerSubject",
    "Directive",
    "Dns64",
    "DnsOptions",
    "ForwardOptions",
    "ForwardZone",
    "GrafanaDashboard",
    "GrafanaDashboardProps",
    "HostEntry",
    "Keeper",
    "KeeperConfigMap",
    "KeeperConfigMapProps",
    "LivenessProbe",
    "MetricsService",
    "MetricsServiceProps",
    "NodeAffinity",
    "NodeCacheDaemonSet",
    "NodeCacheDaemonSetProps",
    "NodeCacheOptions",
    "NodeLocalDNS",
    "NodeLocalDNSAlerts",
    "NodeLocalDNSProps",
    "NodeSelectorRequirement",
    "NodeSelectorTerm",
    "NotDeployableError",
    "PodMonitor",
    "PodMonitorProps",
    "Ports",
    "PreferredTerm",
    "Prefetch",
    "PrometheusRule",
    "PrometheusRuleProps",
    "Role",
    "ServeStale",
    "ServerBlock",
    "ServiceAccount",
    "ServiceAccountProps",
    "SynthesizedChart",
    "Toleration",
    "UpstreamService",
    "UpstreamServiceProps",
    "ZoneCache",
    "check_deployable",
    "cluster_from_environment",
    "context_from_environment",
    "default_tolerations",
    "find_unresolved_placeholders",
    "is_deployable",
    "props_from_environment",
    "synthesize",
    "version",
]


__getattr__, __dir__ = lazy_names("constructs_nld", _HOMES, globals())
