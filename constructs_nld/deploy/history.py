"""The release history: a revision per ``deploy``, ``cutover promote``, ``uninstall`` and ``rollback``, in the cluster.

A revision says what was applied (the charts, as the deploy applied them, so that
``rollback`` can apply them again), from which app (a digest of its synthesized charts, its
command, the git commit of its project directory, its inputs:
:func:`~constructs_nld.deploy.source.app_inputs`), by which tool version, by whom (the user
as the API server authenticated it: a SelfSubjectReview), when (the API server's clock) and
how it ended (``succeeded``, or ``failed`` with the error's one line).

All revisions live in one ConfigMap, :data:`~constructs_nld.defaults.HISTORY_NAME`, in the
component's namespace: one ``binaryData`` key per revision (``v7``), a gzip'd JSON record
(:func:`encode`). One object with a fixed name lets every right of the deployer name it (a
server-side apply's create is authorized with the object's name, as for every other object
of ours), where one object per revision would need ``create`` and ``delete`` on every
ConfigMap of ``kube-system``: RBAC cannot name objects whose names are not known in
advance. docs/design.md weighs it against Helm's Secret per revision.

The history is bounded: after a record, only the newest ``history_max`` revisions are kept
(:data:`~constructs_nld.defaults.HISTORY_MAX`), and older ones are dropped until the
compressed records fit :data:`~constructs_nld.defaults.HISTORY_BYTES` (an object is capped at
1 MiB). A revision too large alone is kept without its charts: it is listed, and ``rollback``
refuses it. Each write is conditional on the version read; another run's write in between
makes it read again.

A record read back is input from the cluster: :func:`decode` checks every field and refuses
a malformed one on one line (:class:`HistoryError`), naming the key. Nothing secret is
recorded: the charts are the app's own manifests; the command and the error line are
redacted as every printed line is (:mod:`constructs_nld.deploy.redact`); of the user, only
the name.
"""

from __future__ import annotations

import base64
import contextlib
import gzip
import hashlib
import json
import re
import subprocess
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Literal

from kubernetes.client.exceptions import ApiException

from constructs_nld import defaults
from constructs_nld.deploy.errors import (
    DeployError,
    ForbiddenError,
    InvalidConfigError,
    PreconditionError,
    StoppedError,
)
from constructs_nld.deploy.fleet import api_error
from constructs_nld.deploy.kube import FIELD_MANAGER, REREADS, KubeClient, Manifest, ObjectRef, RereadError
from constructs_nld.deploy.redact import redact
from constructs_nld.deploy.session import Session
from constructs_nld.deploy.source import AppChart, AppCommand, AppSource, app_inputs
from constructs_nld.release import version

__all__ = [
    "FORMAT",
    "AppIdentity",
    "History",
    "HistoryError",
    "Recorder",
    "Revision",
    "RevisionOutcome",
    "decode",
    "digest",
    "encode",
    "error_line",
    "git_commit",
    "identity",
    "read_history",
]

FORMAT: Final = 1
"""The record's format; a record of another format was written by another version of the tool, and is refused."""

RevisionOutcome = Literal["succeeded", "failed"]

_KEY: Final = re.compile(r"^v([1-9][0-9]{0,8})$")
_UNPACKED_LIMIT: Final = 64 << 20
"""The most a record may unpack to: a gzip bomb written into the ConfigMap is refused, not unpacked."""
_FIELDS: Final = frozenset(
    {"format", "revision", "command", "time", "outcome", "error", "user", "app", "tool", "restored", "charts"}
)
_APP_FIELDS: Final = frozenset({"digest", "command", "commit", "inputs"})
_GIT_TIMEOUT: Final = 10.0
_LABELS: Final = {"app.kubernetes.io/managed-by": FIELD_MANAGER}


class HistoryError(PreconditionError):
    """A record of the history that cannot be read (exit 3): nothing is written over it."""


