"""The oracle: every props value either fails at construction, naming its prop, or is accepted by the API server.

For each example hypothesis generates (``tests/integration/strategies.py``), exactly one of
two outcomes is allowed:

1. building the props (or synthesizing) raises one ``ValueError`` line that starts with
   the name of a prop the example set, or
2. every synthesized object passes the real kube-apiserver's server-side dry-run create,
   with strict field validation.

Anything else — the API server refusing an object the library accepted, another
exception, a message naming no prop — fails with the shrunk example. The CI profile is
bounded and derandomized; ``make fuzz`` runs the long one (profiles: ``tests/conftest.py``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import cdk8s
import pytest
from hypothesis import event, given
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context
from kubernetes import client as k8s

from constructs_nld import (
    CorefileConfigMap,
    DeployerRBAC,
    GrafanaDashboard,
    KeeperConfigMap,
    MetricsService,
    NodeCacheDaemonSet,
    PodMonitor,
    PrometheusRule,
    ServiceAccount,
    ServiceAccountProps,
    UpstreamService,
    synthesize,
)
from tests.controlplane import ControlPlane
from tests.integration import strategies
from tests.integration.strategies import Make

_COLLECTIONS = {
    "Service": "/api/v1/namespaces/{ns}/services",
    "ConfigMap": "/api/v1/namespaces/{ns}/configmaps",
    "ServiceAccount": "/api/v1/namespaces/{ns}/serviceaccounts",
    "DaemonSet": "/apis/apps/v1/namespaces/{ns}/daemonsets",
    "PodMonitor": "/apis/monitoring.coreos.com/v1/namespaces/{ns}/podmonitors",
    "PrometheusRule": "/apis/monitoring.coreos.com/v1/namespaces/{ns}/prometheusrules",
    "Role": "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles",
    "RoleBinding": "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/rolebindings",
    "ClusterRole": "/apis/rbac.authorization.k8s.io/v1/clusterroles",
    "ClusterRoleBinding": "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
}
"""Where each kind is created: in its namespace, or cluster-wide (no ``{ns}``)."""


class ApiServer:
    """Server-side dry-run creates against the test control plane, creating namespaces on demand."""

    def __init__(self, api: k8s.ApiClient) -> None:
        self.api = api
        self.namespaces: set[str] = set()

    def _send(self, method: str, path: str, body: Any, query: list[tuple[str, str]]) -> tuple[int, Any]:
        method, url, headers, body, _ = self.api.param_serialize(
            method,
            path,
            query_params=query,
            header_params={"Accept": "application/json", "Content-Type": "application/json"},
            body=body,
            auth_settings=["BearerToken"],
        )
        response = self.api.call_api(method, url, header_params=headers, body=body)
        data = response.read()  # type: ignore[no-untyped-call]
        return int(response.status), json.loads(data) if data else None

    def ensure_namespace(self, name: str) -> None:
        """Create the namespace for real (dry runs need it to exist); a refusal is the server's verdict."""
        if name in self.namespaces:
            return
        status, body = self._send("POST", "/api/v1/namespaces", {"metadata": {"name": name}}, [])
        assert status in (201, 409), f"the API server refused namespace {name!r}: {status} {body}"
        self.namespaces.add(name)

    def dry_run_create(self, obj: dict[str, Any]) -> None:
        """Assert that the API server would create ``obj``."""
        namespace = obj["metadata"].get("namespace")
        if namespace is not None:
            self.ensure_namespace(namespace)
        path = _COLLECTIONS[obj["kind"]].format(ns=namespace)
        status, body = self._send("POST", path, obj, [("dryRun", "All"), ("fieldValidation", "Strict")])
        # 409 AlreadyExists comes after validation: the object itself was accepted.
        already_exists = status == 409 and isinstance(body, dict) and body.get("reason") == "AlreadyExists"
        where = f"{namespace}/{obj['metadata']['name']}" if namespace else obj["metadata"]["name"]
        assert status == 201 or already_exists, (
            f"the library accepted what the API server refuses: {obj['kind']} {where}: "
            f"{status} {(body or {}).get('message') if isinstance(body, dict) else body}\n{json.dumps(obj, indent=1)}"
        )


