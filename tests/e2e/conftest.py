"""Fixtures: one test bed for this package, a real node per module, and the measurements printed after the run."""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType

import pytest

from tests.e2e.netns import Testbed, require_root, sweep_stale
from tests.e2e.nodecache import node_cache_binary_or_skip
from tests.e2e.realnode import IMAGE_DIR, RealNodeBed, node_images, real_node
from tests.harness.images import ImageArchive

_MEASUREMENTS = pytest.StashKey[list[str]]()


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
        with Testbed(workdir=workdir) as bed:
            yield bed
    finally:
        signal.signal(signal.SIGTERM, previous)


@pytest.fixture(scope="session")
def images() -> list[ImageArchive]:
    """The real nodes' images (pause, node-cache's around the binary the tests find), built once; skips without it."""
    return node_images(IMAGE_DIR, node_cache_binary_or_skip())


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory, images: list[ImageArchive]) -> Iterator[RealNodeBed]:
    """A cluster with one real node (kube-proxy in iptables mode), for the module."""
    require_root()
    with real_node(tmp_path_factory.mktemp("realnode"), images) as bed:
        yield bed


@pytest.fixture
def node(real: RealNodeBed) -> Iterator[RealNodeBed]:
    """The module's real node for one test; after it the cluster is reset and the node's pods are gone."""
    yield real
    real.reset()


@pytest.fixture(scope="session")
def measured(request: pytest.FixtureRequest) -> Callable[[str], None]:
    """Record a measurement (one line) to print in the run's summary, e.g. how long node-cache took."""
    return request.config.stash.setdefault(_MEASUREMENTS, []).append


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    """Print the recorded measurements under their own heading."""
    lines = config.stash.get(_MEASUREMENTS, [])
    if lines:
        terminalreporter.section("data-plane measurements")
        for line in lines:
            terminalreporter.write_line(line)
