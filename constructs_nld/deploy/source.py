"""The cdk8s app a deploy or verify works on: the one ``cdk8s synth`` runs, synthesized with the live ClusterIP.

One source of configuration: what a user writes in their app (``main.py`` or any ``app:``
of ``cdk8s.yaml``) is what ``cdk8s synth`` writes, what ``deploy.py`` applies and what
``verify`` checks. The app is run as ``cdk8s synth`` runs it — a shell command in the
project directory with ``CDK8S_OUTDIR`` set — plus ``KUBE_DNS_CLUSTER_IP``, and the cluster's
identity: ``NLD_CLUSTER`` (its name) and ``NLD_CONTEXT`` (its kubeconfig context), and the
values files and ``--set`` strings of ``deploy.py --values/--set`` (``NLD_VALUES``, ``NLD_SET``),
which :func:`constructs_nld.app.props_from_environment` reads. The runner synthesizes it once per
cluster (:mod:`constructs_nld.deploy.session`) and every step works on those charts.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import yaml

from constructs_nld.defaults import CLUSTER_ENV, CLUSTER_IP_ENV, CONTEXT_ENV, SET_ENV, VALUES_ENV
from constructs_nld.deploy.errors import InvalidConfigError
from constructs_nld.values import ValuesError, read_layers

if TYPE_CHECKING:
    from constructs_nld.nodelocaldns import NodeLocalDNSProps

__all__ = [
    "CONFIG_FILE",
    "SYNTH_TIMEOUT",
    "AppChart",
    "AppCommand",
    "AppSource",
    "app_inputs",
    "props_source",
]

CONFIG_FILE: Final = "cdk8s.yaml"
"""The cdk8s project file whose ``app:`` names the command, as ``cdk8s synth`` reads it."""

SYNTH_TIMEOUT: Final = 300.0
"""Seconds an app may take to synthesize."""

_ERROR_TAIL_LINES: Final = 15
_REFUSALS: Final = ("ValueError: ", "error: ")
"""How an app's last line starts when it refused its input (a props value, its cluster): that line alone is
reported. ``ValueError: `` ends a traceback; ``error: `` is what :func:`constructs_nld.app.main` prints."""


@dataclass(frozen=True)
class AppChart:
    """One chart of a synthesized app, as ``cdk8s synth`` writes it: a file of manifests."""

    name: str
    """The file, relative to the output directory (``0001-nodelocaldns-services.k8s.yaml``), or the chart's id."""

    objects: tuple[dict[str, Any], ...]
    """Its manifests, in file order."""


AppSource = Callable[[str | None], Sequence[AppChart]]
"""Synthesizes an app with a kube-dns ClusterIP (None: a preview) into its charts, in apply order."""


@dataclass(frozen=True)
class AppCommand:
    """A cdk8s app run as ``cdk8s synth`` runs it: ``command`` in a shell, in ``directory``."""

    command: str
    """The shell command, e.g. ``python main.py``."""

    directory: Path
    """Where it runs: the directory of ``cdk8s.yaml``."""

    cluster: str | None = None
    """The name of the cluster it is synthesized for, given to the app as ``$NLD_CLUSTER`` (None: a preview)."""

    context: str | None = None
    """That cluster's kubeconfig context, given to the app as ``$NLD_CONTEXT`` (None: unset)."""

    values: tuple[str, ...] = ()
    """Values files (absolute paths), in order, given to the app as ``$NLD_VALUES`` (a JSON list)."""

    sets: tuple[str, ...] = ()
    """``key.path=value`` strings, in order, given to the app as ``$NLD_SET`` (a JSON list)."""

    @classmethod
    def from_project(
        cls,
        directory: Path | None = None,
        *,
        command: str | None = None,
        values: Sequence[str] = (),
        sets: Sequence[str] = (),
    ) -> AppCommand:
        """The app of the cdk8s project in ``directory`` (default: the working directory).

        ``command`` overrides the ``app:`` of ``cdk8s.yaml`` (which then need not exist).
        ``values`` (paths from the working directory) and ``sets`` are read and checked first,
        so that a missing file or a malformed ``--set`` is refused before anything else; the
        props they make are checked by the app, as every prop is.
        """
        paths = tuple(str(Path(path).resolve()) for path in values)
        try:
            read_layers(values, sets)
        except ValuesError as error:
            raise InvalidConfigError(f"--values/--set: {error}") from None
        where = (directory or Path.cwd()).resolve()
        if command is not None:
            if not command.strip():
                raise InvalidConfigError("--app: must be a command such as 'python main.py', got an empty string")
            return cls(command, where, values=paths, sets=tuple(sets))
        config = where / CONFIG_FILE
        try:
            data = yaml.safe_load(config.read_text())
        except FileNotFoundError:
            raise InvalidConfigError(
                f"no {CONFIG_FILE} in {where}: run from your cdk8s project, or name the app with --app 'python main.py'"
            ) from None
        except (OSError, yaml.YAMLError) as error:
            raise InvalidConfigError(f"cannot read {config}: {_one_line(str(error))}") from None
        app = data.get("app") if isinstance(data, dict) else None
        if not isinstance(app, str) or not app.strip():
            raise InvalidConfigError(f"{config} has no 'app:' command (e.g. 'app: python main.py')")
        return cls(app, where, values=paths, sets=tuple(sets))

    def environment(self, outdir: Path, cluster_ip: str | None) -> dict[str, str]:
        """The app's environment: ours, the output directory, the ClusterIP, the values, and our Python first on PATH.

        ``python`` in the command is then the interpreter running the deploy (its venv),
        whatever the caller's shell has activated.
        """
        env = dict(os.environ)
        env["CDK8S_OUTDIR"] = str(outdir)
        for variable in (CLUSTER_IP_ENV, CLUSTER_ENV, CONTEXT_ENV, VALUES_ENV, SET_ENV):
            env.pop(variable, None)
        if self.values:
            env[VALUES_ENV] = json.dumps(list(self.values))
        if self.sets:
            env[SET_ENV] = json.dumps(list(self.sets))
        if cluster_ip is not None:
            env[CLUSTER_IP_ENV] = cluster_ip
        if self.cluster:
            env[CLUSTER_ENV] = self.cluster
        if self.context is not None:
            env[CONTEXT_ENV] = self.context
        env["PATH"] = os.pathsep.join((str(Path(sys.executable).parent), env.get("PATH", "")))
        return env

    def __call__(self, cluster_ip: str | None) -> tuple[AppChart, ...]:
        """Run the app into a temporary directory and read its charts back, in file order."""
        with tempfile.TemporaryDirectory(prefix="nld-synth-") as tmp:
            outdir = Path(tmp) / "dist"
            try:
                result = subprocess.run(
                    self.command,
                    shell=True,
                    cwd=self.directory,
                    env=self.environment(outdir, cluster_ip),
                    capture_output=True,
                    text=True,
                    timeout=SYNTH_TIMEOUT,
                    check=False,
                )
            except subprocess.TimeoutExpired:
                raise InvalidConfigError(
                    f"the app '{self.command}' did not finish synthesizing within {SYNTH_TIMEOUT:g}s"
                ) from None
            if result.returncode != 0:
                lines = (result.stderr or result.stdout).strip().splitlines()
                if lines and lines[-1].startswith(_REFUSALS):
                    # Its input refused: its one line names the prop or the cluster; a traceback above it is Python's.
                    refusal = lines[-1].removeprefix("error: ")
                    raise InvalidConfigError(f"the app '{self.command}' failed: {refusal}")
                tail = "\n".join(lines[-_ERROR_TAIL_LINES:])
                raise InvalidConfigError(
                    f"the app '{self.command}' failed (exit {result.returncode}) in {self.directory}:\n{tail}"
                )
            return read_charts(outdir, self.command)


