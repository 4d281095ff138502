"""What each command of the deployer may do in a cluster: its RBAC rules, derived from the app's objects.

A platform team's CI deploys with a service account, not as cluster-admin. The rules below
are the least that ``deploy``, ``verify``, ``uninstall`` and ``cutover`` need for an app's objects;
``soak`` needs none (it asks Prometheus only). One table serves both sides:

- :class:`~constructs_nld.rbac.DeployerRBAC` renders them as Roles (one per namespace) and a
  ClusterRole per command, for a cluster admin to apply once;
- each command checks them with SelfSubjectAccessReviews before its first write
  (:mod:`constructs_nld.deploy.access`), so a missing rule is refused on one line naming the
  verb and the resource, with nothing applied.

Every verb is granted on the app's objects by name (``resourceNames``) where the request
names the object, so the rules reach none of the other objects of ``kube-system``: not
``aws-auth``, not cluster CoreDNS's ConfigMap, not the kube-proxy or CNI DaemonSets. That
includes ``create``: the deployer creates only by server-side apply, a PATCH to the object's
own path, and the API server authorizes the create it makes of it with that name (the
apiserver's ``handlers/patch.go``); a POST would carry none. Only ``list`` names no object
and stays unnamed; so do the pods' ``delete`` (a DaemonSet's pods have generated names) and
the ControllerRevisions' ``get`` (named by a hash of the template). docs/rbac.md shows an
optional admission policy that limits the pod deletes to the component's pods.

Per command, for the namespaced kinds of the app (the ApplySet's kinds) in every namespace
the app uses:

- ``deploy``: ``get``, ``create`` and ``patch`` (a server-side apply that creates is
  authorized as a create too) and ``delete`` (the prune of what the app no longer defines) on
  each object of the app, by name; ``list`` on its kinds there, and on the set's other kinds
  there (the prune looks for members everywhere in the set); ``list`` on the pods of the
  component's namespace (the restart, ``--wait``);
- ``uninstall``: ``get`` and ``delete`` by name, ``list``, and ``delete`` on the pods (one
  its DaemonSet no longer controls would intercept with nothing to forward to);
- ``verify``: ``get`` on each object of the app by name, ``list`` on the component's pods,
  on the cluster's nodes (the taints the DaemonSet must tolerate) and on every
  PrometheusRule (no rule may query a metric that does not exist); with an
  ``upstream_traffic_distribution``, ``list`` on the EndpointSlices of the component's
  namespace (their zone hints).
- ``cutover``: ``deploy``'s (``promote`` is a deploy), ``delete`` on the pods (``start``
  replaces the canary's), ``list`` on the nodes (the canary is chosen among them) and ``get``
  on the ControllerRevisions of the component's namespace (``rollback`` puts back the template
  the DaemonSet controller recorded).

``deploy`` and ``cutover`` (``promote``) also hold the Lease ``node-local-dns-deploy`` of the
component's namespace while they write (``get``, ``create``, ``patch`` on that name:
:mod:`constructs_nld.deploy.lease`).

The release history (:mod:`constructs_nld.deploy.history`) is one ConfigMap,
``node-local-dns-history``, in the component's namespace: ``deploy``, ``uninstall`` and
``cutover`` (``promote``) record a revision in it (``get``, ``create``, ``patch`` on that
name: a server-side apply, so its create is authorized with the name too), ``verify`` reads it
(``get``). ``history`` and ``rollback`` need no rules of their own: ``history`` reads what
``verify`` may, and ``rollback`` is a deploy (its rules are ``deploy``'s, for the revision's
objects). One object of a fixed name is why: a ConfigMap per revision would be created by
POST, and a ``create`` by POST names no object, so RBAC could not limit it (nor the prune's
``delete``) to the history's objects: it would reach every ConfigMap of ``kube-system``. The
user's own name comes from a SelfSubjectReview, which every authenticated user may make
(``system:basic-user``), as the access reviews are.

Two objects that are not ours are read, by name and never written: the ``kube-dns``
Service (its ClusterIP, by ``verify``, ``uninstall`` and ``cutover``), and the ``kube-dns``
ConfigMap (``verify`` checks it; ``deploy`` and ``cutover`` read it when node-cache mounts it).

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
_NAMED_VERBS: Final = frozenset({"get", "create", "patch", "update", "delete"})
"""The verbs whose requests name our objects, which a rule then limits by ``resourceNames``."""
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
    """An object of the app: its resource (group and plural), its namespace or None (cluster-scoped), and its name.

    A name of None stands for every object of the resource there.
    """

    group: str
    plural: str
    namespace: str | None
    name: str | None = None


@dataclass(frozen=True, order=True)
class Permission:
    """One verb on one resource, in a namespace or (None) across the cluster, on one object or (None) any.

    What an access review asks.
    """

    verb: str
    group: str
    resource: str
    namespace: str | None
    name: str | None = None


@dataclass(frozen=True, order=True)
class Rule:
    """An RBAC rule: ``verbs`` on ``resources`` of one API group, in a namespace (a Role) or (None) a ClusterRole.

    With ``names``, only on the objects so named (``resourceNames``).
    """

    namespace: str | None
    group: str
    resources: tuple[str, ...]
    verbs: tuple[str, ...]
    names: tuple[str, ...] = ()

    def permissions(self) -> Iterator[Permission]:
        """Every verb on every resource (and named object) the rule grants."""
        for resource in self.resources:
            for name in self.names or (None,):
                for verb in self.verbs:
                    yield Permission(verb, self.group, resource, self.namespace, name)

    def manifest(self) -> dict[str, Any]:
        """The rule as a Role or ClusterRole lists it."""
        rule: dict[str, Any] = {"apiGroups": [self.group], "resources": list(self.resources)}
        if self.names:
            rule["resourceNames"] = list(self.names)
        rule["verbs"] = list(self.verbs)
        return rule

    def __str__(self) -> str:
        """``get, list configmaps, services in namespace kube-system``, or ``get configmaps named kube-dns ...``."""
        where = f"in namespace {self.namespace}" if self.namespace else "cluster-wide"
        group = f" ({self.group})" if self.group else ""
        named = f" named {', '.join(self.names)}" if self.names else ""
        return f"{', '.join(self.verbs)} {', '.join(self.resources)}{group}{named} {where}"


def grants(rule: Mapping[str, Any], permission: Permission) -> bool:
    """Whether an RBAC rule (as a rules review lists it) grants ``permission`` wherever the rule holds.

    ``*`` matches any verb, group or resource. A rule limited to ``resourceNames`` grants a
    permission only on one of those names: never a ``list`` or a ``create``, which name no
    object (as the RBAC authorizer reads it).
    """
    verbs, groups, resources, names = (
        list(rule.get(key) or []) for key in ("verbs", "apiGroups", "resources", "resourceNames")
    )
    return (
        ("*" in verbs or permission.verb in verbs)
        and ("*" in groups or permission.group in groups)
        and ("*" in resources or permission.resource in resources)
        and (not names or permission.name in names)
    )


def describe(permissions: Iterable[Permission]) -> str:
    """Permissions in few words, by place then resource: ``in namespace kube-system: list, delete pods; ...``.

    A named object is written as kubectl writes it: ``patch daemonsets.apps/node-local-dns``.
    """
    places: dict[str | None, dict[str, list[str]]] = {}
    for p in permissions:
        resource = f"{p.resource}{'.' + p.group if p.group else ''}{'/' + p.name if p.name else ''}"
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
        metadata = manifest.get("metadata", {})
        found.add(Resource(group, plural, metadata.get("namespace") or defaults.NAMESPACE, metadata.get("name")))
    return found


def rules(
    command: Command,
    resources: Iterable[Resource],
    *,
    namespace: str = defaults.NAMESPACE,
    monitoring_served: bool = True,
    kube_dns_config: bool = False,
    retired: Iterable[Resource] = (),
    helm_driver: Literal["secret", "configmap"] | None = None,
    upstream_endpoints: bool = False,
) -> tuple[Rule, ...]:
    """The rules ``command`` needs for an app whose objects are ``resources``, NodeLocal DNS living in ``namespace``.

    ``monitoring_served``: whether the cluster serves PrometheusRules (``verify`` lists them
    all then). ``kube_dns_config``: whether node-cache mounts the ``kube-dns`` ConfigMap
    (``deploy`` then reads it, for the stub domains node-cache would serve twice).
    ``retired``: objects an earlier version of the app had, which ``deploy`` and ``cutover``
    prune: ``get`` and ``delete`` on them, never a write. ``helm_driver``: ``deploy`` takes a Helm
    release over, whose records that driver keeps in ``namespace`` (``list`` and ``patch`` them;
    ``patch`` its pods, ``list`` and ``delete`` its DaemonSet's revisions). ``upstream_endpoints``: the app
    gives kube-dns-upstream a ``trafficDistribution``, whose zone hints ``verify`` reads from the
    Service's EndpointSlices (``list`` there: their names are generated). One rule per namespace, API group,
    set of verbs and set of names, in a stable order.
    """
    objects = set(resources)
    if command != "verify":
        # The ApplySet parent: a ConfigMap in the component's namespace (constructs_nld.deploy.applyset).
        objects.add(Resource("", "configmaps", namespace, defaults.APPLYSET_NAME))
    by_place: dict[tuple[str | None, str, str], set[str | None]] = {}
    for resource in objects:
        by_place.setdefault((resource.namespace, resource.group, resource.plural), set()).add(resource.name)
    grants: dict[tuple[str | None, str, tuple[str, ...], tuple[str, ...]], set[str]] = {}

    def grant(where: str | None, group: str, plural: str, verbs: tuple[str, ...], names: tuple[str, ...] = ()) -> None:
        grants.setdefault((where, group, verbs, names), set()).add(plural)

    def grant_objects(where: str | None, group: str, plural: str, verbs: tuple[str, ...]) -> None:
        """``verbs`` on the objects of a resource there: by name where a rule can say it, else on any."""
        names = by_place[(where, group, plural)]
        if None in names:
            grant(where, group, plural, verbs)
            return
        named = tuple(verb for verb in verbs if verb in _NAMED_VERBS)
        unnamed = tuple(verb for verb in verbs if verb not in _NAMED_VERBS)
        if named:
            grant(where, group, plural, named, tuple(sorted(n for n in names if n is not None)))
        if unnamed:
            grant(where, group, plural, unnamed)

    if command == "verify":
        for where, group, plural in by_place:
            grant_objects(where, group, plural, ("get",))
        grant(None, "", "nodes", ("list",))
        if monitoring_served:
            grant(None, MONITORING_GROUP, "prometheusrules", ("list",))
        if upstream_endpoints:
            grant(namespace, "discovery.k8s.io", "endpointslices", ("list",))
    else:
        verbs = _UNINSTALL_VERBS if command == "uninstall" else _DEPLOY_VERBS
        namespaces = {where for where, _, _ in by_place if where}
        kinds = {(group, plural) for where, group, plural in by_place if where}
        for where in namespaces:
            for group, plural in kinds:
                if (where, group, plural) in by_place:
                    grant_objects(where, group, plural, verbs)
                else:
                    grant(where, group, plural, ("list",))
        for where, group, plural in by_place:
            if where is None:
                grant_objects(None, group, plural, verbs)
    if command in ("deploy", "cutover"):
        pruned: dict[tuple[str | None, str, str], set[str | None]] = {}
        for resource in set(retired) - objects:
            pruned.setdefault((resource.namespace, resource.group, resource.plural), set()).add(resource.name)
        for (where, group, plural), names in pruned.items():
            if where is not None and (where, group, plural) not in by_place:
                grant(where, group, plural, ("list",))
            if None in names:
                grant(where, group, plural, ("get", "delete"))
            else:
                grant(where, group, plural, ("get", "delete"), tuple(sorted(n for n in names if n is not None)))
    if command in ("deploy", "cutover"):
        grant(namespace, "coordination.k8s.io", "leases", ("get", "create", "patch"), (defaults.DEPLOY_LEASE_NAME,))
    # The release history: one ConfigMap of a fixed name, written by server-side apply (constructs_nld.deploy.history).
    history_verbs = ("get",) if command == "verify" else ("get", "create", "patch")
    grant(namespace, "", "configmaps", history_verbs, (defaults.HISTORY_NAME,))
    if command == "cutover":
        grant(None, "", "nodes", ("list",))
        grant(namespace, "apps", "controllerrevisions", ("get",))
    grant(namespace, "", "pods", _POD_VERBS[command])
    if helm_driver is not None and command == "deploy":
        # Helm names a record by its revision, so no rule can name them: the records' kind, in the namespace.
        grant(namespace, "", "secrets" if helm_driver == "secret" else "configmaps", ("list", "patch"))
        grant(namespace, "", "pods", ("patch",))
        grant(namespace, "apps", "controllerrevisions", ("list", "delete"))
    if command != "deploy":
        grant(defaults.NAMESPACE, "", "services", ("get",), (defaults.KUBE_DNS_SERVICE_NAME,))
    if command == "verify" or (kube_dns_config and command in ("deploy", "cutover")):
        grant(namespace, "", "configmaps", ("get",), (defaults.KUBE_DNS_CONFIG_MAP_NAME,))
    return tuple(
        sorted(
            (
                Rule(where, group, tuple(sorted(plurals)), verbs, names)
                for (where, group, verbs, names), plurals in grants.items()
            ),
            key=lambda rule: (
                rule.namespace != namespace,
                rule.namespace or "~",
                rule.group,
                rule.resources,
                rule.names,
                rule.verbs,
            ),
        )
    )
