"""The values files' JSON Schema: a valid draft 2020-12 schema, checked in fresh, that the examples pass.

Each example values file is checked twice: by a real JSON Schema validator against the
checked-in schema (what an editor shows), and by loading it through the props (what the app
does). Props drawn by the oracle's strategies serialize to values the schema accepts and that
load back equal.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest
import yaml
from hypothesis import HealthCheck, assume, given, settings

from constructs_nld.schema import SCHEMA_FILE, values_schema_text
from constructs_nld.values import load_values, props_from_values, values_from_props
from tests.conftest import REPO_ROOT
from tests.integration import strategies
from tests.integration.strategies import Make

SCHEMA = json.loads((REPO_ROOT / SCHEMA_FILE).read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
EXAMPLE_VALUES = sorted((REPO_ROOT / "examples").glob("*/values/*.yaml"))
_YAML_BLOCK = re.compile(r"```yaml\n(?P<body>.*?)```", re.S)


def _docs_values() -> list[str]:
    """The YAML blocks of docs/configuration.md's "Values files" section: each is a values file."""
    text = (REPO_ROOT / "docs" / "configuration.md").read_text()
    section = text.split("## Values files", 1)[1].split("\n## ", 1)[0]
    return [match.group("body") for match in _YAML_BLOCK.finditer(section)]


def test_the_schema_is_a_valid_draft_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_the_checked_in_schema_is_the_generated_one() -> None:
    assert (REPO_ROOT / SCHEMA_FILE).read_text() == values_schema_text(), "stale: run python tools/readme.py"


def test_the_schema_describes_fields_with_their_types_choices_and_defaults() -> None:
    properties = SCHEMA["properties"]
    forward = SCHEMA["$defs"]["ForwardOptions"]["properties"]

    assert properties["monitoring"]["type"] == "boolean"
    assert properties["monitoring"]["default"] is True
    assert properties["interception"]["enum"] == ["node-cache", "fallthrough"]
    assert properties["upstream_forward"] == {
        "$ref": "#/$defs/ForwardOptions",
        "description": properties["upstream_forward"]["description"],
        "default": {
            "protocol": "plain",
            "max_fails": None,
            "expire": None,
            "health_check": None,
            "policy": None,
            "max_concurrent": None,
            "max_connect_attempts": None,
            "failfast_all_unhealthy_upstreams": False,
            "failover": [],
        },
    }
    assert forward["policy"]["anyOf"] == [{"enum": ["random", "round_robin", "sequential"]}, {"type": "null"}]
    assert forward["max_fails"]["description"].startswith("Failed health checks before an upstream is marked down")
    assert SCHEMA["$defs"]["ForwardZone"]["required"] == ["names", "upstreams"]
    assert SCHEMA["additionalProperties"] is False
    assert "parts" not in properties


def test_the_schema_refuses_what_the_loader_refuses() -> None:
    errors = sorted(e.message for e in VALIDATOR.iter_errors({"cache": {"prefech": {}}, "monitoring": "no"}))

    assert errors == [
        "'no' is not of type 'boolean'",
        "Additional properties are not allowed ('prefech' was unexpected)",
    ]


def test_there_are_example_values_files() -> None:
    assert [path.relative_to(REPO_ROOT / "examples").as_posix() for path in EXAMPLE_VALUES] == [
        "values-per-cluster/values/common.yaml",
        "values-per-cluster/values/production.yaml",
        "values-per-cluster/values/staging.yaml",
    ]


@pytest.mark.parametrize("path", EXAMPLE_VALUES, ids=[path.name for path in EXAMPLE_VALUES])
def test_each_example_values_file_passes_the_schema_and_loads(path: Path) -> None:
    values = load_values([path])

    VALIDATOR.validate(values)
    props_from_values(values)
    props_from_values(load_values([path.parent / "common.yaml", path]))


def test_each_values_file_of_the_docs_passes_the_schema_and_loads() -> None:
    blocks = _docs_values()

    assert len(blocks) >= 4
    for block in blocks:
        values: Any = yaml.safe_load(block)
        VALIDATOR.validate(values)
        props_from_values(values)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(make=strategies.NODE_LOCAL_DNS_PROPS.valid)
def test_drawn_props_serialize_to_values_the_schema_accepts_and_load_back_equal(make: Make) -> None:
    try:
        props = make.build()
    except ValueError:
        assume(False)  # valid values that clash with each other (two ports alike): no props to serialize
        raise
    values = json.loads(json.dumps(values_from_props(props)))

    VALIDATOR.validate(values)
    assert props_from_values(values) == props
