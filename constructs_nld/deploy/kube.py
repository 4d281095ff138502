"""A small typed client for the few API calls a deploy makes, over the official client's transport.

The official client's generated methods cover one kind each and hide the request
shape; a deploy needs the same four verbs on seven kinds (two of them custom), with
server-side apply and server-side dry run. The transport, auth and kubeconfig handling
stay the official client's.
"""

from __future__ import annotations

import json
import random
import socket
import ssl
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any, Final
from urllib.parse import quote

from kubernetes.client import ApiClient
from kubernetes.client.exceptions import ApiException
from urllib3.exceptions import ProtocolError
from urllib3.exceptions import TimeoutError as Urllib3Timeout

from constructs_nld import defaults
from constructs_nld.deploy import stop
from constructs_nld.deploy.errors import (
    ApiUnreachableError,
    DeployError,
    MalformedAnswerError,
    ThrottledError,
    printable,
)
from constructs_nld.deploy.exitcodes import ExitCode
from constructs_nld.deploy.throttle import (
    Attempt,
    Backoff,
    Retry,
    RetryCounts,
    TokenBucket,
    describe_request,
    retry_after_seconds,
)
from constructs_nld.deploy.transport import ResponseTooLargeError, Watch, deadline, read_body

__all__ = [
    "FIELD_MANAGER",
    "REREADS",
    "RESTART_FIELD_MANAGER",
    "KindNotServedError",
    "KubeClient",
    "Manifest",
    "ObjectRef",
    "RereadError",
    "ResourceType",
    "api_prefix",
    "segment",
]

Manifest = dict[str, Any]
"""One Kubernetes object as plain data."""

FIELD_MANAGER: Final = "nld-deploy"
"""Field manager of our server-side applies: the fields it owns are ours to change or remove."""

RESTART_FIELD_MANAGER: Final = "nld-deploy-rollout"
"""Owns the restart annotations, so our applies (another manager) never remove them."""


def segment(value: str, what: str) -> str:
    """``value`` as one segment of a URL path: every ``/`` quoted, ``.`` and ``..`` refused.

    Names, namespaces and API groups come from the app and from the cluster (an ApplySet
    parent's annotations); quoted whole, none can reach another path than its object's.
    """
    if value in ("", ".", ".."):
        raise DeployError(f"refusing {what} {value!r}: not a name the API server gives an object")
    return quote(value, safe="")


def api_prefix(api_version: str) -> str:
    """``/api/v1`` or ``/apis/<group>/<version>``, each part quoted whole."""
    group, _, version = api_version.rpartition("/")
    if not group:
        return f"/api/{segment(version, 'apiVersion')}"
    return f"/apis/{segment(group, 'API group')}/{segment(version, 'apiVersion')}"


@dataclass(frozen=True)
class ResourceType:
    """Where a kind lives in the API."""

    api_version: str
    kind: str
    plural: str
    namespaced: bool = True

    def collection_path(self, namespace: str | None) -> str:
        """URL path of the collection, namespaced when ``namespace`` is given."""
        prefix = api_prefix(self.api_version)
        plural = segment(self.plural, "resource")
        if namespace is None:
            return f"{prefix}/{plural}"
        return f"{prefix}/namespaces/{segment(namespace, 'namespace')}/{plural}"


_KNOWN: Final = {
    (t.api_version, t.kind): t
    for t in (
        ResourceType("v1", "Service", "services"),
        ResourceType("v1", "ServiceAccount", "serviceaccounts"),
        ResourceType("v1", "ConfigMap", "configmaps"),
        ResourceType("apps/v1", "ControllerRevision", "controllerrevisions"),
        ResourceType("v1", "Pod", "pods"),
        ResourceType("v1", "Node", "nodes", namespaced=False),
        ResourceType("v1", "Namespace", "namespaces", namespaced=False),
        ResourceType("apps/v1", "DaemonSet", "daemonsets"),
        ResourceType("coordination.k8s.io/v1", "Lease", "leases"),
    )
}
"""Built-in kinds NodeLocal DNS reads and writes, served by every cluster: known without a discovery
request. Every other kind (the prometheus-operator's among them) is looked up, so an absent CRD
is found before anything is written."""


