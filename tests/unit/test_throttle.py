"""The back-off, the deadline, the pacing and the client's retry loop, on a fake clock.

The fake API client here stands in for the transport only, to drive the retry logic through
answers a test chooses (the real API server's 429s are in tests/integration/test_throttling.py).
"""

from __future__ import annotations

import email.utils
import io
import itertools
import ssl
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from urllib3.exceptions import MaxRetryError, NewConnectionError, SSLError

from constructs_nld import defaults
from constructs_nld.deploy.errors import ApiUnreachableError, ThrottledError
from constructs_nld.deploy.exitcodes import ExitCode
from constructs_nld.deploy.kube import KubeClient, ObjectRef, RereadError
from constructs_nld.deploy.throttle import (
    Attempt,
    Backoff,
    Retry,
    TokenBucket,
    describe_request,
    retry_after_seconds,
)
from constructs_nld.deploy.wait import PollBackoff

DS = ObjectRef("apps/v1", "DaemonSet", "kube-system", "node-local-dns")


# --- Retry-After and what is retried ---------------------------------------------------------
@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"Retry-After": "3"}, 3.0),
        ({"retry-after": " 1.5 "}, 1.5),
        ({"Retry-After": email.utils.formatdate(1_000_010, usegmt=True)}, 10.0),
        ({"Retry-After": email.utils.formatdate(999_000, usegmt=True)}, 0.0),
        ({"Retry-After": "-4"}, 0.0),
        ({"Retry-After": "soon"}, None),
        ({"Retry-After": "nan"}, None),
        ({}, None),
    ],
)
def test_retry_after_reads_seconds_and_http_dates(headers: dict[str, str], expected: float | None) -> None:
    assert retry_after_seconds(headers, now=1_000_000) == expected


@pytest.mark.parametrize(
    ("attempt", "retryable"),
    [
        (Attempt(429, "429 Too Many Requests"), True),
        (Attempt(429, "429 Too Many Requests", retry_after=1), True),
        (Attempt(503, "503 Service Unavailable"), True),
        (Attempt(500, "500 Internal Server Error"), True),
        (Attempt(500, "500 Internal Server Error", retry_after=2), True),
        (Attempt(504, "504 Gateway Timeout"), True),
        (Attempt(501, "501 Not Implemented"), False),
        (Attempt(404, "404 Not Found", retry_after=2), False),
        (Attempt(409, "409 Conflict"), False),
        (Attempt(None, "connection refused", transient=True), True),
        (Attempt(None, "TLS error: CERTIFICATE_VERIFY_FAILED"), False),
    ],
)
def test_what_is_retried(attempt: Attempt, retryable: bool) -> None:
    assert attempt.retryable is retryable
    assert attempt.throttled is (attempt.status in (429, 503))


# --- the delays --------------------------------------------------------------------------------
def test_without_retry_after_the_delay_doubles_up_to_its_cap() -> None:
    backoff = Backoff(first=0.25, cap=4.0, jitter=0.0)
    refused = Attempt(None, "connection refused", transient=True)
    assert [backoff.delay(refused, n, lambda: 0.0) for n in range(7)] == [0.25, 0.5, 1.0, 2.0, 4.0, 4.0, 4.0]


def test_retry_after_is_honoured_up_to_its_cap() -> None:
    backoff = Backoff(retry_after_cap=30.0, jitter=0.0)
    assert backoff.delay(Attempt(429, "429", retry_after=1), 5, lambda: 0.0) == 1.0
    assert backoff.delay(Attempt(429, "429", retry_after=120), 0, lambda: 0.0) == 30.0
    assert backoff.delay(Attempt(429, "429", retry_after=0), 0, lambda: 0.0) == defaults.RETRY_FIRST_DELAY


@given(
    retry_after=st.one_of(st.none(), st.floats(0, 100)),
    retries=st.integers(0, 40),
    draw=st.floats(0, 1, exclude_max=True),
)
def test_jitter_never_waits_less_than_asked_nor_more_than_a_quarter_beyond(
    retry_after: float | None, retries: int, draw: float
) -> None:
    backoff = Backoff()
    attempt = Attempt(429, "429 Too Many Requests", retry_after=retry_after)
    base = backoff.base(attempt, retries)
    delay = backoff.delay(attempt, retries, lambda: draw)
    assert base <= delay <= base * (1 + defaults.RETRY_JITTER)
    assert base >= defaults.RETRY_FIRST_DELAY
    assert delay <= max(defaults.RETRY_AFTER_CAP, defaults.RETRY_MAX_DELAY) * (1 + defaults.RETRY_JITTER)
    if retry_after is not None:
        assert base == min(max(retry_after, defaults.RETRY_FIRST_DELAY), defaults.RETRY_AFTER_CAP)


