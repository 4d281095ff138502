"""Throttling answered, not fatal: when to retry an API request, how long to wait, and client-side pacing.

A loaded API server tells a client to slow down: API Priority and Fairness answers a client
over its priority level's share with ``429 Too Many Requests`` and ``Retry-After``, and a
server that is starting or overloaded answers ``503``. A restarting one refuses connections
for a few seconds. Each of these is retried here, as client-go's ``rest`` client retries the
first two (``checkWait``: 429 or 5xx with ``Retry-After``), with three differences:

- a ``5xx`` without ``Retry-After`` and a failed connection are retried too, with
  exponential back-off: an API server coming back after a restart refuses connections, then
  answers ``503``, ``429`` while its caches warm, and ``500`` to a Service create until its
  address allocator is loaded ("failed to allocate a serviceIP: range is full"). A request
  that may have been carried out goes again only when that is safe (below);
- every wait gets jitter on top of what the server asked (never less), so that the clients a
  server throttled at once do not all come back in the same instant; the server's
  ``Retry-After`` is capped at :data:`~constructs_nld.defaults.RETRY_AFTER_CAP`, and a wait is
  never shorter than :data:`~constructs_nld.defaults.RETRY_FIRST_DELAY`;
- the retries of one request end on a deadline (``--timeout`` after its first attempt) rather
  than after client-go's ten attempts, so the flag bounds the whole wait.

A request the server may have carried out is resent only when resending it changes nothing
more (reads, server-side apply, deletes, unconditional patches); a write with a precondition
(a ``resourceVersion``, a ``test``) is not resent as it was: its caller re-reads and decides
again (:class:`~constructs_nld.deploy.kube.RereadError`). This module is pure (no I/O, the
clock, sleep and randomness injected), so the back-off is unit tested to the millisecond.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Final

from constructs_nld import defaults

__all__ = [
    "THROTTLED_STATUSES",
    "Attempt",
    "Backoff",
    "Retry",
    "RetryCounts",
    "TokenBucket",
    "describe_request",
    "retry_after_seconds",
]

THROTTLED_STATUSES: Final = frozenset({429, 503})
"""Answers that mean "come back later": retried whether or not they carry ``Retry-After``."""

_UNAVAILABLE_STATUSES: Final = frozenset({500, 502, 504})
"""Server errors retried with back-off: a server starting, or one behind a load balancer that is (client-go
retries them only with ``Retry-After``). A lasting one costs ``--timeout`` before it is reported."""


def retry_after_seconds(headers: Mapping[str, str], now: float) -> float | None:
    """The server's ``Retry-After`` in seconds (a number of seconds or an HTTP date), or None when absent or unreadable.

    ``now`` is the Unix time, for the date form; a date in the past is 0.
    """
    value = next((v for k, v in headers.items() if k.lower() == "retry-after"), None)
    if value is None:
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            seconds = parsedate_to_datetime(text).timestamp() - now
        except (TypeError, ValueError, IndexError):
            return None
    return max(0.0, seconds) if seconds == seconds else None


@dataclass(frozen=True)
class Attempt:
    """How one attempt of a request ended, as far as retrying goes."""

    status: int | None
    """The HTTP status, or None when no answer came (the connection failed)."""

    reason: str
    """The answer in words: ``429 Too Many Requests``, ``connection refused``."""

    retry_after: float | None = None
    """The server's ``Retry-After``, in seconds."""

    transient: bool = False
    """Without an answer: the connection was refused, reset or timed out (not a TLS or name error, which
    a retry would only repeat)."""

    @property
    def throttled(self) -> bool:
        """The server answered "come back later" (429, 503): giving up on it is its own exit code."""
        return self.status in THROTTLED_STATUSES

    @property
    def retryable(self) -> bool:
        """Worth another attempt: throttled, a server error, or a transient failure to connect."""
        if self.status is None:
            return self.transient
        return self.throttled or self.status in _UNAVAILABLE_STATUSES

    def __str__(self) -> str:
        """The answer, with the server's ``Retry-After`` when it gave one."""
        after = f", Retry-After {self.retry_after:g}s" if self.retry_after is not None else ""
        return f"{self.reason}{after}"