@pytest.fixture(scope="module")
def server(control_plane: ControlPlane) -> Iterator[ApiServer]:
    """One client for the whole module: dry runs change nothing, so no reset between examples."""
    api = control_plane.api_client()
    try:
        yield ApiServer(api)
    finally:
        api.close()  # type: ignore[no-untyped-call]


def _note(outcome: str) -> None:
    """Count the outcome in hypothesis' statistics (``--hypothesis-show-statistics``)."""
    if currently_in_test_context():
        event(outcome)


def check_outcome(make: Make, synth: Callable[[Any], list[dict[str, Any]]], server: ApiServer) -> None:
    """Exactly one of: a one-line ``ValueError`` naming a prop the example set, or a dry run that passes."""
    try:
        objects = synth(make.build())
    except ValueError as error:
        message = str(error)
        prop = message.split(":", 1)[0]
        allowed = make.prop_names()
        assert "\n" not in message, f"not one line: {message!r}"
        assert prop.split(".")[0] in allowed, f"{message!r} does not start with one of {sorted(allowed)}"
        _note(f"refused: {prop}")
        return
    assert objects
    for obj in objects:
        server.dry_run_create(obj)
    _note("accepted by the API server")


def _component(props: Any) -> list[dict[str, Any]]:
    return [obj for chart in synthesize(props) for obj in chart.objects]


def _alone(construct: Callable[..., Any]) -> Callable[[Any], list[dict[str, Any]]]:
    def synth(props: Any) -> list[dict[str, Any]]:
        chart = cdk8s.Chart(cdk8s.App(), "oracle")
        construct(chart, "c", props)
        objects: list[dict[str, Any]] = cdk8s.Testing.synth(chart)
        return objects

    return synth


CONSTRUCTS: dict[str, Callable[..., Any]] = {
    "UpstreamService": UpstreamService,
    "MetricsService": MetricsService,
    "ServiceAccount": ServiceAccount,
    "CorefileConfigMap": CorefileConfigMap,
    "KeeperConfigMap": KeeperConfigMap,
    "NodeCacheDaemonSet": NodeCacheDaemonSet,
    "PodMonitor": PodMonitor,
    "PrometheusRule": PrometheusRule,
    "GrafanaDashboard": GrafanaDashboard,
    "DeployerRBAC": DeployerRBAC,
}


@given(make=strategies.examples(strategies.NODE_LOCAL_DNS_PROPS))
def test_node_local_dns_props_fail_by_name_or_pass_the_api_server(make: Make, server: ApiServer) -> None:
    check_outcome(make, _component, server)


@given(data=st.data())
def test_each_construct_props_fail_by_name_or_pass_the_api_server(data: st.DataObject, server: ApiServer) -> None:
    name = data.draw(st.sampled_from(sorted(CONSTRUCTS)), label="construct")
    make = data.draw(strategies.examples(strategies.CONSTRUCT_PROPS[name]), label="props")
    check_outcome(make, _alone(CONSTRUCTS[name]), server)


# --- the oracle itself bites -------------------------------------------------------------------


def _config_map(name: str) -> list[dict[str, Any]]:
    return [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "kube-system"}}]


def test_oracle_fails_when_the_api_server_refuses_what_was_accepted(server: ApiServer) -> None:
    with pytest.raises(AssertionError, match=r"the library accepted what the API server refuses: ConfigMap"):
        check_outcome(Make(dict), lambda props: _config_map("Not_A_Name"), server)


def test_oracle_passes_when_the_api_server_accepts(server: ApiServer) -> None:
    check_outcome(Make(dict), lambda props: _config_map("oracle-check"), server)


@pytest.mark.parametrize("message", ["something went wrong", "name: two\nlines"])
def test_oracle_fails_when_an_error_names_no_prop_or_is_not_one_line(message: str, server: ApiServer) -> None:
    def fail(props: Any) -> list[dict[str, Any]]:
        raise ValueError(message)

    with pytest.raises(AssertionError):
        check_outcome(Make(ServiceAccountProps, {"name": "x"}), fail, server)


def test_oracle_fails_on_any_other_exception(server: ApiServer) -> None:
    def crash(props: Any) -> list[dict[str, Any]]:
        raise TypeError("not a ValueError")

    with pytest.raises(TypeError):
        check_outcome(Make(dict), crash, server)
