"""The deployer's least privilege, proven on the test API server's RBAC with a real ServiceAccount token.

The app is the repository's own (``main.py``, the spec's component). The ServiceAccount
``ci/deployer`` gets a token from the TokenRequest API and a kubeconfig of its own; a cluster
admin applies :class:`~constructs_nld.rbac.DeployerRBAC` (or that minus one rule) bound to it.
Then:

- with exactly those rules, ``deploy --wait``, a ``cutover`` (started, judged, rolled back,
  started again and promoted), ``verify``, ``uninstall`` and ``verify --uninstalled``
  succeed, and every rule is used by a request of its command (the audit log says so): none
  is there for nothing;
- without any one rule, the command that needs it exits on one line naming a verb and a
  resource of that rule, with no traceback and no write;
- with ``verify``'s rules alone, ``verify`` passes and ``deploy`` refuses before any write.
"""

from __future__ import annotations

import copy
import re
import subprocess
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubernetes.client.exceptions import ApiException

from constructs_nld.deploy.cli import main
from constructs_nld.deploy.exitcodes import ExitCode
from constructs_nld.deploy.kube import ObjectRef
from constructs_nld.deploy.kubeconfig import load_client
from constructs_nld.permissions import RBAC_COMMANDS, Command, Permission, Rule, component_resources, rules
from tests.controlplane import REPO_ROOT, ControlPlane
from tests.deploysh import KUBECTL
from tests.fleet import fleet_node
from tests.harness.rest import Rest
from tests.integration import rest
from tests.simcluster import SimulatedCluster

NAMESPACE = "ci"
ACCOUNT = "deployer"
USER = f"system:serviceaccount:{NAMESPACE}:{ACCOUNT}"
RBAC = "/apis/rbac.authorization.k8s.io/v1"

# The app's objects, from the reviewed preview: collection needs no jsii.
_PREVIEW = [obj for path in sorted((REPO_ROOT / "dist").glob("*.yaml")) for obj in yaml.safe_load_all(path.read_text())]
RULES: dict[Command, tuple[Rule, ...]] = {
    command: rules(command, component_resources(_PREVIEW), kube_dns_config=True) for command in RBAC_COMMANDS
}
ARGV: dict[Command, tuple[str, ...]] = {"cutover": ("cutover", "start")}
"""How each command is run where its name alone is not a command line."""

BUMPED_APP = '''"""The spec's component with node-cache's image bumped: what a cutover puts on the canary."""
import sys

from constructs_nld import NodeLocalDNSProps
from constructs_nld.app import main

sys.exit(main(NodeLocalDNSProps(image="registry.k8s.io/dns/k8s-dns-node-cache:1.26.9")))
'''
REMOVALS = [(command, index) for command in RBAC_COMMANDS for index in range(len(RULES[command]))]


@pytest.fixture(scope="module")
def rendered() -> tuple[dict[Command, tuple[Rule, ...]], list[dict[str, Any]]]:
    """DeployerRBAC for the app, bound to ci/deployer: its rules and its objects, as an admin applies them."""
    from constructs_nld import DeployerRBAC, DeployerRBACProps, DeployerSubject
    from constructs_nld.runtime import cdk8s

    chart = cdk8s.Chart(cdk8s.App(), "rbac")
    rbac = DeployerRBAC(
        chart, "deployer", DeployerRBACProps(subjects=(DeployerSubject(name=ACCOUNT, namespace=NAMESPACE),))
    )
    return rbac.rules, list(chart.to_json())


def _without(objects: list[dict[str, Any]], command: Command, removed: Rule | None) -> list[dict[str, Any]]:
    """The objects of ``command`` only, ``removed`` taken out of its Role or ClusterRole (emptied ones dropped)."""
    name = f"node-local-dns-deployer-{command}"
    kept: list[dict[str, Any]] = []
    emptied: set[tuple[str | None, str]] = set()
    for obj in objects:
        if obj["metadata"]["name"] != name:
            continue
        obj = copy.deepcopy(obj)
        where = obj["metadata"].get("namespace")
        if removed is not None and obj["kind"] in ("Role", "ClusterRole") and where == removed.namespace:
            obj["rules"] = [rule for rule in obj["rules"] if rule != removed.manifest()]
            if not obj["rules"]:
                emptied.add((where, obj["kind"]))
        kept.append(obj)
    return [o for o in kept if (o["metadata"].get("namespace"), o["kind"].removesuffix("Binding")) not in emptied]


