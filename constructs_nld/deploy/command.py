"""What a command is to the runner: a function of one cluster's session and its options, returning an outcome.

Each command module of :mod:`constructs_nld.deploy.commands` declares one :class:`Command`;
the registry there names them. The runner (:mod:`constructs_nld.deploy.runner`) opens
each target's session as the command asks (:data:`~constructs_nld.deploy.session.ClusterRead`),
runs it, and reports its :class:`Outcome` the same way for one cluster and for a fleet.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from constructs_nld.deploy.exitcodes import ExitCode
from constructs_nld.deploy.session import ClusterRead, Session
from constructs_nld.deploy.targets import Target

__all__ = ["Command", "Outcome", "Tool", "reads"]

OptionsT = TypeVar("OptionsT")


@dataclass(frozen=True)
class Outcome:
    """What one command did on one cluster."""

    result: str
    """In a few words, for the fleet's summary: ``deployed``, ``12 passed``, ``PASS``."""
    exit_code: ExitCode = ExitCode.OK
    changed: int | None = None
    """Objects created, configured or deleted (None: the command changes none)."""
    pods: str = "-"
    """``ready/desired`` node-cache pods after the command, as a fleet's summary shows them."""
    lines: tuple[str, ...] = ()
    """What to print once it is done (its step lines went out while it ran): check results, a diff, a table."""
    document: Mapping[str, Any] | None = None
    """What ``-o json`` prints for it, built by its :class:`~constructs_nld.deploy.documents.DocumentSchema`.

    None: the command has no document of its own, and ``-o json`` prints the run's summary instead.
    """


@dataclass(frozen=True)
class Command(Generic[OptionsT]):
    """One command: its options' type, what it reads before the app is synthesized, and its function."""

    options: type[OptionsT]
    """The options class it takes (:mod:`constructs_nld.deploy.options`)."""
    run: Callable[[Session, OptionsT], Outcome]
    """The command on one cluster."""
    read: Callable[[OptionsT], ClusterRead]
    """What the session reads of the cluster before the synth, for these options."""
    across_fleet: bool = True
    """Whether it may run on several clusters in one run."""
    refuse: Callable[[Sequence[Target], OptionsT], None] | None = None
    """Refusals that need the targets (a soak's Prometheus per cluster), before any cluster is touched."""


def reads(what: ClusterRead) -> Callable[[object], ClusterRead]:
    """A command's ``read`` that is the same whatever its options."""
    return lambda _: what


@dataclass(frozen=True)
class Tool(Generic[OptionsT]):
    """A command of files alone (``convert``): run once, with neither the app nor a cluster."""

    options: type[OptionsT]
    """The options class it takes (:mod:`constructs_nld.deploy.options`)."""
    run: Callable[[OptionsT, Callable[[str], None], Callable[[str], None]], ExitCode]
    """The command, given its options and where to write standard output's lines and standard error's."""
