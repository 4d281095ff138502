"""Values files: reading, layering, ``--set``, the props they make, and every refusal with its message."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from constructs_nld import (
    ForwardOptions,
    ForwardZone,
    NodeAffinity,
    NodeLocalDNSProps,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Prefetch,
    props_from_environment,
)
from constructs_nld.values import (
    ValuesError,
    load_values,
    merge_values,
    parse_set,
    props_from_values,
    props_with_values,
    values_from_props,
)


def _file(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


# --- reading files -------------------------------------------------------------------------


def test_a_yaml_file_and_a_json_file_are_read(tmp_path: Path) -> None:
    yaml_file = _file(tmp_path, "a.yaml", "cache:\n  success_capacity: 20000\n")
    json_file = _file(tmp_path, "b.json", '{"monitoring": false}')

    assert load_values([yaml_file, json_file]) == {"cache": {"success_capacity": 20000}, "monitoring": False}


def test_an_empty_file_is_an_empty_mapping(tmp_path: Path) -> None:
    assert load_values([_file(tmp_path, "a.yaml", "# nothing yet\n")]) == {}


def test_fails_when_the_file_is_missing(tmp_path: Path) -> None:
    with pytest.raises(ValuesError, match=r"^/\S+/nope.yaml: cannot read the values file: No such file or directory$"):
        load_values([tmp_path / "nope.yaml"])


def test_fails_when_the_file_is_not_a_mapping(tmp_path: Path) -> None:
    path = _file(tmp_path, "a.yaml", "- monitoring\n")

    with pytest.raises(ValuesError, match=r"a.yaml: must be a mapping of props to values, got list \['monitoring'\]$"):
        load_values([path])


def test_fails_when_a_key_is_given_twice(tmp_path: Path) -> None:
    path = _file(tmp_path, "a.yaml", "cache:\n  success_ttl: 5\n  success_ttl: 6\n")

    with pytest.raises(ValuesError, match=r"a.yaml: line 3: key 'success_ttl' is given twice in one mapping$"):
        load_values([path])


def test_fails_when_a_json_key_is_given_twice(tmp_path: Path) -> None:
    path = _file(tmp_path, "a.json", '{"monitoring": true, "monitoring": false}')

    with pytest.raises(ValuesError, match=r"a.json: line 1: key 'monitoring' is given twice in one mapping$"):
        load_values([path])


def test_fails_when_the_file_is_not_yaml(tmp_path: Path) -> None:
    path = _file(tmp_path, "a.yaml", "cache: [\n")

    with pytest.raises(ValuesError, match=r"a.yaml: not valid YAML or JSON: .*") as caught:
        load_values([path])
    assert "\n" not in str(caught.value)


def test_the_loader_is_safe(tmp_path: Path) -> None:
    path = _file(tmp_path, "a.yaml", "image: !!python/object/apply:os.getcwd []\n")

    with pytest.raises(ValuesError, match=r"a.yaml: not valid YAML or JSON: could not determine a constructor"):
        load_values([path])


# --- layering ------------------------------------------------------------------------------


def test_layers_merge_mappings_and_replace_lists_and_scalars(tmp_path: Path) -> None:
    common = _file(
        tmp_path,
        "common.yaml",
        "cache: {success_capacity: 20000, denial_ttl: 10}\nupstream_servers: [fd10::53, fd10::54]\nmonitoring: true\n",
    )
    cluster = _file(tmp_path, "c.yaml", "cache: {denial_ttl: 3}\nupstream_servers: [fd10::55]\nmonitoring: false\n")

    assert load_values([common, cluster]) == {
        "cache": {"success_capacity": 20000, "denial_ttl": 3},
        "upstream_servers": ["fd10::55"],
        "monitoring": False,
    }


def test_a_set_comes_after_every_file(tmp_path: Path) -> None:
    path = _file(tmp_path, "a.yaml", "cache: {success_capacity: 20000, denial_ttl: 10}\n")

    values = load_values([path], ["cache.denial_ttl=4", "cache.denial_ttl=7"])

    assert values == {"cache": {"success_capacity": 20000, "denial_ttl": 7}}


def test_merge_does_not_change_its_inputs() -> None:
    lower = {"cache": {"success_ttl": 1}}

    merged = merge_values(lower, {"cache": {"denial_ttl": 2}})

    assert merged == {"cache": {"success_ttl": 1, "denial_ttl": 2}}
    assert lower == {"cache": {"success_ttl": 1}}


# --- --set ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("cache.success_capacity=20000", {"cache": {"success_capacity": 20000}}),
        ("monitoring=false", {"monitoring": False}),
        ("image=registry.example/dns:1.0", {"image": "registry.example/dns:1.0"}),
        ("upstream_servers=[fd10::53, '[fd10::54]:5353']", {"upstream_servers": ["fd10::53", "[fd10::54]:5353"]}),
        ("cache.prefetch={amount: 2}", {"cache": {"prefetch": {"amount": 2}}}),
        ("kube_dns_cluster_ip=null", {"kube_dns_cluster_ip": None}),
        ("pod_annotations.note=", {"pod_annotations": {"note": ""}}),
        ("pod_labels.team=a=b", {"pod_labels": {"team": "a=b"}}),
        (r"node_selector.node-role\.example\.com/dns='true'", {"node_selector": {"node-role.example.com/dns": "true"}}),
    ],
)
def test_set_parses_the_key_path_and_a_yaml_value(text: str, expected: dict[str, object]) -> None:
    assert parse_set(text).values == expected
    assert parse_set(text).source == f"--set {text}"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("monitoring", r"^--set monitoring: must be KEY=VALUE, such as cache.success_capacity=20000$"),
        ("=1", r"^--set =1: must be KEY=VALUE"),
        ("cache..denial_ttl=1", r"^--set cache..denial_ttl=1: 'cache..denial_ttl' has an empty key"),
        (
            "tolerations[0].key=x",
            r"^--set tolerations\[0\].key=x: a key path cannot go into a list \(tolerations\[0\].key\); "
            r"set the whole list instead, e.g. --set 'tolerations=\[...\]', or write it in a values file$",
        ),
        ("zones.0.names=[a]", r"^--set zones.0.names=\[a\]: a key path cannot go into a list \(zones.0.names\)"),
        ("cache.prefetch={amount: ", r"^--set cache.prefetch={amount: : the value is not a YAML value: "),
    ],
)
def test_fails_when_a_set_is_malformed(text: str, message: str) -> None:
    with pytest.raises(ValuesError, match=message):
        parse_set(text)


def test_fails_when_a_set_goes_into_a_list_of_a_file(tmp_path: Path) -> None:
    path = _file(tmp_path, "a.yaml", "zones:\n  - names: [corp.example]\n    upstreams: [fd10::1]\n")

    with pytest.raises(
        ValuesError,
        match=r"^--set zones.names=\[x\]: zones is a list, which a key path cannot go into; set the whole list",
    ):
        load_values([path], ["zones.names=[x]"])


# --- the props -----------------------------------------------------------------------------


def test_no_values_are_the_spec_props() -> None:
    assert props_from_values({}) == NodeLocalDNSProps()


def test_values_build_every_kind_of_prop() -> None:
    props = props_from_values(
        {
            "upstream_servers": ["fd10::53"],
            "cache": {"success_capacity": 20000, "prefetch": {"amount": 2, "percentage": "20%"}},
            "upstream_forward": {"max_fails": 0, "policy": "sequential"},
            "zones": [{"names": ["corp.example"], "upstreams": ["fd10::1"], "forward": {"protocol": "force_tcp"}}],
            "affinity": {
                "required": [{"match_expressions": [{"key": "node-fleet", "operator": "In", "values": ["a"]}]}]
            },
            "labels": {"team": "platform"},
            "max_unavailable": 3,
            "interception": "fallthrough",
        }
    )

    assert props.upstream_servers == ("fd10::53",)
    assert props.cache.success_capacity == 20000
    assert props.cache.prefetch == Prefetch(amount=2, percentage=20)
    assert props.upstream_forward == ForwardOptions(max_fails=0, policy="sequential")
    assert props.zones == (
        ForwardZone(names=("corp.example",), upstreams=("fd10::1",), forward=ForwardOptions(protocol="force_tcp")),
    )
    requirement = NodeSelectorRequirement(key="node-fleet", operator="In", values=("a",))
    assert props.affinity == NodeAffinity(required=(NodeSelectorTerm(match_expressions=(requirement,)),))
    assert props.labels == {"team": "platform"}
    assert props.max_unavailable == 3
    assert props.interception == "fallthrough"


def test_a_dataclass_mapping_changes_only_the_fields_it_names() -> None:
    base = NodeLocalDNSProps(upstream_forward=ForwardOptions(protocol="force_tcp", max_fails=4))

    props = props_from_values({"upstream_forward": {"max_fails": 1}, "cluster_forward": {"expire": "10s"}}, base)

    assert props.upstream_forward == ForwardOptions(protocol="force_tcp", max_fails=1)
    assert props.cluster_forward == ForwardOptions(protocol="force_tcp", expire="10s")
    assert props.alerts == base.alerts


def test_other_props_replace_the_base_ones() -> None:
    base = NodeLocalDNSProps(labels={"team": "a"}, upstream_servers=("fd10::1", "fd10::2"))

    props = props_from_values({"labels": {"owner": "b"}, "upstream_servers": ["fd10::3"]}, base)

    assert props.labels == {"owner": "b"}
    assert props.upstream_servers == ("fd10::3",)


def test_props_read_back_equal_from_their_values() -> None:
    props = NodeLocalDNSProps(
        cache=NodeLocalDNSProps().cache,
        upstream_forward=ForwardOptions(max_concurrent=1000),
        zones=(ForwardZone(names=("corp.example",), upstreams=("fd10::1",)),),
    )

    values = values_from_props(props)

    assert json.loads(json.dumps(values)) == values
    assert props_from_values(values) == props


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"cach": {}}, r"^cach: unknown key \(did you mean 'cache'\?\)$"),
        ({"cache": {"prefech": {}}}, r"^cache.prefech: unknown key \(did you mean 'prefetch'\?\)$"),
        (
            {"alerts": {"setup_errors": {"for": "1m"}}},
            r"^alerts.setup_errors.for: unknown key \(did you mean 'for_'\?\)",
        ),
        ({"dns64": {"zzz": 1}}, r"^dns64.zzz: unknown key \(Dns64 takes prefix, translate_all\)$"),
        ({"upstream_forward": {"max_fails": -1}}, r"^upstream_forward.max_fails: must be a non-negative integer"),
        ({"cluster_forward": {"policy": "fastest"}}, r"^cluster_forward.policy: must be random, round_robin or seq"),
        ({"cache": {"prefetch": {"percentage": "5%"}}}, r"^cache.prefetch.percentage: must be 10-90"),
        ({"cache": 3}, r"^cache: must be a mapping of CacheSettings's fields, got 3$"),
        ({"cache": None}, r"^cache: must be a mapping of CacheSettings's fields, got null$"),
        ({"upstream_servers": "fd10::53"}, r"^upstream_servers: must be a list, got 'fd10::53'$"),
        (
            {"upstream_servers": ["10.0.0.1"]},
            r"^upstream_servers: must be an IPv6 address \(the cluster is IPv6-only\)",
        ),
        ({"monitoring": "no"}, r"^monitoring: must be True or False, got 'no'$"),
        (
            {"dashboard_labels": {"grafana_dashboard": 1}},
            r"^dashboard_labels.grafana_dashboard: must be a string, got 1",
        ),
        ({"zones": [{"names": ["corp.example"]}]}, r"^zones\[0\].upstreams: is required \(ForwardZone\)$"),
        (
            {"zones": [{"names": ["corp.example"], "upstreams": ["fd10::1"], "cache": {"ttl": 0}}]},
            r"^zones\[0\].cache.ttl: must be a positive integer",
        ),
        ({"tolerations": [{"operator": "Exists"}]}, r"^tolerations\[0\].key: is required \(Toleration\)$"),
        ({"tolerations": [{"key": "a", "operator": "Maybe"}]}, r"^tolerations\[0\]: operator must be 'Equal' or "),
        ({"affinity": {}}, r"^affinity: needs a required or a preferred term, got neither"),
        (
            {"affinity": {"preferred": [{"weight": 500, "term": {"match_expressions": []}}]}},
            r"^affinity.preferred\[0\].term.match_expressions: a term needs at least one requirement",
        ),
        ({"limits": {"memory": "1Gi"}}, r"^limits: no memory limit may be set"),
        ({"ports": {"dns": 5353}}, r"^ports.dns: must be 53, got 5353"),
        ({"parts": {}}, r"^parts: unknown key"),
        ({1: True}, r"^values: keys must be strings, got 1$"),
    ],
)
def test_fails_naming_the_key_path_and_the_reason(values: dict[object, object], message: str) -> None:
    with pytest.raises(ValuesError, match=message) as caught:
        props_from_values(values)  # type: ignore[arg-type]
    assert "\n" not in str(caught.value)


def test_fails_when_the_values_are_not_a_mapping() -> None:
    with pytest.raises(ValuesError, match=r"^values: must be a mapping of props to values, got a list$"):
        props_from_values([])  # type: ignore[arg-type]


def test_a_refusal_names_the_file_that_set_the_value(tmp_path: Path) -> None:
    common = _file(tmp_path, "common.yaml", "upstream_forward: {max_fails: 2}\ncache: {success_ttl: 0}\n")
    cluster = _file(tmp_path, "cluster.yaml", "upstream_forward: {max_fails: 3}\n")

    with pytest.raises(ValuesError, match=r"^/\S+/common.yaml: cache.success_ttl: must be a positive integer"):
        props_with_values(None, [common, cluster], [])


def test_a_refusal_names_the_set_that_set_the_value(tmp_path: Path) -> None:
    common = _file(tmp_path, "common.yaml", "upstream_forward: {max_fails: 2}\n")

    with pytest.raises(ValuesError, match=r"^--set upstream_forward.max_fails=-5: upstream_forward.max_fails: must"):
        props_with_values(None, [common], ["upstream_forward.max_fails=-5"])


# --- through the environment ---------------------------------------------------------------


def test_the_environment_applies_files_then_sets_over_the_clusters_props(tmp_path: Path) -> None:
    path = _file(tmp_path, "a.yaml", "cache: {success_capacity: 20000, denial_ttl: 9}\n")
    environ = {
        "NLD_CLUSTER": "b",
        "NLD_VALUES": json.dumps([str(path)]),
        "NLD_SET": json.dumps(["cache.denial_ttl=3"]),
        "KUBE_DNS_CLUSTER_IP": "fd00::a",
    }
    clusters = {"a": NodeLocalDNSProps(), "b": NodeLocalDNSProps(monitoring=False)}

    props = props_from_environment(environ, clusters=clusters)

    assert (props.cache.success_capacity, props.cache.denial_ttl) == (20000, 3)
    assert props.monitoring is False
    assert props.kube_dns_cluster_ip == "fd00::a"


def test_an_empty_environment_leaves_the_props() -> None:
    props = NodeLocalDNSProps(monitoring=False)

    assert props_from_environment({"NLD_VALUES": "", "NLD_SET": " "}, props) is props


def test_fails_naming_the_file_the_key_and_the_variable(tmp_path: Path) -> None:
    path = _file(tmp_path, "a.yaml", "upstream_forward: {max_fails: x}\n")

    with pytest.raises(
        ValueError,
        match=r"^/\S+/a.yaml: upstream_forward.max_fails: must be an integer or None, got 'x' \(from \$NLD_VALUES\)$",
    ):
        props_from_environment({"NLD_VALUES": json.dumps([str(path)])})


def test_fails_naming_the_set_and_its_variable() -> None:
    with pytest.raises(
        ValueError, match=r"^--set cach.x=1: cach: unknown key \(did you mean 'cache'\?\) \(from \$NLD_SET\)$"
    ):
        props_from_environment({"NLD_SET": json.dumps(["cach.x=1"])})


def test_fails_when_the_variable_is_not_a_json_list() -> None:
    with pytest.raises(ValueError, match=r"^\$NLD_VALUES: must be a JSON list of strings, got 'a.yaml'$"):
        props_from_environment({"NLD_VALUES": "a.yaml"})


# --- the command line and the app's environment --------------------------------------------


def test_the_cli_takes_values_and_sets_before_and_after_the_command() -> None:
    from constructs_nld.deploy.cli import parse

    before = parse(["-f", "a.yaml", "--set", "x=1", "verify", "--values", "b.yaml", "--set", "y=2"])
    default = parse(["--values", "a.yaml", "--wait"])

    assert (before.command, before.values, before.sets) == ("verify", ("a.yaml", "b.yaml"), ("x=1", "y=2"))
    assert (default.command, default.values, default.sets) == ("deploy", ("a.yaml",), ())


def test_the_app_gets_the_values_as_json_lists_of_absolute_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from constructs_nld.deploy.source import AppCommand, app_inputs

    _file(tmp_path, "a.yaml", "monitoring: false\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NLD_SET", '["from-the-shell=1"]')

    app = AppCommand.from_project(command="python main.py", values=["a.yaml"], sets=["cache.denial_ttl=3"])
    env = app.environment(tmp_path / "out", None)

    assert (app.values, app.sets) == ((str(tmp_path / "a.yaml"),), ("cache.denial_ttl=3",))
    assert json.loads(env["NLD_VALUES"]) == [str(tmp_path / "a.yaml")]
    assert json.loads(env["NLD_SET"]) == ["cache.denial_ttl=3"]
    assert app_inputs(app) == {
        "values": {str(tmp_path / "a.yaml"): hashlib.sha256(b"monitoring: false\n").hexdigest()},
        "sets": ["cache.denial_ttl=3"],
    }
    assert "NLD_SET" not in AppCommand.from_project(command="python main.py").environment(tmp_path, None)


def test_the_app_command_refuses_a_missing_file_or_a_bad_set_first(tmp_path: Path) -> None:
    from constructs_nld.deploy.errors import InvalidConfigError
    from constructs_nld.deploy.source import AppCommand

    with pytest.raises(
        InvalidConfigError, match=r"^--values/--set: \S+/nope.yaml: cannot read the values file: No such"
    ):
        AppCommand.from_project(tmp_path, values=[str(tmp_path / "nope.yaml")])
    with pytest.raises(InvalidConfigError, match=r"^--values/--set: --set x: must be KEY=VALUE"):
        AppCommand.from_project(tmp_path, sets=["x"])