def _path(obj: dict[str, Any]) -> str:
    plural = obj["kind"].lower() + "s"
    namespace = obj["metadata"].get("namespace")
    return f"{RBAC}/namespaces/{namespace}/{plural}" if namespace else f"{RBAC}/{plural}"


class Deployer:
    """The ServiceAccount ``ci/deployer``: its kubeconfig, and the RBAC a cluster admin grants it."""

    def __init__(self, control_plane: ControlPlane, kubeconfig: Path) -> None:
        self.control_plane = control_plane
        self.kubeconfig = kubeconfig
        self.granted: list[dict[str, Any]] = []

    @property
    def admin(self) -> Rest:
        return self.control_plane.fixture_api()

    def grant(self, objects: list[dict[str, Any]], *, refused: Sequence[Rule] = ()) -> None:
        """Apply exactly ``objects`` (the previous grant revoked), then wait until RBAC answers by them."""
        self.revoke()
        self.granted = objects
        for obj in objects:
            self.admin.request("POST", _path(obj), body=obj)
        client = load_client(str(self.kubeconfig), None, timeout=10)
        allowed = {
            Permission(verb, rule["apiGroups"][0], resource, obj["metadata"].get("namespace"), name)
            for obj in objects
            for rule in obj.get("rules", [])
            for resource in rule["resources"]
            for name in rule.get("resourceNames") or [None]
            for verb in rule["verbs"]
        }
        # A ClusterRole's grant holds in every namespace too.
        everywhere = {p for p in allowed if p.namespace is None}
        refused_here = [p for r in refused for p in r.permissions() if p not in allowed]
        expected = [(p, True) for p in allowed] + [
            (p, False) for p in refused_here if replace(p, namespace=None) not in everywhere
        ]
        deadline = time.monotonic() + 15
        while any(client.allowed(p.verb, p.group, p.resource, p.namespace, p.name) != want for p, want in expected):
            assert time.monotonic() < deadline, "RBAC did not take the grant within 15 s"
            time.sleep(0.1)

    def revoke(self) -> None:
        for obj in self.granted:
            self.admin.request("DELETE", f"{_path(obj)}/{obj['metadata']['name']}", ok=(200, 404))
        self.granted = []

    def run(self, *args: str) -> int:
        return main(["--kubeconfig", str(self.kubeconfig), *args])

    def writes_since(self, mark: int) -> list[str]:
        """The deployer's requests that changed something."""
        return [f"{e['verb']} {e['requestURI']}" for e in self.control_plane.mutating_requests_since(mark, user=USER)]


def _deployer(control_plane: ControlPlane, directory: Path) -> Iterator[Deployer]:
    token = rest.service_account_token(control_plane.fixture_api(), NAMESPACE, ACCOUNT)
    kubeconfig = rest.kubeconfig_for(control_plane.kubeconfig_path, ACCOUNT, token, directory / "deployer.kubeconfig")
    deployer = Deployer(control_plane, kubeconfig)
    try:
        yield deployer
    finally:
        deployer.revoke()


@pytest.fixture
def sim_deployer(sim: SimulatedCluster, tmp_path: Path) -> Iterator[Deployer]:
    sim.add_nodes([fleet_node("cpu", 1)])
    yield from _deployer(sim.control_plane, tmp_path)


@pytest.fixture
def deployer(cluster: ControlPlane, tmp_path: Path) -> Iterator[Deployer]:
    yield from _deployer(cluster, tmp_path)


def _used(rule: Rule, events: list[dict[str, Any]]) -> bool:
    """Whether a request of ``events`` needed ``rule``: its verb, group, resource and name, where the rule applies."""
    for event in events:
        ref = event.get("objectRef") or {}
        if (
            event["verb"] in rule.verbs
            and ref.get("apiGroup", "") == rule.group
            and ref.get("resource") in rule.resources
            and not ref.get("subresource")
            and (rule.namespace is None or ref.get("namespace") == rule.namespace)
            and (not rule.names or ref.get("name") in rule.names)
        ):
            return True
    return False


