"""A fleet of clusters in one run: which clusters, in what order, how many at once, and the summary.

``deploy.py`` takes several ``--context``, ``--all-contexts`` or ``--contexts-from FILE``.
The file is either a YAML list of context names, or a ``clusters.yaml``::

    clusters:
      - context: ci-east           # the kubeconfig context (required)
        name: east                 # how the output calls it (default: the context)
        prometheus: http://prometheus.east:9090   # soak only (default: --prometheus, {cluster} filled in)
      - context: ci-west

The order is the file's (the kubeconfig's with ``--all-contexts``): waves take the clusters
in it. Every cluster is checked before any is written to (:func:`preflight`): an unknown
context, one whose credentials the API server refuses, or a context named twice is refused
on one line naming it. A cluster that cannot be reached is not refused there: its row
fails, and the others go on.

Then :func:`run_fleet` runs one task per cluster, ``parallel`` at a time, each cluster's
lines prefixed by its name, and returns a row per cluster for :func:`format_summary`. The
exit code of the run is the worst row's (:func:`worst`): the highest code, 0 only if every
cluster's is. With ``fail_fast`` no cluster starts after the first failure; with waves
(``1,rest``) a wave starts only once every cluster of the one before has passed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import yaml
from kubernetes.client.exceptions import ApiException

from constructs_nld import defaults
from constructs_nld.deploy.errors import ApiUnreachableError, DeployError, InvalidConfigError, KubeconfigError
from constructs_nld.deploy.exitcodes import ExitCode
from constructs_nld.deploy.kube import KubeClient, kubeconfig_contexts, load_client
from constructs_nld.deploy.tables import format_table

__all__ = [
    "ClusterOutcome",
    "Member",
    "Row",
    "Task",
    "format_summary",
    "members_from_file",
    "parse_waves",
    "preflight",
    "run_fleet",
    "select",
    "summary_code",
    "worst",
]

_REST: Final = "rest"


@dataclass(frozen=True)
class Member:
    """One cluster of the fleet."""

    name: str
    """How the output calls it: the context, or the file's ``name``."""
    context: str
    """Its kubeconfig context."""
    prometheus: str | None = None
    """Its Prometheus (``soak``), from the file."""


@dataclass(frozen=True)
class ClusterOutcome:
    """What one cluster's task reports for its row."""

    result: str
    """``deployed``, ``unchanged``, ``passed``, ``3 failed``, …"""
    exit_code: ExitCode = ExitCode.OK
    changed: int | None = None
    """Objects created, configured or deleted (None: the command changes none)."""
    pods: str = "-"
    """``ready/desired`` node-cache pods after the task, or ``-``."""


@dataclass(frozen=True)
class Row:
    """One cluster's line of the summary."""

    member: Member
    outcome: ClusterOutcome | None
    """None: never started (``--fail-fast``, or a wave before it failed)."""
    seconds: float = 0.0
    skipped: str = ""
    """Why it did not run."""

    @property
    def exit_code(self) -> int | None:
        """The cluster's exit code, or None when it did not run."""
        return None if self.outcome is None else int(self.outcome.exit_code)


