"""The generated regions of the README and of docs/, from the code: tables, verify's checks, the layout.

``python tools/readme.py`` rewrites the regions of README.md and docs/*.md between
``<!-- generated: NAME -->`` and ``<!-- end generated -->``; ``--check`` exits 1 when one is
stale (``make readme`` and a test run it). The props table takes each field's summary and ``Default:`` line from its
docstring, the same text the API reference shows, so a default is written in ``defaults.py``
and in one docstring, and a test checks that docstring against the code. The tables are the
props, the exit codes, the deployer's rules and the deliveryhero chart's keys (``convert``'s
own mapping, :data:`constructs_nld.convert.deliveryhero.RULES`); the checks' lists take each check's text from
its module's docstring, in the registry's order; the layout lists every module of the package
with the first line of its docstring, so a module added, renamed or removed changes the page.
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
_ROLE: Final = re.compile(r":[a-z]+:`~?(?P<target>[^`]+)`")
_NAMED: Final = re.compile(r"^``(?P<name>[^`]+)``(?: \((?P<where>[^)]*)\))?: ")
_CHECK_PARTS: Final = ("Cause:", "Fix:")
"""The labels of the last paragraphs of a check module's docstring: a failure's likely cause, and the fix."""


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
    """ReStructuredText literals (double backquotes) and roles (:mod:`x`) as Markdown's code spans."""
    return _ROLE.sub(lambda match: f"``{_role_target(match)}``", text).replace("``", "`")


def _plain(text: str) -> str:
    """ReStructuredText literals and roles as plain text, for a code block."""
    return _ROLE.sub(_role_target, text).replace("``", "")


def _role_target(match: re.Match[str]) -> str:
    """What a role shows: its target, only the last name of it when written with ``~``."""
    target = match.group("target")
    return target.rpartition(".")[2] if match.group(0).split("`")[1].startswith("~") else target


def _summary(doc: str) -> str:
    first = doc.split("\n\n")[0]
    return " ".join(_REPLACES.sub("", _DEFAULT.sub("", first)).split()).rstrip()


def replaces(doc: str) -> str:
    """What the docstring's ``Replaces:`` sentence names: the other deployers' values for the same setting."""
    match = _REPLACES.search(" ".join(doc.split()))
    return match.group("body") if match else ""


def _field_rows(cls: type, prefix: str = "") -> list[str]:
    """A table row per field of the dataclass ``cls``: ``prefix`` and its name, default, what it is and replaces."""
    docs = field_docs(cls)
    rows = []
    for field in dataclasses.fields(cls):
        if not field.init:
            continue
        line = DefaultLine.of(docs[field.name])
        assert line is not None, f"{cls.__name__}.{field.name}: no Default: line"
        default = f"`{line.value.replace('``', '')}`" if line.value is not None else str(line.note)
        note = f" ({line.note})" if line.value is not None and line.note else ""
        what = _summary(docs[field.name]).replace("|", "/")
        rows.append(_markdown(f"| `{prefix}{field.name}` | {default}{note} | {what} | {replaces(docs[field.name])} |"))
    return rows


def props_table() -> str:
    """The props of ``NodeLocalDNSProps``: name, default, and what it is, from the code."""
    from constructs_nld import NodeLocalDNSProps

    rows = [
        "| prop | default | what it is | replaces (deliveryhero, kubespray, kops, …) |",
        "| --- | --- | --- | --- |",
        *_field_rows(NodeLocalDNSProps),
    ]
    return "\n".join(rows) + "\n"


