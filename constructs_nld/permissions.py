"""What each command of the deployer may do in a cluster: its RBAC rules, derived from the app's objects.

A platform team's CI deploys with a service account, not as cluster-admin. The rules below
are the least that ``deploy``, ``verify``, ``uninstall`` and ``cutover`` need for an app's objects;
``soak`` needs none (it asks Prometheus only). One table serves both sides:

- :class:`~constructs_nld.rbac.DeployerRBAC` renders them as Roles (one per namespace) and a
  ClusterRole per command, for a cluster admin to apply once;
- each command checks them with SelfSubjectAccessReviews before its first write
  (:mod:`constructs_nld.deploy.access`), so a missing rule is refused on one line naming the
  verb and the resource, with nothing applied.

Per command, for the namespaced kinds of the app (the ApplySet's kinds) in every namespace
the app uses:

- ``deploy``: ``get``, ``list``, ``patch`` (server-side apply) and ``delete`` (the prune of
  what the app no longer defines) on each kind the app has in that namespace, ``create``
  beside ``patch`` (a server-side apply that creates is authorized as a create too), and
  ``list`` on the set's other kinds there (the prune looks for members everywhere in the
  set); ``list`` on the pods of the component's namespace (the restart, ``--wait``);
- ``uninstall``: the same without ``patch`` and ``create``, and ``delete`` on the pods (one
  its DaemonSet no longer controls would intercept with nothing to forward to);
- ``verify``: ``get`` on each kind the app has, ``list`` on the component's pods, on the
  cluster's nodes (the taints the DaemonSet must tolerate) and on every PrometheusRule (no
  rule may query a metric that does not exist).
- ``cutover``: ``deploy``'s (``promote`` is a deploy), ``delete`` on the pods (``start``
  replaces the canary's), ``list`` on the nodes (the canary is chosen among them) and ``get``
  on the ControllerRevisions of the component's namespace (``rollback`` puts back the template
  the DaemonSet controller recorded).

A cluster-scoped object of the app (a team's Namespace) gets its verbs cluster-wide. Pure
code: the CLI imports it without cdk8s.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, get_args

from constructs_nld import defaults

__all__ = [
    "RBAC_COMMANDS",
    "Command",
    "Permission",
    "Resource",
    "Rule",
    "component_resources",
    "describe",
    "grants",
    "rules",
]

Command = Literal["deploy", "verify", "uninstall", "cutover"]
"""The commands that talk to the API server; ``soak`` reads Prometheus only."""

RBAC_COMMANDS: Final[tuple[Command, ...]] = get_args(Command)
"""Every :data:`Command`, in the order the docs list them."""

MONITORING_GROUP: Final = defaults.MONITORING_GROUP
_DEPLOY_VERBS: Final = ("get", "list", "create", "patch", "delete")
_UNINSTALL_VERBS: Final = ("get", "list", "delete")
_POD_VERBS: Final = {
    "deploy": ("list",),
    "verify": ("list",),
    "uninstall": ("list", "delete"),
    "cutover": ("list", "delete"),
}


@dataclass(frozen=True, order=True)
class Resource:
    """Where the app has objects: a resource (group and plural) in a namespace, or cluster-scoped (None)."""

    group: str
    plural: str
    namespace: str | None


@dataclass(frozen=True, order=True)
class Permission:
    """One verb on one resource, in a namespace or (None) across the cluster: what an access review asks."""

    verb: str
    group: str
    resource: str
    namespace: str | None


@dataclass(frozen=True, order=True)
class Rule:
    """An RBAC rule: ``verbs`` on ``resources`` of one API group, in a namespace (a Role) or (None) a ClusterRole."""

    namespace: str | None
    group: str
    resources: tuple[str, ...]
    verbs: tuple[str, ...]

    def permissions(self) -> Iterator[Permission]:
        """Every verb on every resource the rule grants."""
        for resource in self.resources:
            for verb in self.verbs:
                yield Permission(verb, self.group, resource, self.namespace)

    def manifest(self) -> dict[str, Any]:
        """The rule as a Role or ClusterRole lists it."""
        return {"apiGroups": [self.group], "resources": list(self.resources), "verbs": list(self.verbs)}

    def __str__(self) -> str:
        """``get, list configmaps, services in namespace kube-system``."""
        where = f"in namespace {self.namespace}" if self.namespace else "cluster-wide"
        group = f" ({self.group})" if self.group else ""
        return f"{', '.join(self.verbs)} {', '.join(self.resources)}{group} {where}"


def grants(rule: Mapping[str, Any], permission: Permission) -> bool:
    """Whether an RBAC rule (as a rules review lists it) grants ``permission`` wherever the rule holds.

    ``*`` matches any verb, group or resource. A rule limited to ``resourceNames`` is read as
    granting nothing here: a command acts on names it learns from the app, and a ``list`` or
    ``create`` is never limited by name.
    """
    if rule.get("resourceNames"):
        return False
    verbs, groups, resources = (list(rule.get(key) or []) for key in ("verbs", "apiGroups", "resources"))
    return (
        ("*" in verbs or permission.verb in verbs)
        and ("*" in groups or permission.group in groups)
        and ("*" in resources or permission.resource in resources)
    )


def describe(permissions: Iterable[Permission]) -> str:
    """Permissions in few words, by place then resource: ``in namespace kube-system: list, delete pods; ...``."""
    places: dict[str | None, dict[str, list[str]]] = {}
    for p in permissions:
        resource = f"{p.resource}{'.' + p.group if p.group else ''}"
        places.setdefault(p.namespace, {}).setdefault(resource, []).append(p.verb)
    return "; ".join(
        f"{'in namespace ' + where if where else 'cluster-wide'}: "
        + "; ".join(f"{', '.join(verbs)} {resource}" for resource, verbs in by_resource.items())
        for where, by_resource in places.items()
    )


_PLURALS: Final = {
    "ConfigMap": ("", "configmaps"),
    "Service": ("", "services"),
    "ServiceAccount": ("", "serviceaccounts"),
    "DaemonSet": ("apps", "daemonsets"),
    "PodMonitor": (MONITORING_GROUP, "podmonitors"),
    "PrometheusRule": (MONITORING_GROUP, "prometheusrules"),
}
"""The resources of the kinds NodeLocal DNS is made of (:data:`constructs_nld.roles.ROLES`)."""


def component_resources(manifests: Iterable[dict[str, Any]]) -> set[Resource]:
    """The resources of NodeLocal DNS manifests, without a cluster to ask: their kinds are known.

    A kind outside NodeLocal DNS's raises ``ValueError``: only the API server's discovery
    knows its resource (the deploy asks it, :mod:`constructs_nld.deploy.access`).
    """
    found: set[Resource] = set()
    for manifest in manifests:
        kind = manifest["kind"]
        if kind not in _PLURALS:
            raise ValueError(f"{kind}: not a kind of NodeLocal DNS (one of {', '.join(sorted(_PLURALS))})")
        group, plural = _PLURALS[kind]
        found.add(Resource(group, plural, manifest.get("metadata", {}).get("namespace") or defaults.NAMESPACE))
    return found


def rules(
    command: Command,
    resources: Iterable[Resource],
    *,
    namespace: str = defaults.NAMESPACE,
    monitoring_served: bool = True,
) -> tuple[Rule, ...]:
    """The rules ``command`` needs for an app whose objects are ``resources``, NodeLocal DNS living in ``namespace``.

    ``monitoring_served``: whether the cluster serves PrometheusRules (``verify`` lists them
    all then). One rule per namespace, API group and set of verbs, in a stable order.
    """
    objects = set(resources)
    if command != "verify":
        # The ApplySet parent: a ConfigMap in the component's namespace (constructs_nld.deploy.applyset).
        objects.add(Resource("", "configmaps", namespace))
    grants: dict[tuple[str | None, str, tuple[str, ...]], set[str]] = {}

    def grant(where: str | None, group: str, plural: str, verbs: tuple[str, ...]) -> None:
        grants.setdefault((where, group, verbs), set()).add(plural)

    if command == "verify":
        for resource in objects:
            grant(resource.namespace, resource.group, resource.plural, ("get",))
        grant(None, "", "nodes", ("list",))
        if monitoring_served:
            grant(None, MONITORING_GROUP, "prometheusrules", ("list",))
    else:
        verbs = _UNINSTALL_VERBS if command == "uninstall" else _DEPLOY_VERBS
        namespaces = {resource.namespace for resource in objects if resource.namespace}
        kinds = {(resource.group, resource.plural) for resource in objects if resource.namespace}
        for where in namespaces:
            for group, plural in kinds:
                grant(where, group, plural, verbs if Resource(group, plural, where) in objects else ("list",))
        for resource in objects:
            if resource.namespace is None:
                grant(None, resource.group, resource.plural, verbs)
    if command == "cutover":
        grant(None, "", "nodes", ("list",))
        grant(namespace, "apps", "controllerrevisions", ("get",))
    grant(namespace, "", "pods", _POD_VERBS[command])
    return tuple(
        sorted(
            (Rule(where, group, tuple(sorted(plurals)), verbs) for (where, group, verbs), plurals in grants.items()),
            key=lambda rule: (rule.namespace != namespace, rule.namespace or "~", rule.group, rule.resources),
        )
    )
