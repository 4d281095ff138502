"""The props oracle draws every field of every props class: a field no strategy sets is never checked.

The oracle (``tests/integration/test_oracle.py``) checks that what the library accepts the
API server accepts too, but only for the fields its strategies
(``tests/integration/strategies.py``) set. This needs no API server: it reads the
strategies' tables.

The classes checked are what a user passes to a construct:

- every exported ``*Props`` dataclass (``constructs_nld.__all__``): each construct's props;
- every exported dataclass reachable from their fields' types, recursively (``Toleration``,
  ``CacheSettings``, ``ServerBlock``, ``Directive``, ``AlertRule``, ``DeployerSubject``, …): the
  values those props take, each validated on its own.

Left out: ``DnsOptions`` and ``NodeCacheOptions``, whose fields are checked as fields of the
props that inherit them (no props field takes one as a value), and ``SynthesizedChart``,
which the library returns rather than takes.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

import constructs_nld
from tests.integration import strategies


def _exported_dataclasses() -> dict[str, type]:
    return {
        name: value
        for name in constructs_nld.__all__
        if isinstance(value := getattr(constructs_nld, name), type) and dataclasses.is_dataclass(value)
    }


def _classes_in(hint: Any) -> set[type]:
    """Every class a type hint names, inside unions, tuples, mappings and other generics too."""
    found = {hint} if isinstance(hint, type) else set()
    for arg in typing.get_args(hint):
        found |= _classes_in(arg)
    return found


def checked_classes() -> set[type]:
    """The exported props classes and, recursively, the exported dataclasses their fields take."""
    exported = set(_exported_dataclasses().values())
    todo = [cls for cls in exported if cls.__name__.endswith("Props")]
    seen: set[type] = set()
    while todo:
        cls = todo.pop()
        if cls in seen:
            continue
        seen.add(cls)
        hints = typing.get_type_hints(cls)
        for field in dataclasses.fields(cls):
            if field.init:
                todo += [found for found in _classes_in(hints[field.name]) if found in exported]
    return seen


def test_the_checked_classes_are_the_props_and_the_values_they_take() -> None:
    names = {cls.__name__ for cls in checked_classes()}

    assert {"NodeLocalDNSProps", "GrafanaDashboardProps", "DeployerRBACProps"} <= names
    assert {"Toleration", "NodeSelectorRequirement", "Directive", "AlertRule", "DeployerSubject"} <= names
    assert names.isdisjoint({"DnsOptions", "NodeCacheOptions", "SynthesizedChart"})


def test_the_strategies_set_every_field_of_every_props_class() -> None:
    missing = {
        cls.__name__: sorted(
            field.name
            for field in dataclasses.fields(cls)
            if field.init and field.name not in strategies.TABLES.get(cls, set())
        )
        for cls in checked_classes()
    }

    assert {name: fields for name, fields in missing.items() if fields} == {}, (
        "add these fields to the class's table in tests/integration/strategies.py, with valid and near-valid values"
    )


def test_the_oracle_builds_every_props_class_through_its_construct() -> None:
    exported = _exported_dataclasses()
    props = {name for name in exported if name.endswith("Props")}
    drawn = {strategies.NODE_LOCAL_DNS_PROPS.target} | {kind.target for kind in strategies.CONSTRUCT_PROPS.values()}

    assert sorted(name for name in props if exported[name] not in drawn) == []
    for construct, kind in strategies.CONSTRUCT_PROPS.items():
        assert construct in constructs_nld.__all__
        assert kind.target is exported[f"{construct}Props"]
