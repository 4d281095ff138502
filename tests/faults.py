"""Fault injection for the deploy: something real happens right after its k-th write.

The deploy's own client is instrumented, not replaced: every write still goes to the real
API server, and right after the k-th one that is not a dry run the test's action runs —
stop the API server (in-process), or SIGKILL (or SIGTERM) the deploy process itself (run this
module as a script: ``python -m tests.faults K [--signal TERM] [deploy.py arguments]``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Callable, Iterator
from typing import Any, Final

from constructs_nld.deploy.cli import main
from constructs_nld.deploy.kube import KubeClient

__all__ = ["MATRIX", "WRITE_METHODS", "after_write", "before_apply_of"]

WRITE_METHODS: Final = ("apply", "merge_patch", "json_patch")
"""Every KubeClient method that writes; with ``dry_run=True`` they write nothing."""

MATRIX: list[str] = []
"""One line per interrupted deploy (point × scenario → converged, restarts), for the session summary."""


@contextlib.contextmanager
def after_write(k: int, action: Callable[[], None], methods: tuple[str, ...] = WRITE_METHODS) -> Iterator[list[str]]:
    """Within the block, run ``action`` right after the ``k``-th real write of ``methods``; yields the writes so far.

    The default leaves out ``delete``: the deploy's matrix counts its writes without the
    prune's; a cutover's deletes its canary pods, and its matrix counts them.
    """
    originals = {name: getattr(KubeClient, name) for name in methods}
    writes: list[str] = []

    def instrumented(name: str) -> Callable[..., Any]:
        original = originals[name]

        def method(self: KubeClient, *args: Any, **kwargs: Any) -> Any:
            result = original(self, *args, **kwargs)
            if not kwargs.get("dry_run"):
                writes.append(name)
                if len(writes) == k:
                    action()
            return result

        return method

    for name in methods:
        setattr(KubeClient, name, instrumented(name))
    try:
        yield writes
    finally:
        for name, original in originals.items():
            setattr(KubeClient, name, original)


@contextlib.contextmanager
def before_apply_of(kind: str, action: Callable[[], None]) -> Iterator[None]:
    """Within the block, run ``action`` once, right before the first real server-side apply of a ``kind``.

    Between a command's reads and its write of that object: what another run does there
    (a ``cutover start`` between a deploy's read of the DaemonSet and its write).
    """
    original = KubeClient.apply
    fired: list[bool] = []

    def apply(self: KubeClient, manifest: Any, **kwargs: Any) -> Any:
        if manifest.get("kind") == kind and not kwargs.get("dry_run") and not fired:
            fired.append(True)
            action()
        return original(self, manifest, **kwargs)

    KubeClient.apply = apply  # type: ignore[method-assign]
    try:
        yield
    finally:
        KubeClient.apply = original  # type: ignore[method-assign]


def _signal_self(number: int) -> Callable[[], None]:
    return lambda: os.kill(os.getpid(), number)


if __name__ == "__main__":
    # python -m tests.faults K [--signal TERM] [deploy.py arguments]: SIGKILL (or the signal named) after write K.
    arguments = sys.argv[2:]
    number = signal.SIGKILL
    if arguments[:1] == ["--signal"]:
        number, arguments = signal.Signals[f"SIG{arguments[1]}"], arguments[2:]
    with after_write(int(sys.argv[1]), _signal_self(number)):
        raise SystemExit(main(arguments))