@dataclass(frozen=True)
class Backoff:
    """How long to wait before the next attempt: what the server asked, or exponential back-off, plus jitter."""

    first: float = defaults.RETRY_FIRST_DELAY
    """Seconds before the second attempt when the server said nothing (doubling after each); also the
    shortest wait, whatever ``Retry-After`` says (``0`` would have a throttled client hammer its server)."""

    cap: float = defaults.RETRY_MAX_DELAY
    """The longest back-off without ``Retry-After``."""

    retry_after_cap: float = defaults.RETRY_AFTER_CAP
    """The longest wait a server's ``Retry-After`` can ask for."""

    jitter: float = defaults.RETRY_JITTER
    """Each wait is its base times a random factor in ``[1, 1 + jitter)``: never sooner than asked."""

    def base(self, attempt: Attempt, retries: int) -> float:
        """The wait before retry number ``retries + 1``, before jitter."""
        if attempt.retry_after is not None:
            return min(max(attempt.retry_after, self.first), self.retry_after_cap)
        return min(self.first * 2.0**retries, self.cap)

    def delay(self, attempt: Attempt, retries: int, rng: Callable[[], float]) -> float:
        """The wait before retry number ``retries + 1``: :meth:`base` with jitter (``rng`` in ``[0, 1)``)."""
        return self.base(attempt, retries) * (1.0 + self.jitter * rng())


@dataclass
class RetryCounts:
    """The retries one client made, for the command's closing line."""

    throttled: int = 0
    """Retries after a 429 or 503."""

    unavailable: int = 0
    """Retries after a failed connection or a server error."""

    waited: float = 0.0
    """Seconds spent waiting between attempts."""

    @property
    def total(self) -> int:
        """Every retry."""
        return self.throttled + self.unavailable

    def __str__(self) -> str:
        """``3 API request(s) retried (2 throttled, 1 unavailable), 4.2s waited``."""
        parts = [f"{n} {what}" for n, what in ((self.throttled, "throttled"), (self.unavailable, "unavailable")) if n]
        return f"{self.total} API request(s) retried ({', '.join(parts)}), {self.waited:.1f}s waited"


@dataclass
class Retry:
    """The retries of one request: a delay per retryable attempt, until the deadline.

    :meth:`next_delay` gives the wait before the next attempt, or None when the request must
    not be retried (the answer is final, or the wait would end past the deadline).
    """

    deadline: float
    """Monotonic time after which no attempt starts: the first attempt's start plus ``--timeout``."""

    backoff: Backoff = field(default_factory=Backoff)
    rng: Callable[[], float] = random.random
    retries: int = 0
    waited: float = 0.0

    def next_delay(self, attempt: Attempt, now: float) -> float | None:
        """The seconds to wait before the next attempt, or None when the wait would end past the deadline."""
        if not attempt.retryable:
            return None
        delay = self.backoff.delay(attempt, self.retries, self.rng)
        if now + delay > self.deadline:
            return None
        self.retries += 1
        self.waited += delay
        return delay


@dataclass
class TokenBucket:
    """Client-side pacing: at most ``burst`` requests at once, then ``qps`` a second (client-go's token bucket).

    :meth:`take` returns the seconds the caller must wait before its request; the caller
    sleeps. Not shared between threads: each cluster's client has its own.
    """

    qps: float
    burst: int
    clock: Callable[[], float] = time.monotonic
    _tokens: float = field(init=False)
    _last: float = field(init=False)

    def __post_init__(self) -> None:
        """Start full: the first ``burst`` requests go at once."""
        if not self.qps > 0:
            raise ValueError(f"qps: must be a positive number of requests per second, got {self.qps!r}")
        if self.burst < 1:
            raise ValueError(f"burst: must be at least 1, got {self.burst!r}")
        self._tokens = float(self.burst)
        self._last = self.clock()

    def take(self) -> float:
        """Take a token; the seconds to wait until it is there (0 when one was)."""
        now = self.clock()
        self._tokens = min(float(self.burst), self._tokens + (now - self._last) * self.qps)
        self._last = now
        self._tokens -= 1.0
        return 0.0 if self._tokens >= 0 else -self._tokens / self.qps


def describe_request(method: str, path: str) -> str:
    """A request in the step lines' words: ``GET daemonset/kube-system/node-local-dns``, ``LIST pods/kube-system``.

    ``path`` is an API path (``/api/v1/...``, ``/apis/GROUP/VERSION/...``); one that is not
    (``/version``) is kept as it is.
    """
    parts = [p for p in path.split("?")[0].split("/") if p]
    if parts[:1] == ["api"]:
        rest = parts[2:]
    elif parts[:1] == ["apis"]:
        rest = parts[3:]
    else:
        return f"{method} {path}"
    namespace = None
    if len(rest) >= 3 and rest[0] == "namespaces":
        namespace, rest = rest[1], rest[2:]
    if not rest:
        return f"{method} {path}"
    plural, name = rest[0], rest[1] if len(rest) > 1 else None
    where = f"/{namespace}" if namespace else ""
    if name is None:
        verb = "LIST" if method == "GET" else method
        return f"{verb} {plural}{where}"
    kind = plural[:-1] if plural.endswith("s") else plural
    return f"{method} {kind}{where}/{name}"
