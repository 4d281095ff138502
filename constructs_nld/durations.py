"""Durations as the two readers of this project's text read them: Prometheus, and CoreDNS (Go).

Prometheus (alerts, scrape intervals, the soak's ``--window``) reads ``[0-9]+`` followed by
a unit, from years down to milliseconds, each unit at most once and in that order, and
refuses a duration beyond an int64 of nanoseconds (292 years). CoreDNS's plugins (the
Corefile's ``serve_stale``, ``prefetch``, ``expire``, ``health_check``) read Go's
``time.ParseDuration``: hours, minutes, seconds, milliseconds, no days. Pure code: the deploy
CLI parses ``--window`` with it without starting jsii.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["check_duration", "check_go_duration", "duration_seconds", "format_duration"]

_DURATION: Final = re.compile(r"(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?")
_UNIT_MILLISECONDS: Final = (365 * 86_400_000, 7 * 86_400_000, 86_400_000, 3_600_000, 60_000, 1000, 1)
_MAX_MILLISECONDS: Final = (2**63 - 1) // 1_000_000


def duration_seconds(prop: str, text: str, *, allow_zero: bool = False) -> float:
    """``text`` in seconds; ``ValueError`` naming ``prop`` unless it is a Prometheus duration (above zero).

    ``allow_zero`` accepts ``0s`` (an alert's ``for`` may be zero); every other use needs a
    length.
    """
    match = _DURATION.fullmatch(text) if isinstance(text, str) and text else None
    milliseconds = (
        sum(int(match.group(2 * i + 2) or 0) * unit for i, unit in enumerate(_UNIT_MILLISECONDS)) if match else 0
    )
    if match is None or milliseconds > _MAX_MILLISECONDS:
        raise ValueError(f"{prop}: must be a Prometheus duration such as '5m', got {text!r}")
    if milliseconds == 0 and not allow_zero:
        raise ValueError(f"{prop}: must be longer than zero, got {text!r}")
    return milliseconds / 1000


_GO_DURATION: Final = re.compile(r"(?:[0-9]+(?:h|m|s|ms))+")
_GO_UNITS: Final = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}


def check_go_duration(prop: str, value: str, *, positive: bool = False) -> float:
    """``value`` in seconds, when it is a duration CoreDNS reads (Go's ``1h``, ``90s``, ``1m30s``, ``500ms``).

    A subset of Go's syntax: whole numbers of hours, minutes, seconds or milliseconds, which
    CoreDNS reads as written. A sign is refused: the plugins refuse negative durations at
    start-up (node-cache would crashloop).
    """
    if isinstance(value, str) and value.startswith("-") and _GO_DURATION.fullmatch(value[1:]):
        raise ValueError(f"{prop}: must not be negative, got {value!r} (CoreDNS refuses it, and node-cache would exit)")
    if not isinstance(value, str) or not _GO_DURATION.fullmatch(value):
        raise ValueError(
            f"{prop}: must be a duration such as '1h', '90s' or '1m30s' (Go's, as CoreDNS reads it), got {value!r}"
        )
    seconds = sum(int(number) * _GO_UNITS[unit] for number, unit in re.findall(r"([0-9]+)(ms|h|m|s)", value))
    if positive and seconds <= 0:
        raise ValueError(f"{prop}: must be longer than zero, got {value!r}")
    return seconds


def check_duration(prop: str, value: str, *, positive: bool = False) -> None:
    """Raise unless ``value`` is a Prometheus duration (above zero if ``positive``), as the props validate it."""
    duration_seconds(prop, value, allow_zero=not positive)


def format_duration(seconds: float) -> str:
    """``3d``, ``2h5m``, ``45s``: the largest two units."""
    whole = round(seconds)
    parts = []
    for unit, name in ((86400, "d"), (3600, "h"), (60, "m"), (1, "s")):
        if whole >= unit:
            parts.append(f"{whole // unit}{name}")
            whole %= unit
    return "".join(parts[:2]) or "0s"
