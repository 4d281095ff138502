"""Synthesis entry points: the cdk8s app behind ``main.py``, and in-memory synthesis for deploys.

Preview vs deployable: without a ClusterIP the kube-dns address is the literal
``__KUBE_DNS_CLUSTER_IP__`` (``dist/`` is such a preview, committed for review); with
one, every place that needs the address has it and the output passes
:func:`constructs_nld.placeholders.check_deployable`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

import cdk8s

from constructs_nld.nodelocaldns import ChartRole, NodeLocalDNS, NodeLocalDNSProps

__all__ = [
    "APP_ID",
    "CLUSTER_IP_ENV",
    "SynthesizedChart",
    "main",
    "props_from_environment",
    "synthesize",
]

CLUSTER_IP_ENV: Final = "KUBE_DNS_CLUSTER_IP"
"""Environment variable holding the live kube-dns ClusterIP for ``cdk8s synth``."""

APP_ID: Final = "nodelocaldns"
"""Construct id of the component in the app; part of the ``dist/`` file names."""


@dataclass(frozen=True)
class SynthesizedChart:
    """One chart's objects, as plain manifests, with its role in the apply order."""

    role: ChartRole
    """``services``, ``workload`` or ``monitoring``."""

    objects: tuple[dict[str, Any], ...]
    """The manifests, in the chart's order."""


def props_from_environment(environ: Mapping[str, str], props: NodeLocalDNSProps | None = None) -> NodeLocalDNSProps:
    """``props`` (default: the spec's) with the ClusterIP from ``KUBE_DNS_CLUSTER_IP``, if set.

    An unset or empty variable gives a preview. A bad value raises the prop's own error,
    which names the variable it came from.
    """
    base = props or NodeLocalDNSProps()
    value = environ.get(CLUSTER_IP_ENV, "").strip()
    if not value:
        return base
    try:
        return replace(base, kube_dns_cluster_ip=value)
    except ValueError as error:
        raise ValueError(f"{error} (from ${CLUSTER_IP_ENV})") from None


def synthesize(props: NodeLocalDNSProps) -> tuple[SynthesizedChart, ...]:
    """Synthesize the component in memory, charts in apply order; nothing is written."""
    app = cdk8s.App()
    component = NodeLocalDNS(app, APP_ID, props)
    return tuple(SynthesizedChart(role, tuple(chart.to_json())) for role, chart in component.charts)


def main(props: NodeLocalDNSProps | None = None, environ: Mapping[str, str] = os.environ) -> int:
    """Synthesize ``props`` (default: the spec's) to ``dist/`` (or ``$CDK8S_OUTDIR``); return the exit code.

    The ClusterIP comes from ``$KUBE_DNS_CLUSTER_IP`` (:func:`props_from_environment`):
    ``deploy.py`` sets it to the live address when it runs the app.
    """
    try:
        props = props_from_environment(environ, props)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    app = cdk8s.App()
    NodeLocalDNS(app, APP_ID, props)
    app.synth()
    return 0
