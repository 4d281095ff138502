"""SIGINT and SIGTERM: the command stops between two requests, cleans up, and exits 130 or 143.

A cancelled CI job sends SIGTERM, a person at a terminal SIGINT. Python's default would end
the process in the middle of whatever it does (SIGTERM without running a single ``finally``),
leaving the deploy Lease held and the official client's temporary files behind. Instead
:func:`handling` records the signal; every request (:mod:`constructs_nld.deploy.kube`) and
every wait (:func:`sleep`) then raises :class:`~constructs_nld.deploy.errors.StoppedError`, so
each thread of the command unwinds from where it is: a request already sent is answered and
whole, none is sent after. Its ``finally`` blocks run (the Lease is released, within
:func:`finishing`), the fleet's summary prints, and the exit code is the shell's 128 + the
signal's number. A second signal ends the process at once.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Final

from constructs_nld.deploy.errors import StoppedError
from constructs_nld.deploy.exitcodes import ExitCode

__all__ = ["check", "finishing", "handling", "leave_signals_to_main", "sleep", "stopped"]

_CODES: Final = {signal.SIGINT: ExitCode.SIGINT, signal.SIGTERM: ExitCode.SIGTERM}

_event: Final = threading.Event()
_received: list[signal.Signals] = []
_local: Final = threading.local()


def _handle(number: int, frame: FrameType | None) -> None:
    received = signal.Signals(number)
    if _event.is_set():
        os._exit(int(_CODES[received]))
    _received.append(received)
    _event.set()


@contextmanager
def handling() -> Iterator[None]:
    """Within the block, SIGINT and SIGTERM stop the command as this module says; the handlers before, after it.

    Only the main thread may set handlers: from another (a test's), the block changes nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = {number: signal.signal(number, _handle) for number in _CODES}
    try:
        yield
    finally:
        for number, handler in before.items():
            signal.signal(number, handler)
        _event.clear()
        _received.clear()


def leave_signals_to_main() -> None:
    """Block SIGINT and SIGTERM in the calling thread, so that the kernel gives them to the main thread.

    Called first in every thread the command starts (the fleet's workers, the access
    check's, the Lease's renewer; the threads they start inherit it). The kernel gives a
    process's signal to any thread that does not block it: given to a worker, it would not
    interrupt the main thread's wait for the workers, and the stop would come only once they
    had ended. Blocked there, it interrupts that wait, and the handler runs at once.
    """
    signal.pthread_sigmask(signal.SIG_BLOCK, set(_CODES))


def stopped() -> bool:
    """Whether a signal asked the command to stop."""
    return _event.is_set()


@contextmanager
def finishing() -> Iterator[None]:
    """Requests in the block go out even after a signal: the clean-up a stop must still make (releasing the Lease)."""
    _local.finishing = True
    try:
        yield
    finally:
        _local.finishing = False


def check() -> None:
    """Raise :class:`StoppedError` if a signal asked the command to stop (outside :func:`finishing`)."""
    if _event.is_set() and not getattr(_local, "finishing", False):
        received = _received[0] if _received else signal.SIGTERM
        raise StoppedError(received.name, _CODES[received])


def sleep(seconds: float) -> None:
    """Wait ``seconds``, or less when a signal comes (then raise :class:`StoppedError`)."""
    check()
    if seconds > 0 and _event.wait(seconds):
        check()