@dataclass(frozen=True)
class ObjectRef:
    """Identity of one object; ``namespace`` is None for cluster-scoped kinds."""

    api_version: str
    kind: str
    namespace: str | None
    name: str

    @classmethod
    def of(cls, manifest: Mapping[str, Any]) -> ObjectRef:
        """The identity of a manifest, its namespace as written (see :meth:`KubeClient.ref_of`)."""
        metadata = manifest["metadata"]
        return cls(manifest["apiVersion"], manifest["kind"], metadata.get("namespace"), metadata["name"])

    def __str__(self) -> str:
        """``kind/namespace/name``, as in the step lines."""
        where = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind.lower()}/{where}{self.name}"


class KindNotServedError(LookupError):
    """The API server does not serve a kind (its CRD is not installed, or the apiVersion is wrong)."""


class RereadError(DeployError):
    """A write with a precondition was throttled or lost: the client waited as asked, and did not resend it.

    Its precondition (a ``resourceVersion``, a JSON patch ``test``) was computed from a read
    that may be stale by now, and a lost request may have been carried out: the caller reads
    the object again and decides again, as it does on a 409, a few times
    (:data:`REREADS`). Uncaught, it ends the command as throttling or an unreachable server does.
    """

    def __init__(self, message: str, *, throttled: bool) -> None:
        """The request and how it ended; ``throttled``: by a 429 or 503, else a lost connection."""
        super().__init__(message)
        self.exit_code = ExitCode.THROTTLED if throttled else ExitCode.ERROR


REREADS: Final = 5
"""How many times a conditional write is decided again after :class:`RereadError` before it gives up."""


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


