"""Secrets kept out of every line the tool writes: URL userinfo, authorization headers, known credentials.

A command's lines end up in CI logs that many people read. The credentials the tool holds
(a kubeconfig's token, an exec plugin's, Prometheus's bearer token and password) are
registered with :func:`keep_secret` as they are read, and :func:`redact` replaces them,
with any ``user:password@`` of a URL and the value of an ``Authorization``-style header,
by ``***``. The runner passes every line through it (:func:`redacting`).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Final

__all__ = ["keep_secret", "redact", "redacting"]

_MASK: Final = "***"
_MIN_SECRET: Final = 4
"""Shorter values are not registered: masking every ``ab`` of a line would hide more than a secret."""

_USERINFO: Final = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/@\s?#]*@")
_SCHEMES: Final = re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]+")

_secrets: set[str] = set()
_lock: Final = threading.Lock()


def keep_secret(value: str) -> None:
    """Never print ``value`` (a token, a password): every later :func:`redact` masks it."""
    if len(value) >= _MIN_SECRET:
        with _lock:
            _secrets.add(value)


def redact(text: str) -> str:
    """``text`` with URL userinfo, ``Bearer``/``Basic`` credentials and every registered secret masked."""
    text = _USERINFO.sub(lambda m: f"{m.group(1)}{_MASK}@", text)
    text = _SCHEMES.sub(lambda m: f"{m.group(1)} {_MASK}", text)
    with _lock:
        known = sorted(_secrets, key=len, reverse=True)
    for secret in known:
        text = text.replace(secret, _MASK)
    return text


def redacting(write: Callable[[str], None]) -> Callable[[str], None]:
    """``write``, each line redacted first."""

    def out(line: str) -> None:
        write(redact(str(line)))

    return out
