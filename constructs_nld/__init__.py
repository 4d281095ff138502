"""cdk8s constructs that synthesize NodeLocal DNSCache for IPv6-only clusters.

``NodeLocalDNS`` composes the whole component as ordered charts; each object also has a
construct of its own for reuse in other charts.
"""

from __future__ import annotations

import os

# jsii prints a page-wide banner on every run under Node 20, which it calls end-of-life.
# Node 20 is what this project's machines run, knowingly: silence that one version's
# banner here, before jsii starts, and leave every other jsii warning on.
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

from constructs_nld.app import SynthesizedChart, props_from_environment, synthesize  # noqa: E402
from constructs_nld.corefile import Corefile, Directive, ServerBlock  # noqa: E402
from constructs_nld.fallthrough import FallthroughRules  # noqa: E402
from constructs_nld.monitoring import (  # noqa: E402
    AlertRules,
    AlertRulesProps,
    GrafanaDashboard,
    GrafanaDashboardProps,
    PodMonitor,
    PodMonitorProps,
)
from constructs_nld.nodelocaldns import NodeLocalDNS, NodeLocalDNSProps  # noqa: E402
from constructs_nld.placeholders import (  # noqa: E402
    NotDeployableError,
    check_deployable,
    find_unresolved_placeholders,
    is_deployable,
)
from constructs_nld.props import CacheSettings, LivenessProbe, Ports, Toleration, default_tolerations  # noqa: E402
from constructs_nld.rules import AlertRule, AlertSettings, NodeLocalDNSAlerts, RuleGroup  # noqa: E402
from constructs_nld.services import (  # noqa: E402
    MetricsService,
    MetricsServiceProps,
    UpstreamService,
    UpstreamServiceProps,
)
from constructs_nld.workload import (  # noqa: E402
    CorefileConfigMap,
    CorefileConfigMapProps,
    FallthroughConfigMap,
    FallthroughConfigMapProps,
    NodeCacheDaemonSet,
    NodeCacheDaemonSetProps,
    ServiceAccount,
    ServiceAccountProps,
)

__all__ = [
    "AlertRule",
    "AlertRules",
    "AlertRulesProps",
    "AlertSettings",
    "CacheSettings",
    "Corefile",
    "CorefileConfigMap",
    "CorefileConfigMapProps",
    "Directive",
    "FallthroughConfigMap",
    "FallthroughConfigMapProps",
    "FallthroughRules",
    "GrafanaDashboard",
    "GrafanaDashboardProps",
    "LivenessProbe",
    "MetricsService",
    "MetricsServiceProps",
    "NodeCacheDaemonSet",
    "NodeCacheDaemonSetProps",
    "NodeLocalDNS",
    "NodeLocalDNSAlerts",
    "NodeLocalDNSProps",
    "NotDeployableError",
    "PodMonitor",
    "PodMonitorProps",
    "Ports",
    "RuleGroup",
    "ServerBlock",
    "ServiceAccount",
    "ServiceAccountProps",
    "SynthesizedChart",
    "Toleration",
    "UpstreamService",
    "UpstreamServiceProps",
    "check_deployable",
    "default_tolerations",
    "find_unresolved_placeholders",
    "is_deployable",
    "props_from_environment",
    "synthesize",
]