@given(timeout=st.floats(0.1, 120), retry_after=st.one_of(st.none(), st.integers(0, 10)))
def test_the_retries_of_a_request_end_by_its_deadline(timeout: float, retry_after: int | None) -> None:
    retry = Retry(deadline=timeout, rng=itertools.cycle([0.0, 0.5, 0.99]).__next__)
    attempt = Attempt(429, "429 Too Many Requests", retry_after=retry_after)
    now = 0.0
    for _ in range(10_000):
        delay = retry.next_delay(attempt, now)
        if delay is None:
            break
        now += delay
    else:
        raise AssertionError("the retries never ended")
    assert now <= timeout
    assert retry.waited == pytest.approx(now)
    assert retry.next_delay(attempt, timeout) is None


def test_a_final_answer_is_not_retried() -> None:
    retry = Retry(deadline=100.0)
    assert retry.next_delay(Attempt(403, "403 Forbidden"), 0.0) is None
    assert retry.retries == 0


# --- pacing and polling ------------------------------------------------------------------------
@dataclass
class Clock:
    now: float = 0.0
    slept: list[float] = field(default_factory=list)

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def test_the_token_bucket_lets_a_burst_through_then_paces_at_qps() -> None:
    clock = Clock()
    bucket = TokenBucket(qps=5.0, burst=10, clock=clock)
    waits = []
    for _ in range(14):
        wait = bucket.take()
        waits.append(wait)
        clock.sleep(wait)
    assert waits[:10] == [0.0] * 10
    assert waits[10:] == pytest.approx([0.2] * 4)
    clock.now += 60
    assert [bucket.take() for _ in range(10)] == [0.0] * 10  # refilled to the burst, not beyond
    assert bucket.take() == pytest.approx(0.2)


@pytest.mark.parametrize(
    ("qps", "burst", "message"),
    [
        (0.0, 10, "qps: must be a positive number of requests per second, got 0.0"),
        (5.0, 0, "burst: must be at least 1, got 0"),
    ],
)
def test_the_token_bucket_refuses_a_rate_that_would_never_send(qps: float, burst: int, message: str) -> None:
    with pytest.raises(ValueError, match=f"^{message}$"):
        TokenBucket(qps=qps, burst=burst)


def test_a_poll_backs_off_while_nothing_changes_and_resets_on_a_change() -> None:
    poll = PollBackoff(1.0, cap=5.0, factor=1.5)
    still = [poll.next(changed=False, stalls_in=60.0) for _ in range(6)]
    assert still == [1.5, 2.25, 3.375, 5.0, 5.0, 5.0]
    assert poll.next(changed=True, stalls_in=60.0) == 1.0
    assert PollBackoff(10.0, cap=5.0).next(changed=False, stalls_in=60.0) == 10.0


def test_a_poll_never_sleeps_past_the_moment_the_wait_stalls() -> None:
    poll = PollBackoff(1.0, cap=5.0, factor=1.5)
    assert [poll.next(changed=False, stalls_in=60.0) for _ in range(4)] == [1.5, 2.25, 3.375, 5.0]
    assert poll.next(changed=False, stalls_in=2.0) == pytest.approx(2.01)  # just past the stall, not 5 s
    assert poll.next(changed=False, stalls_in=-3.0) == pytest.approx(0.01)  # already stalled: read at once
    assert poll.next(changed=False, stalls_in=60.0) == 5.0  # the grown interval is kept


@pytest.mark.parametrize(
    ("method", "path", "expected"),
    [
        (
            "GET",
            "/apis/apps/v1/namespaces/kube-system/daemonsets/node-local-dns",
            "GET daemonset/kube-system/node-local-dns",
        ),
        ("GET", "/api/v1/namespaces/kube-system/pods", "LIST pods/kube-system"),
        (
            "PATCH",
            "/api/v1/namespaces/kube-system/configmaps/node-local-dns",
            "PATCH configmap/kube-system/node-local-dns",
        ),
        ("GET", "/api/v1/nodes", "LIST nodes"),
        ("GET", "/api/v1/namespaces/kube-system", "GET namespace/kube-system"),
        ("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", "POST selfsubjectaccessreviews"),
        ("GET", "/version", "GET /version"),
        ("GET", "/apis/apps/v1", "GET /apis/apps/v1"),
    ],
)
def test_a_request_is_named_by_its_object(method: str, path: str, expected: str) -> None:
    assert describe_request(method, path) == expected


