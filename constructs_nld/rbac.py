"""``DeployerRBAC``: the least a CI service account needs to run ``deploy``, ``verify`` and ``uninstall``.

A cluster admin applies it once (it is not part of the app the deployer deploys: a deploy
that could write its own Roles could grant itself anything). It takes the same
``NodeLocalDNSProps`` as the app, so the rules cover exactly that app's objects, in its
namespaces (:mod:`constructs_nld.permissions` derives them). Per command there is one Role
in each namespace the command touches, a ClusterRole when it needs cluster-wide access
(``verify`` lists nodes and PrometheusRules), and, for each, a binding to ``subjects``:
a read-only CI job gets ``commands=("verify",)``. ``soak`` asks Prometheus only and needs
no rule here.

The commands check these permissions before their first write and name any that is
missing (:mod:`constructs_nld.deploy.access`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from constructs_nld import defaults
from constructs_nld.nodelocaldns import NodeLocalDNS, NodeLocalDNSProps
from constructs_nld.permissions import RBAC_COMMANDS, Command, Rule, component_resources, rules
from constructs_nld.props import check_dns_name, check_labels, check_types, props_or_defaults
from constructs_nld.roles import NAME_LABEL
from constructs_nld.runtime import Construct, cdk8s, k8s

__all__ = ["DeployerRBAC", "DeployerRBACProps", "DeployerSubject", "SubjectKind"]

SubjectKind = Literal["ServiceAccount", "User", "Group"]
"""Who a binding can name."""

_RBAC_GROUP = "rbac.authorization.k8s.io"
_NAME_LABEL_VALUE = "node-local-dns-deployer"
_SUBJECT_KINDS = get_args(SubjectKind)


@dataclass(frozen=True, kw_only=True)
class DeployerSubject:
    """Who gets the rules: a ServiceAccount (with its namespace), a User or a Group."""

    name: str
    """The subject's name."""

    kind: SubjectKind = "ServiceAccount"
    """The subject's kind. Default: ServiceAccount."""

    namespace: str | None = None
    """The ServiceAccount's namespace (required for a ServiceAccount, refused otherwise). Default: - none."""

    def __post_init__(self) -> None:
        """Refuse a ServiceAccount without a namespace, and a namespace on a User or Group."""
        check_types(self)
        if self.kind not in _SUBJECT_KINDS:
            raise ValueError(f"subjects: kind must be one of {', '.join(_SUBJECT_KINDS)}, got {self.kind!r}")
        if self.kind == "ServiceAccount":
            check_dns_name("subjects: name", self.name)
            if self.namespace is None:
                raise ValueError(f"subjects: ServiceAccount {self.name!r} needs its namespace, got none")
            check_dns_name("subjects: namespace", self.namespace)
        elif self.namespace is not None:
            raise ValueError(f"subjects: a {self.kind} has no namespace, got {self.namespace!r} for {self.name!r}")
        elif not self.name:
            raise ValueError(f"subjects: a {self.kind} needs a name, got an empty one")

    def manifest(self) -> k8s.Subject:
        """The subject as a binding lists it."""
        if self.kind == "ServiceAccount":
            return k8s.Subject(kind=self.kind, name=self.name, namespace=self.namespace)
        return k8s.Subject(kind=self.kind, name=self.name, api_group=_RBAC_GROUP)


@dataclass(frozen=True, kw_only=True)
class DeployerRBACProps:
    """Props of :class:`DeployerRBAC`."""

    component: NodeLocalDNSProps = field(default_factory=NodeLocalDNSProps)
    """The app's NodeLocal DNS, as its ``NodeLocalDNSProps`` say: the rules cover its objects. Default: - the spec's."""

    commands: tuple[Command, ...] = RBAC_COMMANDS
    """The commands to grant: ``deploy``, ``verify``, ``uninstall``. Default: - all three."""

    subjects: tuple[DeployerSubject, ...] = ()
    """Who gets the rules: one binding per Role and ClusterRole. Default: - none (no bindings, the roles alone)."""

    name: str = defaults.DEPLOYER_RBAC_NAME
    """The prefix of every object's name: ``<name>-<command>``. Default: node-local-dns-deployer."""

    labels: Mapping[str, str] = field(default_factory=dict)
    """Labels on every object, beside ``app.kubernetes.io/name: node-local-dns-deployer``. Default: - none."""

    retired: tuple[NodeLocalDNSProps, ...] = ()
    """Earlier versions of the component, whose objects a deploy of ``component`` still prunes. Default: - none.

    Every rule names our objects, so an object the app stops defining (a dashboard turned
    off, a renamed Service) is no longer named: list the props it was deployed with here
    until the deploy that prunes it has run. Its objects get ``get`` and ``delete``, no write.
    """

    helm_handover: Literal["secret", "configmap"] | None = None
    """Grant ``deploy`` the handover of a running Helm release, whose records this driver keeps. Default: - none.

    For the one deploy that takes the release over (``--adopt-helm-release``): ``list`` and
    ``patch`` of every Secret (or ConfigMap) of the component's namespace, since Helm names a
    record by its revision and no rule can name it; ``patch`` of pods; ``list`` and ``delete``
    of ControllerRevisions. Wide rights: grant them for the handover, and remove them after.
    """

    def __post_init__(self) -> None:
        """Refuse an empty, unknown or repeated command, a name that cannot prefix an object's, and bad labels."""
        check_types(self)
        if self.helm_handover not in (None, "secret", "configmap"):
            raise ValueError(f"helm_handover: must be secret, configmap or None, got {self.helm_handover!r}")
        if not self.commands:
            raise ValueError(f"commands: must name at least one of {', '.join(RBAC_COMMANDS)}, got none")
        for command in self.commands:
            if command not in RBAC_COMMANDS:
                raise ValueError(f"commands: {command!r} is not one of {', '.join(RBAC_COMMANDS)}")
        if len(set(self.commands)) != len(self.commands):
            raise ValueError(f"commands: each at most once, got {', '.join(self.commands)}")
        longest = max(self.commands, key=len)
        check_dns_name("name", f"{self.name}-{longest}")
        check_labels("labels", self.labels)
        if NAME_LABEL in self.labels:
            raise ValueError(f"labels: must not set {NAME_LABEL!r}, which names these objects {_NAME_LABEL_VALUE}")


