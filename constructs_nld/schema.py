"""The JSON Schema (draft 2020-12) of a values file, generated from the props' dataclasses.

Editors that read ``# yaml-language-server: $schema=…`` complete and check a values file with
it: every field of :class:`NodeLocalDNSProps` and of the dataclasses it holds, its type, its
choices (a ``Literal``), its default and its docstring. Unknown keys are refused, as
:func:`constructs_nld.values.props_from_values` refuses them. The schema checks shapes only;
the props' own validation (addresses, ranges, clashes) runs when the values are loaded.
``python tools/readme.py`` writes it to :data:`SCHEMA_FILE`, and ``--check`` says when it is stale.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import json
import textwrap
import types
import typing
from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any, Final, Literal

from constructs_nld.values import values_from_props

__all__ = ["SCHEMA_FILE", "SCHEMA_ID", "values_schema", "values_schema_text"]

SCHEMA_FILE: Final = PurePosixPath("schema/values.schema.json")
"""Where the checked-in schema lives, from the repository's root."""

SCHEMA_ID: Final = "https://constructs-nld.invalid/schema/values.schema.json"
"""The schema's ``$id``: a name, not an address to fetch (``.invalid`` never resolves)."""


def _field_docs(cls: type) -> dict[str, str]:
    """The docstring under each field of ``cls`` and of its dataclass bases (the nearest class wins)."""
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if not dataclasses.is_dataclass(klass):
            continue
        tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        body = next(node for node in tree.body if isinstance(node, ast.ClassDef)).body
        for statement, after in zip(body, body[1:], strict=False):
            if (
                isinstance(statement, ast.AnnAssign)
                and isinstance(statement.target, ast.Name)
                and isinstance(after, ast.Expr)
                and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)
            ):
                docs[statement.target.id] = inspect.cleandoc(after.value.value)
    return docs


def _text(doc: str) -> str:
    """A docstring as an editor shows it: reStructuredText literals as Markdown's."""
    return doc.replace("``", "`")


class _Builder:
    """Walks the type hints from the props' class, one ``$defs`` entry per dataclass."""

    def __init__(self) -> None:
        self.defs: dict[str, Any] = {}

    def type_schema(self, hint: Any) -> dict[str, Any]:
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if origin in (typing.Union, types.UnionType):
            return {"anyOf": [self.type_schema(arg) for arg in args]}
        if origin is Literal:
            return {"enum": list(args)}
        if origin is tuple:
            return {"type": "array", "items": self.type_schema(args[0])}
        if origin is Mapping:
            return {"type": "object", "additionalProperties": self.type_schema(args[1])}
        if isinstance(hint, type) and dataclasses.is_dataclass(hint):
            self.define(hint)
            return {"$ref": f"#/$defs/{hint.__name__}"}
        simple = {str: "string", int: "integer", bool: "boolean", type(None): "null"}
        return {"type": simple[hint]}

    def object_schema(self, cls: type) -> dict[str, Any]:
        hints = typing.get_type_hints(cls)
        docs = _field_docs(cls)
        properties: dict[str, Any] = {}
        required = []
        for field in dataclasses.fields(cls):
            if not field.init:
                continue
            schema = self.type_schema(hints[field.name])
            if field.name in docs:
                schema["description"] = _text(docs[field.name])
            if field.default is not dataclasses.MISSING:
                schema["default"] = values_from_props(field.default)
            elif field.default_factory is not dataclasses.MISSING:
                schema["default"] = values_from_props(field.default_factory())
            else:
                required.append(field.name)
            properties[field.name] = schema
        schema = {
            "type": "object",
            "description": _text(inspect.cleandoc(cls.__doc__ or "")),
            "properties": properties,
            "additionalProperties": False,
        }
        if required:
            schema["required"] = required
        return schema

    def define(self, cls: type) -> None:
        if cls.__name__ not in self.defs:
            self.defs[cls.__name__] = {}  # taken before the fields: Directive holds Directives
            self.defs[cls.__name__] = self.object_schema(cls)


def values_schema() -> dict[str, Any]:
    """The schema of a values file: :class:`NodeLocalDNSProps`' fields at the top, its dataclasses in ``$defs``."""
    from constructs_nld.nodelocaldns import NodeLocalDNSProps

    builder = _Builder()
    top = builder.object_schema(NodeLocalDNSProps)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "constructs_nld values file (NodeLocalDNSProps)",
        **top,
        "$defs": dict(sorted(builder.defs.items())),
    }


def values_schema_text() -> str:
    """The schema as the checked-in file holds it: indented JSON, keys in the code's order, a final newline."""
    return json.dumps(values_schema(), indent=2, ensure_ascii=False) + "\n"
