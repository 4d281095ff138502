"""Fixtures giving integration tests a real control plane, alone or with controllers and simulated nodes.

``cluster``: etcd + kube-apiserver only, where nothing acts on what is applied — enough
(and quicker to reset) for the many tests about what a deploy writes. ``sim``: the same
with kube-controller-manager, kube-scheduler and kwok (:mod:`tests.simcluster`), for
tests about what the controllers make of it: pods, rollouts, placement, deletion. Each is
started once per session, on first use, and reset before every test that asks for it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from kubernetes import client as k8s_client

from tests.controlplane import REPO_ROOT, ControlPlane
from tests.faults import MATRIX
from tests.simcluster import SimulatedCluster

_startup_seconds: list[tuple[str, float]] = []


@pytest.fixture(scope="session")
def control_plane() -> Iterator[ControlPlane]:
    """Yield a started :class:`ControlPlane`, shared by the session, stopped at its end.

    A missing etcd/kube-apiserver binary is an error naming the build command, never a
    skip.
    """
    with ControlPlane() as control_plane:
        if control_plane.startup_seconds is not None:
            _startup_seconds.append(("control plane", control_plane.startup_seconds))
        yield control_plane


@pytest.fixture(scope="session")
def simulated_cluster() -> Iterator[SimulatedCluster]:
    """Yield a started :class:`SimulatedCluster`, shared by the session, stopped at its end."""
    with SimulatedCluster() as simulated:
        if simulated.startup_seconds is not None:
            _startup_seconds.append(("simulated cluster", simulated.startup_seconds))
        yield simulated


@pytest.fixture
def sim(simulated_cluster: SimulatedCluster) -> SimulatedCluster:
    """Reset the shared simulated cluster (no nodes, no fates, nothing deployed), then give it to the test."""
    simulated_cluster.reset()
    return simulated_cluster


@pytest.fixture(autouse=True)
def _in_the_project(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run from the repository, as a user runs ``python deploy.py`` beside ``cdk8s.yaml``."""
    monkeypatch.chdir(REPO_ROOT)


@pytest.fixture
def cluster(control_plane: ControlPlane) -> ControlPlane:
    """Reset the shared control plane to its bootstrap state, then give it to the test."""
    control_plane.reset()
    return control_plane


@pytest.fixture
def api_client(cluster: ControlPlane) -> Iterator[k8s_client.ApiClient]:
    """Yield an official-client ``ApiClient`` (admin user) of a freshly reset cluster."""
    api = cluster.api_client()
    try:
        yield api
    finally:
        api.close()  # type: ignore[no-untyped-call]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Report how long the session's control plane took to start (for benchmarking)."""
    for what, seconds in _startup_seconds:
        terminalreporter.write_line(f"{what} started in {seconds:.2f}s")
    if MATRIX:
        terminalreporter.write_sep("-", "interrupted deploys (scenario, interruption, point: outcome)")
        for line in MATRIX:
            terminalreporter.write_line(line)