class KubeClient:
    """GET, LIST, DELETE, server-side apply and patches, raising ``ApiException`` on HTTP errors."""

    def __init__(
        self,
        api_client: ApiClient,
        *,
        timeout: float = defaults.DEPLOY_TIMEOUT,
        timeout_flag: str = "--timeout",
        default_namespace: str = "default",
        qps: float = defaults.API_QPS,
        burst: int = defaults.API_BURST,
        backoff: Backoff | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = stop.sleep,
        rng: Callable[[], float] = random.random,
    ) -> None:
        """Wrap a configured ``kubernetes.client.ApiClient``.

        ``default_namespace`` is where a namespaced object without ``metadata.namespace``
        goes, as with ``kubectl apply`` (the kubeconfig context's namespace). ``timeout``
        bounds each attempt and, from a request's first attempt, its retries
        (:mod:`constructs_nld.deploy.throttle`), and ``timeout_flag`` is the flag that set it, which
        the messages name; ``qps`` and ``burst`` pace the requests
        (a token bucket). ``clock``, ``sleep`` and ``rng`` are the time and randomness the
        retries use. After SIGINT or SIGTERM (:mod:`constructs_nld.deploy.stop`) no request is sent.
        """
        self._api = api_client
        self._timeout = timeout
        self._timeout_flag = timeout_flag
        self.default_namespace = default_namespace
        self._discovered: dict[str, dict[str, ResourceType] | None] = {}
        self._bucket = TokenBucket(qps, burst, clock)
        self._backoff = backoff or Backoff()
        self._clock, self._sleep, self._rng = clock, sleep, rng
        self._server_date: tuple[float, float] | None = None
        self.retries = RetryCounts()
        """The retries this client made: the command's closing line says how many."""
        self.on_retry: Callable[[str], None] = _stderr
        """Where each retry is reported, on one line (the CLI sets its output)."""

    def server_time(self) -> float:
        """The API server's clock (epoch seconds): its last answer's ``Date``, plus the time since it came.

        Times the cluster records (a cutover's start, ``creationTimestamp``) are compared with
        this clock, not the machine's, which may be minutes off. Our own clock until an answer
        with a well-formed ``Date`` came.
        """
        if self._server_date is None:
            return time.time()
        date, received = self._server_date
        return date + (self._clock() - received)

    def _saw_date(self, headers: Mapping[str, str] | None) -> None:
        text = (headers or {}).get("Date") or (headers or {}).get("date")
        try:
            date = parsedate_to_datetime(text) if isinstance(text, str) else None
        except (TypeError, ValueError, IndexError):
            date = None
        if date is not None and date.tzinfo is not None:
            self._server_date = (date.timestamp(), self._clock())

    @contextmanager
    def reporting_retries(self, out: Callable[[str], None]) -> Iterator[None]:
        """Report each retry to ``out`` while the block runs, and their count at its end (if any)."""
        self.on_retry = out
        try:
            yield
        finally:
            if self.retries.total:
                out(f"[retries] {self.retries}")

    def _request(
        self,
        method: str,
        path: str,
        *,
        query: list[tuple[str, str]] | None = None,
        body: Any = None,
        content_type: str | None = None,
        accept: str = "application/json",
        idempotent: bool = True,
        retry: bool = True,
    ) -> Any:
        """Send one request, retried as the server asks (:mod:`constructs_nld.deploy.throttle`); its JSON answer.

        A request that is not ``idempotent`` (a write with a precondition) is not resent:
        after the wait it raises :class:`RereadError`, for its caller to read again.
        """
        headers = {"Accept": accept}
        if content_type:
            headers["Content-Type"] = content_type
        method, url, headers, body, _ = self._api.param_serialize(
            method=method,
            resource_path=path,
            query_params=query or [],
            header_params=headers,
            body=body,
            auth_settings=["BearerToken"],
        )
        what = describe_request(method, path)
        started = self._clock()
        end = started + self._timeout
        retries = Retry(end if retry else started, self._backoff, self._rng)
        while True:
            stop.check()
            paced = self._bucket.take()
            if paced > 0:
                self._sleep(min(paced, max(end - self._clock(), 0.0)))
            failure, attempt = self._attempt(what, method, url, headers, body, end - self._clock())
            if attempt is None:
                return failure
            delay = retries.next_delay(attempt, self._clock())
            if delay is None:
                raise self._give_up(what, attempt, failure, retries)
            if attempt.throttled:
                self.retries.throttled += 1
            else:
                self.retries.unavailable += 1
            self.retries.waited += delay
            self.on_retry(f"[retry] {what}: {attempt}; retry {retries.retries} in {delay:.1f}s")
            self._sleep(delay)
            if not idempotent:
                raise RereadError(
                    f"{what}: {attempt}: a write with a precondition, not resent without a fresh read; rerun "
                    "when the load drops",
                    throttled=attempt.throttled,
                )

    def _attempt(
        self, what: str, method: str, url: str, headers: dict[str, str], body: Any, seconds: float
    ) -> tuple[Any, Attempt | None]:
        """One attempt within ``seconds`` of wall-clock time: (the JSON answer, None), or (the error, how it ended).

        The time bounds the whole exchange (:func:`~constructs_nld.deploy.transport.deadline`):
        connecting, sending, and every byte of the answer.
        """
        if seconds <= 0:
            return TimeoutError("timed out"), Attempt(None, "timed out", transient=True)
        with deadline(seconds) as watch:
            try:
                response = self._api.call_api(method, url, header_params=headers, body=body, _request_timeout=seconds)
                data = read_body(response.response, defaults.API_RESPONSE_CAP)
            except ResponseTooLargeError as error:
                raise MalformedAnswerError(f"{what}: {error}; not read further") from None
            except ApiException as error:
                if error.status:
                    raise
                return self._lost(error, watch)
            except Exception as error:  # urllib3's connection errors have no common base worth naming
                return self._lost(error, watch)
        self._saw_date(response.headers)
        if 200 <= response.status <= 299:
            return _json_object(what, response.headers, data), None
        text = data.decode("utf-8", errors="replace")
        answer = Attempt(
            response.status,
            f"{response.status} {response.reason}",
            retry_after_seconds(dict(response.headers or {}), time.time()),
        )
        try:
            ApiException.from_response(http_resp=response, body=text, data=None)  # raises the status's subclass
        except ApiException as error:
            return error, answer
        raise AssertionError("ApiException.from_response raises")

    @staticmethod
    def _lost(error: Exception, watch: Watch) -> tuple[Exception, Attempt]:
        """An attempt that ended without an answer: past its deadline, or on a transport error."""
        if watch.expired:
            return TimeoutError("timed out"), Attempt(None, "timed out", transient=True)
        return error, Attempt(None, _reason(error), transient=_transient(error))

    def _give_up(self, what: str, attempt: Attempt, failure: Exception, retry: Retry) -> Exception:
        """The error that ends a request whose retries are over (or that may not be retried)."""
        tries = (
            f"{retry.retries} retr{'y' if retry.retries == 1 else 'ies'} within {self._timeout_flag} {self._timeout:g}s"
        )
        if attempt.throttled:
            return ThrottledError(
                f"throttled: the API server answered {what} with {attempt}, and {tries} did not get it through: "
                f"rerun when the load drops (a rerun continues where this one stopped), or raise {self._timeout_flag}"
            )
        if attempt.status is None:
            error = self._unreachable(failure)
            return ApiUnreachableError(f"{error} ({tries})") if retry.retries else error
        return failure

    def _unreachable(self, error: Exception) -> ApiUnreachableError:
        return ApiUnreachableError(f"cannot reach the API server at {self._api.configuration.host}: {_reason(error)}")

    def _discover(self, api_version: str) -> dict[str, ResourceType] | None:
        """The kinds served under ``api_version`` by kind, or None when it is not served; cached."""
        if api_version not in self._discovered:
            try:
                listing = self._request("GET", api_prefix(api_version))
            except ApiException as error:
                if error.status != 404:
                    raise
                listing = None
            self._discovered[api_version] = (
                None
                if listing is None
                else {
                    resource["kind"]: ResourceType(
                        api_version, resource["kind"], resource["name"], resource["namespaced"]
                    )
                    for resource in listing.get("resources", [])
                    if "/" not in resource["name"]  # subresources such as pods/status
                }
            )
        return self._discovered[api_version]

    def resource_type(self, api_version: str, kind: str) -> ResourceType:
        """Where ``kind`` lives; NodeLocal DNS's own kinds without a request, others by discovery.

        Raises :class:`KindNotServedError` when the cluster does not serve the kind.
        """
        known = _KNOWN.get((api_version, kind))
        if known is not None:
            return known
        served = self._discover(api_version)
        if served is None or kind not in served:
            raise KindNotServedError(f"{kind} ({api_version}) is not served by the cluster")
        return served[kind]

    def resource_of_group_kind(self, group_kind: str) -> ResourceType | None:
        """Where a kind named ``Kind.group`` (``DaemonSet.apps``, ``ConfigMap``) lives, or None when it is not served.

        The group's preferred version, as ``kubectl`` resolves the kinds an ApplySet parent lists.
        """
        kind, _, group = group_kind.partition(".")
        known = next((t for (v, k), t in _KNOWN.items() if k == kind and v.rpartition("/")[0] == group), None)
        if known is not None:
            return known
        if not group:
            versions = ["v1"]
        else:
            try:
                listing = self._request("GET", f"/apis/{segment(group, 'API group')}")
            except ApiException as error:
                if error.status != 404:
                    raise
                return None
            preferred = (listing.get("preferredVersion") or {}).get("groupVersion")
            versions = [preferred] if preferred else [v["groupVersion"] for v in listing.get("versions") or []]
        for api_version in versions:
            served = self._discover(api_version)
            if served is not None and kind in served:
                return served[kind]
        return None

    def ref_of(self, manifest: Mapping[str, Any]) -> ObjectRef:
        """The identity of a manifest, with the namespace the API server will use.

        A namespaced kind without ``metadata.namespace`` lands in :attr:`default_namespace`;
        a cluster-scoped kind has none.
        """
        ref = ObjectRef.of(manifest)
        namespaced = self.resource_type(ref.api_version, ref.kind).namespaced
        namespace = (ref.namespace or self.default_namespace) if namespaced else None
        return ObjectRef(ref.api_version, ref.kind, namespace, ref.name)

    def path(self, ref: ObjectRef) -> str:
        """URL path of the object."""
        collection = self.resource_type(ref.api_version, ref.kind).collection_path(ref.namespace)
        return f"{collection}/{segment(ref.name, 'name')}"

    def get(self, ref: ObjectRef) -> Manifest | None:
        """The live object, or None when it does not exist."""
        try:
            result: Manifest = self._request("GET", self.path(ref))
        except ApiException as error:
            if error.status == 404:
                return None
            raise
        return result

    def list_metadata(
        self, api_version: str, kind: str, namespace: str | None, *, label_selector: str = ""
    ) -> list[Manifest]:
        """The metadata alone (name, uid, owners, deletionTimestamp) of every object :meth:`list` would return.

        A fraction of the bytes of a full list: a wait that polls hundreds of pods for their
        names and owners needs nothing else. Paged as :meth:`list` is.
        """
        path = self.resource_type(api_version, kind).collection_path(namespace)
        accept = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
        return list(self._items(path, label_selector, accept, None))

    def list(
        self,
        api_version: str,
        kind: str,
        namespace: str | None,
        *,
        label_selector: str = "",
        keep: Callable[[Manifest], Manifest] | None = None,
    ) -> list[Manifest]:
        """Every object of ``kind`` in ``namespace`` (or the cluster when None), read a page at a time.

        Pages of :data:`~constructs_nld.defaults.API_PAGE_SIZE` objects (``limit``, then
        ``continue``), so a 5,000-node list is ten modest requests, not one the API server must
        build whole. ``keep`` cuts each object down to what the caller needs as its page
        arrives (a Node without its image list), so at most one page is held whole.
        """
        path = self.resource_type(api_version, kind).collection_path(namespace)
        items = []
        for item in self._items(path, label_selector, "application/json", keep):
            item.setdefault("apiVersion", api_version)
            item.setdefault("kind", kind)
            items.append(item)
        return items

    def _items(
        self, path: str, label_selector: str, accept: str, keep: Callable[[Manifest], Manifest] | None
    ) -> Iterator[Manifest]:
        """The objects of a paged list, each through ``keep``; the list read again from its start if its pages expire.

        A ``continue`` token lives as long as the API server's watch cache keeps its
        revision (about five minutes): a 410 Gone on one means the list restarts, once;
        pages are not mixed across two revisions of the collection.
        """
        what = describe_request("GET", path)
        for restart in (False, True):
            kept: list[Manifest] = []
            token = ""
            try:
                while True:
                    query = [("labelSelector", label_selector)] if label_selector else []
                    query.append(("limit", str(defaults.API_PAGE_SIZE)))
                    if token:
                        query.append(("continue", token))
                    items, token = _page(what, self._request("GET", path, query=query, accept=accept))
                    kept.extend(keep(item) if keep else item for item in items)
                    if not token:
                        yield from kept
                        return
            except ApiException as error:
                if error.status != 410 or not token or restart:
                    raise

    def delete(
        self, ref: ObjectRef, *, uid: str | None = None, propagation: str = "Background", dry_run: bool = False
    ) -> Manifest | None:
        """Delete ``ref`` (only the object with ``uid`` when given); the object as it was, or None when already gone.

        ``propagation`` is the API's ``propagationPolicy``: ``Foreground`` keeps the object
        until the garbage collector has deleted its dependents (a DaemonSet's pods);
        ``Background`` removes it at once and them after.
        """
        body: dict[str, Any] = {"apiVersion": "v1", "kind": "DeleteOptions", "propagationPolicy": propagation}
        if uid is not None:
            body["preconditions"] = {"uid": uid}
        query = []
        if dry_run:
            # With a body the API server reads DeleteOptions from it alone; the query says the
            # same for whoever reads the request line (an audit log).
            body["dryRun"] = ["All"]
            query.append(("dryRun", "All"))
        try:
            result: Manifest = self._request(
                "DELETE", self.path(ref), query=query, body=body, content_type="application/json"
            )
        except ApiException as error:
            if error.status == 404:
                return None
            raise
        return result

    def apply(
        self,
        manifest: Manifest,
        *,
        dry_run: bool = False,
        resource_version: str = "",
        field_manager: str = FIELD_MANAGER,
        force: bool = True,
    ) -> Manifest:
        """Server-side apply ``manifest`` as ``field_manager``, forcing ownership of its fields unless not ``force``.

        With ``resource_version``, only if the object is still at that version (a 409
        otherwise); throttled or lost on the way, such an apply raises :class:`RereadError`
        rather than going again. Without ``force``, a field another manager owns with another
        value is a 409 conflict (sent again, the same apply by the same manager is none).
        """
        query = [("fieldManager", field_manager), ("force", "true" if force else "false")]
        if dry_run:
            query.append(("dryRun", "All"))
        body = manifest
        if resource_version:
            body = {**manifest, "metadata": {**manifest["metadata"], "resourceVersion": resource_version}}
        result: Manifest = self._request(
            "PATCH",
            self.path(self.ref_of(manifest)),
            query=query,
            body=body,
            content_type="application/apply-patch+yaml",
            idempotent=not resource_version,
        )
        return result

    def merge_patch(
        self, ref: ObjectRef, patch: Mapping[str, Any], *, field_manager: str, dry_run: bool = False
    ) -> Manifest:
        """JSON merge patch of ``ref``, owned by ``field_manager``.

        A patch that sets ``metadata.resourceVersion`` is conditional: throttled or lost, it
        raises :class:`RereadError` rather than going again.
        """
        query = [("fieldManager", field_manager)]
        if dry_run:
            query.append(("dryRun", "All"))
        conditional = "resourceVersion" in (patch.get("metadata") or {})
        result: Manifest = self._request(
            "PATCH",
            self.path(ref),
            query=query,
            body=dict(patch),
            content_type="application/merge-patch+json",
            idempotent=not conditional,
        )
        return result

    def json_patch(
        self, ref: ObjectRef, operations: Sequence[Mapping[str, Any]], *, field_manager: str, dry_run: bool = False
    ) -> Manifest:
        """RFC 6902 JSON patch of ``ref`` (e.g. guarded by a ``test`` of the resourceVersion).

        A patch with a ``test`` is conditional: throttled or lost, it raises :class:`RereadError`.
        """
        query = [("fieldManager", field_manager)]
        if dry_run:
            query.append(("dryRun", "All"))
        result: Manifest = self._request(
            "PATCH",
            self.path(ref),
            query=query,
            body=[dict(op) for op in operations],
            content_type="application/json-patch+json",
            idempotent=not any(op.get("op") == "test" for op in operations),
        )
        return result

    def _review(self, kind: str, spec: Mapping[str, Any]) -> Manifest:
        """POST one review of the authorization API about this client's user; its ``status``."""
        body = {"apiVersion": "authorization.k8s.io/v1", "kind": kind, "spec": dict(spec)}
        answer = self._request(
            "POST", f"/apis/authorization.k8s.io/v1/{kind.lower()}s", body=body, content_type="application/json"
        )
        status: Manifest = (answer or {}).get("status", {})
        return status

    def allowed(self, verb: str, group: str, resource: str, namespace: str | None, name: str | None = None) -> bool:
        """Whether this client's user may ``verb`` ``resource`` there (the object ``name``): a SelfSubjectAccessReview.

        Every authenticated user may ask (Kubernetes' ``system:basic-user`` role), and the
        answer is the authorizer's own, whatever it is (RBAC, a webhook). With a name, a rule
        limited to ``resourceNames`` answers as it does for the request on that object.
        """
        attributes = {"verb": verb, "group": group, "resource": resource}
        if namespace:
            attributes["namespace"] = namespace
        if name:
            attributes["name"] = name
        return bool(self._review("SelfSubjectAccessReview", {"resourceAttributes": attributes}).get("allowed"))

    def username(self) -> str:
        """This client's user as the API server authenticated it: a SelfSubjectReview (``authentication.k8s.io/v1``).

        Every authenticated user may ask (``system:basic-user``); the answer is the name the
        API server's audit log shows, whatever the kubeconfig calls its user.
        """
        body = {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}
        answer = self._request(
            "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", body=body, content_type="application/json"
        )
        user = ((answer or {}).get("status") or {}).get("userInfo") or {}
        return str(user.get("username") or "")

    def rules_review(self, namespace: str) -> tuple[Manifest, ...]:
        """The resource rules this client's user has in ``namespace``: a SelfSubjectRulesReview.

        One request for every rule, where an access review asks about one verb on one
        resource. It may miss what an authorizer cannot list (a webhook), so a permission it
        does not show is not refused until an access review says so.
        """
        return tuple(self._review("SelfSubjectRulesReview", {"namespace": namespace}).get("resourceRules") or ())

    def version(self, *, retry: bool = True) -> str:
        """The API server's version (``/version``): a read any authenticated user may make, to test credentials.

        Without ``retry``, the first answer is final: a fleet's preflight does not wait for a
        cluster that is down.
        """
        answer: Manifest = self._request("GET", "/version", retry=retry)
        return str(answer.get("gitVersion", ""))

    def served_resources(self, group_version: str) -> set[str] | None:
        """The resource plurals served under ``group_version``, or None when the group is not served."""
        served = self._discover(group_version)
        return None if served is None else {resource.plural for resource in served.values()}