def nested_props_table() -> str:
    """The fields of ``ForwardOptions``, ``CacheSettings`` and ``ZoneCache``, in rows like the props table's."""
    from constructs_nld.dns import CacheSettings, ForwardOptions, ZoneCache

    rows = [
        "| field | default | what it is | replaces (deliveryhero, lablabs, AKS, …) |",
        "| --- | --- | --- | --- |",
    ]
    for cls in (ForwardOptions, CacheSettings, ZoneCache):
        rows += _field_rows(cls, f"{cls.__name__}.")
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
    rows = [
        "| command | where | API group | resources | names | verbs |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for command, rules in rbac.rules.items():
        for rule in rules:
            where = f"namespace `{rule.namespace}` (Role)" if rule.namespace else "cluster-wide (ClusterRole)"
            names = ", ".join(f"`{name}`" for name in rule.names) or "any"
            rows.append(
                f"| `{command}` | {where} | `{rule.group or 'core'}` | {', '.join(rule.resources)} | {names} | "
                f"{', '.join(rule.verbs)} |"
            )
    return "\n".join(rows) + "\n"


class DocstringError(ValueError):
    """A module's docstring cannot give what a generated region needs from it: the message names the file."""


def module_doc(path: Path) -> str:
    """The docstring of the module at ``path``; a module without one stops the generator, naming it."""
    doc = ast.get_docstring(ast.parse(path.read_text(), filename=str(path)))
    if not doc:
        raise DocstringError(f"{path.relative_to(REPO) if path.is_relative_to(REPO) else path}: no module docstring")
    return doc


@dataclass(frozen=True)
class CheckDoc:
    """What a check module's docstring tells the user: what passes, what it reads, a failure's cause and fix.

    The docstring's first line is ``NAME``, optionally a parenthesised note, a colon and the
    summary; the paragraphs after it describe the check; the last ones may start with
    ``Cause:`` and ``Fix:``.
    """

    name: str
    summary: str
    details: str
    cause: str
    fix: str

    @classmethod
    def of(cls, name: str, doc: str, where: str) -> CheckDoc:
        """Parse ``doc``, the docstring of the check ``name`` (``where`` names its module in an error)."""
        paragraphs = [" ".join(paragraph.split()) for paragraph in doc.split("\n\n")]
        named = _NAMED.match(paragraphs[0])
        if named is None or named.group("name") != name:
            raise DocstringError(f"{where}: the docstring does not start with ``{name}``: and the check's summary")
        labelled = {
            label: paragraph.removeprefix(label).strip()
            for paragraph in paragraphs[1:]
            for label in _CHECK_PARTS
            if paragraph.startswith(label)
        }
        details = [p for p in paragraphs[1:] if not p.startswith(_CHECK_PARTS)]
        return cls(
            name, paragraphs[0][named.end() :], " ".join(details), labelled.get("Cause:", ""), labelled.get("Fix:", "")
        )


def check_docs(registry: tuple[Callable[..., object], ...]) -> list[CheckDoc]:
    """The docstring of each check of ``registry``, in its order."""
    docs = []
    for check in registry:
        module = sys.modules[check.__module__]
        path = Path(str(module.__file__))
        docs.append(CheckDoc.of(module.NAME, module_doc(path), path.relative_to(REPO).as_posix()))
    return docs


def check_list(docs: list[CheckDoc]) -> str:
    """A numbered list of checks in the order they print: each one's text, then its failure's cause and fix."""
    items = []
    for number, doc in enumerate(docs, 1):
        text = f"{number}. **`{doc.name}`**: {doc.summary}"
        if doc.details:
            text += f" {doc.details}"
        failure = " ".join(
            part
            for part in (f"*Cause:* {doc.cause}" if doc.cause else "", f"*Fix:* {doc.fix}" if doc.fix else "")
            if part
        )
        if failure:
            text += f"\n\n    {failure}"
        items.append(_markdown(text))
    return "\n\n".join(items) + "\n"


def verify_checks() -> str:
    """The checks of ``verify``."""
    from constructs_nld.deploy.checks import CHECKS

    return check_list(check_docs(CHECKS))


def uninstalled_checks() -> str:
    """The checks of ``verify --uninstalled``."""
    from constructs_nld.deploy.checks import UNINSTALLED_CHECKS

    return check_list(check_docs(UNINSTALLED_CHECKS))


PACKAGE: Final = REPO / "constructs_nld"
LAYOUT_WIDTH: Final = 100
"""The layout's widest line: a code block that fits the documentation site's column."""
LAYOUT_BEFORE: Final = (
    ("cdk8s.yaml", "the cdk8s project: cdk8s synth runs main.py"),
    ("main.py", "the app: configure NodeLocal DNSCache here"),
    ("deploy.py", "the deploy CLI: deploy, verify, uninstall, soak, cutover"),
)
"""The entries of the layout above the package: the entry points, each with what it is."""
LAYOUT_AFTER: Final = (
    ("imports/", "the CRDs' typed classes, written by cdk8s import (make imports)"),
    ("dist/", "the synthesized preview (make synth)"),
    ("examples/", "complete cdk8s projects a user copies (tested: synth, deploy, verify)"),
    ("docs/", "the documentation site (mkdocs.yml, make docs); docs/reference/: the API"),
    ("tests/", "the test suites: unit, snapshot, integration, e2e, and their harness"),
    ("bench/", "the benchmarks (make bench)"),
    ("tools/", "readme.py writes the generated regions of the README and docs/"),
    ("requirements/", "the locks: every dependency pinned and hashed (make lock)"),
    ("CHANGELOG.md", "what changed, and what counts as breaking (SemVer)"),
)
"""The entries of the layout below the package, each with what it is."""


def module_summary(path: Path) -> str:
    """The first line of a module's docstring as the layout shows it: plain text, without its own name or period.

    A summary that starts by naming its module (``verify``: …, ``daemonset-healthy``: …) drops
    the name, which the layout shows beside it.
    """
    first = module_doc(path).splitlines()[0].strip()
    stem = path.parent.name if path.name == "__init__.py" else path.stem
    named = _NAMED.match(first)
    if named is not None and named.group("name").replace("-", "_") == stem:
        where = named.group("where")
        first = (f"{where}: " if where else "") + first[named.end() :]
    return _plain(first).removesuffix(".")


@dataclass(frozen=True)
class LayoutRow:
    """One entry of the layout: its name, indented, and its summary; ``folder`` is the folder it is listed in."""

    folder: str
    name: str
    summary: str


def _package_rows(package: Path, root: Path, depth: int) -> list[tuple[Path, LayoutRow]]:
    """The package's row, then its modules' and its subpackages', ``depth`` levels in, each with its module's path."""
    indent = "  " * depth
    init = package / "__init__.py"
    inside = package.relative_to(root).as_posix()
    rows = [
        (init, LayoutRow(package.parent.relative_to(root).as_posix(), f"{indent}{package.name}/", module_summary(init)))
    ]
    rows += [
        (module, LayoutRow(inside, f"{indent}  {module.name}", module_summary(module)))
        for module in sorted(package.glob("*.py"))
        if module != init
    ]
    for sub in sorted(path for path in package.iterdir() if (path / "__init__.py").is_file()):
        rows += _package_rows(sub, root, depth + 1)
    return rows


def layout_rows(root: Path = REPO) -> list[LayoutRow]:
    """Every entry of the layout: the fixed ones around every module of the package under ``root``.

    Raises:
        DocstringError: a module has no docstring.
        FileNotFoundError: a fixed entry is not in the tree, or a module is in a folder that is not a package.
    """
    for name, _ in (*LAYOUT_BEFORE, *LAYOUT_AFTER):
        path = root / name
        if not (path.is_dir() if name.endswith("/") else path.is_file()):
            raise FileNotFoundError(f"{name}: in the layout (tools/readme.py) but not in the tree")
    package = root / PACKAGE.name
    rows = _package_rows(package, root, 0)
    outside = sorted(set(package.rglob("*.py")) - {path for path, _ in rows})
    if outside:
        names = ", ".join(path.relative_to(root).as_posix() for path in outside)
        raise FileNotFoundError(f"{names}: in a folder without __init__.py, which the layout cannot show")
    return [
        *(LayoutRow(".", name, summary) for name, summary in LAYOUT_BEFORE),
        *(row for _, row in rows),
        *(LayoutRow(".", name, summary) for name, summary in LAYOUT_AFTER),
    ]


def layout(root: Path = REPO) -> str:
    """The repository's layout as a code block, a blank line before each subpackage and after the package.

    In each folder the names take one column and the summaries, wrapped, the next; a folder's
    summaries start no further left than its parent's.
    """
    rows = layout_rows(root)
    columns: dict[str, int] = {}
    for row in rows:
        columns[row.folder] = max(columns.get(row.folder, 0), len(row.name) + 2)
    for folder in sorted(columns, key=lambda folder: folder.count("/")):
        if folder != ".":
            columns[folder] = max(columns[folder], columns[str(Path(folder).parent)])
    lines: list[str] = []
    for previous, row in zip((None, *rows), rows, strict=False):
        subpackage = row.folder != "." and row.name.endswith("/")
        if previous is not None and (subpackage or (row.folder == "." and previous.folder != ".")):
            lines.append("")
        column = columns[row.folder]
        wrapped = textwrap.wrap(row.summary, LAYOUT_WIDTH - column, break_on_hyphens=False) or [""]
        lines.append(f"{row.name:<{column}}{wrapped[0]}".rstrip())
        lines += [f"{'':<{column}}{more}" for more in wrapped[1:]]
    return "```\n" + "\n".join(lines) + "\n```\n"


def deliveryhero_table() -> str:
    """Every key of the deliveryhero chart, its default, the prop it becomes and how: ``convert``'s own table."""
    from constructs_nld.convert.deliveryhero import RULES, chart_value

    rows = ["| chart key | chart default | prop | how |", "| --- | --- | --- | --- |"]
    for rule in RULES:
        default = chart_value(rule.default)
        rows.append(f"| `{rule.key}` | {default} | {rule.props or '-'} | {rule.how} |".replace("\n", " "))
    return "\n".join(rows) + "\n"


GENERATORS: Final[Mapping[str, Callable[[], str]]] = {
    "props": props_table,
    "exit-codes": exit_codes_table,
    "rbac": rbac_table,
    "checks": verify_checks,
    "uninstalled-checks": uninstalled_checks,
    "layout": layout,
    "deliveryhero": deliveryhero_table,
    "nested-props": nested_props_table,
}


def rewrite(text: str) -> str:
    """``text`` with every generated region replaced by what its generator writes now."""

    def fill(match: re.Match[str]) -> str:
        return match.group(1) + GENERATORS[match.group("name")]() + match.group(4)

    return _REGION.sub(fill, text)


def generated_files() -> dict[Path, str]:
    """The files generated whole: the values files' JSON Schema (:mod:`constructs_nld.schema`)."""
    from constructs_nld.schema import SCHEMA_FILE, values_schema_text

    return {REPO / SCHEMA_FILE: values_schema_text()}


def main(argv: list[str]) -> int:
    """Rewrite every file of :data:`FILES` and :func:`generated_files`, or with ``--check`` say which is stale."""
    stale = []
    wholes = generated_files()
    for path in (*FILES, *wholes):
        text = path.read_text() if path.exists() else ""
        fresh = wholes[path] if path in wholes else rewrite(text)
        if fresh == text:
            continue
        stale.append(path.relative_to(REPO).as_posix())
        if "--check" not in argv:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(fresh)
    if stale and "--check" in argv:
        print(f"{', '.join(stale)}: a generated table or file is stale; run make readme", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