@dataclass(frozen=True)
class AppIdentity:
    """Which app a revision applied: what ``verify`` compares with the app, and ``history`` lists."""

    digest: str
    """``sha256:`` of the synthesized charts (:func:`digest`): one app synthesized for one cluster, one digest."""
    command: str
    """The app's command (``python main.py``); ``(in-process)`` for a program's props source."""
    commit: str | None = None
    """The git commit of the project directory (``-dirty`` when files it tracks were changed), None outside git."""
    inputs: Mapping[str, Any] = field(default_factory=dict)
    """What the app was given besides its code (:func:`~constructs_nld.deploy.source.app_inputs`)."""


@dataclass(frozen=True)
class Revision:
    """One revision of the history."""

    number: int
    command: str
    """``deploy``, ``cutover promote``, ``uninstall`` or ``rollback``."""
    time: str
    """When it ended, by the API server's clock (RFC 3339, UTC)."""
    outcome: RevisionOutcome
    user: str
    """The user as the API server authenticated it (its SelfSubjectReview)."""
    app: AppIdentity
    tool: str
    """The version of constructs-nld that recorded it."""
    error: str = ""
    """A failure's one line."""
    restored: int | None = None
    """``rollback``: the revision whose charts it applied again."""
    charts: tuple[AppChart, ...] | None = ()
    """What it applied, in order; empty for an uninstall; None when too large to keep (no rollback to it)."""

    @property
    def restorable(self) -> bool:
        """Whether ``rollback`` can apply it again: it succeeded and kept charts."""
        return self.outcome == "succeeded" and bool(self.charts)