class DeployerRBAC(Construct):
    """The deployer's Roles and ClusterRoles, per command, bound to ``subjects``: least privilege for CI."""

    def __init__(self, scope: Construct, id: str, props: DeployerRBACProps | None = None) -> None:
        """Define, per command, its Roles (one per namespace), its ClusterRole if any, and their bindings."""
        super().__init__(scope, id)
        self.props = props_or_defaults(props, DeployerRBACProps)
        manifests = _manifests(self.props.component)
        resources = component_resources(manifests)
        retired = {resource for old in self.props.retired for resource in component_resources(_manifests(old))}
        self.rules: dict[Command, tuple[Rule, ...]] = {
            command: rules(
                command,
                resources,
                namespace=self.props.component.namespace,
                kube_dns_config=_mounts_kube_dns_config(manifests),
                retired=retired,
                helm_driver=self.props.helm_handover,
                upstream_endpoints=_sets_traffic_distribution(manifests),
            )
            for command in self.props.commands
        }
        """The rules of each command, as rendered."""
        for command, command_rules in self.rules.items():
            for namespace in dict.fromkeys(rule.namespace for rule in command_rules):
                self._role(command, namespace, [rule for rule in command_rules if rule.namespace == namespace])

    def _role(self, command: Command, namespace: str | None, command_rules: list[Rule]) -> None:
        name = f"{self.props.name}-{command}"
        meta = k8s.ObjectMeta(
            name=name, namespace=namespace, labels={NAME_LABEL: _NAME_LABEL_VALUE, **self.props.labels}
        )
        policy = [
            k8s.PolicyRule(
                api_groups=[r.group],
                resources=list(r.resources),
                resource_names=list(r.names) or None,
                verbs=list(r.verbs),
            )
            for r in command_rules
        ]
        kind = "Role" if namespace else "ClusterRole"
        id = f"{command}-{namespace or 'cluster'}"
        if namespace:
            k8s.KubeRole(self, id, metadata=meta, rules=policy)
        else:
            k8s.KubeClusterRole(self, id, metadata=meta, rules=policy)
        if not self.props.subjects:
            return
        ref = k8s.RoleRef(api_group=_RBAC_GROUP, kind=kind, name=name)
        subjects = [subject.manifest() for subject in self.props.subjects]
        if namespace:
            k8s.KubeRoleBinding(self, f"{id}-binding", metadata=meta, role_ref=ref, subjects=subjects)
        else:
            k8s.KubeClusterRoleBinding(self, f"{id}-binding", metadata=meta, role_ref=ref, subjects=subjects)


def _manifests(props: NodeLocalDNSProps) -> list[dict[str, Any]]:
    """The objects of NodeLocal DNS with ``props``, built in an app of their own that is never synthesized."""
    app = cdk8s.App()
    NodeLocalDNS(app, "nodelocaldns", props)
    return [manifest for chart in app.charts for manifest in chart.to_json()]


def _sets_traffic_distribution(manifests: list[dict[str, Any]]) -> bool:
    """Whether a Service of the app has a ``trafficDistribution`` (``verify`` then reads its EndpointSlices)."""
    return any(manifest["kind"] == "Service" and "trafficDistribution" in manifest["spec"] for manifest in manifests)


def _mounts_kube_dns_config(manifests: list[dict[str, Any]]) -> bool:
    """Whether node-cache's DaemonSet mounts the ``kube-dns`` ConfigMap (a deploy then reads it)."""
    return any(
        (volume.get("configMap") or {}).get("name") == defaults.KUBE_DNS_CONFIG_MAP_NAME
        for manifest in manifests
        if manifest["kind"] == "DaemonSet"
        for volume in manifest["spec"]["template"]["spec"].get("volumes") or []
    )
