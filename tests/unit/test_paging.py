"""Lists are read a page at a time: ``limit`` and ``continue``, an expired token restarting the list once.

The transport is a fake that answers from a list of objects (the real API server's paging is
exercised by the integration suite and ``bench/scale.py``); what is checked here is the client's
logic: the pages it asks for, what it keeps of each object, and how it meets a bad page.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from kubernetes.client.exceptions import ApiException

from constructs_nld import defaults
from constructs_nld.deploy.errors import MalformedAnswerError
from constructs_nld.deploy.kube import KubeClient
from constructs_nld.deploy.manifest import node_essentials, without_bookkeeping


class Body(io.BytesIO):
    """A body read in chunks, its connection released after."""

    def release_conn(self) -> None:
        pass


@dataclass
class Answer:
    """One HTTP answer of the fake transport."""

    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def reason(self) -> str:
        return {200: "OK", 410: "Gone"}[self.status]

    @property
    def data(self) -> bytes:
        return self.body

    @property
    def response(self) -> Body:
        return Body(self.body)


@dataclass
class Request:
    """What the client asked for."""

    path: str
    query: dict[str, str]
    accept: str


class PagingApi:
    """An ApiClient stand-in whose GETs are answered by ``answer(request)``."""

    def __init__(self, answer: Callable[[Request], Answer]) -> None:
        self.answer = answer
        self.requests: list[Request] = []
        self.configuration = type("Configuration", (), {"host": "https://127.0.0.1:6443"})()

    def param_serialize(
        self,
        *,
        method: str,
        resource_path: str,
        query_params: list[tuple[str, str]],
        header_params: dict[str, str],
        **_: Any,
    ) -> tuple[str, str, dict[str, str], Any, None]:
        return method, f"{resource_path}?{urlencode(query_params)}", dict(header_params), None, None

    def call_api(self, method: str, url: str, *, header_params: dict[str, str], **_: Any) -> Answer:
        parts = urlsplit(url)
        request = Request(parts.path, {k: v[0] for k, v in parse_qs(parts.query).items()}, header_params["Accept"])
        self.requests.append(request)
        return self.answer(request)


def node(index: int) -> dict[str, Any]:
    return {
        "metadata": {
            "name": f"node-{index:05d}",
            "labels": {"pool": "ci"},
            "managedFields": [{"manager": "kubelet", "fieldsV1": {"f:status": {}}}],
        },
        "spec": {"taints": [{"key": "ci", "effect": "NoSchedule"}], "podCIDR": "fd00::/64"},
        "status": {
            "conditions": [{"type": "Ready", "status": "True"}],
            "images": [{"names": [f"registry.example/image-{i}:1"], "sizeBytes": 1} for i in range(20)],
        },
    }


def collection(
    objects: list[dict[str, Any]], *, expire: Callable[[str], bool] = lambda _: False
) -> Callable[[Request], Answer]:
    """Serve ``objects`` in pages of the request's ``limit``; a token ``expire`` names answers 410."""

    def answer(request: Request) -> Answer:
        token = request.query.get("continue", "")
        if token and expire(token):
            return Answer(410, json.dumps({"kind": "Status", "code": 410, "reason": "Expired"}).encode())
        start = int(token or 0)
        end = start + int(request.query["limit"])
        page: dict[str, Any] = {"kind": "List", "metadata": {}, "items": objects[start:end]}
        if end < len(objects):
            page["metadata"]["continue"] = str(end)
        return Answer(200, json.dumps(page).encode())

    return answer


def client_of(answer: Callable[[Request], Answer]) -> tuple[KubeClient, PagingApi]:
    api = PagingApi(answer)
    return KubeClient(api, sleep=lambda _: None), api  # type: ignore[arg-type]