def digest(charts: Sequence[AppChart]) -> str:
    """``sha256:`` of the charts' names and objects, in order, as canonical JSON."""
    text = json.dumps([[chart.name, list(chart.objects)] for chart in charts], sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def git_commit(directory: Path) -> str | None:
    """The commit checked out in ``directory`` (``-dirty`` when a tracked file differs), or None outside git."""

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(
                ["git", "-C", str(directory), *args], capture_output=True, text=True, timeout=_GIT_TIMEOUT, check=False
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    commit = git("rev-parse", "--verify", "HEAD")
    if not commit:
        return None
    changed = git("status", "--porcelain", "--untracked-files=no")
    return commit + ("-dirty" if changed else "")


def identity(source: AppSource | None, charts: Sequence[AppChart]) -> AppIdentity:
    """The identity of the app ``source`` synthesized into ``charts``."""
    if isinstance(source, AppCommand):
        inputs = {key: redact(str(value)) for key, value in app_inputs(source).items()}
        return AppIdentity(digest(charts), redact(source.command), git_commit(source.directory), inputs)
    return AppIdentity(digest(charts), "(in-process)")


def error_line(error: BaseException) -> str:
    """A failure in one line, as the record keeps it (redacted)."""
    if isinstance(error, ApiException):
        text = api_error(error)
    elif isinstance(error, DeployError):
        text = str(error)
    else:
        text = f"{type(error).__name__}: {error}"
    return redact(" ".join(text.split()))


# --- the record: encoded, and read back with every field checked -----------------------------
def encode(revision: Revision) -> bytes:
    """The revision as gzip'd JSON (the same bytes for the same revision)."""
    charts = None
    if revision.charts is not None:
        charts = [{"name": chart.name, "objects": list(chart.objects)} for chart in revision.charts]
    record = {
        "format": FORMAT,
        "revision": revision.number,
        "command": revision.command,
        "time": revision.time,
        "outcome": revision.outcome,
        "error": revision.error,
        "user": revision.user,
        "app": {
            "digest": revision.app.digest,
            "command": revision.app.command,
            "commit": revision.app.commit,
            "inputs": dict(revision.app.inputs),
        },
        "tool": revision.tool,
        "restored": revision.restored,
        "charts": charts,
    }
    text = json.dumps(record, sort_keys=True, separators=(",", ":"))
    return gzip.compress(text.encode(), mtime=0)


class _MalformedError(ValueError):
    """Why a record cannot be read."""


def _field(record: Mapping[str, Any], key: str, kind: type | tuple[type, ...], *, optional: bool = False) -> Any:
    value = record.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, kind) or isinstance(value, bool) != (kind is bool):
        raise _MalformedError(f"{key!r} is {type(value).__name__}, expected {getattr(kind, '__name__', kind)}")
    return value


def _unpack(data: bytes) -> Any:
    unpacker = zlib.decompressobj(wbits=31)  # gzip
    try:
        text = unpacker.decompress(data, _UNPACKED_LIMIT)
    except zlib.error as error:
        raise _MalformedError(f"not gzip ({error})") from None
    if unpacker.unconsumed_tail:
        raise _MalformedError(f"unpacks to more than {_UNPACKED_LIMIT >> 20} MiB")
    if not unpacker.eof:
        raise _MalformedError("truncated gzip")
    try:
        return json.loads(text)
    except (ValueError, UnicodeDecodeError) as error:
        raise _MalformedError(f"not JSON ({error})") from None


def _charts(value: Any) -> tuple[AppChart, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise _MalformedError(f"'charts' is {type(value).__name__}, expected a list")
    charts = []
    for index, chart in enumerate(value):
        if not isinstance(chart, dict) or not isinstance(chart.get("name"), str):
            raise _MalformedError(f"charts[{index}] has no name")
        objects = chart.get("objects")
        if not isinstance(objects, list):
            raise _MalformedError(f"charts[{index}] has no list of objects")
        for number, obj in enumerate(objects):
            if not (
                isinstance(obj, dict)
                and isinstance(obj.get("apiVersion"), str)
                and isinstance(obj.get("kind"), str)
                and isinstance(obj.get("metadata"), dict)
                and isinstance(obj["metadata"].get("name"), str)
            ):
                raise _MalformedError(f"charts[{index}].objects[{number}] is not a manifest")
        charts.append(AppChart(chart["name"], tuple(objects)))
    return tuple(charts)


def decode(number: int, data: bytes) -> Revision:
    """Revision ``number`` from its stored bytes; ``ValueError`` saying why when any field is not as written."""
    record = _unpack(data)
    if not isinstance(record, dict):
        raise _MalformedError(f"holds {type(record).__name__}, expected an object")
    if record.get("format") != FORMAT:
        raise _MalformedError(f"format {record.get('format')!r}, this version of the tool reads format {FORMAT}")
    unknown = sorted(set(record) - _FIELDS)
    if unknown:
        raise _MalformedError(f"unknown field(s) {', '.join(unknown)}")
    if _field(record, "revision", int) != number:
        raise _MalformedError(f"says revision {record['revision']}, stored as v{number}")
    outcome = _field(record, "outcome", str)
    if outcome not in ("succeeded", "failed"):
        raise _MalformedError(f"'outcome' is {outcome!r}, expected 'succeeded' or 'failed'")
    app = _field(record, "app", dict)
    if set(app) != _APP_FIELDS:
        raise _MalformedError(f"'app' has fields {', '.join(sorted(app))}, expected {', '.join(sorted(_APP_FIELDS))}")
    time = _field(record, "time", str)
    try:
        datetime.fromisoformat(time)
    except ValueError:
        raise _MalformedError(f"'time' is {time!r}, not an RFC 3339 time") from None
    restored = _field(record, "restored", int, optional=True)
    return Revision(
        number=number,
        command=_field(record, "command", str),
        time=time,
        outcome=outcome,
        user=_field(record, "user", str),
        app=AppIdentity(
            _field(app, "digest", str),
            _field(app, "command", str),
            _field(app, "commit", str, optional=True),
            _field(app, "inputs", dict),
        ),
        tool=_field(record, "tool", str),
        error=_field(record, "error", str),
        restored=restored,
        charts=_charts(record.get("charts")),
    )


# --- the ConfigMap -----------------------------------------------------------------------------
@dataclass(frozen=True)
class History:
    """The revisions of one cluster, oldest first, and the ConfigMap they were read from (None: none yet)."""

    ref: ObjectRef
    revisions: tuple[Revision, ...] = ()
    live: Manifest | None = None
    sizes: Mapping[int, int] = field(default_factory=dict)
    """Each revision's stored size, compressed (bytes)."""

    @property
    def latest(self) -> Revision | None:
        """The newest revision, if any."""
        return self.revisions[-1] if self.revisions else None

    def restorable(self, number: int | None) -> Revision:
        """The revision ``rollback`` applies: ``number``, or (None) the newest successful one before the latest.

        Refused on one line (exit 2) when it is not in the history, failed, or kept no charts.
        """
        if number is None:
            earlier = [r for r in self.revisions[:-1] if r.restorable]
            if not earlier:
                kept = ", ".join(str(r.number) for r in self.revisions) or "none"
                raise InvalidConfigError(
                    f"rollback: no successful revision before the latest to roll back to (revisions kept: {kept})"
                )
            return earlier[-1]
        found = next((r for r in self.revisions if r.number == number), None)
        if found is None:
            kept = ", ".join(str(r.number) for r in self.revisions) or "none"
            raise InvalidConfigError(f"rollback: revision {number} is not in the history (revisions kept: {kept})")
        if found.outcome != "succeeded":
            raise InvalidConfigError(f"rollback: revision {number} failed ({found.error}): only a success is restored")
        if found.charts is None:
            raise InvalidConfigError(
                f"rollback: revision {number} was too large to keep its objects "
                f"(over {defaults.HISTORY_BYTES} bytes compressed): nothing to apply again"
            )
        if not found.charts:
            raise InvalidConfigError(
                f"rollback: revision {number} is an {found.command}: it applied nothing to restore"
            )
        return found


def _ref(namespace: str) -> ObjectRef:
    return ObjectRef("v1", "ConfigMap", namespace, defaults.HISTORY_NAME)


def read_history(client: KubeClient, namespace: str) -> History:
    """The history of the cluster behind ``client``; :class:`HistoryError` on one line for a malformed record.

    A read the user may not make is refused on one line naming it (exit 11).
    """
    ref = _ref(namespace)
    try:
        live = client.get(ref)
    except ApiException as error:
        if error.status != 403:
            raise
        raise ForbiddenError(
            f"the kubeconfig's user may not get configmaps/{ref.name} in namespace {namespace}, the release history "
            "(DeployerRBAC grants it to every command)"
        ) from None
    if live is None:
        return History(ref)
    fix = f"delete that key (kubectl edit configmap -n {namespace} {defaults.HISTORY_NAME}) to go on without it"
    stored = live.get("binaryData") or {}
    if not isinstance(stored, dict):
        raise HistoryError(f"history: {ref}: binaryData is not a mapping; {fix}")
    revisions: list[Revision] = []
    sizes: dict[int, int] = {}
    for key, text in stored.items():
        match = _KEY.match(str(key))
        try:
            if match is None:
                raise _MalformedError("not a revision's key (v1, v2, ...)")
            if not isinstance(text, str):
                raise _MalformedError("not base64")
            try:
                data = base64.b64decode(text, validate=True)
            except ValueError:
                raise _MalformedError("not base64") from None
            revision = decode(int(match.group(1)), data)
        except _MalformedError as why:
            raise HistoryError(f"history: {ref} key {key!r}: malformed record, {why}; {fix}") from None
        revisions.append(revision)
        sizes[revision.number] = len(data)
    return History(ref, tuple(sorted(revisions, key=lambda r: r.number)), live, sizes)


def _config_map(ref: ObjectRef, records: Mapping[int, bytes]) -> Manifest:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": ref.name, "namespace": ref.namespace, "labels": dict(_LABELS)},
        "binaryData": {f"v{number}": base64.b64encode(data).decode() for number, data in sorted(records.items())},
    }


def _bounded(history: History, new: Revision, history_max: int) -> tuple[dict[int, bytes], Revision, list[int]]:
    """The records to keep with ``new``: the newest ``history_max`` that fit the size cap; what was dropped."""
    packed = encode(new)
    if len(packed) > defaults.HISTORY_BYTES:
        new = replace(new, charts=None)
        packed = encode(new)
    keep: dict[int, bytes] = {new.number: packed}
    total = len(packed)
    dropped: list[int] = []
    stored = (history.live or {}).get("binaryData") or {}
    for revision in reversed(history.revisions):
        data = base64.b64decode(stored[f"v{revision.number}"])
        if len(keep) >= history_max or total + len(data) > defaults.HISTORY_BYTES:
            dropped.append(revision.number)
            continue
        keep[revision.number] = data
        total += len(data)
    return keep, new, sorted(dropped)


@dataclass
class Recorder:
    """Records the revision of one command run: what it applied, from which app, with what outcome."""

    client: KubeClient
    namespace: str
    command: str
    app: AppIdentity
    charts: tuple[AppChart, ...]
    """What the run applies (empty for an uninstall)."""
    history_max: int = defaults.HISTORY_MAX
    out: Callable[[str], None] = print
    restored: int | None = None
    history: History | None = None
    """The history as read before the run's first write."""

    def read(self) -> History:
        """Read the history before the run writes anything: a malformed one refuses the run, nothing applied."""
        self.history = read_history(self.client, self.namespace)
        return self.history

    @classmethod
    def of(
        cls,
        session: Session,
        command: str,
        history_max: int,
        *,
        restored: Revision | None = None,
        charts: tuple[AppChart, ...] | None = None,
    ) -> Recorder:
        """The recorder of ``command`` on ``session``: its app, or (``restored``) the app of the revision restored."""
        app = restored.app if restored is not None else identity(session.source, session.charts)
        return cls(
            session.kube,
            session.component.namespace,
            command,
            app,
            session.charts if charts is None else charts,
            history_max,
            session.out,
            None if restored is None else restored.number,
        )

    @contextlib.contextmanager
    def recording(self, wrote: Callable[[], bool]) -> Iterator[None]:
        """Run the block, then record its revision once ``wrote`` says it wrote: a success, or a failure.

        The block reads the history (:meth:`read`) before its first write. A run that wrote
        nothing records nothing: the cluster is as the latest revision left it, and a rerun
        stays a run of reads only. A run stopped by a signal sends nothing more, its record
        neither. When a failure's record cannot be written, it says so and the failure stands.
        """
        try:
            yield
        except StoppedError:
            raise
        except Exception as error:
            if wrote():
                try:
                    self.record("failed", error_line(error))
                except Exception as lost:  # the run's own failure is the one to report
                    self.out(f"[history] the failure could not be recorded: {error_line(lost)}")
            raise
        if wrote():
            self.record("succeeded")

    def _user(self) -> str:
        try:
            return self.client.username() or "(unnamed)"
        except ApiException as error:  # an API server before authentication.k8s.io/v1 (1.28)
            return f"(unknown: {error.status} {error.reason})"

    def record(self, outcome: RevisionOutcome, error: str = "") -> Revision:
        """Write the revision ``outcome``, the history bounded after it; the revision written."""
        user = self._user()
        history = self.history or read_history(self.client, self.namespace)
        attempt = 0
        while True:
            latest = history.latest
            when = datetime.fromtimestamp(self.client.server_time(), UTC).replace(microsecond=0)
            revision = Revision(
                number=(latest.number if latest else 0) + 1,
                command=self.command,
                time=when.isoformat().replace("+00:00", "Z"),
                outcome=outcome,
                user=user,
                app=self.app,
                tool=version(),
                error=error,
                restored=self.restored,
                charts=self.charts,
            )
            records, revision, dropped = _bounded(history, revision, self.history_max)
            desired = _config_map(history.ref, records)
            resource_version = (history.live or {}).get("metadata", {}).get("resourceVersion", "")
            try:
                self.client.apply(desired, resource_version=resource_version)
            except (ApiException, RereadError) as failure:
                attempt += 1
                if (isinstance(failure, ApiException) and failure.status != 409) or attempt > REREADS:
                    raise
                history = read_history(self.client, self.namespace)  # another run recorded meanwhile
                continue
            pruned = f"; dropped revision(s) {', '.join(map(str, dropped))}" if dropped else ""
            unkept = "; too large to keep its objects (no rollback to it)" if revision.charts is None else ""
            self.out(f"[history] recorded revision {revision.number} ({self.command}, {outcome}){unkept}{pruned}")
            self.history = None
            return revision
