"""The Services, applied first: kubelet injects a Service's address only into pods created after it."""

from __future__ import annotations

from constructs_nld.services.metrics_service import MetricsService, MetricsServiceProps
from constructs_nld.services.upstream_service import UpstreamService, UpstreamServiceProps

__all__ = ["MetricsService", "MetricsServiceProps", "UpstreamService", "UpstreamServiceProps"]
