"""The test harness: every real component the tests start, on one process base.

- :mod:`tests.harness.process`: :class:`~tests.harness.process.Process` (start, health wait,
  log path and tail, stop as kubelet stops a container, teardown), :func:`~tests.harness.process.wait_until`
  and :func:`~tests.harness.process.free_port`; every component that runs a process derives from it.
- :mod:`tests.harness.health`: the HTTP health probes of those processes (loopback, no proxy).
- :mod:`tests.harness.rest`: the one JSON client the harness talks to the test kube-apiserver with.
- The test control plane, by responsibility: :mod:`tests.harness.apiserver` (the etcd and
  kube-apiserver processes), :mod:`tests.harness.credentials` (users, tokens, keys, kubeconfigs and
  the audit policy), :mod:`tests.harness.bootstrap` (the objects an IPv6 EKS cluster has, and the
  reset between tests), :mod:`tests.harness.audit` (reading the audit log) and
  :mod:`tests.harness.controlplane` (:class:`~tests.harness.controlplane.ControlPlane`, which
  puts them together).
- The simulated cluster's processes: :mod:`tests.harness.controllers` (kube-controller-manager,
  kube-scheduler) and :mod:`tests.harness.kwok` (kwok and the pod fates it plays).

``tests.controlplane``, ``tests.simcluster``, ``tests.prometheus`` and ``tests/e2e/`` build on
these; the tests import those modules, which keep their names.
"""
