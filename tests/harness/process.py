"""One process of the test bed: start, health wait, log, stop as kubelet stops a container, teardown.

Every real component the tests run — etcd, kube-apiserver, the controllers, the scheduler,
kwok, Prometheus, prometheus-operator, CoreDNS, node-cache and the keeper, the socat bridges,
the kube-state-metrics exporter, the resolver load — is a :class:`Process`. A subclass says
what to run (:meth:`Process.argv`, :meth:`Process.environment`) and when it is up
(:meth:`Process.healthy`); the base starts it with its output in its log file, waits for it
with :func:`wait_until` (failing with the end of the log as soon as the process exits),
and stops it as kubelet stops a container: SIGTERM, then SIGKILL once the grace period is over.

Each process gets its own session (a Ctrl-C aimed at pytest reaches the tests, whose teardown
stops the processes in order) and, on Linux, ``PR_SET_PDEATHSIG``: if the test process dies
abruptly, the kernel kills what it started.
"""

from __future__ import annotations

import ctypes
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any, ClassVar, Self

__all__ = [
    "LOG_TAIL_LINES",
    "REAP_SECONDS",
    "MissingBinaryError",
    "Process",
    "ProcessExitedError",
    "free_port",
    "kill_and_reap",
    "log_tail",
    "require_binary",
    "stop_process",
    "wait_until",
]

LOG_TAIL_LINES = 40
"""How many lines of a log an error message quotes."""

REAP_SECONDS = 5.0
"""How long a SIGKILLed process may take to be reaped."""

PORT_CLASH = "address already in use"
"""What a process logs when the port :func:`free_port` gave was taken again before it bound it."""


class ProcessExitedError(RuntimeError):
    """A process of the test bed ended while it was expected to run."""


class MissingBinaryError(FileNotFoundError, RuntimeError):
    """A binary the test bed runs is not there; the message names how to get it."""


def require_binary(path: Path, how: str, *, name: str | None = None) -> Path:
    """``path`` if it is an executable file, else fail naming ``how`` to get it."""
    if not (path.is_file() and os.access(path, os.X_OK)):
        raise MissingBinaryError(f"{name or path.name} binary not found (or not executable) at {path}; {how}")
    return path


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def log_tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    """The last ``lines`` lines of the log at ``path``, under a line naming it (``(empty)`` if there is none)."""
    try:
        text = path.read_text(errors="replace")
    except FileNotFoundError:
        text = ""
    tail = "\n".join(text.splitlines()[-lines:])
    return f"last {lines} lines of {path}:\n{tail or '(empty)'}"


