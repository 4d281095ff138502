"""The JSON documents of ``-o json``: each declared once, as its schema, and built only through it.

A command that has a document for machines (``verify``, ``soak``, ``cutover status``, the
fleet's summary) declares it as a :class:`DocumentSchema` beside the code that fills it, and
returns what it built as :attr:`~constructs_nld.deploy.command.Outcome.document`; the
reporter (:mod:`constructs_nld.deploy.report`) prints it. Every document starts with
``schema`` (``nld-deploy/verify``) and ``version`` (a whole number raised whenever a field
changes meaning or goes away; a new field is a new version too, since every field is
required and no other is allowed). The checked-in JSON Schemas under ``docs/schemas/`` are
written from these declarations (``python tools/schemas.py``), and a test checks them
against the code, so the files and the output cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "JSON_SCHEMA_DIALECT",
    "DocumentSchema",
    "Schema",
    "array",
    "boolean",
    "enum",
    "integer",
    "nullable",
    "number",
    "record",
    "string",
]

JSON_SCHEMA_DIALECT: Final = "https://json-schema.org/draft/2020-12/schema"
"""The JSON Schema version the schemas are written in (the one editors and ``jsonschema`` know)."""

Schema = dict[str, Any]
"""One JSON Schema, as a mapping ready for ``json.dumps``."""


def string(description: str) -> Schema:
    """A string field."""
    return {"type": "string", "description": description}


def integer(description: str) -> Schema:
    """A whole-number field."""
    return {"type": "integer", "description": description}


def number(description: str) -> Schema:
    """A number field."""
    return {"type": "number", "description": description}


def boolean(description: str) -> Schema:
    """A true/false field."""
    return {"type": "boolean", "description": description}


def enum(description: str, *values: str) -> Schema:
    """A string field that takes one of ``values``."""
    return {"type": "string", "enum": list(values), "description": description}


def nullable(schema: Schema) -> Schema:
    """``schema``, or null."""
    types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
    nulled = {**schema, "type": [*types, "null"]}
    if "enum" in schema:
        nulled["enum"] = [*schema["enum"], None]
    return nulled


def record(description: str, properties: Mapping[str, Schema]) -> Schema:
    """An object whose every field is required and which has no other."""
    return {
        "type": "object",
        "description": description,
        "required": list(properties),
        "additionalProperties": False,
        "properties": dict(properties),
    }


def array(description: str, items: Schema) -> Schema:
    """A list of ``items``."""
    return {"type": "array", "description": description, "items": items}


@dataclass(frozen=True)
class DocumentSchema:
    """One document of ``-o json``: its name, what it says, and the fields after ``schema`` and ``version``."""

    name: str
    """The command it comes from, as a file name: ``verify``, ``cutover-status``; the document's ``schema`` is
    ``nld-deploy/<name>`` and its file ``docs/schemas/<name>.schema.json``."""
    title: str
    description: str
    properties: Mapping[str, Schema]
    """Every field of the document but ``schema`` and ``version``; all required, none other allowed."""
    version: int = 1

    @property
    def id(self) -> str:
        """The value of the document's ``schema`` field."""
        return f"nld-deploy/{self.name}"

    @property
    def file_name(self) -> str:
        """Its file under ``docs/schemas/``."""
        return f"{self.name}.schema.json"

    def json_schema(self) -> Schema:
        """The JSON Schema of the document, as ``docs/schemas/`` holds it."""
        envelope: dict[str, Schema] = {
            "schema": {"const": self.id, "description": "Which document this is."},
            "version": {"const": self.version, "description": "Raised whenever a field is added, changed or removed."},
        }
        return {
            "$schema": JSON_SCHEMA_DIALECT,
            "title": self.title,
            **record(self.description, {**envelope, **self.properties}),
        }

    def document(self, **fields: Any) -> dict[str, Any]:
        """The document of these fields, with its ``schema`` and ``version``; a field missing or unknown is a bug."""
        if set(fields) != set(self.properties):
            missing, unknown = set(self.properties) - set(fields), set(fields) - set(self.properties)
            raise TypeError(f"{self.id}: fields missing {sorted(missing)}, unknown {sorted(unknown)}")
        return {"schema": self.id, "version": self.version, **{name: fields[name] for name in self.properties}}