def test_with_exactly_its_rules_every_command_succeeds_and_uses_every_rule(
    sim_deployer: Deployer, rendered: tuple[dict[Command, tuple[Rule, ...]], list[dict[str, Any]]], tmp_path: Path
) -> None:
    rbac_rules, objects = rendered
    assert rbac_rules == RULES
    sim_deployer.grant(objects)
    bumped = tmp_path / "bumped.py"
    bumped.write_text(BUMPED_APP)
    app = ("--app", f"python {bumped}")
    waits = ("--stall-after", "60", "--progress", "plain")
    runs: dict[Command, list[tuple[tuple[str, ...], int]]] = {
        "deploy": [(("--wait", *waits), ExitCode.OK), ((), ExitCode.OK)],
        "cutover": [
            (("cutover", "start", *app, "--stall-after", "60"), ExitCode.OK),
            (("cutover", "status", *app), ExitCode.SOAK_NO_DATA),
            (("cutover", "rollback", *app, *waits), ExitCode.OK),
            (("cutover", "start", *app, "--stall-after", "60"), ExitCode.OK),
            (("cutover", "promote", *app, "--force", *waits), ExitCode.OK),
        ],
        "verify": [(("verify", *app), ExitCode.OK)],
        "uninstall": [(("uninstall", *app), ExitCode.OK)],
    }
    events: dict[Command, list[dict[str, Any]]] = {}
    for command, argvs in runs.items():
        mark = sim_deployer.control_plane.audit_mark()
        for argv, expected in argvs:
            assert sim_deployer.run(*argv) == expected, f"{command} {' '.join(argv)}"
        events[command] = sim_deployer.control_plane.requests_since(mark, user=USER)
    assert sim_deployer.run("verify", "--uninstalled", *app) == ExitCode.OK

    unused = [
        f"{command}: {rule}" for command in RBAC_COMMANDS for rule in RULES[command] if not _used(rule, events[command])
    ]
    assert unused == []


@pytest.mark.parametrize(("command", "index"), REMOVALS, ids=[f"{c}-{i}" for c, i in REMOVALS])
def test_without_any_one_rule_the_command_that_needs_it_fails_on_one_line_and_writes_nothing(
    deployer: Deployer,
    rendered: tuple[dict[Command, tuple[Rule, ...]], list[dict[str, Any]]],
    command: Command,
    index: int,
    capsys: pytest.CaptureFixture[str],
) -> None:
    if command == "uninstall":
        assert main(["--kubeconfig", str(deployer.control_plane.kubeconfig_path)]) == ExitCode.OK
    removed = RULES[command][index]
    deployer.grant(_without(rendered[1], command, removed), refused=[removed])
    capsys.readouterr()
    mark = deployer.control_plane.audit_mark()

    code = deployer.run(*ARGV.get(command, (command,)))

    err = capsys.readouterr().err.strip()
    assert code in (ExitCode.FORBIDDEN, ExitCode.ERROR), err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert any(verb in err for verb in removed.verbs), err
    assert any(resource in err for resource in removed.resources), err
    assert deployer.writes_since(mark) == []


def test_verify_with_read_only_rules_passes_and_deploy_with_them_refuses_before_any_write(
    sim_deployer: Deployer,
    rendered: tuple[dict[Command, tuple[Rule, ...]], list[dict[str, Any]]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    admin = ["--kubeconfig", str(sim_deployer.control_plane.kubeconfig_path)]
    assert main([*admin, "--wait", "--progress", "plain", "--stall-after", "60"]) == ExitCode.OK
    sim_deployer.grant(_without(rendered[1], "verify", None), refused=RULES["deploy"])
    capsys.readouterr()
    mark = sim_deployer.control_plane.audit_mark()

    assert sim_deployer.run("verify") == ExitCode.OK
    deploy_code = sim_deployer.run("deploy")
    uninstall_code = sim_deployer.run("uninstall")

    err = capsys.readouterr().err.strip().splitlines()
    assert {deploy_code, uninstall_code} <= {ExitCode.FORBIDDEN, ExitCode.ERROR} and len(err) == 2, err
    assert all(
        re.search(r"(may not, [^:]+: |cannot )(list|get|patch|delete|create),? (resource )?\S+", line) for line in err
    ), err
    assert sim_deployer.writes_since(mark) == []


def _role_in_monitoring(rule: dict[str, Any]) -> list[dict[str, Any]]:
    """A Role of ``rule`` in ``monitoring`` and its binding to the deployer's account."""
    meta = {"name": "node-local-dns-deployer-deploy", "namespace": "monitoring"}
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": meta, "rules": [rule]}
    binding = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding",
        "metadata": meta,
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": meta["name"]},
        "subjects": [{"kind": "ServiceAccount", "name": ACCOUNT, "namespace": NAMESPACE}],
    }
    return [role, binding]


def test_a_server_side_apply_that_creates_is_authorized_as_a_create_too(deployer: Deployer) -> None:
    rule: dict[str, Any] = {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "patch"]}
    grant = _role_in_monitoring(rule)
    deployer.grant(grant)
    client = load_client(str(deployer.kubeconfig), None, timeout=10)
    config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "probe", "namespace": "monitoring"}}

    with pytest.raises(ApiException) as refused:
        client.apply(config_map)
    rule["verbs"].append("create")
    deployer.grant(grant)
    created = client.apply(config_map)
    deployer.admin.request("DELETE", "/api/v1/namespaces/monitoring/configmaps/probe")

    assert refused.value.status == 403 and "cannot create resource" in str(refused.value.body)
    assert created["metadata"]["name"] == "probe"


