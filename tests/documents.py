"""The checked-in JSON Schemas of ``-o json`` (docs/schemas/), and a document checked against its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

SCHEMAS: Final = Path(__file__).resolve().parent.parent / "docs" / "schemas"


def schema(name: str) -> dict[str, Any]:
    """The checked-in schema ``docs/schemas/<name>.schema.json``."""
    loaded: dict[str, Any] = json.loads((SCHEMAS / f"{name}.schema.json").read_text())
    return loaded


def validated(document: Any, name: str) -> dict[str, Any]:
    """``document`` (a JSON text, or parsed), once the checked-in schema ``name`` has validated it (else it raises)."""
    parsed = json.loads(document) if isinstance(document, str) else document
    checked = schema(name)
    Draft202012Validator.check_schema(checked)
    Draft202012Validator(checked).validate(parsed)
    assert isinstance(parsed, dict)
    return parsed
