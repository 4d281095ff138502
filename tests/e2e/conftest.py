"""Fixtures: one test bed for this package (namespaces, cluster DNS, kube-proxy rules), torn down after it."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import pytest

from tests.e2e.netns import Testbed, require_root, sweep_stale
from tests.e2e.nodecache import synthesized_objects, upstream_ports


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


@pytest.fixture(scope="package")
def testbed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Testbed]:
    """The node, its pod and cluster DNS; fails (never skips) without root or tools."""
    require_root()
    sweep_stale()
    # SIGTERM (a CI timeout) becomes KeyboardInterrupt, so pytest still runs the teardown.
    previous = signal.signal(signal.SIGTERM, _interrupt)
    workdir = Path(tmp_path_factory.mktemp("testbed"))
    try:
        with Testbed(workdir=workdir, upstream_ports=upstream_ports(synthesized_objects(None))) as bed:
            yield bed
    finally:
        signal.signal(signal.SIGTERM, previous)
