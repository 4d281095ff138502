"""Before a command's first write: may the kubeconfig's user do everything the command will do?

The rules each command needs come from :mod:`constructs_nld.permissions`, for the objects
this run touches. One SelfSubjectRulesReview per namespace shows most of them granted;
every other permission is asked as a SelfSubjectAccessReview (the authorizer's own answer,
RBAC or a webhook). The ones refused are named on one line by
:class:`~constructs_nld.deploy.errors.ForbiddenError`, before the command writes anything:
a deploy stopped half-way by a missing ``patch`` on the monitoring objects would leave a
workload without its alerts.
"""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Final

from constructs_nld.deploy import stop
from constructs_nld.deploy.component import Component
from constructs_nld.deploy.errors import ForbiddenError
from constructs_nld.deploy.kube import KindNotServedError, KubeClient, ObjectRef
from constructs_nld.deploy.options import HelmDriver
from constructs_nld.permissions import Command, Permission, Resource, describe, grants, rules

__all__ = ["check_access", "resources", "served_refs"]

_PARALLEL: Final = 8
"""Reviews in flight at once."""

_WHAT: Final[dict[Command, str]] = {
    "deploy": "nothing applied",
    "verify": "nothing checked",
    "uninstall": "nothing deleted",
    "cutover": "nothing applied",
}


def resources(client: KubeClient, refs: Iterable[ObjectRef]) -> set[Resource]:
    """The objects of ``refs``, their resources as the API server's discovery names them."""
    found: set[Resource] = set()
    for ref in refs:
        served = client.resource_type(ref.api_version, ref.kind)
        group = ref.api_version.rpartition("/")[0]
        found.add(Resource(group, served.plural, ref.namespace if served.namespaced else None, ref.name))
    return found


def served_refs(client: KubeClient, component: Component) -> list[ObjectRef]:
    """The component's objects whose kinds the cluster serves (no access is needed to what cannot exist)."""
    refs: list[ObjectRef] = []
    for obj in component.objects():
        try:
            refs.append(client.ref_of(obj))
        except KindNotServedError:
            continue
    return refs


def _allowed(client: KubeClient, needed: list[Permission]) -> list[bool]:
    """Whether each permission is granted: a rules review per namespace, an access review for the rest.

    The rules review answers most of them in one request per namespace; what it does not
    show as granted (a cluster-wide permission, a rule it could not list, a real refusal) is
    asked one by one, so every refusal is the authorizer's own answer.
    """
    namespaces = sorted({p.namespace for p in needed if p.namespace})
    with ThreadPoolExecutor(max_workers=_PARALLEL, initializer=stop.leave_signals_to_main) as pool:
        reviews = dict(zip(namespaces, pool.map(client.rules_review, namespaces), strict=True))
        shown = [p.namespace is not None and any(grants(rule, p) for rule in reviews[p.namespace]) for p in needed]
        asked = [p for p, granted in zip(needed, shown, strict=True) if not granted]
        answers = iter(pool.map(lambda p: client.allowed(p.verb, p.group, p.resource, p.namespace, p.name), asked))
    return [granted or next(answers) for granted in shown]


def check_access(
    client: KubeClient,
    command: Command,
    refs: Iterable[ObjectRef],
    *,
    namespace: str,
    monitoring_served: bool = True,
    kube_dns_config: bool = False,
    retired: Iterable[ObjectRef] = (),
    helm_driver: HelmDriver | None = None,
    upstream_endpoints: bool = False,
) -> set[ObjectRef]:
    """Raise :class:`ForbiddenError` naming every permission ``command`` needs for ``refs`` that is refused.

    ``retired``: live members the app no longer defines, which a deploy prunes (read and
    deleted, never applied); those whose delete is refused are returned, not refused: the
    deploy keeps them and says why (rules that name our objects name only the app's, and an
    earlier version's are named only when ``DeployerRBACProps.retired`` lists it).
    ``kube_dns_config``: whether node-cache mounts the ``kube-dns`` ConfigMap, which a
    deploy then reads. ``helm_driver``: the deploy takes over a Helm release whose records
    that driver keeps (:mod:`constructs_nld.deploy.handover`). ``upstream_endpoints``: ``verify``
    reads kube-dns-upstream's EndpointSlices (the app sets a ``trafficDistribution``).
    """
    old = {ref: resource for ref in retired for resource in resources(client, [ref])}
    command_rules = rules(
        command,
        resources(client, refs),
        namespace=namespace,
        monitoring_served=monitoring_served,
        kube_dns_config=kube_dns_config,
        retired=old.values(),
        helm_driver=helm_driver,
        upstream_endpoints=upstream_endpoints,
    )
    needed: list[Permission] = [permission for rule in command_rules for permission in rule.permissions()]
    refused = [permission for permission, allowed in zip(needed, _allowed(client, needed), strict=True) if not allowed]
    kept = {
        ref
        for ref, resource in old.items()
        if any(Resource(p.group, p.resource, p.namespace, p.name) == resource for p in refused)
    }
    refused = [p for p in refused if Resource(p.group, p.resource, p.namespace, p.name) not in old.values()]
    if refused:
        raise ForbiddenError(
            f"{command}: the kubeconfig's user may not, {describe(refused)} "
            f"({_WHAT[command]}; DeployerRBAC grants what each command needs)"
        )
    return kept