def test_a_list_is_read_in_pages_of_the_page_size_following_continue() -> None:
    nodes = [node(i) for i in range(2 * defaults.API_PAGE_SIZE + 34)]
    client, api = client_of(collection(nodes))
    listed = client.list("v1", "Node", None, label_selector="pool=ci")
    assert [n["metadata"]["name"] for n in listed] == [n["metadata"]["name"] for n in nodes]
    assert {(n["apiVersion"], n["kind"]) for n in listed} == {("v1", "Node")}
    assert [(r.path, r.query) for r in api.requests] == [
        ("/api/v1/nodes", {"labelSelector": "pool=ci", "limit": "500"}),
        ("/api/v1/nodes", {"labelSelector": "pool=ci", "limit": "500", "continue": "500"}),
        ("/api/v1/nodes", {"labelSelector": "pool=ci", "limit": "500", "continue": "1000"}),
    ]


def test_keep_cuts_each_object_to_what_the_command_reads() -> None:
    client, _ = client_of(collection([node(i) for i in range(3)]))
    listed = client.list("v1", "Node", None, keep=node_essentials)
    assert listed[0] == {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "node-00000", "labels": {"pool": "ci"}},
        "spec": {"taints": [{"key": "ci", "effect": "NoSchedule"}]},
        "status": {"conditions": [{"type": "Ready", "status": "True"}]},
    }


def test_a_pod_is_kept_whole_but_for_its_managed_fields() -> None:
    pod = {
        "metadata": {"name": "node-local-dns-x", "managedFields": [{"manager": "kubelet"}], "labels": {"a": "b"}},
        "spec": {"nodeName": "node-1"},
        "status": {"phase": "Running"},
    }
    client, _ = client_of(collection([pod]))
    (listed,) = client.list("v1", "Pod", "kube-system", keep=without_bookkeeping)
    assert listed == {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "node-local-dns-x", "labels": {"a": "b"}},
        "spec": {"nodeName": "node-1"},
        "status": {"phase": "Running"},
    }


def test_a_metadata_list_asks_for_partial_objects_and_is_paged_too() -> None:
    pods = [{"metadata": {"name": f"pod-{i}", "namespace": "kube-system"}} for i in range(defaults.API_PAGE_SIZE + 1)]
    client, api = client_of(collection(pods))
    listed = client.list_metadata("v1", "Pod", "kube-system", label_selector="k8s-app=node-local-dns")
    assert len(listed) == len(pods)
    assert len(api.requests) == 2
    assert {r.accept for r in api.requests} == {"application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"}


def test_an_expired_continue_token_restarts_the_list_once_without_mixing_pages() -> None:
    expired: list[str] = []

    def expire_once(token: str) -> bool:
        if expired:
            return False
        expired.append(token)
        return True

    nodes = [node(i) for i in range(defaults.API_PAGE_SIZE + 10)]
    client, api = client_of(collection(nodes, expire=expire_once))
    listed = client.list("v1", "Node", None)
    assert [n["metadata"]["name"] for n in listed] == [n["metadata"]["name"] for n in nodes]
    assert [r.query.get("continue", "") for r in api.requests] == ["", "500", "", "500"]


def test_a_token_that_expires_again_ends_the_list_with_the_servers_answer() -> None:
    client, api = client_of(collection([node(i) for i in range(defaults.API_PAGE_SIZE + 1)], expire=lambda _: True))
    with pytest.raises(ApiException) as raised:
        client.list("v1", "Node", None)
    assert raised.value.status == 410
    assert len(api.requests) == 4


@pytest.mark.parametrize(
    ("page", "message"),
    [
        ({"items": {"a": 1}}, "LIST nodes: the answer is not a list of objects (items without metadata)"),
        ({"items": [{"name": "x"}]}, "LIST nodes: the answer is not a list of objects (items without metadata)"),
        ({"items": [], "metadata": {"continue": 7}}, "LIST nodes: the list's metadata.continue is not a string"),
    ],
)
def test_a_malformed_page_is_refused_on_one_line(page: dict[str, Any], message: str) -> None:
    client, _ = client_of(lambda _: Answer(200, json.dumps(page).encode()))
    with pytest.raises(MalformedAnswerError) as raised:
        client.list("v1", "Node", None)
    assert str(raised.value) == message
