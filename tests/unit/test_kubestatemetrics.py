# ruff: noqa: E501 - the expected exposition is written out line for line, as kube-state-metrics prints it
"""The stand-in for kube-state-metrics writes its v2.20.0 text format exactly."""

from __future__ import annotations

from tests.e2e.kubestatemetrics import render

DAEMON_SET = {
    "metadata": {"namespace": "kube-system", "name": "node-local-dns", "generation": 3},
    "status": {
        "currentNumberScheduled": 2,
        "desiredNumberScheduled": 2,
        "numberMisscheduled": 0,
        "numberReady": 1,
        "numberAvailable": 1,
        "numberUnavailable": 1,
        "observedGeneration": 3,
        "updatedNumberScheduled": 2,
    },
}
POD = {
    "metadata": {"namespace": "kube-system", "name": "node-local-dns-x7k2p", "uid": "7c1e"},
    "status": {"containerStatuses": [{"name": "node-cache", "restartCount": 4}]},
}

EXPECTED = """\
# HELP kube_daemonset_status_current_number_scheduled [STABLE] The number of nodes running at least one daemon pod and are supposed to.
# TYPE kube_daemonset_status_current_number_scheduled gauge
kube_daemonset_status_current_number_scheduled{namespace="kube-system",daemonset="node-local-dns"} 2
# HELP kube_daemonset_status_desired_number_scheduled [STABLE] The number of nodes that should be running the daemon pod.
# TYPE kube_daemonset_status_desired_number_scheduled gauge
kube_daemonset_status_desired_number_scheduled{namespace="kube-system",daemonset="node-local-dns"} 2
# HELP kube_daemonset_status_number_available [STABLE] The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available
# TYPE kube_daemonset_status_number_available gauge
kube_daemonset_status_number_available{namespace="kube-system",daemonset="node-local-dns"} 1
# HELP kube_daemonset_status_number_misscheduled [STABLE] The number of nodes running a daemon pod but are not supposed to.
# TYPE kube_daemonset_status_number_misscheduled gauge
kube_daemonset_status_number_misscheduled{namespace="kube-system",daemonset="node-local-dns"} 0
# HELP kube_daemonset_status_number_ready [STABLE] The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.
# TYPE kube_daemonset_status_number_ready gauge
kube_daemonset_status_number_ready{namespace="kube-system",daemonset="node-local-dns"} 1
# HELP kube_daemonset_status_number_unavailable [STABLE] The number of nodes that should be running the daemon pod and have none of the daemon pod running and available
# TYPE kube_daemonset_status_number_unavailable gauge
kube_daemonset_status_number_unavailable{namespace="kube-system",daemonset="node-local-dns"} 1
# HELP kube_daemonset_status_observed_generation [STABLE] The most recent generation observed by the daemon set controller.
# TYPE kube_daemonset_status_observed_generation gauge
kube_daemonset_status_observed_generation{namespace="kube-system",daemonset="node-local-dns"} 3
# HELP kube_daemonset_status_updated_number_scheduled [STABLE] The total number of nodes that are running updated daemon pod
# TYPE kube_daemonset_status_updated_number_scheduled gauge
kube_daemonset_status_updated_number_scheduled{namespace="kube-system",daemonset="node-local-dns"} 2
# HELP kube_daemonset_metadata_generation [STABLE] Sequence number representing a specific generation of the desired state.
# TYPE kube_daemonset_metadata_generation gauge
kube_daemonset_metadata_generation{namespace="kube-system",daemonset="node-local-dns"} 3
# HELP kube_pod_container_status_restarts_total [STABLE] The number of container restarts per container.
# TYPE kube_pod_container_status_restarts_total counter
kube_pod_container_status_restarts_total{namespace="kube-system",pod="node-local-dns-x7k2p",uid="7c1e",container="node-cache"} 4
"""


def test_renders_kube_state_metrics_exposition() -> None:
    assert render([DAEMON_SET], [POD]) == EXPECTED


def test_a_daemon_set_without_status_reports_zeros_and_a_pod_without_containers_nothing() -> None:
    text = render([{"metadata": {"namespace": "a", "name": "b", "generation": 1}}], [{"metadata": POD["metadata"]}])

    assert 'kube_daemonset_status_number_unavailable{namespace="a",daemonset="b"} 0\n' in text
    assert "kube_pod_container_status_restarts_total" not in text
