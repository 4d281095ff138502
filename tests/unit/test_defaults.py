"""Defaults live in ``defaults.py``; every ``Default:`` line and the README's tables agree with the code."""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import pkgutil
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import constructs_nld
from constructs_nld import defaults


def _load_readme_tool() -> ModuleType:
    """``tools/readme.py``, the generator of the README's tables, loaded from its path."""
    path = Path(__file__).resolve().parents[2] / "tools" / "readme.py"
    spec = importlib.util.spec_from_file_location("readme_tool", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


readme = _load_readme_tool()

_NUMBER = re.compile(r"(?<![\w.])\d[\w.%]*")


def _library_dataclasses() -> list[type]:
    found: list[type] = []
    for module in pkgutil.walk_packages(constructs_nld.__path__, "constructs_nld."):
        if module.name.startswith("constructs_nld.deploy"):
            continue
        loaded = importlib.import_module(module.name)
        found += [
            value
            for value in vars(loaded).values()
            if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == module.name
        ]
    return sorted(set(found), key=lambda cls: f"{cls.__module__}.{cls.__qualname__}")


CLASSES = _library_dataclasses()


def _documented_defaults() -> list[tuple[str, str, Any]]:
    """Every (class.field, docstring, default) of a library dataclass whose field has a default and a docstring."""
    cases = []
    for cls in CLASSES:
        docs = readme.field_docs(cls)
        for field in dataclasses.fields(cls):
            default = readme.default_of(field)
            if field.init and default is not dataclasses.MISSING and field.name in docs:
                cases.append((f"{cls.__qualname__}.{field.name}", docs[field.name], default))
    return cases


CASES = _documented_defaults()


def test_the_props_classes_are_all_found() -> None:
    names = {cls.__qualname__ for cls in CLASSES}

    assert {"NodeLocalDNSProps", "NodeCacheOptions", "NodeCacheDaemonSetProps", "Ports", "Keeper"} <= names
    assert len(CASES) > 100


@pytest.mark.parametrize(("name", "doc", "default"), CASES, ids=[case[0] for case in CASES])
def test_default_line_says_the_default(name: str, doc: str, default: Any) -> None:
    line = readme.DefaultLine.of(doc)
    assert line is not None, f"{name}: its docstring has no 'Default:' line"
    literal = readme.render_default(default)
    if line.value is not None:
        assert literal is not None, f"{name}: {default!r} has no literal form: write 'Default: - <what it is>'"
        assert line.value == literal, f"{name}: the docstring says {line.value!r}, the code {literal!r}"
    else:
        said = set(_NUMBER.findall(line.text))
        actual = set(_NUMBER.findall(repr(default)))
        assert said <= actual, f"{name}: 'Default: {line.text}' names {sorted(said - actual)}, not in {default!r}"


def test_a_changed_default_is_caught() -> None:
    doc = "Scrape interval. Default: 60s."

    assert readme.DefaultLine.of(doc) == readme.DefaultLine("60s", "60s", None)
    assert readme.render_default("90s") != readme.DefaultLine.of(doc).value
    prose = readme.DefaultLine.of("Timings. Default: - 60 s delay, every 15 s.")
    assert prose is not None and set(_NUMBER.findall(prose.text)) == {"60", "15"}


def test_readme_tables_are_generated_from_the_code() -> None:
    texts = {path.name: path.read_text() for path in readme.FILES}

    assert "<!-- generated: props -->" in texts["README.md"]
    assert "<!-- generated: exit-codes -->" in texts["README.md"]
    assert "<!-- generated: rbac -->" in texts["rbac.md"]
    stale = [name for name, text in texts.items() if readme.rewrite(text) != text]
    assert stale == [], "a generated table is stale: run make readme"


def test_the_port_numbers_appear_in_prose_only_on_default_lines() -> None:
    numbers = {str(defaults.METRICS_PORT), str(defaults.BINARY_METRICS_PORT), str(defaults.HEALTH_PORT)}
    package = Path(constructs_nld.__file__).parent
    restated = [
        f"{path.relative_to(package)}:{number}: {line.strip()}"
        for path in sorted(package.rglob("*.py"))
        # convert/ holds other deployers' own defaults (the chart's health port is 8080 too)
        if path.name != "defaults.py" and path.parent.name != "convert"
        for line in path.read_text().splitlines()
        for number in numbers
        if re.search(rf"\b{number}\b", line) and "Default:" not in line
    ]

    assert restated == []
