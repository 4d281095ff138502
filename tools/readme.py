"""The generated tables of the README and of docs/, from the code: the props, the exit codes, the deployer's rules.

``python tools/readme.py`` rewrites the regions of README.md and docs/*.md between
``<!-- generated: NAME -->`` and ``<!-- end generated -->``; ``--check`` exits 1 when one is
stale (``make readme`` and a test run it). The props table takes each field's summary and ``Default:`` line from its
docstring, the same text the API reference shows, so a default is written in ``defaults.py``
and in one docstring, and a test checks that docstring against the code.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import re
import sys
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import yaml

REPO: Final = Path(__file__).resolve().parent.parent
README: Final = REPO / "README.md"
FILES: Final = (README, *sorted((REPO / "docs").glob("*.md")))
"""Every file with generated regions: the README and the guide pages of the documentation site."""
_REGION: Final = re.compile(r"(<!-- generated: (?P<name>[a-z-]+) -->\n)(?P<body>.*?)(<!-- end generated -->)", re.S)
_DEFAULT: Final = re.compile(r"Default: (?P<body>.*?)\.(?:\s|$)", re.S)
_NOTE: Final = re.compile(r"^(?P<value>[^(]*?)(?:\s+\((?P<note>.*)\))?$", re.S)
_REPLACES: Final = re.compile(r"Replaces: (?P<body>.*?)\.(?:\s|$)", re.S)


def field_docs(cls: type) -> dict[str, str]:
    """The docstring under each field of the dataclass ``cls`` and of its dataclass bases (the nearest wins)."""
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


@dataclass(frozen=True)
class DefaultLine:
    """A field's ``Default:`` clause: a literal value (with an optional note), or prose after ``- ``."""

    text: str
    value: str | None
    """The literal, as the docstring writes it; None for prose."""
    note: str | None

    @classmethod
    def of(cls, doc: str) -> DefaultLine | None:
        """The ``Default:`` clause of a docstring, or None when it has none."""
        match = _DEFAULT.search(" ".join(doc.split()))
        if match is None:
            return None
        body = match.group("body")
        if body.startswith("- "):
            return cls(body, None, body[2:])
        parts = _NOTE.match(body)
        assert parts is not None
        return cls(body, parts.group("value"), parts.group("note"))


def render_default(value: Any) -> str | None:
    """How a ``Default:`` line writes ``value`` as a literal, or None when it must be described in prose."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, str | int | float):
        return str(value)
    if isinstance(value, Mapping) and value:
        return ", ".join(f"``{key}: {_yaml_scalar(item)}``" for key, item in value.items())
    return None


def _yaml_scalar(text: str) -> str:
    return text if isinstance(yaml.safe_load(text), str) else f'"{text}"'


def default_of(field: dataclasses.Field[Any]) -> Any:
    """A field's default value (calling its factory), or ``dataclasses.MISSING`` for a required field."""
    if field.default is not dataclasses.MISSING:
        return field.default
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return dataclasses.MISSING


def _markdown(text: str) -> str:
    """ReStructuredText literals (double backquotes) as Markdown's single ones."""
    return text.replace("``", "`")


def _summary(doc: str) -> str:
    first = doc.split("\n\n")[0]
    return " ".join(_REPLACES.sub("", _DEFAULT.sub("", first)).split()).rstrip()


def replaces(doc: str) -> str:
    """What the docstring's ``Replaces:`` sentence names: the other deployers' values for the same setting."""
    match = _REPLACES.search(" ".join(doc.split()))
    return match.group("body") if match else ""


def props_table() -> str:
    """The props of ``NodeLocalDNSProps``: name, default, and what it is, from the code."""
    from constructs_nld import NodeLocalDNSProps

    docs = field_docs(NodeLocalDNSProps)
    rows = [
        "| prop | default | what it is | replaces (deliveryhero, kubespray, kops, …) |",
        "| --- | --- | --- | --- |",
    ]
    for field in dataclasses.fields(NodeLocalDNSProps):
        if not field.init:
            continue
        line = DefaultLine.of(docs[field.name])
        assert line is not None, f"{field.name}: no Default: line"
        default = f"`{line.value.replace('``', '')}`" if line.value is not None else str(line.note)
        note = f" ({line.note})" if line.value is not None and line.note else ""
        what = _summary(docs[field.name]).replace("|", "/")
        rows.append(_markdown(f"| `{field.name}` | {default}{note} | {what} | {replaces(docs[field.name])} |"))
    return "\n".join(rows) + "\n"


def exit_codes_table() -> str:
    """The exit codes of every command."""
    from constructs_nld.deploy.exitcodes import markdown_table

    return markdown_table()


def rbac_table() -> str:
    """The rules of each command for the spec's app, as ``DeployerRBAC`` renders them."""
    from constructs_nld import DeployerRBAC
    from constructs_nld.runtime import cdk8s

    rbac = DeployerRBAC(cdk8s.Chart(cdk8s.App(), "rbac"), "deployer")
    rows = ["| command | where | API group | resources | verbs |", "| --- | --- | --- | --- | --- |"]
    for command, rules in rbac.rules.items():
        for rule in rules:
            where = f"namespace `{rule.namespace}` (Role)" if rule.namespace else "cluster-wide (ClusterRole)"
            rows.append(
                f"| `{command}` | {where} | `{rule.group or 'core'}` | {', '.join(rule.resources)} | "
                f"{', '.join(rule.verbs)} |"
            )
    return "\n".join(rows) + "\n"


GENERATORS: Final[Mapping[str, Callable[[], str]]] = {
    "props": props_table,
    "exit-codes": exit_codes_table,
    "rbac": rbac_table,
}


def rewrite(text: str) -> str:
    """``text`` with every generated region replaced by what its generator writes now."""

    def fill(match: re.Match[str]) -> str:
        return match.group(1) + GENERATORS[match.group("name")]() + match.group(4)

    return _REGION.sub(fill, text)


def main(argv: list[str]) -> int:
    """Rewrite every file of :data:`FILES`, or with ``--check`` say which is stale."""
    stale = []
    for path in FILES:
        text = path.read_text()
        fresh = rewrite(text)
        if fresh == text:
            continue
        stale.append(path.relative_to(REPO).as_posix())
        if "--check" not in argv:
            path.write_text(fresh)
    if stale and "--check" in argv:
        print(f"{', '.join(stale)}: a generated table is stale; run make readme", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