def stop_process(process: subprocess.Popen[Any], grace_period: float) -> int:
    """SIGTERM, SIGKILL after ``grace_period`` seconds; the exit code. Idempotent."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(grace_period)
        except subprocess.TimeoutExpired:
            kill_and_reap(process)
    return process.returncode


def kill_and_reap(process: subprocess.Popen[Any]) -> None:
    """SIGKILL ``process`` and wait for it to end."""
    process.kill()
    process.wait(REAP_SECONDS)


def wait_until(
    what: str,
    check: Callable[[], bool],
    timeout: float = 60.0,
    interval: float = 0.05,
    *,
    watch: Iterable[Process] = (),
    since: float | None = None,
    detail: Callable[[], str] | None = None,
) -> float:
    """Poll ``check`` until it is true; return the seconds it took.

    Each round first makes sure every process of ``watch`` still runs, so that a crash fails
    at once (:class:`ProcessExitedError`, with the end of its log) instead of after the timeout.

    Args:
        what: What is awaited, for the error message (``"etcd to be ready"``).
        check: True once the condition holds.
        timeout: Seconds until :class:`TimeoutError`.
        interval: Seconds between two checks.
        watch: Processes that must keep running meanwhile; the message of a timeout ends
            with the tail of their logs.
        since: ``time.monotonic()`` the timeout and the returned seconds count from
            (a process's start, say); default: now.
        detail: Called on a timeout; what it returns is added to the message (the state
            that was last seen).

    Raises:
        TimeoutError: ``check`` stayed false for ``timeout`` seconds.
        ProcessExitedError: A process of ``watch`` ended first.
    """
    began = time.monotonic() if since is None else since
    watched = tuple(watch)
    while True:
        for process in watched:
            process.check_alive()
        if check():
            return time.monotonic() - began
        if time.monotonic() - began >= timeout:
            message = f"timed out after {timeout:g}s waiting for {what}"
            if detail is not None:
                message += f": {detail()}"
            for process in watched:
                message += f"\n{process.name}: {process.log_tail()}"
            raise TimeoutError(message)
        time.sleep(interval)


def _die_with_parent() -> None:
    """Child-side hook: get SIGKILL when the parent dies, so a crash leaks nothing."""
    if sys.platform == "linux":
        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)


class Process:
    """One process of the test bed, with its log file; a context manager.

    Subclasses give the command line (:meth:`argv`) and, when it is not inherited, the
    environment (:meth:`environment`) and directory (:attr:`cwd`); :meth:`healthy` says when
    the process serves; :meth:`prepare` picks ports or writes config files before each
    attempt. :meth:`start` runs it and waits for :meth:`healthy`; :meth:`stop` is kubelet's stop.

    Parameters:
        name: How messages name the process (``"etcd"``, ``"node-cache"``).
        log_path: stdout and stderr; the first start truncates it, later starts append, each
            after a line naming the time and the command.
        grace_period: Seconds between SIGTERM and SIGKILL (a pod's
            ``terminationGracePeriodSeconds``). Default: 15.
        startup_timeout: Seconds :meth:`start` waits for :meth:`healthy`. Default: 60.
    """

    health_interval: ClassVar[float] = 0.05
    """Seconds between two :meth:`healthy` checks."""

    start_attempts: ClassVar[int] = 1
    """Starts tried when a failed one logged :data:`PORT_CLASH` (its port was taken meanwhile)."""

    exited_error: ClassVar[type[ProcessExitedError]] = ProcessExitedError
    """What :meth:`check_alive` raises."""

    cwd: Path | None = None
    """Working directory of the process; None: the test's."""

    def __init__(self, name: str, log_path: Path, *, grace_period: float = 15.0, startup_timeout: float = 60.0) -> None:
        """Plan the process; nothing runs until :meth:`start`."""
        self.name = name
        self.log_path = log_path
        self.grace_period = grace_period
        self.startup_timeout = startup_timeout
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0
        """How many times the process was launched."""
        self.started_at = 0.0
        """``time.monotonic()`` of the last launch."""

    def __repr__(self) -> str:
        """``Name(name, pid or state)``."""
        state = "not started" if self.process is None else f"pid {self.process.pid}, exit {self.process.returncode}"
        return f"{type(self).__name__}({self.name!r}, {state})"

    def __enter__(self) -> Self:
        """Start and return it."""
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        """Tear down."""
        self.close()

    # ------------------------------------------------------------ what subclasses say ---
    def argv(self) -> list[str]:
        """The command line, program first."""
        raise NotImplementedError

    def environment(self) -> Mapping[str, str] | None:
        """The whole environment of the process; None inherits the test's."""
        return None

    def prepare(self, attempt: int) -> None:
        """Before attempt ``attempt`` (from 0) of :meth:`start`: pick ports, write config files."""

    def healthy(self) -> bool:
        """True once the process serves what the test bed needs from it; default: once it runs."""
        return True

    # ------------------------------------------------------------------------ state ---
    def alive(self) -> bool:
        """True while the process runs."""
        return self.process is not None and self.process.poll() is None

    @property
    def running(self) -> bool:
        """:meth:`alive`, as a property."""
        return self.alive()

    @property
    def log(self) -> str:
        """Everything in the log so far."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def log_tail(self, lines: int = LOG_TAIL_LINES) -> str:
        """The end of the log, for messages."""
        return log_tail(self.log_path, lines)

    def _started(self) -> subprocess.Popen[bytes]:
        if self.process is None:
            raise RuntimeError(f"{self.name} was never started")
        return self.process

    def check_alive(self) -> None:
        """Raise :attr:`exited_error`, with the end of the log, unless the process runs."""
        process = self._started()
        if process.poll() is not None:
            raise self.exited_error(f"{self.name} exited with code {process.returncode}; {self.log_tail()}")

    # -------------------------------------------------------------------- lifecycle ---
    def launch(self, argv: list[str], *, env: Mapping[str, str] | None = None, cwd: Path | None = None) -> None:
        """Run ``argv`` with its output in the log; do not wait for anything."""
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("ab" if self.starts else "wb") as log:
            log.write(f"=== {time.strftime('%H:%M:%S')} {' '.join(argv)}\n".encode())
            log.flush()
            self.started_at = time.monotonic()
            self.process = subprocess.Popen(
                argv,
                env=None if env is None else dict(env),
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                # preexec_fn is unsafe only while other threads fork; none do here.
                preexec_fn=_die_with_parent,  # noqa: PLW1509
            )
        self.starts += 1

    def start(self, *, wait: bool = True, attempts: int | None = None) -> Self:
        """Launch the process and, unless told not to, wait until :meth:`healthy`; no-op while it runs.

        A start that fails stops the process and raises with the end of its log; one whose
        log shows :data:`PORT_CLASH` is tried again, up to ``attempts`` times (default:
        :attr:`start_attempts`).
        """
        if self.alive():
            return self
        attempts = self.start_attempts if attempts is None else attempts
        for attempt in range(attempts):
            self.prepare(attempt)
            self.launch(self.argv(), env=self.environment(), cwd=self.cwd)
            if not wait:
                return self
            try:
                self.wait_healthy()
            except (ProcessExitedError, TimeoutError):
                self.stop()
                if attempt + 1 < attempts and PORT_CLASH in self.log_tail():
                    continue
                raise
            return self
        raise AssertionError("unreachable: the last attempt returns or raises")

    def wait_healthy(self, timeout: float | None = None) -> float:
        """Wait until :meth:`healthy` while the process runs; return the seconds since it was launched."""
        return wait_until(
            f"{self.name} to be ready",
            self.healthy,
            self.startup_timeout if timeout is None else timeout,
            self.health_interval,
            watch=(self,),
            since=self.started_at,
        )

    def wait_exit(self, timeout: float = 20) -> int:
        """Wait for the process to end by itself; return its exit code."""
        return self._started().wait(timeout)

    def signal(self, signum: signal.Signals) -> None:
        """Send ``signum`` to the running process."""
        self.check_alive()
        self._started().send_signal(signum)

    def terminate(self) -> None:
        """Send SIGTERM if it runs, without waiting (the first half of :meth:`stop`)."""
        if self.alive():
            self._started().terminate()

    def stop(self) -> int | None:
        """Stop as kubelet stops a container: SIGTERM, SIGKILL after the grace period; the exit code.

        Idempotent; None when it was never started.
        """
        if self.process is None:
            return None
        return stop_process(self.process, self.grace_period)

    def kill(self) -> None:
        """SIGKILL, as the OOM killer or a failed liveness probe's escalation; wait for the end."""
        kill_and_reap(self._started())

    def close(self) -> None:
        """Teardown: stop the process if it runs."""
        if self.alive():
            self.stop()
