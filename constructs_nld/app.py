"""Synthesis entry points: the cdk8s app behind ``main.py``, and in-memory synthesis.

Preview vs deployable: without a ClusterIP the kube-dns address is the literal
``__KUBE_DNS_CLUSTER_IP__`` (``dist/`` is such a preview, committed for review); with
one, every place that needs the address has it and the output passes
:func:`constructs_nld.placeholders.check_deployable`.

Where :func:`main` writes: ``$CDK8S_OUTDIR`` when set (``cdk8s synth`` and ``deploy.py``
set it), else ``dist/``. A preview is also published to ``dist/`` when the synth is
``cdk8s synth``'s: ``cdk8s.yaml`` sends the CLI's output to :data:`STAGING_DIR`,
because the CLI empties its output directory before it runs the app, and ``dist/`` must
never be left empty by a synth that fails. Deployable output never goes to ``dist/``,
which holds the reviewed preview. Every directory is replaced only once the whole synth
has succeeded.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

from constructs_nld.defaults import CLUSTER_ENV, CLUSTER_IP_ENV, CONTEXT_ENV, SET_ENV, VALUES_ENV
from constructs_nld.nodelocaldns import NodeLocalDNS, NodeLocalDNSProps
from constructs_nld.placeholders import KUBE_DNS_CLUSTER_IP, KUBE_DNS_SERVICE_HOST
from constructs_nld.roles import Phase
from constructs_nld.runtime import cdk8s
from constructs_nld.values import ValuesError, props_with_values

__all__ = [
    "APP_ID",
    "CLUSTER_IP_ENV",
    "PREVIEW_DIR",
    "STAGING_DIR",
    "SynthesizedChart",
    "cluster_from_environment",
    "context_from_environment",
    "main",
    "props_from_environment",
    "synthesize",
]

PREVIEW_DIR: Final = Path("dist")
"""The committed, reviewed preview."""

STAGING_DIR: Final = Path(".cache") / "synth"
"""``cdk8s.yaml``'s ``output:``: a scratch directory the cdk8s CLI may empty."""

APP_ID: Final = "nodelocaldns"
"""Construct id of the component in the app; part of the ``dist/`` file names."""


@dataclass(frozen=True)
class SynthesizedChart:
    """One chart's objects, as plain manifests, with its phase in the apply order."""

    phase: Phase
    """``services``, ``workload`` or ``monitoring``."""

    objects: tuple[dict[str, Any], ...]
    """The manifests, in the chart's order."""


def context_from_environment(environ: Mapping[str, str]) -> str | None:
    """The kubeconfig context ``deploy.py`` synthesizes for (``$NLD_CONTEXT``), or None (a preview, in-cluster)."""
    return environ.get(CONTEXT_ENV, "").strip() or None


def cluster_from_environment(environ: Mapping[str, str]) -> str | None:
    """The cluster ``deploy.py`` synthesizes for: ``$NLD_CLUSTER``, else ``$NLD_CONTEXT``; None for a preview.

    ``deploy.py`` sets both for every cluster it works on, one or a fleet: the name is the
    ``name:`` of the cluster's ``clusters.yaml`` entry, else its context.
    """
    return environ.get(CLUSTER_ENV, "").strip() or context_from_environment(environ)


def props_from_environment(
    environ: Mapping[str, str],
    props: NodeLocalDNSProps | None = None,
    *,
    clusters: Mapping[str, NodeLocalDNSProps] | None = None,
    base_for_others: bool = False,
) -> NodeLocalDNSProps:
    """``props`` (default: the spec's) with the ClusterIP from ``KUBE_DNS_CLUSTER_IP``, if set.

    ``clusters`` holds per-cluster props by cluster name (:func:`cluster_from_environment`):
    when the environment names one of them, those props are used instead of ``props`` (a
    pool's taint only one cluster has). A cluster that is not among them is refused, naming
    the known ones, unless ``base_for_others`` says ``props`` are meant for every other
    cluster: a typo in a name, or a teammate's context named differently, would otherwise
    deploy the base props without a word. A preview (no cluster named) gets ``props``.

    The values files of ``$NLD_VALUES`` and then the ``--set`` strings of ``$NLD_SET`` (JSON
    lists, which ``deploy.py --values/--set`` writes) are applied over those props
    (:mod:`constructs_nld.values`); a refused value names its file or ``--set``, the key path
    and the variable.

    An unset or empty address gives a preview. A bad value raises the prop's own error,
    which names the variable it came from. Portable props take no address: they are
    returned as they are, and the deploy checks the live address without writing it.
    """
    cluster = cluster_from_environment(environ)
    base = props or NodeLocalDNSProps()
    if clusters and cluster is not None:
        if cluster in clusters:
            base = clusters[cluster]
        elif not base_for_others:
            known = ", ".join(repr(name) for name in clusters)
            raise ValueError(
                f"clusters: cluster {cluster!r} is not among the app's clusters ({known}): add its props under that "
                "name (a --contexts-from file's 'name:' sets it), or pass base_for_others=True to give every other "
                "cluster the base props"
            )
    base = _with_values(environ, base)
    value = environ.get(CLUSTER_IP_ENV, "").strip()
    if not value or base.portable:
        return base
    try:
        return replace(base, kube_dns_cluster_ip=value)
    except ValueError as error:
        raise ValueError(f"{error} (from ${CLUSTER_IP_ENV})") from None