def test_a_server_side_apply_that_creates_is_authorized_by_the_name_it_creates(deployer: Deployer) -> None:
    deployer.grant(
        _role_in_monitoring(
            {"apiGroups": [""], "resources": ["configmaps"], "resourceNames": ["probe"], "verbs": ["create", "patch"]}
        )
    )
    client = load_client(str(deployer.kubeconfig), None, timeout=10)

    def config_map(name: str) -> dict[str, Any]:
        return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "monitoring"}}

    created = client.apply(config_map("probe"))
    with pytest.raises(ApiException) as refused:
        client.apply(config_map("aws-auth"))
    deployer.admin.request("DELETE", "/api/v1/namespaces/monitoring/configmaps/probe")

    assert created["metadata"]["name"] == "probe"
    assert refused.value.status == 403 and "aws-auth" in str(refused.value.body)


FOREIGN = {
    "configmaps/aws-auth": set(),
    "configmaps/coredns": set(),
    "configmaps/kube-dns": {"get"},
    "services/kube-dns": {"get"},
    "daemonsets.apps/kube-proxy": set(),
    "daemonsets.apps/aws-node": set(),
}
"""Objects of kube-system that are not ours, and the verbs some command needs on them (reads only)."""
VERBS = ("get", "create", "patch", "update", "delete")


