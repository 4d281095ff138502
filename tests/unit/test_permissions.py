"""The deployer's rules as the app's objects decide them, and the refusals of DeployerRBAC's props.

The rules are proven against a real API server's RBAC in tests/integration/test_rbac.py;
these cover what that app does not have: a dashboard, a team's Namespace, a cluster without
PrometheusRules, and every bad prop.
"""

from __future__ import annotations

from typing import Any, Literal

import pytest

from constructs_nld import DeployerRBAC, DeployerRBACProps, DeployerSubject, NodeLocalDNSProps
from constructs_nld.permissions import (
    RBAC_COMMANDS,
    Command,
    Permission,
    Resource,
    Rule,
    component_resources,
    describe,
    grants,
    rules,
)
from constructs_nld.runtime import cdk8s


def _granted(command_rules: tuple[Rule, ...]) -> set[Permission]:
    return {p for rule in command_rules for p in rule.permissions()}


def _allows(command_rules: tuple[Rule, ...], permission: Permission) -> bool:
    """Whether the rules grant ``permission`` as the RBAC authorizer reads them (names included)."""
    return any(grants(rule.manifest(), permission) for rule in command_rules)


def _rbac(props: DeployerRBACProps) -> list[dict[str, Any]]:
    chart = cdk8s.Chart(cdk8s.App(), "rbac")
    DeployerRBAC(chart, "deployer", props)
    return list(chart.to_json())


def test_the_dashboard_in_the_monitoring_namespace_is_written_there_too() -> None:
    plain = DeployerRBAC(cdk8s.Chart(cdk8s.App(), "a"), "d", DeployerRBACProps())
    with_dashboard = DeployerRBAC(
        cdk8s.Chart(cdk8s.App(), "b"), "d", DeployerRBACProps(component=NodeLocalDNSProps(dashboard=True))
    )
    patch = Permission("patch", "", "configmaps", "monitoring", "nodelocaldns-dashboard")

    assert not _allows(plain.rules["deploy"], patch)
    assert _allows(with_dashboard.rules["deploy"], patch)
    assert _allows(
        with_dashboard.rules["verify"], Permission("get", "", "configmaps", "monitoring", "nodelocaldns-dashboard")
    )


def test_a_cluster_scoped_object_gets_its_verbs_cluster_wide() -> None:
    objects = {Resource("", "configmaps", "kube-system"), Resource("", "namespaces", None)}

    deploy = rules("deploy", objects)

    assert Rule(None, "", ("namespaces",), ("get", "list", "create", "patch", "delete")) in deploy
    assert [rule.namespace for rule in deploy] == ["kube-system", "kube-system", "kube-system", "kube-system", None]


@pytest.mark.parametrize(
    ("command", "verbs"),
    [
        ("deploy", ("get", "create", "patch")),
        ("uninstall", ("get", "create", "patch")),
        ("cutover", ("get", "create", "patch")),
        ("verify", ("get",)),
    ],
)
def test_the_release_history_is_granted_by_name_alone(command: Command, verbs: tuple[str, ...]) -> None:
    objects = {Resource("", "daemonsets", "kube-system", "node-local-dns")}

    granted = rules(command, objects)

    history = [rule for rule in granted if "node-local-dns-history" in rule.names]
    assert history == [Rule("kube-system", "", ("configmaps",), verbs, ("node-local-dns-history",))]
    unnamed = [rule for rule in granted if not rule.names and "configmaps" in rule.resources]
    assert all(rule.verbs == ("list",) for rule in unnamed), unnamed


def test_verify_lists_prometheus_rules_only_where_they_are_served() -> None:
    objects = {Resource("", "configmaps", "kube-system")}
    listed = Permission("list", "monitoring.coreos.com", "prometheusrules", None)

    assert listed in _granted(rules("verify", objects))
    assert listed not in _granted(rules("verify", objects, monitoring_served=False))


def test_soak_needs_no_rule_and_is_no_command_of_the_rbac() -> None:
    with pytest.raises(ValueError, match=r"commands: 'soak' is not one of deploy, verify, uninstall"):
        DeployerRBACProps(commands=("soak",))  # type: ignore[arg-type]


