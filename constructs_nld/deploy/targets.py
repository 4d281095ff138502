"""The clusters a command runs on: each a :class:`Target`, one cluster being a fleet of one.

Every flag combination names a list of targets, in order:

- no flag: the kubeconfig's current context (in a pod with no kubeconfig: the pod's own
  cluster, named by ``$NLD_CLUSTER`` or :data:`~constructs_nld.defaults.IN_CLUSTER_NAME`);
- ``--context A [--context B …]``: those contexts;
- ``--all-contexts``: every context of the kubeconfig, in its order;
- ``--contexts-from FILE``: the clusters the file lists; with ``--context``, only the
  entries those name (by ``name:`` or ``context:``).

The file is either a YAML list of context names, or a ``clusters.yaml``::

    clusters:
      - context: ci-east           # the kubeconfig context (required)
        name: east                 # the cluster's name (default: the context)
        prometheus: http://prometheus.east:9090   # soak only (default: --prometheus, {cluster} filled in)
      - context: ci-west

A target's ``name`` is what the output calls it and what the app is given as
``$NLD_CLUSTER`` (with ``$NLD_CONTEXT``, its context), so that an app keyed by stable
cluster names works whatever a teammate's context is called.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from constructs_nld import defaults
from constructs_nld.deploy.errors import InvalidConfigError, KubeconfigError, printable
from constructs_nld.deploy.kubeconfig import current_context, kubeconfig_contexts
from constructs_nld.deploy.options import Selection
from constructs_nld.deploy.redact import redact

__all__ = ["Target", "select", "targets_from_file"]


@dataclass(frozen=True)
class Target:
    """One cluster a command runs on."""

    name: str
    """Its name: the file's ``name``, else its context; ``""`` for a soak that names no cluster."""
    context: str | None
    """Its kubeconfig context; None: the kubeconfig's current one, or in-cluster."""
    prometheus: str | None = None
    """Its Prometheus (``soak``), from the file."""


def _duplicates(names: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    twice: list[str] = []
    for name in names:
        if name in seen and name not in twice:
            twice.append(name)
        seen.add(name)
    return twice


def _text(entry: dict[str, object], key: str, where: str, index: int) -> str | None:
    value = entry.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        shown = redact(printable(repr(value)))
        raise InvalidConfigError(f"{where}: entry {index}: {key!r} must be a non-empty string, got {shown}")
    if not value.isprintable():
        raise InvalidConfigError(
            f"{where}: entry {index}: {key!r} holds a control character ({redact(printable(value))!r})"
        )
    return value


def targets_from_file(path: str) -> tuple[Target, ...]:
    """The clusters a ``--contexts-from`` file lists, in its order; refused when malformed or naming one twice."""
    where = f"--contexts-from {path}"
    try:
        data = yaml.safe_load(Path(path).read_text())
    except OSError as error:
        raise InvalidConfigError(f"{where}: cannot read it: {error.strerror or error}") from None
    except yaml.YAMLError:
        raise InvalidConfigError(f"{where}: not YAML") from None
    entries = data.get("clusters") if isinstance(data, dict) else data
    if not isinstance(entries, list) or not entries:
        raise InvalidConfigError(f"{where}: must be a list of contexts, or a mapping with a list under 'clusters:'")
    targets: list[Target] = []
    for index, entry in enumerate(entries, 1):
        if isinstance(entry, str) and entry.strip():
            targets.append(Target(entry, entry))
        elif isinstance(entry, dict) and isinstance(entry.get("context"), str) and entry["context"].strip():
            unknown = sorted(str(key) for key in set(entry) - {"context", "name", "prometheus"})
            if unknown:
                raise InvalidConfigError(f"{where}: entry {index}: unknown key(s) {', '.join(unknown)}")
            context = str(entry["context"])
            name = _text(entry, "name", where, index) or context
            targets.append(Target(name, context, _text(entry, "prometheus", where, index)))
        else:
            raise InvalidConfigError(f"{where}: entry {index} is neither a context name nor a mapping with 'context:'")
    return _checked(targets, where)


def _checked(targets: Sequence[Target], where: str) -> tuple[Target, ...]:
    for target in targets:
        for what, value in (("name", target.name), ("context", target.context or "")):
            if not value.isprintable():  # a newline in a name would forge the lines that carry it
                raise InvalidConfigError(f"{where}: {what} {printable(value)!r} holds a control character")
    twice = _duplicates(t.context or "" for t in targets) or _duplicates(t.name for t in targets)
    if twice:
        raise InvalidConfigError(f"{where}: context {twice[0]!r} is named twice: each cluster once")
    return tuple(targets)


def _picked(targets: Sequence[Target], names: Sequence[str], path: str) -> tuple[Target, ...]:
    """The entries of the file that ``--context`` names, by name or context, in the order given."""
    picked: list[Target] = []
    for wanted in names:
        found = [t for t in targets if wanted in (t.name, t.context)]
        if not found:
            listed = ", ".join(repr(t.name) for t in targets)
            raise InvalidConfigError(
                f"--context {wanted!r}: not among the clusters of --contexts-from {path} ({listed})"
            )
        picked.append(found[0])
    return _checked(picked, "--context")


def _current(kubeconfig: str | None, *, needs_cluster: bool) -> Target:
    """The one cluster no flag names: the current context's, or the pod's own."""
    try:
        context = current_context(kubeconfig)
    except KubeconfigError:
        if needs_cluster:
            raise
        return Target("", None)  # a soak reads Prometheus only: it may run where no kubeconfig is
    if context is None:  # in a pod with no kubeconfig: its service account's cluster
        return Target(os.environ.get(defaults.CLUSTER_ENV, "").strip() or defaults.IN_CLUSTER_NAME, None)
    return Target(context, context)


def select(selection: Selection, kubeconfig: str | None, *, needs_cluster: bool = True) -> tuple[Target, ...]:
    """The clusters ``selection`` names, in order; never empty.

    ``needs_cluster`` is False for a command that reads no API server (``soak``): without a
    kubeconfig, its one target is then nameless rather than refused.
    """
    if selection.contexts_from is not None:
        listed = targets_from_file(selection.contexts_from)
        return _picked(listed, selection.contexts, selection.contexts_from) if selection.contexts else listed
    if selection.all_contexts:
        return tuple(Target(name, name) for name in kubeconfig_contexts(kubeconfig))
    if selection.contexts:
        return _checked([Target(name, name) for name in selection.contexts], "--context")
    return (_current(kubeconfig, needs_cluster=needs_cluster),)
