"""What the tests start as a whole: parts started in order, torn down in the reverse order.

Every orchestrator of the harness is a :class:`Stack`: :class:`~tests.harness.controlplane.ControlPlane`,
:class:`~tests.harness.node.RealNode`, :class:`~tests.harness.socat.Bridge`,
:class:`~tests.simcluster.SimulatedCluster`, :class:`~tests.e2e.netns.Testbed`,
:class:`~tests.e2e.realnode.RealNodeBed`, :class:`~tests.e2e.monitoring.MonitoringStack` and
:class:`~tests.e2e.serviceapi.ServiceAPI`. A subclass only says how it starts its parts
(:meth:`Stack.start_parts`), registering the teardown of each before or as it starts it
(:meth:`Stack.start_process`, :meth:`Stack.enter_context`, :meth:`Stack.at_close`); the base
keeps them on one :class:`contextlib.ExitStack`.
"""

from __future__ import annotations

import atexit
import contextlib
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from types import TracebackType
from typing import ParamSpec, Self, TypeVar

from tests.harness.process import Process

__all__ = ["Stack"]

_P = ParamSpec("_P")
_T = TypeVar("_T")
_Process = TypeVar("_Process", bound=Process)


class Stack:
    """Parts started in order and torn down in the reverse order; a context manager.

    :meth:`start` (or entering) runs :meth:`start_parts`; when it fails part-way, what had
    started is torn down before the error goes on. :meth:`close` (or :meth:`stop`, or leaving the
    ``with`` block) tears down in the reverse order of the start; it is idempotent, and it runs at
    interpreter exit if a run forgets. A stack that was closed can be started again.
    """

    def __init__(self) -> None:
        """Nothing runs until :meth:`start`."""
        self._teardown = contextlib.ExitStack()
        self._started = False
        self.startup_seconds: float | None = None
        """Wall-clock seconds the last successful :meth:`start` took."""

    def __enter__(self) -> Self:
        """:meth:`start`."""
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        """:meth:`close`."""
        self.close()

    # ------------------------------------------------------------ what subclasses say ---
    def start_parts(self) -> None:
        """Start the parts in order, registering the teardown of each before or as it starts it."""
        raise NotImplementedError

    # -------------------------------------------------------------------- lifecycle ---
    def start(self) -> Self:
        """Start the parts (:meth:`start_parts`); return self.

        Whatever a part raises goes on once what had started is torn down.

        Raises:
            RuntimeError: The stack is already started.
        """
        if self._started:
            raise RuntimeError(f"{type(self).__name__}.start: already started; call stop() first")
        self._started = True
        began = time.monotonic()
        try:
            self.start_parts()
        except BaseException:
            self.close()
            raise
        self.startup_seconds = time.monotonic() - began
        atexit.register(self.close)
        return self

    def close(self) -> None:
        """Tear down in the reverse order of the start; idempotent, safe on a stack started part-way."""
        atexit.unregister(self.close)
        self._started = False
        self._teardown.close()

    def stop(self) -> None:
        """:meth:`close`, under the name a process's teardown has."""
        self.close()

    # ----------------------------------------------------------- registering parts ---
    def at_close(self, callback: Callable[_P, object], /, *args: _P.args, **kwargs: _P.kwargs) -> None:
        """Call ``callback(*args, **kwargs)`` at :meth:`close`, before what was registered earlier."""
        self._teardown.callback(callback, *args, **kwargs)

    def enter_context(self, context: AbstractContextManager[_T]) -> _T:
        """Enter ``context`` (another stack, a process) now and leave it at :meth:`close`; what it entered as."""
        return self._teardown.enter_context(context)

    def start_process(self, process: _Process, *, wait: bool = True) -> _Process:
        """Start ``process``, stopped at :meth:`close` (registered first: a start that fails half-way is stopped too).

        ``wait=False`` returns once it is launched, without waiting for it to be healthy.
        """
        self.at_close(process.stop)
        process.start(wait=wait)
        return process
