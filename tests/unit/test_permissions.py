"""The deployer's rules as the app's objects decide them, and the refusals of DeployerRBAC's props.

The rules are proven against a real API server's RBAC in tests/integration/test_rbac.py;
these cover what that app does not have: a dashboard, a team's Namespace, a cluster without
PrometheusRules, and every bad prop.
"""

from __future__ import annotations

from typing import Any

import pytest

from constructs_nld import DeployerRBAC, DeployerRBACProps, DeployerSubject, NodeLocalDNSProps
from constructs_nld.permissions import Permission, Resource, Rule, component_resources, describe, grants, rules
from constructs_nld.runtime import cdk8s


def _granted(command_rules: tuple[Rule, ...]) -> set[Permission]:
    return {p for rule in command_rules for p in rule.permissions()}


def _rbac(props: DeployerRBACProps) -> list[dict[str, Any]]:
    chart = cdk8s.Chart(cdk8s.App(), "rbac")
    DeployerRBAC(chart, "deployer", props)
    return list(chart.to_json())


def test_the_dashboard_in_the_monitoring_namespace_is_written_there_too() -> None:
    plain = DeployerRBAC(cdk8s.Chart(cdk8s.App(), "a"), "d", DeployerRBACProps())
    with_dashboard = DeployerRBAC(
        cdk8s.Chart(cdk8s.App(), "b"), "d", DeployerRBACProps(component=NodeLocalDNSProps(dashboard=True))
    )
    patch = Permission("patch", "", "configmaps", "monitoring")

    assert patch not in _granted(plain.rules["deploy"])
    assert patch in _granted(with_dashboard.rules["deploy"])
    assert Permission("get", "", "configmaps", "monitoring") in _granted(with_dashboard.rules["verify"])


def test_a_cluster_scoped_object_gets_its_verbs_cluster_wide() -> None:
    objects = {Resource("", "configmaps", "kube-system"), Resource("", "namespaces", None)}

    deploy = rules("deploy", objects)

    assert Rule(None, "", ("namespaces",), ("get", "list", "create", "patch", "delete")) in deploy
    assert [rule.namespace for rule in deploy] == ["kube-system", "kube-system", None]


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


@pytest.mark.parametrize(
    ("rule", "granted"),
    [
        ({"verbs": ["patch"], "apiGroups": ["apps"], "resources": ["daemonsets"]}, True),
        ({"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}, True),
        ({"verbs": ["get", "list"], "apiGroups": ["apps"], "resources": ["daemonsets"]}, False),
        ({"verbs": ["patch"], "apiGroups": [""], "resources": ["daemonsets"]}, False),
        ({"verbs": ["patch"], "apiGroups": ["apps"], "resources": ["deployments"]}, False),
        (
            {
                "verbs": ["patch"],
                "apiGroups": ["apps"],
                "resources": ["daemonsets"],
                "resourceNames": ["node-local-dns"],
            },
            False,
        ),
        ({"verbs": ["patch"], "apiGroups": ["apps"], "resources": ["daemonsets/status"]}, False),
    ],
    ids=["exact", "wildcards", "other-verbs", "other-group", "other-resource", "by-name", "subresource"],
)
def test_a_listed_rule_grants_a_permission_only_by_verb_group_and_resource(rule: dict[str, Any], granted: bool) -> None:
    assert grants(rule, Permission("patch", "apps", "daemonsets", "kube-system")) is granted