def test_a_read_only_job_gets_verify_alone_bound_to_its_subject() -> None:
    objects = _rbac(
        DeployerRBACProps(commands=("verify",), subjects=(DeployerSubject(kind="Group", name="ci-readers"),))
    )

    kinds = sorted((obj["kind"], obj["metadata"]["name"], obj["metadata"].get("namespace")) for obj in objects)
    assert kinds == [
        ("ClusterRole", "node-local-dns-deployer-verify", None),
        ("ClusterRoleBinding", "node-local-dns-deployer-verify", None),
        ("Role", "node-local-dns-deployer-verify", "kube-system"),
        ("Role", "node-local-dns-deployer-verify", "monitoring"),
        ("RoleBinding", "node-local-dns-deployer-verify", "kube-system"),
        ("RoleBinding", "node-local-dns-deployer-verify", "monitoring"),
    ]
    verbs = {verb for obj in objects for rule in obj.get("rules", []) for verb in rule["verbs"]}
    assert verbs == {"get", "list"}
    binding = next(obj for obj in objects if obj["kind"] == "ClusterRoleBinding")
    assert binding["subjects"] == [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "ci-readers"}]


def test_without_subjects_only_the_roles_are_made() -> None:
    assert {obj["kind"] for obj in _rbac(DeployerRBACProps())} == {"Role", "ClusterRole"}


def test_refused_permissions_are_said_by_place_then_resource() -> None:
    text = describe(
        [
            Permission("list", "", "pods", "kube-system"),
            Permission("delete", "", "pods", "kube-system"),
            Permission("patch", "apps", "daemonsets", "kube-system"),
            Permission("list", "", "nodes", None),
        ]
    )

    assert text == "in namespace kube-system: list, delete pods; patch daemonsets.apps; cluster-wide: list nodes"


