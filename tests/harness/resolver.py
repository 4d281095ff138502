"""Resolver-style DNS load: one lookup per fresh UDP socket, at a fixed rate, as glibc's resolver sends them.

glibc opens a new socket, so a new source port, for every lookup; each one is a new flow for
conntrack, which is why a node's conntrack table fills with DNS entries without NodeLocal
DNS. dnsperf keeps a few sockets open and cannot show that. This load does.

:class:`ResolverLoad` runs this module as a program inside a namespace (``python -m
tests.harness.resolver``); the program sends ``rate`` lookups per second for ``count`` lookups,
waits ``timeout`` seconds at most for each answer (one attempt, no retry), says on its
output each time another :data:`PROGRESS` lookups have been answered (``answered 100``), so
that a test waits for the load to be flowing rather than for time to pass
(:meth:`ResolverLoad.wait_answered`), and at the end writes one JSON document to
``--output``: per lookup its send time (``time.monotonic()``, shared by every process of the
machine), its latency and its outcome. A lookup succeeds when the answer is NOERROR
with at least one record; ``refused`` is an ICMP port unreachable (nothing listens where
the query was delivered), ``timeout`` is no answer in time.
"""

from __future__ import annotations

import argparse
import errno
import json
import random
import re
import resource
import selectors
import shutil
import signal
import socket
import struct
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

from tests.harness.process import Process, wait_until

if TYPE_CHECKING:
    from tests.e2e.netns import Namespace

__all__ = ["Lookup", "LoadResult", "ResolverLoad"]

REPO_ROOT = Path(__file__).resolve().parents[2]
_RCODES = {0: "NOERROR", 1: "FORMERR", 2: "SERVFAIL", 3: "NXDOMAIN", 4: "NOTIMP", 5: "REFUSED"}
_QTYPES: Final = {"A": 1, "AAAA": 28}
PROGRESS = 50
"""Answered lookups between two ``answered N`` lines of the program."""
_ANSWERED = re.compile(r"^answered (\d+)$", re.M)


@dataclass(frozen=True)
class Lookup:
    """One lookup: when it was sent, how long the answer took, and what came back."""

    sent: float
    """``time.monotonic()`` when the query left."""

    latency: float | None
    """Seconds until the answer or the error; ``None`` on timeout."""

    outcome: str
    """``ok``, an RCODE name (or ``NOERROR-empty``), ``refused``, ``timeout`` or another socket error."""

    @property
    def ok(self) -> bool:
        """True when the lookup got an answer with records."""
        return self.outcome == "ok"


@dataclass(frozen=True)
class LoadResult:
    """Every lookup of a run, in send order."""

    lookups: tuple[Lookup, ...]

    @property
    def failed(self) -> tuple[Lookup, ...]:
        """Lookups without an answer."""
        return tuple(lookup for lookup in self.lookups if not lookup.ok)

    def between(self, start: float, end: float) -> tuple[Lookup, ...]:
        """Lookups sent in ``[start, end)`` (``time.monotonic()`` values)."""
        return tuple(lookup for lookup in self.lookups if start <= lookup.sent < end)

    def outages(self) -> tuple[tuple[float, float], ...]:
        """Each run of consecutive failed lookups as ``(first failed sent, next successful sent)``.

        A run still failing at the end closes at the last lookup's send time.
        """
        spans = []
        begin: float | None = None
        for lookup in self.lookups:
            if not lookup.ok and begin is None:
                begin = lookup.sent
            elif lookup.ok and begin is not None:
                spans.append((begin, lookup.sent))
                begin = None
        if begin is not None:
            spans.append((begin, self.lookups[-1].sent))
        return tuple(spans)

    def longest_outage(self) -> float:
        """Seconds of the longest :meth:`outages` span; 0 when every lookup succeeded."""
        return max((end - begin for begin, end in self.outages()), default=0.0)


