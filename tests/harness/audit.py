"""Reading the test kube-apiserver's audit log: what requests really reached it, by whom.

The apiserver writes one JSON event per request (``ResponseComplete``, Metadata level) before
it answers (``--audit-log-mode=blocking``), so a test can count the requests right after
making them. :class:`AuditLog` reads the file incrementally; a mark is a count of events.
"""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final, cast

from tests.harness.credentials import ADMIN_USER

__all__ = ["MUTATING_VERBS", "AuditLog", "is_mutating"]

MUTATING_VERBS: Final = frozenset({"create", "update", "patch", "delete", "deletecollection"})
"""Audit verbs that change stored state (unless the request is a dry run)."""


def is_mutating(event: Mapping[str, Any]) -> bool:
    """Tell whether an audit event records a request that changed stored state.

    Why: a server-side dry run is audited with the same verb as the real request, so the
    verb alone over-counts; the ``dryRun=All`` query parameter tells them apart. A request
    the API server refused (a 409 conflict of a guarded patch, say) changed nothing either,
    and neither did an access review (a ``create`` of the authorization API, which stores
    nothing: the deploy asks them before its first write) or a SelfSubjectReview (the
    authentication API's, asked for the release history's user).

    Args:
        event: One parsed audit event (``audit.k8s.io/v1`` ``Event``).

    Returns:
        True for create/update/patch/delete/deletecollection that is not a dry run and
        was answered with a success status.
    """
    if event.get("verb") not in MUTATING_VERBS:
        return False
    if not 200 <= int(event.get("responseStatus", {}).get("code", 0)) < 300:
        return False
    if (event.get("objectRef") or {}).get("apiGroup") in ("authorization.k8s.io", "authentication.k8s.io"):
        return False
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(str(event.get("requestURI", ""))).query)
    return "All" not in query.get("dryRun", [])


def _of(events: list[dict[str, Any]], user: str | None) -> list[dict[str, Any]]:
    if user is None:
        return list(events)
    return [e for e in events if e.get("user", {}).get("username") == user]


class AuditLog:
    """The JSON-lines audit log at ``path``, parsed as it grows (never rotated: marks are event counts)."""

    def __init__(self, path: Path) -> None:
        """Read ``path``; nothing is read until asked."""
        self.path = path
        self._events: list[dict[str, Any]] = []
        self._offset = 0

    def read(self) -> list[dict[str, Any]]:
        """Every event so far: the complete lines appended since the last read, parsed, after the earlier ones."""
        try:
            with self.path.open("rb") as log:
                log.seek(self._offset)
                data = log.read()
        except FileNotFoundError:
            return self._events
        end = data.rfind(b"\n")  # a line still being written is left for the next read
        if end >= 0:
            self._offset += end + 1
            self._events.extend(
                cast("dict[str, Any]", json.loads(line)) for line in data[: end + 1].splitlines() if line.strip()
            )
        return self._events

    def events(self, user: str | None = None) -> list[dict[str, Any]]:
        """The events written so far, oldest first; only ``user``'s unless None (then indexes match :meth:`mark`)."""
        return _of(self.read(), user)

    def mark(self) -> int:
        """The number of events so far, for :meth:`since`."""
        return len(self.read())

    def since(self, mark: int, user: str | None = ADMIN_USER) -> list[dict[str, Any]]:
        """The events written after ``mark``; only ``user``'s (default :data:`ADMIN_USER`) unless None."""
        return _of(self.read()[mark:], user)

    def mutating_since(self, mark: int, user: str | None = ADMIN_USER) -> list[dict[str, Any]]:
        """:meth:`since` events for which :func:`is_mutating` holds."""
        return [e for e in self.since(mark, user) if is_mutating(e)]
