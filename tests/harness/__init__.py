"""The test harness: every real component the tests start, on one process base.

- :mod:`tests.harness.process`: :class:`~tests.harness.process.Process` (start, health wait,
  log path and tail, stop as kubelet stops a container, teardown), :func:`~tests.harness.process.wait_until`
  and :func:`~tests.harness.process.free_port`; every component that runs a process derives from it.
- :mod:`tests.harness.health`: the HTTP health probes of those processes (loopback, no proxy).
- :mod:`tests.harness.rest`: the one JSON client the harness talks to the test kube-apiserver with.
"""
