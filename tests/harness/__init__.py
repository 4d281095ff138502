"""The test harness: every real component the tests start, on one process base and one stack base.

- :mod:`tests.harness.process`: :class:`~tests.harness.process.Process` (start, health wait,
  log path and tail, stop as kubelet stops a container, teardown), :func:`~tests.harness.process.wait_until`
  and :func:`~tests.harness.process.free_port`; every class that runs a process derives from it.
- :mod:`tests.harness.stack`: :class:`~tests.harness.stack.Stack`, the base of every orchestrator
  (parts started in order, torn down in reverse, also when a start fails part-way).
- :mod:`tests.harness.health`: the HTTP health probes of those processes (loopback, no proxy).
- :mod:`tests.harness.rest`: the one JSON client the harness talks to the test kube-apiserver with.
- The test control plane, by responsibility: :mod:`tests.harness.apiserver` (the etcd and
  kube-apiserver processes), :mod:`tests.harness.credentials` (users, tokens, keys, kubeconfigs and
  the audit policy), :mod:`tests.harness.bootstrap` (the objects an IPv6 EKS cluster has, and the
  reset between tests), :mod:`tests.harness.audit` (reading the audit log) and
  :mod:`tests.harness.controlplane` (:class:`~tests.harness.controlplane.ControlPlane`, which
  puts them together).
- The simulated cluster's processes: :mod:`tests.harness.components` (kube-controller-manager,
  kube-scheduler, kwok) and :mod:`tests.harness.kwokstages` (the pod fates kwok plays).
- A real node: :mod:`tests.harness.node` (containerd, kubelet, kube-proxy and
  :class:`~tests.harness.node.RealNode`) and :mod:`tests.harness.images` (the images it imports).
- The data plane's processes: :mod:`tests.harness.coredns` (CoreDNS 1.13.2),
  :mod:`tests.harness.socat` (the socat bridges between network namespaces) and
  :mod:`tests.harness.resolver` (the resolver-style lookup load).
- Monitoring: :mod:`tests.harness.prometheus` (Prometheus), :mod:`tests.harness.operator`
  (prometheus-operator), :mod:`tests.harness.kubestatemetrics` (kube-state-metrics) and
  :mod:`tests.harness.pods` (running a process as a pod, with in-cluster credentials).

``tests.controlplane`` (a re-export), ``tests.simcluster`` and ``tests/e2e/`` build the
clusters and test beds of the suite on these.
"""