# --- the client's retry loop -------------------------------------------------------------------
@dataclass
class Answer:
    """One HTTP answer of the fake transport."""

    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b"{}"

    @property
    def reason(self) -> str:
        return {200: "OK", 404: "Not Found", 429: "Too Many Requests", 503: "Service Unavailable"}[self.status]

    @property
    def data(self) -> bytes:
        return self.body

    def read(self) -> bytes:
        return self.body

    @property
    def response(self) -> Body:
        """The body as urllib3's response gives it: read in chunks."""
        return Body(self.body)


class Body(io.BytesIO):
    """A body read in chunks, its connection released after."""

    def release_conn(self) -> None:
        pass


class FakeApi:
    """The two ApiClient methods KubeClient calls, answering from a script (an exception is raised)."""

    def __init__(self, script: Iterator[Answer | Exception]) -> None:
        self.script = script
        self.calls: list[tuple[str, str]] = []
        self.configuration = type("Configuration", (), {"host": "https://127.0.0.1:6443"})()

    def param_serialize(
        self, *, method: str, resource_path: str, **_: Any
    ) -> tuple[str, str, dict[str, str], Any, None]:
        return method, resource_path, {}, None, None

    def call_api(self, method: str, url: str, **_: Any) -> Answer:
        self.calls.append((method, url))
        answer = next(self.script)
        if isinstance(answer, Exception):
            raise answer
        return answer


def client_of(*script: Answer | Exception, timeout: float = 30.0) -> tuple[KubeClient, FakeApi, Clock, list[str]]:
    fake, clock, lines = FakeApi(iter(script)), Clock(), list[str]()
    client = KubeClient(fake, timeout=timeout, clock=clock, sleep=clock.sleep, rng=lambda: 0.0)  # type: ignore[arg-type]
    client.on_retry = lines.append
    return client, fake, clock, lines


def refused() -> Exception:
    cause = NewConnectionError(None, "Failed to establish a new connection: [Errno 111] Connection refused")  # type: ignore[arg-type]
    cause.__cause__ = ConnectionRefusedError(111, "Connection refused")
    return MaxRetryError(None, "/", cause)  # type: ignore[arg-type]


def test_a_throttled_read_is_retried_as_the_server_asks() -> None:
    client, fake, clock, lines = client_of(
        Answer(429, {"Retry-After": "1"}), Answer(429, {"Retry-After": "2"}), Answer(200, body=b'{"kind": "x"}')
    )
    assert client.get(DS) == {"kind": "x"}
    assert len(fake.calls) == 3
    assert clock.slept == [1.0, 2.0]
    assert lines == [
        "[retry] GET daemonset/kube-system/node-local-dns: 429 Too Many Requests, Retry-After 1s; retry 1 in 1.0s",
        "[retry] GET daemonset/kube-system/node-local-dns: 429 Too Many Requests, Retry-After 2s; retry 2 in 2.0s",
    ]
    assert str(client.retries) == "2 API request(s) retried (2 throttled), 3.0s waited"


def test_throttling_beyond_the_timeout_gives_up_with_its_own_exit_code() -> None:
    client, fake, clock, _ = client_of(*[Answer(429, {"Retry-After": "4"})] * 10, timeout=10.0)
    with pytest.raises(ThrottledError) as raised:
        client.apply({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "n", "namespace": "k"}})
    assert raised.value.exit_code == ExitCode.THROTTLED and int(ExitCode.THROTTLED) == 13
    assert str(raised.value) == (
        "throttled: the API server answered PATCH daemonset/k/n with 429 Too Many Requests, Retry-After 4s, and "
        "2 retries within --timeout 10s did not get it through: rerun when the load drops (a rerun continues where "
        "this one stopped), or raise --timeout"
    )
    assert len(fake.calls) == 3 and clock.now == 8.0