def _duplicates(names: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    twice: list[str] = []
    for name in names:
        if name in seen and name not in twice:
            twice.append(name)
        seen.add(name)
    return twice


def members_from_file(path: str) -> tuple[Member, ...]:
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
    members: list[Member] = []
    for index, entry in enumerate(entries, 1):
        if isinstance(entry, str) and entry.strip():
            members.append(Member(entry, entry))
        elif isinstance(entry, dict) and isinstance(entry.get("context"), str) and entry["context"].strip():
            unknown = sorted(set(entry) - {"context", "name", "prometheus"})
            if unknown:
                raise InvalidConfigError(f"{where}: entry {index}: unknown key(s) {', '.join(unknown)}")
            name = entry.get("name") or entry["context"]
            members.append(Member(str(name), entry["context"], entry.get("prometheus")))
        else:
            raise InvalidConfigError(f"{where}: entry {index} is neither a context name nor a mapping with 'context:'")
    return _checked(members, where)


def _checked(members: Sequence[Member], where: str) -> tuple[Member, ...]:
    twice = _duplicates(m.context for m in members) or _duplicates(m.name for m in members)
    if twice:
        raise InvalidConfigError(f"{where}: context {twice[0]!r} is named twice: each cluster once")
    return tuple(members)


def select(
    kubeconfig: str | None, contexts: Sequence[str], *, all_contexts: bool, from_file: str | None
) -> tuple[Member, ...] | None:
    """The fleet the flags name, or None for one cluster (no flag, or a single ``--context``)."""
    chosen = sum((bool(contexts), all_contexts, from_file is not None))
    if chosen > 1:
        raise InvalidConfigError("--context, --all-contexts and --contexts-from: give one of them")
    if from_file is not None:
        return members_from_file(from_file)
    if all_contexts:
        return tuple(Member(name, name) for name in kubeconfig_contexts(kubeconfig))
    if len(contexts) > 1:
        return _checked([Member(name, name) for name in contexts], "--context")
    return None


def parse_waves(text: str, count: int) -> tuple[int, ...]:
    """``1,rest`` (or ``2,3,rest``, ``1,2``): the size of each wave, for ``count`` clusters; the last takes the rest."""
    parts = [part.strip() for part in text.split(",")]
    sizes: list[int] = []
    for index, part in enumerate(parts):
        if part == _REST and index == len(parts) - 1:
            break
        if not part.isdigit() or int(part) < 1:
            raise InvalidConfigError(f"--waves: {part!r} is not a number of clusters (e.g. --waves 1,rest)")
        sizes.append(int(part))
    if sum(sizes) > count:
        raise InvalidConfigError(f"--waves {text}: {sum(sizes)} clusters in the waves, but the fleet has {count}")
    rest = count - sum(sizes)
    return (*sizes, rest) if rest else tuple(sizes)


def preflight(
    kubeconfig: str | None,
    members: Sequence[Member],
    *,
    timeout: float,
    qps: float = defaults.API_QPS,
    burst: int = defaults.API_BURST,
) -> dict[str, KubeClient]:
    """A client per cluster, its credentials tried: every refusal before any write, one line naming the context.

    An unreachable API server is not refused, nor waited for: that cluster's row will fail (after its
    own retries), not the fleet.
    """
    clients: dict[str, KubeClient] = {}
    for member in members:
        try:
            client = load_client(kubeconfig, member.context, timeout=timeout, qps=qps, burst=burst)
        except KubeconfigError as error:
            named = repr(member.context) in str(error)
            raise KubeconfigError(str(error) if named else f"context {member.context!r}: {error}") from None
        try:
            client.version(retry=False)
        except ApiException as error:
            if error.status in (401, 403):
                why = f"{error.status} {error.reason}"
                raise KubeconfigError(
                    f"context {member.context!r}: the API server refused its credentials ({why})"
                ) from None
            raise
        except ApiUnreachableError:
            pass
        clients[member.name] = client
    return clients


Task = Callable[[Member, Callable[[str], None]], ClusterOutcome]
"""One cluster's work: its member, and where its lines go (already prefixed with its name)."""


@dataclass
class _Printer:
    """Lines of every cluster, each whole and prefixed, in the order they come."""

    write: Callable[[str], None]
    lock: threading.Lock = field(default_factory=threading.Lock)

    def for_member(self, member: Member) -> Callable[[str], None]:
        def out(text: str) -> None:
            with self.lock:
                for line in str(text).splitlines() or [""]:
                    self.write(f"[{member.name}] {line}")

        return out


def _run_one(task: Task, member: Member, out: Callable[[str], None]) -> Row:
    started = time.monotonic()
    try:
        outcome = task(member, out)
    except DeployError as error:
        out(f"error: {error}")
        kind = "unreachable" if isinstance(error, ApiUnreachableError) else "failed"
        outcome = ClusterOutcome(kind, error.exit_code)
    except ApiException as error:
        out(f"error: the API server answered {error.status} {error.reason}")
        outcome = ClusterOutcome("failed", ExitCode.ERROR)
    return Row(member, outcome, time.monotonic() - started)


def _failed(row: Row) -> bool:
    return row.exit_code not in (None, 0)


def run_fleet(
    members: Sequence[Member],
    task: Task,
    *,
    parallel: int,
    fail_fast: bool = False,
    waves: Sequence[int] = (),
    write: Callable[[str], None] = print,
) -> list[Row]:
    """Run ``task`` on every member, ``parallel`` at once; a row per member, in the members' order."""
    printer = _Printer(write)
    rows: dict[str, Row] = {}
    groups: list[Sequence[Member]] = []
    start = 0
    for size in waves or (len(members),):
        groups.append(members[start : start + size])
        start += size
    stopped = ""
    for number, group in enumerate(groups, 1):
        if stopped:
            rows.update({m.name: Row(m, None, skipped=stopped) for m in group})
            continue
        stopped = _run_group(group, task, printer, parallel, fail_fast, rows)
        if not stopped and waves and any(_failed(rows[m.name]) for m in group) and number < len(groups):
            stopped = f"wave {number} failed"
    return [rows[m.name] for m in members]


def _run_group(
    group: Sequence[Member], task: Task, printer: _Printer, parallel: int, fail_fast: bool, rows: dict[str, Row]
) -> str:
    """Run one group; with ``fail_fast``, start nothing after a failure. Why the rest stopped, or ""."""
    pending = list(group)
    running: dict[Future[Row], Member] = {}
    stopped = ""
    with ThreadPoolExecutor(max_workers=max(1, parallel)) as pool:
        while pending or running:
            while pending and len(running) < parallel and not stopped:
                member = pending.pop(0)
                running[pool.submit(_run_one, task, member, printer.for_member(member))] = member
            if not running:
                break
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                member = running.pop(future)
                rows[member.name] = future.result()
                if fail_fast and _failed(rows[member.name]) and not stopped:
                    stopped = f"--fail-fast after {member.name}"
    rows.update({m.name: Row(m, None, skipped=stopped) for m in pending})
    return stopped


def worst(rows: Sequence[Row]) -> Row | None:
    """The row whose exit code is the run's: the highest; None when every cluster that ran exited 0."""
    failing = [row for row in rows if _failed(row)]
    return max(failing, key=lambda row: row.exit_code or 0) if failing else None


def format_summary(rows: Sequence[Row]) -> str:
    """The table: cluster, result, exit code, objects changed, pods ready/desired, duration; then the worst."""
    header = ("cluster", "result", "exit code", "objects changed", "pods ready/desired", "duration")
    body: list[tuple[str, ...]] = []
    for row in rows:
        outcome = row.outcome
        if outcome is None:
            body.append((row.member.name, f"skipped ({row.skipped})", "-", "-", "-", "-"))
            continue
        changed = "-" if outcome.changed is None else str(outcome.changed)
        body.append(
            (row.member.name, outcome.result, str(int(outcome.exit_code)), changed, outcome.pods, f"{row.seconds:.1f}s")
        )
    lines = format_table(header, body)
    bad = worst(rows)
    skipped = sum(1 for row in rows if row.outcome is None)
    tail = f"; {skipped} skipped" if skipped else ""
    if bad is None:
        lines.append(f"every cluster exited 0 ({len(rows) - skipped} of {len(rows)} ran{tail})")
    else:
        assert bad.outcome is not None
        failed = sum(1 for row in rows if _failed(row))
        lines.append(
            f"exit {bad.exit_code}: {bad.member.name} ({bad.outcome.result}); {failed} of {len(rows)} failed{tail}"
        )
    return "\n".join(lines)


def summary_code(rows: Sequence[Row]) -> int:
    """The run's exit code: the worst row's, 0 when none failed."""
    bad = worst(rows)
    return 0 if bad is None else int(bad.exit_code or 0)