def test_only_the_kinds_of_node_local_dns_are_known_without_a_cluster() -> None:
    with pytest.raises(ValueError, match=r"Namespace: not a kind of NodeLocal DNS \(one of ConfigMap, DaemonSet"):
        component_resources([{"kind": "Namespace", "metadata": {"name": "team"}}])


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: DeployerRBACProps(commands=()), r"commands: must name at least one of deploy, verify, uninstall"),
        (lambda: DeployerRBACProps(commands=("verify", "verify")), r"commands: each at most once, got verify, verify"),
        (lambda: DeployerRBACProps(name="Deployer"), r"name: must be a DNS label"),
        (lambda: DeployerRBACProps(name="x" * 55), r"name: must be a DNS label .* got 'x{55}-uninstall'"),
        (lambda: DeployerRBACProps(labels={"a b": "c"}), r"labels"),
        (
            lambda: DeployerRBACProps(labels={"app.kubernetes.io/name": "mine"}),
            r"labels: must not set 'app.kubernetes.io/name', which names these objects node-local-dns-deployer",
        ),
        (
            lambda: DeployerRBACProps(helm_handover="sql"),  # type: ignore[arg-type]
            r"helm_handover: must be secret, configmap or None, got 'sql'",
        ),
        (lambda: DeployerSubject(name="ci"), r"subjects: ServiceAccount 'ci' needs its namespace, got none"),
        (lambda: DeployerSubject(name="CI", namespace="ci"), r"subjects: name: must be a DNS label"),
        (
            lambda: DeployerSubject(kind="User", name="alice", namespace="ci"),
            r"subjects: a User has no namespace, got 'ci' for 'alice'",
        ),
        (lambda: DeployerSubject(kind="Group", name=""), r"subjects: a Group needs a name, got an empty one"),
        (
            lambda: DeployerSubject(kind="Robot", name="r"),  # type: ignore[arg-type]
            r"subjects: kind must be one of ServiceAccount, User, Group, got 'Robot'",
        ),
    ],
)
def test_each_bad_prop_is_refused_with_its_reason(build: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        build()


_NAMED = {"verbs": ["patch"], "apiGroups": ["apps"], "resources": ["daemonsets"], "resourceNames": ["node-local-dns"]}


@pytest.mark.parametrize(
    ("rule", "permission", "granted"),
    [
        ({"verbs": ["patch"], "apiGroups": ["apps"], "resources": ["daemonsets"]}, None, True),
        ({"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}, None, True),
        ({"verbs": ["get", "list"], "apiGroups": ["apps"], "resources": ["daemonsets"]}, None, False),
        ({"verbs": ["patch"], "apiGroups": [""], "resources": ["daemonsets"]}, None, False),
        ({"verbs": ["patch"], "apiGroups": ["apps"], "resources": ["deployments"]}, None, False),
        (_NAMED, None, True),
        (_NAMED, Permission("patch", "apps", "daemonsets", "kube-system", "kube-proxy"), False),
        (_NAMED, Permission("patch", "apps", "daemonsets", "kube-system"), False),
        (
            {"verbs": ["patch"], "apiGroups": ["apps"], "resources": ["daemonsets"]},
            Permission("patch", "apps", "daemonsets", "kube-system", "kube-proxy"),
            True,
        ),
        ({"verbs": ["patch"], "apiGroups": ["apps"], "resources": ["daemonsets/status"]}, None, False),
    ],
    ids=[
        "exact",
        "wildcards",
        "other-verbs",
        "other-group",
        "other-resource",
        "by-name",
        "by-another-name",
        "by-name-for-no-name",
        "unnamed-for-a-name",
        "subresource",
    ],
)
def test_a_listed_rule_grants_a_permission_by_verb_group_resource_and_name(
    rule: dict[str, Any], permission: Permission | None, granted: bool
) -> None:
    asked = permission or Permission("patch", "apps", "daemonsets", "kube-system", "node-local-dns")
    assert grants(rule, asked) is granted


_OURS = {
    Resource("", "configmaps", "kube-system", "node-local-dns"),
    Resource("apps", "daemonsets", "kube-system", "node-local-dns"),
}


def test_every_verb_on_our_objects_is_granted_by_name_and_list_on_any() -> None:
    deploy = rules("deploy", _OURS)

    assert (
        Rule("kube-system", "apps", ("daemonsets",), ("get", "create", "patch", "delete"), ("node-local-dns",))
        in deploy
    )
    assert (
        Rule(
            "kube-system",
            "",
            ("configmaps",),
            ("get", "create", "patch", "delete"),
            ("node-local-dns", "node-local-dns-applyset"),
        )
        in deploy
    )
    unnamed = {(p.verb, p.resource) for rule in deploy if not rule.names for p in rule.permissions()}
    assert unnamed == {("list", "configmaps"), ("list", "daemonsets"), ("list", "pods")}


@pytest.mark.parametrize(
    ("name", "verb", "granted"),
    [
        ("aws-auth", "get", False),
        ("aws-auth", "patch", False),
        ("aws-auth", "create", False),
        ("aws-auth", "delete", False),
        ("coredns", "patch", False),
        ("kube-dns", "get", True),
        ("kube-dns", "patch", False),
        ("kube-dns", "delete", False),
        ("node-local-dns", "patch", True),
    ],
)
def test_the_deployers_rules_reach_no_other_configmap_of_kube_system(name: str, verb: str, granted: bool) -> None:
    deploy = rules("deploy", _OURS, kube_dns_config=True)
    asked = Permission(verb, "", "configmaps", "kube-system", name)

    assert any(grants(rule.manifest(), asked) for rule in deploy) is granted


def test_the_kube_dns_configmap_is_read_only_where_node_cache_mounts_it_and_by_verify() -> None:
    read = Permission("get", "", "configmaps", "kube-system", "kube-dns")

    assert read in _granted(rules("deploy", _OURS, kube_dns_config=True))
    assert read not in _granted(rules("deploy", _OURS))
    assert read in _granted(rules("verify", _OURS))


def test_the_kube_dns_service_is_read_by_name_by_the_commands_that_read_the_installed_component() -> None:
    read = Permission("get", "", "services", "kube-system", "kube-dns")

    reading = {command for command in RBAC_COMMANDS if read in _granted(rules(command, _OURS))}

    assert reading == {"verify", "uninstall", "cutover"}


def test_a_retired_object_may_be_read_and_deleted_by_the_deploy_and_never_written() -> None:
    dashboard = Resource("", "configmaps", "monitoring", "nodelocaldns-dashboard")

    deploy = _granted(rules("deploy", _OURS, retired={dashboard}))

    named = {p.verb for p in deploy if p.name == "nodelocaldns-dashboard"}
    assert named == {"get", "delete"}
    assert Permission("list", "", "configmaps", "monitoring") in deploy
    assert not any(p.name == "nodelocaldns-dashboard" for p in _granted(rules("verify", _OURS, retired={dashboard})))


def test_deployer_rbac_names_the_objects_of_its_retired_props_too() -> None:
    with_retired = DeployerRBAC(
        cdk8s.Chart(cdk8s.App(), "a"),
        "d",
        DeployerRBACProps(retired=(NodeLocalDNSProps(dashboard=True),), commands=("deploy", "verify")),
    )
    dashboard = {p for p in _granted(with_retired.rules["deploy"]) if p.namespace == "monitoring" and p.name}

    assert {(p.verb, p.resource) for p in dashboard if "dashboard" in (p.name or "")} == {
        ("get", "configmaps"),
        ("delete", "configmaps"),
    }
    assert not any("dashboard" in (p.name or "") for p in _granted(with_retired.rules["verify"]))


def test_a_rule_with_names_is_rendered_with_resource_names_and_said_with_them() -> None:
    rule = Rule("kube-system", "apps", ("daemonsets",), ("get", "patch"), ("node-local-dns",))

    assert rule.manifest() == {
        "apiGroups": ["apps"],
        "resources": ["daemonsets"],
        "resourceNames": ["node-local-dns"],
        "verbs": ["get", "patch"],
    }
    assert str(rule) == "get, patch daemonsets (apps) named node-local-dns in namespace kube-system"
    assert describe(rule.permissions()) == "in namespace kube-system: get, patch daemonsets.apps/node-local-dns"


@pytest.mark.parametrize(("driver", "records"), [("secret", "secrets"), ("configmap", "configmaps")])
def test_a_helm_handover_grants_the_deploy_its_records_pods_and_revisions_and_nothing_more(
    driver: Literal["secret", "configmap"], records: str
) -> None:
    plain = _granted(rules("deploy", _OURS))

    handover = _granted(rules("deploy", _OURS, helm_driver=driver))

    assert (
        handover - plain
        == {  # a deploy lists the ConfigMaps of its set already
            Permission("list", "", records, "kube-system"),
            Permission("patch", "", records, "kube-system"),
            Permission("patch", "", "pods", "kube-system"),
            Permission("list", "apps", "controllerrevisions", "kube-system"),
            Permission("delete", "apps", "controllerrevisions", "kube-system"),
        }
        - plain
    )
    assert Permission("patch", "", records, "kube-system") in handover - plain
    assert _granted(rules("verify", _OURS, helm_driver=driver)) == _granted(rules("verify", _OURS))
    app = cdk8s.App()
    with_handover = DeployerRBAC(cdk8s.Chart(app, "a"), "d", DeployerRBACProps(helm_handover=driver))
    without = DeployerRBAC(cdk8s.Chart(app, "b"), "d", DeployerRBACProps())
    assert _granted(with_handover.rules["deploy"]) - _granted(without.rules["deploy"]) <= handover - plain
    assert all(_allows(with_handover.rules["deploy"], permission) for permission in handover - plain)


def test_verify_lists_the_upstream_endpoint_slices_only_where_the_app_sets_a_traffic_distribution() -> None:
    listed = Permission("list", "discovery.k8s.io", "endpointslices", "kube-system")
    plain = DeployerRBAC(cdk8s.Chart(cdk8s.App(), "a"), "d", DeployerRBACProps())
    zonal = DeployerRBAC(
        cdk8s.Chart(cdk8s.App(), "b"),
        "d",
        DeployerRBACProps(component=NodeLocalDNSProps(upstream_traffic_distribution="PreferSameZone")),
    )

    assert not _allows(plain.rules["verify"], listed)
    assert _allows(zonal.rules["verify"], listed)
    assert not _allows(zonal.rules["deploy"], listed)