def test_a_refused_connection_is_retried_with_back_off_then_reported_unreachable() -> None:
    client, fake, clock, lines = client_of(refused(), refused(), Answer(200))
    assert client.get(DS) == {}
    assert clock.slept == [0.25, 0.5]
    assert lines[0].endswith(": connection refused; retry 1 in 0.2s")
    assert client.retries.unavailable == 2

    client, fake, clock, _ = client_of(*[refused()] * 20, timeout=3.0)
    with pytest.raises(ApiUnreachableError, match=r"^cannot reach the API server at https://127.0.0.1:6443: "
                       r"connection refused \(3 retries within --timeout 3s\)$"):  # fmt: skip
        client.get(DS)


def test_a_tls_error_or_a_final_answer_is_not_retried() -> None:
    tls = SSLError("certificate verify failed")
    tls.__cause__ = ssl.SSLCertVerificationError(1, "CERTIFICATE_VERIFY_FAILED")
    client, fake, _, lines = client_of(MaxRetryError(None, "/", tls))  # type: ignore[arg-type]
    with pytest.raises(ApiUnreachableError, match="TLS error"):
        client.get(DS)
    client2, fake2, _, lines2 = client_of(Answer(404))
    assert client2.get(DS) is None
    assert len(fake.calls) == len(fake2.calls) == 1 and lines == lines2 == []


def test_a_503_while_the_server_starts_is_retried_without_retry_after() -> None:
    client, fake, clock, _ = client_of(Answer(503), Answer(200))
    assert client.version() == ""
    assert clock.slept == [0.25] and client.retries.throttled == 1


def test_a_conditional_write_is_not_resent_but_read_again() -> None:
    client, fake, clock, lines = client_of(Answer(429, {"Retry-After": "1"}))
    patch = {"metadata": {"resourceVersion": "7", "annotations": {"a": "b"}}}
    with pytest.raises(RereadError) as raised:
        client.merge_patch(DS, patch, field_manager="m")
    assert raised.value.exit_code == ExitCode.THROTTLED
    assert len(fake.calls) == 1 and clock.slept == [1.0] and len(lines) == 1

    client, fake, _, _ = client_of(refused())
    with pytest.raises(RereadError) as lost:
        client.json_patch(DS, [{"op": "test", "path": "/metadata/resourceVersion", "value": "7"}], field_manager="m")
    assert lost.value.exit_code == ExitCode.ERROR and len(fake.calls) == 1

    client, fake, _, _ = client_of(Answer(429, {"Retry-After": "1"}), Answer(200))
    client.merge_patch(DS, {"metadata": {"annotations": {"a": "b"}}}, field_manager="m")
    assert len(fake.calls) == 2  # unconditional: the same patch again


def test_an_apply_conditional_on_a_resource_version_sends_it_and_is_not_resent() -> None:
    manifest = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "n", "namespace": "k"}}
    client, fake, _, _ = client_of(Answer(429, {"Retry-After": "1"}))
    with pytest.raises(RereadError):
        client.apply(manifest, resource_version="7")
    assert len(fake.calls) == 1
    assert manifest["metadata"] == {"name": "n", "namespace": "k"}  # the caller's manifest is left as it was


def test_the_api_servers_clock_is_its_last_date_plus_the_time_since() -> None:
    client, _, clock, _ = client_of(
        Answer(200, {"Date": "Wed, 02 Dec 2026 03:00:00 GMT"}), Answer(200, {"Date": "not a date"})
    )
    client.get(DS)
    clock.sleep(5.0)
    assert client.server_time() == datetime(2026, 12, 2, 3, 0, 5, tzinfo=UTC).timestamp()
    client.get(DS)  # a Date that is no date changes nothing
    assert client.server_time() == datetime(2026, 12, 2, 3, 0, 5, tzinfo=UTC).timestamp()


def test_a_preflight_read_does_not_wait() -> None:
    client, fake, clock, _ = client_of(refused())
    with pytest.raises(ApiUnreachableError):
        client.version(retry=False)
    assert clock.slept == [] and len(fake.calls) == 1


def test_requests_are_paced_by_qps_and_burst() -> None:
    fake, clock = FakeApi(iter([Answer(200)] * 8)), Clock()
    client = KubeClient(fake, qps=2.0, burst=5, clock=clock, sleep=clock.sleep)  # type: ignore[arg-type]
    for _ in range(8):
        client.get(DS)
    assert clock.slept == pytest.approx([0.5, 0.5, 0.5])
    assert client.retries.total == 0
