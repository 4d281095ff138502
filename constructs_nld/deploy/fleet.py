"""Running one command on a list of clusters: how many at once, in what waves, and the summary.

:func:`run_fleet` runs one task per target, ``parallel`` at a time, and returns a row per
target for :func:`format_summary`. A task's refusal or error ends that cluster's row, not
the run: the others go on. The exit code of the run is the worst row's (:func:`worst`): the
highest code, 0 only if every cluster's is. With ``fail_fast`` no cluster starts after the
first failure; with waves (``1,rest``) a wave starts only once every cluster of the one
before has passed.

One cluster is a fleet of one: the runner (:mod:`constructs_nld.deploy.runner`) schedules
it here too, and only the reporter (:mod:`constructs_nld.deploy.report`) tells them apart.
"""

from __future__ import annotations

import os
import time
import traceback
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Final, Protocol

from kubernetes.client.exceptions import ApiException

from constructs_nld.deploy import stop
from constructs_nld.deploy.command import Outcome
from constructs_nld.deploy.errors import ApiUnreachableError, DeployError, InvalidConfigError, printable
from constructs_nld.deploy.exitcodes import ExitCode
from constructs_nld.deploy.tables import format_table
from constructs_nld.deploy.targets import Target

__all__ = [
    "Reporter",
    "Row",
    "Task",
    "api_error",
    "format_summary",
    "parse_waves",
    "run_fleet",
    "summary_code",
    "unexpected",
    "worst",
]

_REST: Final = "rest"


@dataclass(frozen=True)
class Row:
    """One cluster's line of the summary."""

    target: Target
    outcome: Outcome | None
    """None: never started (``--fail-fast``, or a wave before it failed)."""
    seconds: float = 0.0
    skipped: str = ""
    """Why it did not run."""

    @property
    def exit_code(self) -> int | None:
        """The cluster's exit code, or None when it did not run."""
        return None if self.outcome is None else int(self.outcome.exit_code)


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


Task = Callable[[Target, Callable[[str], None]], Outcome]
"""One cluster's work: its target, and where its lines go."""


class Reporter(Protocol):
    """Where each cluster's lines and errors go (:mod:`constructs_nld.deploy.report`)."""

    def lines_of(self, target: Target) -> Callable[[str], None]:
        """The writer of ``target``'s lines."""

    def error(self, target: Target, message: str) -> None:
        """Report the one line that ended ``target``'s run (``error: …``)."""


def api_error(error: ApiException) -> str:
    """The API server's refusal in one line: its status, reason and message."""
    import json

    try:
        message = json.loads(error.body or "{}").get("message", "")
    except ValueError:
        message = error.body or ""
    return f"the API server answered {error.status} {error.reason}: {message}".rstrip(": ")


def unexpected(error: BaseException) -> str:
    """An error no check foresaw (a malformed answer met deep in a command, or a bug) in one line.

    ``NLD_TRACEBACK=1`` prints its traceback to standard error too, for a bug report.
    """
    if os.environ.get("NLD_TRACEBACK") == "1":
        traceback.print_exception(error)
    where = traceback.extract_tb(error.__traceback__)[-1:] if error.__traceback__ else []
    at = f" at {os.path.basename(where[0].filename)}:{where[0].lineno}" if where else ""
    message = " ".join(str(error).split())[:200]
    return (
        f"unexpected {type(error).__name__}{at}: {printable(message)} (a malformed answer or a bug; "
        "NLD_TRACEBACK=1 shows the traceback)"
    )


def _run_one(task: Task, target: Target, reporter: Reporter) -> Row:
    started = time.monotonic()
    try:
        outcome = task(target, reporter.lines_of(target))
    except DeployError as error:
        reporter.error(target, f"error: {error}")
        kind = "unreachable" if isinstance(error, ApiUnreachableError) else "failed"
        outcome = Outcome(kind, error.exit_code)
    except ApiException as error:
        reporter.error(target, f"error: {api_error(error)}")
        outcome = Outcome("failed", ExitCode.ERROR)
    except Exception as error:  # one cluster's surprise ends its row, not the fleet's run
        reporter.error(target, f"error: {unexpected(error)}")
        outcome = Outcome("failed", ExitCode.ERROR)
    return Row(target, outcome, time.monotonic() - started)


def _failed(row: Row) -> bool:
    return row.exit_code not in (None, 0)


def run_fleet(
    targets: Sequence[Target],
    task: Task,
    reporter: Reporter,
    *,
    parallel: int,
    fail_fast: bool = False,
    waves: Sequence[int] = (),
) -> list[Row]:
    """Run ``task`` on every target, ``parallel`` at once; a row per target, in the targets' order."""
    rows: dict[str, Row] = {}
    groups: list[Sequence[Target]] = []
    start = 0
    for size in waves or (len(targets),):
        groups.append(targets[start : start + size])
        start += size
    stopped = ""
    for number, group in enumerate(groups, 1):
        if stopped:
            rows.update({t.name: Row(t, None, skipped=stopped) for t in group})
            continue
        stopped = _run_group(group, task, reporter, parallel, fail_fast, rows)
        if not stopped and waves and any(_failed(rows[t.name]) for t in group) and number < len(groups):
            stopped = f"wave {number} failed"
    return [rows[t.name] for t in targets]


def _run_group(
    group: Sequence[Target], task: Task, reporter: Reporter, parallel: int, fail_fast: bool, rows: dict[str, Row]
) -> str:
    """Run one group; with ``fail_fast``, start nothing after a failure. Why the rest stopped, or ""."""
    pending = list(group)
    running: dict[Future[Row], Target] = {}
    stopped = ""
    with ThreadPoolExecutor(max_workers=max(1, parallel), initializer=stop.leave_signals_to_main) as pool:
        while pending or running:
            while pending and len(running) < parallel and not stopped:
                target = pending.pop(0)
                running[pool.submit(_run_one, task, target, reporter)] = target
            if not running:
                break
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                target = running.pop(future)
                rows[target.name] = future.result()
                if fail_fast and _failed(rows[target.name]) and not stopped:
                    stopped = f"--fail-fast after {target.name}"
    rows.update({t.name: Row(t, None, skipped=stopped) for t in pending})
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
            body.append((row.target.name, f"skipped ({row.skipped})", "-", "-", "-", "-"))
            continue
        changed = "-" if outcome.changed is None else str(outcome.changed)
        body.append(
            (row.target.name, outcome.result, str(int(outcome.exit_code)), changed, outcome.pods, f"{row.seconds:.1f}s")
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
            f"exit {bad.exit_code}: {bad.target.name} ({bad.outcome.result}); {failed} of {len(rows)} failed{tail}"
        )
    return "\n".join(lines)


def summary_code(rows: Sequence[Row]) -> int:
    """The run's exit code: the worst row's, 0 when none failed."""
    bad = worst(rows)
    return 0 if bad is None else int(bad.exit_code or 0)
