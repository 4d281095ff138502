"""URL paths are built from names quoted whole: no name, namespace or group reaches another object's path."""

from __future__ import annotations

import pytest
from kubernetes.client import ApiClient, Configuration

from constructs_nld.deploy.errors import DeployError
from constructs_nld.deploy.kube import KubeClient, ObjectRef, ResourceType, api_prefix, segment


def _client() -> KubeClient:
    configuration = Configuration()
    configuration.host = "https://[::1]:6443"
    return KubeClient(ApiClient(configuration))


def test_a_name_with_slashes_stays_one_segment() -> None:
    ref = ObjectRef("v1", "ConfigMap", "kube-system", "node-local-dns/../../serviceaccounts/x")
    assert _client().path(ref) == (
        "/api/v1/namespaces/kube-system/configmaps/node-local-dns%2F..%2F..%2Fserviceaccounts%2Fx"
    )


def test_a_namespace_with_slashes_stays_one_segment() -> None:
    assert ResourceType("apps/v1", "DaemonSet", "daemonsets").collection_path("a/b") == (
        "/apis/apps/v1/namespaces/a%2Fb/daemonsets"
    )


def test_the_api_prefix_quotes_group_and_version() -> None:
    assert api_prefix("v1") == "/api/v1"
    assert api_prefix("monitoring.coreos.com/v1") == "/apis/monitoring.coreos.com/v1"
    assert api_prefix("a/b/v1") == "/apis/a%2Fb/v1"


@pytest.mark.parametrize("value", ["", ".", ".."])
def test_dot_segments_are_refused(value: str) -> None:
    with pytest.raises(DeployError, match=rf"^refusing name '{value}': not a name the API server gives an object$"):
        segment(value, "name")


def test_a_dot_segment_name_is_refused_before_any_request() -> None:
    with pytest.raises(DeployError, match=r"^refusing name '\.\.': not a name the API server gives an object$"):
        _client().path(ObjectRef("v1", "ConfigMap", "kube-system", ".."))