def test_kubectl_auth_can_i_answers_no_on_objects_that_are_not_ours_for_every_verb_we_do_not_need(
    deployer: Deployer, rendered: tuple[dict[Command, tuple[Rule, ...]], list[dict[str, Any]]]
) -> None:
    deployer.grant(rendered[1])

    def can_i(verb: str, target: str) -> bool:
        answer = subprocess.run(
            [
                str(KUBECTL),
                "--kubeconfig",
                str(deployer.kubeconfig),
                "auth",
                "can-i",
                verb,
                target,
                "-n",
                "kube-system",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        assert answer.stdout.strip() in ("yes", "no"), answer
        return answer.stdout.strip() == "yes"

    answers = {target: {verb for verb in VERBS if can_i(verb, target)} for target in FOREIGN}
    ours = {verb for verb in VERBS if can_i(verb, "daemonsets.apps/node-local-dns")}

    assert answers == FOREIGN
    assert ours == {"get", "create", "patch", "delete"}


def _documented_policy() -> list[dict[str, Any]]:
    """The admission policy of docs/rbac.md ("Optional: node-cache's pods only"), for the test's deployer."""
    text = (REPO_ROOT / "docs" / "rbac.md").read_text().split("### Optional: node-cache's pods only", 1)[1]
    block = text.split("```yaml\n", 1)[1].split("```", 1)[0]
    return list(yaml.safe_load_all(block.replace("system:serviceaccount:ci:nodelocaldns-deployer", USER)))


def test_the_documented_admission_policy_limits_the_deployers_pod_deletes_to_node_cache(
    deployer: Deployer, rendered: tuple[dict[Command, tuple[Rule, ...]], list[dict[str, Any]]]
) -> None:
    admin = deployer.admin
    admission = "/apis/admissionregistration.k8s.io/v1"
    policy, binding = _documented_policy()
    pods = {"node-cache": "node-local-dns", "proxy": "kube-proxy"}
    for name, app in pods.items():
        pod = {
            "metadata": {"name": name, "labels": {"k8s-app": app}},
            "spec": {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]},
        }
        admin.request("POST", "/api/v1/namespaces/kube-system/pods", body=pod, ok=(201,))
    admin.request("POST", f"{admission}/validatingadmissionpolicies", body=policy, ok=(201,))
    admin.request("POST", f"{admission}/validatingadmissionpolicybindings", body=binding, ok=(201,))
    deployer.grant(_without(rendered[1], "uninstall", None))
    client = load_client(str(deployer.kubeconfig), None, timeout=10)
    proxy = ObjectRef("v1", "Pod", "kube-system", "proxy")
    try:
        # The policy holds once the API server has loaded it: the first refused dry run says so.
        deadline = time.monotonic() + 30
        while True:
            try:
                client.delete(proxy, dry_run=True)
            except ApiException as error:
                refused = error
                break
            assert time.monotonic() < deadline, "the admission policy did not take hold within 30 s"
            time.sleep(0.1)
        deleted = client.delete(ObjectRef("v1", "Pod", "kube-system", "node-cache"))
        with pytest.raises(ApiException) as again:
            client.delete(proxy)
    finally:
        admin.request("DELETE", f"{admission}/validatingadmissionpolicybindings/{binding['metadata']['name']}")
        admin.request("DELETE", f"{admission}/validatingadmissionpolicies/{policy['metadata']['name']}")
        for name in pods:
            admin.request("DELETE", f"/api/v1/namespaces/kube-system/pods/{name}", ok=(200, 404))

    assert refused.status == 403 and "deletes node-cache's pods only" in str(refused.body)
    assert deleted is not None and deleted["metadata"]["name"] == "node-cache"
    assert again.value.status == 403


FALLTHROUGH_APP = '''"""The spec's component in the fallthrough mode{what}."""
import sys

from constructs_nld import NodeLocalDNSProps, Ports
from constructs_nld.app import main

sys.exit(main(NodeLocalDNSProps(interception="fallthrough"{props})))
'''


def _render(props: Any, retired: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
    """DeployerRBAC for ``props`` (and ``retired``), bound to ci/deployer."""
    from constructs_nld import DeployerRBAC, DeployerRBACProps, DeployerSubject
    from constructs_nld.runtime import cdk8s

    chart = cdk8s.Chart(cdk8s.App(), "rbac")
    subject = DeployerSubject(name=ACCOUNT, namespace=NAMESPACE)
    DeployerRBAC(chart, "deployer", DeployerRBACProps(component=props, retired=retired, subjects=(subject,)))
    return list(chart.to_json())


def test_an_earlier_apps_object_the_rules_do_not_name_is_kept_and_said_then_pruned_once_retired_names_it(
    sim_deployer: Deployer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from constructs_nld import NodeLocalDNSProps, Ports
    from constructs_nld.keeper import Keeper

    earlier, now = tmp_path / "earlier.py", tmp_path / "now.py"
    earlier.write_text(FALLTHROUGH_APP.format(what=", health on 8081", props=", ports=Ports(health=8081)"))
    now.write_text(FALLTHROUGH_APP.format(what="", props=""))
    old_keeper = Keeper(ports=Ports(health=8081)).config_map_name()
    old_path = f"/api/v1/namespaces/kube-system/configmaps/{old_keeper}"
    waits = ("--wait", "--stall-after", "60", "--progress", "plain")
    admin = ["--kubeconfig", str(sim_deployer.control_plane.kubeconfig_path)]
    assert main([*admin, "--app", f"python {earlier}", *waits]) == ExitCode.OK
    sim_deployer.grant(_render(NodeLocalDNSProps(interception="fallthrough")))
    capsys.readouterr()

    kept = sim_deployer.run("--app", f"python {now}", *waits)
    out = capsys.readouterr().out

    assert kept == ExitCode.OK, out
    assert f"kept: configmap/kube-system/{old_keeper} (the deployer may not delete it" in out
    assert sim_deployer.admin.get(old_path) is not None
    retired = (NodeLocalDNSProps(interception="fallthrough", ports=Ports(health=8081)),)
    sim_deployer.grant(_render(NodeLocalDNSProps(interception="fallthrough"), retired))
    assert sim_deployer.run("--app", f"python {now}", *waits) == ExitCode.OK
    assert sim_deployer.admin.get(old_path) is None