def _json_object(what: str, headers: Mapping[str, str] | None, data: bytes) -> Manifest | None:
    """A 2xx answer's JSON object (None when empty); anything else refused on one line."""
    if not data:
        return None
    try:
        answer = json.loads(data)
    except ValueError:
        kind = (headers or {}).get("Content-Type") or "no Content-Type"
        start = printable(data[:40].decode("utf-8", "replace"))
        raise MalformedAnswerError(
            f"{what}: the answer is not JSON ({printable(kind)}, starting {start!r}): a proxy or login page in the way?"
        ) from None
    if not isinstance(answer, dict):
        raise MalformedAnswerError(f"{what}: the answer is JSON but not an object (a {type(answer).__name__})")
    return answer


def _page(what: str, answer: Manifest | None) -> tuple[list[Manifest], str]:
    """A list page's objects and its ``continue`` token ("" on the last page); a malformed page refused on one line."""
    if answer is None:
        raise MalformedAnswerError(f"{what}: an empty answer where a list was expected")
    items = answer.get("items") or []
    metadata = answer.get("metadata") or {}
    if not isinstance(items, list) or not all(
        isinstance(item, dict) and isinstance(item.get("metadata"), dict) for item in items
    ):
        raise MalformedAnswerError(f"{what}: the answer is not a list of objects (items without metadata)")
    token = metadata.get("continue", "") if isinstance(metadata, dict) else None
    if not isinstance(token, str):
        raise MalformedAnswerError(f"{what}: the list's metadata.continue is not a string")
    return items, token


