"""Before a command's first write: may the kubeconfig's user do everything the command will do?

The rules each command needs come from :mod:`constructs_nld.permissions`, for the objects
this run touches. Each of their permissions is asked of the API server as a
SelfSubjectAccessReview (the authorizer's own answer, RBAC or a webhook); the ones refused
are named on one line by :class:`~constructs_nld.deploy.errors.ForbiddenError`, before the
command writes anything. A deploy stopped half-way by a missing ``patch`` on the monitoring
objects would leave a workload without its alerts.
"""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Final

from constructs_nld.deploy.component import Component
from constructs_nld.deploy.errors import ForbiddenError
from constructs_nld.deploy.kube import KindNotServedError, KubeClient, ObjectRef
from constructs_nld.permissions import Command, Permission, Resource, describe, rules

__all__ = ["check_access", "resources", "served_refs"]

_PARALLEL: Final = 8
"""Access reviews in flight at once: a deploy asks about thirty."""

_WHAT: Final[dict[Command, str]] = {
    "deploy": "nothing applied",
    "verify": "nothing checked",
    "uninstall": "nothing deleted",
}


def resources(client: KubeClient, refs: Iterable[ObjectRef]) -> set[Resource]:
    """The resources of ``refs``, as the API server's discovery names them."""
    found: set[Resource] = set()
    for ref in refs:
        served = client.resource_type(ref.api_version, ref.kind)
        group = ref.api_version.rpartition("/")[0]
        found.add(Resource(group, served.plural, ref.namespace if served.namespaced else None))
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


def check_access(
    client: KubeClient,
    command: Command,
    refs: Iterable[ObjectRef],
    *,
    namespace: str,
    monitoring_served: bool = True,
) -> None:
    """Raise :class:`ForbiddenError` naming every permission ``command`` needs for ``refs`` that is refused."""
    needed: list[Permission] = [
        permission
        for rule in rules(command, resources(client, refs), namespace=namespace, monitoring_served=monitoring_served)
        for permission in rule.permissions()
    ]
    with ThreadPoolExecutor(max_workers=_PARALLEL) as pool:
        answers = list(pool.map(lambda p: client.allowed(p.verb, p.group, p.resource, p.namespace), needed))
    refused = [permission for permission, allowed in zip(needed, answers, strict=True) if not allowed]
    if refused:
        raise ForbiddenError(
            f"{command}: the kubeconfig's user may not, {describe(refused)} "
            f"({_WHAT[command]}; DeployerRBAC grants what each command needs)"
        )
