"""Stopping the processes the test harnesses start, the way kubelet stops a container."""

from __future__ import annotations

import subprocess
from typing import Any

__all__ = ["kill_and_reap", "stop_process"]

REAP_SECONDS = 5.0
"""How long a SIGKILLed process may take to be reaped."""


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