class ResolverLoad(Process):
    """Resolver-style lookups from ``namespace`` to ``server``, running in the background.

    The program writes its JSON to a file beside its log, in a directory of its own that
    :meth:`result` and :meth:`stop` remove.
    """

    cwd = REPO_ROOT

    def __init__(
        self,
        namespace: Namespace,
        server: str,
        names: Sequence[str],
        *,
        rate: float,
        count: int,
        timeout: float = 2.0,
        qtypes: Sequence[str] = ("AAAA",),
    ) -> None:
        """Start sending ``count`` lookups of ``names`` (in turn) at ``rate`` per second.

        Each name is asked once per type of ``qtypes``, in that order (``("A", "AAAA")``: as
        glibc asks for both families), before the next name.
        """
        self.directory = Path(tempfile.mkdtemp(prefix="nld-resolver-"))
        super().__init__("resolver load", self.directory / "resolver.log", grace_period=0)
        self.output = self.directory / "lookups.json"
        self.namespace = namespace
        self.command = [
            sys.executable, "-m", "tests.harness.resolver", "--server", server, "--rate", str(rate),
            "--count", str(count), "--timeout", str(timeout), "--output", str(self.output),
            "--types", ",".join(qtypes), *names,
        ]  # fmt: skip
        self.duration = count / rate
        self.timeout = timeout
        self.start(wait=False)

    def argv(self) -> list[str]:
        """The program, inside the namespace."""
        return self.namespace.argv(*self.command)

    def answered(self) -> int:
        """How many lookups have been answered so far, as the program last said (to :data:`PROGRESS`)."""
        counts = _ANSWERED.findall(self.log)
        return int(counts[-1]) if counts else 0

    def wait_answered(self, count: int) -> None:
        """Wait until ``count`` lookups (rounded up to :data:`PROGRESS`) were answered: the load is flowing."""
        wanted = -(-count // PROGRESS) * PROGRESS
        wait_until(
            f"{wanted} lookups of the resolver load to be answered",
            lambda: self.answered() >= wanted,
            self.duration + self.timeout + 60,
            watch=(self,),
            detail=lambda: f"{self.answered()} answered",
        )

    def result(self) -> LoadResult:
        """Wait for the last lookup to be answered or time out; return every lookup."""
        try:
            code = self.wait_exit(self.duration + self.timeout + 60)
            if code != 0:
                raise RuntimeError(f"resolver load exited {code}: {self.log.strip()}")
            lookups = json.loads(self.output.read_text())
        finally:
            shutil.rmtree(self.directory, ignore_errors=True)
        return LoadResult(tuple(Lookup(sent, latency, outcome) for sent, latency, outcome in lookups))

    def finish(self) -> LoadResult:
        """Send no more lookups, then :meth:`result`: a load as long as the test's steps, however long they take.

        Call it once the load flows (:meth:`wait_answered`): the program then handles the signal.
        """
        assert self.process is not None
        self.process.send_signal(_FINISH)
        return self.result()

    def stop(self) -> int | None:
        """Kill the load if it still runs (teardown): a load has nothing to finish."""
        if self.alive():
            self.kill()
        shutil.rmtree(self.directory, ignore_errors=True)
        return None if self.process is None else self.process.returncode


# ------------------------------------------------------- the program, in the namespace ---
def _query(qid: int, name: str, qtype: str) -> bytes:
    labels = b"".join(bytes([len(label)]) + label.encode() for label in name.rstrip(".").split("."))
    return struct.pack("!HHHHHH", qid, 0x0100, 1, 0, 0, 0) + labels + b"\0" + struct.pack("!HH", _QTYPES[qtype], 1)


def _outcome(qid: int, reply: bytes) -> str:
    if len(reply) < 12:
        return "short"
    rid, flags, _, ancount = struct.unpack("!HHHH", reply[:8])
    if rid != qid:
        return "mismatched-id"
    rcode = _RCODES.get(flags & 0xF, f"RCODE{flags & 0xF}")
    if rcode == "NOERROR":
        return "ok" if ancount > 0 else "NOERROR-empty"
    return rcode


_FINISH: Final = signal.SIGUSR1
"""Sent to the program: send no more lookups, wait for those in flight, write what was sent (``finish``)."""
_finishing: list[bool] = []


def _run(
    server: str, names: Sequence[str], qtypes: Sequence[str], rate: float, count: int, timeout: float
) -> list[list[object]]:
    # One socket per lookup in flight: a timeout of seconds at hundreds per second needs more than 1024.
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    selector = selectors.DefaultSelector()
    results: list[list[object]] = [[0.0, None, "timeout"] for _ in range(count)]
    pending: dict[socket.socket, tuple[int, int, float]] = {}
    interval = 1 / rate
    start = time.monotonic()
    sent = answered = 0
    while sent < count or pending:
        if _finishing and sent < count:
            count = sent
            del results[sent:]
        now = time.monotonic()
        while sent < count and now >= start + sent * interval:
            sock = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
            sock.setblocking(False)
            qid = random.getrandbits(16)
            try:
                # connect() picks a fresh ephemeral port, and makes ICMP errors visible to recv().
                sock.connect((server, 53))
                turn, qtype = divmod(sent, len(qtypes))
                sock.send(_query(qid, names[turn % len(names)], qtypes[qtype]))
            except OSError as error:
                results[sent] = [now, 0.0, errno.errorcode.get(error.errno or 0, "oserror")]
                sock.close()
            else:
                results[sent][0] = now
                pending[sock] = (sent, qid, now)
                selector.register(sock, selectors.EVENT_READ)
            sent += 1
        next_send = start + sent * interval if sent < count else now + 0.05
        for key, _ in selector.select(max(0.0, min(next_send - time.monotonic(), 0.05))):
            ready = key.fileobj
            assert isinstance(ready, socket.socket)
            index, qid, sent_at = pending.pop(ready)
            try:
                outcome = _outcome(qid, ready.recv(4096))
            except ConnectionRefusedError:
                outcome = "refused"
            except OSError as error:
                outcome = errno.errorcode.get(error.errno or 0, "oserror")
            results[index] = [sent_at, time.monotonic() - sent_at, outcome]
            selector.unregister(ready)
            ready.close()
            answered += 1
            if answered % PROGRESS == 0:
                print(f"answered {answered}", flush=True)
        now = time.monotonic()
        for sock, (index, _, sent_at) in list(pending.items()):
            if now - sent_at >= timeout:
                del pending[sock]
                results[index] = [sent_at, None, "timeout"]
                selector.unregister(sock)
                sock.close()
    return results


def main(argv: Sequence[str] | None = None) -> int:
    """Send the lookups; write the JSON list of ``[sent, latency, outcome]`` to ``--output``."""
    cli = argparse.ArgumentParser(description="resolver-style DNS load: a fresh UDP socket per lookup")
    cli.add_argument("--server", required=True)
    cli.add_argument("--rate", type=float, required=True, help="lookups per second")
    cli.add_argument("--count", type=int, required=True, help="lookups in all")
    cli.add_argument("--timeout", type=float, default=2.0, help="seconds to wait for each answer")
    cli.add_argument("--output", type=Path, required=True, help="where the JSON goes")
    cli.add_argument("--types", default="AAAA", help="the types asked of each name, in order (A, AAAA)")
    cli.add_argument("names", nargs="+", help="names looked up, in turn")
    args = cli.parse_args(argv)
    qtypes = args.types.split(",")
    unknown = sorted(set(qtypes) - set(_QTYPES))
    if unknown:
        cli.error(f"--types: takes A and AAAA, got {','.join(unknown)}")
    signal.signal(_FINISH, lambda *_: _finishing.append(True))
    results = _run(args.server, args.names, qtypes, args.rate, args.count, args.timeout)
    args.output.write_text(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
