"""Deciding whether an apply would change anything, and showing what it would change.

A no-op redeploy must write nothing. Reading each object is cheap; so a deploy reads
first and applies only when the desired fields differ from the live ones. Because live
objects carry defaults and other managers' fields, "same" means: every field we set has
our value (:func:`is_subset`), confirmed by a server-side dry run that would also show a
field we stopped setting (:func:`same_object`).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

import yaml

__all__ = ["is_subset", "render_diff", "same_object", "without_volatile"]

_VOLATILE_METADATA = ("managedFields", "resourceVersion", "generation", "uid", "creationTimestamp")


def is_subset(desired: Any, live: Any) -> bool:
    """True when every field of ``desired`` is in ``live`` with the same value.

    Maps may hold extra keys in ``live`` (defaults, other managers); a key missing
    from ``live`` matches a zero value (``false``, ``0``, ``""``, empty), which the API
    server omits when it stores an object. Lists must have the same length, compared
    item by item, since our lists (ports, tolerations, args) are ordered and wholly ours.
    """
    if isinstance(desired, Mapping):
        return isinstance(live, Mapping) and all(
            is_subset(value, live[key]) if key in live else _is_zero(value) for key, value in desired.items()
        )
    if isinstance(desired, list):
        return (
            isinstance(live, list)
            and len(desired) == len(live)
            and all(is_subset(d, v) for d, v in zip(desired, live, strict=True))
        )
    return bool(desired == live)


def _is_zero(value: Any) -> bool:
    return value is False or value is None or (not isinstance(value, bool) and value in (0, "", [], {}))


def without_volatile(obj: Mapping[str, Any]) -> dict[str, Any]:
    """A copy without the fields every write changes (resourceVersion, managedFields, …) and without status."""
    copy = {key: value for key, value in obj.items() if key != "status"}
    metadata = {k: v for k, v in (obj.get("metadata") or {}).items() if k not in _VOLATILE_METADATA}
    copy["metadata"] = metadata
    return copy


def same_object(before: Mapping[str, Any], after: Mapping[str, Any]) -> bool:
    """True when ``after`` (e.g. a dry-run result) differs from ``before`` only in volatile fields."""
    return without_volatile(before) == without_volatile(after)


def render_diff(label: str, before: Mapping[str, Any] | None, after: Mapping[str, Any]) -> str:
    """A unified diff of two objects as YAML, volatile fields left out; empty when they are the same."""
    old = yaml.safe_dump(without_volatile(before), sort_keys=True).splitlines() if before is not None else []
    new = yaml.safe_dump(without_volatile(after), sort_keys=True).splitlines()
    lines = difflib.unified_diff(
        old, new, fromfile=f"live/{label}" if before is not None else "/dev/null", tofile=f"new/{label}", lineterm=""
    )
    return "\n".join(lines)