def _causes(error: BaseException) -> list[BaseException]:
    """``error`` and what caused it: urllib3's ``reason``, then ``__cause__`` or ``__context__``."""
    chain: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in chain:
        chain.append(current)
        reason = getattr(current, "reason", None)
        current = reason if isinstance(reason, BaseException) else (current.__cause__ or current.__context__)
    return chain


def _transient(error: BaseException) -> bool:
    """A connection refused, reset, broken or timed out: what a restarting or overloaded server causes.

    Not a TLS error or an unknown host name, which the next attempt would meet again.
    """
    chain = _causes(error)
    if any(isinstance(cause, ssl.SSLError | socket.gaierror) for cause in chain):
        return False
    return any(isinstance(cause, ConnectionError | TimeoutError | Urllib3Timeout | ProtocolError) for cause in chain)


def _reason(error: BaseException) -> str:
    """The root cause of a transport error in a few words, not urllib3's nested reprs."""
    chain = _causes(error)
    for cause in reversed(chain):
        if isinstance(cause, ssl.SSLError):
            return f"TLS error: {getattr(cause, 'reason', None) or cause}"
        if isinstance(cause, TimeoutError | socket.timeout) or "timed out" in str(cause).lower():
            return "timed out"
        if isinstance(cause, OSError) and cause.strerror:
            return str(cause.strerror).lower()
    return type(chain[-1]).__name__