def _env_list(environ: Mapping[str, str], variable: str) -> list[str]:
    """The JSON list of strings in ``$variable`` (unset or empty: none)."""
    text = environ.get(variable, "").strip()
    if not text:
        return []
    try:
        items = json.loads(text)
    except ValueError:
        items = None
    if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
        raise ValueError(f"${variable}: must be a JSON list of strings, got {text!r:.80}")
    return items


def _with_values(environ: Mapping[str, str], props: NodeLocalDNSProps) -> NodeLocalDNSProps:
    """``props`` with the values of ``$NLD_VALUES`` and ``$NLD_SET`` applied; an error names the variable."""
    paths, sets = _env_list(environ, VALUES_ENV), _env_list(environ, SET_ENV)
    if not paths and not sets:
        return props
    try:
        return props_with_values(props, paths, sets)
    except ValuesError as error:
        variable = SET_ENV if str(error).startswith("--set ") else VALUES_ENV
        raise ValueError(f"{error} (from ${variable})") from None


def synthesize(props: NodeLocalDNSProps) -> tuple[SynthesizedChart, ...]:
    """Synthesize the component in memory, charts in apply order; nothing is written."""
    app = cdk8s.App()
    component = NodeLocalDNS(app, APP_ID, props)
    return tuple(SynthesizedChart(phase, tuple(chart.to_json())) for phase, chart in component.charts)


def _replace_directory(source: Path, target: Path) -> None:
    """Make ``target`` a copy of ``source``: built beside it, then swapped in by two renames."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fresh = Path(tempfile.mkdtemp(prefix=f".{target.name}.new-", dir=target.parent))
    shutil.copytree(source, fresh, dirs_exist_ok=True)
    old = target.parent / f".{target.name}.old-{os.getpid()}"
    if target.exists():
        target.rename(old)
    fresh.rename(target)
    shutil.rmtree(old, ignore_errors=True)


def main(
    props: NodeLocalDNSProps | None = None,
    environ: Mapping[str, str] = os.environ,
    *,
    clusters: Mapping[str, NodeLocalDNSProps] | None = None,
    base_for_others: bool = False,
) -> int:
    """Synthesize ``props`` (default: the spec's) with the ClusterIP of ``$KUBE_DNS_CLUSTER_IP``; return the exit code.

    ``clusters``: per-cluster props by cluster name, used when ``$NLD_CLUSTER`` names one;
    another cluster is refused unless ``base_for_others`` (:func:`props_from_environment`).

    ``deploy.py`` runs the app with the variable set to the live address
    (:func:`props_from_environment`). One line on stderr says what was written: a preview
    or deployable output, and where.
    """
    try:
        props = props_from_environment(environ, props, clusters=clusters, base_for_others=base_for_others)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    pinned = props.kube_dns_cluster_ip is not None
    requested = environ.get("CDK8S_OUTDIR", "")
    if pinned and not requested:
        print(
            f"error: ${CLUSTER_IP_ENV} is set, and {PREVIEW_DIR}/ holds the committed preview: write deployable "
            f"output elsewhere: make synth OUT=DIR, CDK8S_OUTDIR=DIR python main.py or cdk8s synth --output DIR",
            file=sys.stderr,
        )
        return 2
    targets = [Path(requested) if requested else PREVIEW_DIR]
    if not pinned and requested and Path(requested).resolve() == STAGING_DIR.resolve():
        targets.append(PREVIEW_DIR)
    with tempfile.TemporaryDirectory(prefix="nld-synth-") as tmp:
        app = cdk8s.App(outdir=tmp)
        NodeLocalDNS(app, APP_ID, props)
        app.synth()
        for target in targets:
            _replace_directory(Path(tmp), target)
        names = sorted(path.name for path in Path(tmp).iterdir())
    if pinned:
        what = f"deployable output (kube-dns ClusterIP {props.kube_dns_cluster_ip})"
    elif props.portable:
        what = f"portable output (deployable as it is: kubelet gives node-cache the address as {KUBE_DNS_SERVICE_HOST})"
    else:
        what = f"a preview (not deployable: {KUBE_DNS_CLUSTER_IP} stands for the kube-dns ClusterIP)"
    written = "; ".join(f"{target}/{{{', '.join(names)}}}" for target in targets)
    print(f"synthesized {what}: wrote {written}", file=sys.stderr)
    return 0