def app_inputs(app: AppCommand) -> dict[str, Any]:
    """What the app is given beside its code, as the release history records it: its cluster, values files and sets.

    Each values file is recorded by its path and the sha256 of its content when the app ran.

    The one place that says what a revision records of the app's inputs
    (:mod:`constructs_nld.deploy.history`): whatever the app reads besides its project
    directory belongs here, so that a revision says from what it was synthesized.
    """
    given = {key: value for key, value in (("cluster", app.cluster), ("context", app.context)) if value is not None}
    values = {path: hashlib.sha256(Path(path).read_bytes()).hexdigest() for path in app.values}
    return given | ({"values": values} if values else {}) | ({"sets": list(app.sets)} if app.sets else {})


def read_charts(outdir: Path, command: str) -> tuple[AppChart, ...]:
    """The manifests ``cdk8s synth`` would list: every ``*.yaml`` under ``outdir``, in path order.

    cdk8s numbers chart files in dependency order (``0000-…``, ``0001-…``), so path order
    is the app's apply order.
    """
    if not outdir.is_dir():
        raise InvalidConfigError(f"the app '{command}' wrote nothing: does it call app.synth()?")
    charts = []
    for path in sorted(outdir.rglob("*.yaml")):
        try:
            objects = tuple(obj for obj in yaml.safe_load_all(path.read_text()) if obj)
        except yaml.YAMLError as error:
            raise InvalidConfigError(f"the app wrote {path.name}, which is not YAML: {_one_line(str(error))}") from None
        for obj in objects:
            if not (isinstance(obj, dict) and obj.get("apiVersion") and obj.get("kind") and obj.get("metadata")):
                raise InvalidConfigError(f"the app wrote {path.name} holding something that is not a manifest")
        charts.append(AppChart(str(path.relative_to(outdir)), objects))
    if not charts:
        raise InvalidConfigError(f"the app '{command}' wrote no manifests: does it call app.synth()?")
    return tuple(charts)


def props_source(props: NodeLocalDNSProps) -> AppSource:
    """An in-process source: the ``NodeLocalDNS`` component alone, from ``props``.

    For programs that build their props in Python (benchmarks, tests of the deploy
    logic): it synthesizes in the calling process, so it starts jsii there. The CLI always
    runs the project's app through :class:`AppCommand`, in a process of its own.
    """

    def source(cluster_ip: str | None) -> tuple[AppChart, ...]:
        from constructs_nld.app import synthesize  # the one import of cdk8s in this package: on use only

        try:
            # As props_from_environment: portable props take no address (kubelet gives it).
            configured = props if props.portable else replace(props, kube_dns_cluster_ip=cluster_ip)
        except ValueError as error:
            raise InvalidConfigError(str(error)) from None
        return tuple(AppChart(chart.phase, chart.objects) for chart in synthesize(configured))

    return source


def _one_line(text: str) -> str:
    return " ".join(text.split())
