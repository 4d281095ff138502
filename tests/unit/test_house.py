"""The house's rules, read from the code: how deploy/'s modules import each other, what the synth side imports."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "constructs_nld"
DEPLOY = PACKAGE / "deploy"
JSII = ("cdk8s", "cdk8s_plus_28", "constructs", "jsii", "constructs_nld.runtime", "constructs_nld_imports")


def is_jsii(module: str) -> bool:
    """Whether importing ``module`` loads a jsii library (and so starts jsii's Node.js process)."""
    return any(module == name or module.startswith(f"{name}.") for name in JSII)


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def top_level_imports(path: Path) -> set[str]:
    """Modules ``path`` imports when it is loaded (imports inside functions load on use, and are left out)."""
    tree = ast.parse(path.read_text())
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.If):  # `if TYPE_CHECKING:` imports are for the type checker only
            continue
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return found


def imports_of(prefix: str) -> dict[str, set[str]]:
    return {
        module_name(path): top_level_imports(path)
        for path in sorted(PACKAGE.rglob("*.py"))
        if module_name(path).startswith(prefix)
    }


def test_no_command_imports_another_command() -> None:
    commands = {f"constructs_nld.deploy.commands.{p.stem}" for p in (DEPLOY / "commands").glob("*.py")}
    commands.discard("constructs_nld.deploy.commands.__init__")

    sideways = {
        module: sorted(imported & commands - {module})
        for module, imported in imports_of("constructs_nld.deploy.commands.").items()
        if imported & commands - {module}
    }

    assert commands >= {f"constructs_nld.deploy.commands.{c}" for c in ("deploy", "verify", "uninstall", "soak")}
    assert sideways == {}


def test_the_shared_deploy_modules_import_no_command() -> None:
    shared = {
        module: sorted(i for i in imported if i.startswith("constructs_nld.deploy.commands"))
        for module, imported in imports_of("constructs_nld.deploy").items()
        if not module.startswith("constructs_nld.deploy.commands") and module != "constructs_nld.deploy"
    }

    assert {module: found for module, found in shared.items() if found} == {}


def test_the_deploy_side_loads_no_jsii_library() -> None:
    loaded = {
        module: sorted(i for i in imported if is_jsii(i))
        for module, imported in imports_of("constructs_nld.deploy").items()
    }

    assert {module: found for module, found in loaded.items() if found} == {}


def test_only_the_runtime_module_imports_cdk8s_directly() -> None:
    direct = {
        module: sorted(i for i in imported if i.split(".")[0] in ("cdk8s", "cdk8s_plus_28", "constructs"))
        for module, imported in imports_of("constructs_nld").items()
        if module != "constructs_nld.runtime"
    }

    assert {module: found for module, found in direct.items() if found} == {}


def test_the_pure_models_import_no_cdk8s() -> None:
    pure = ("alerts", "corefile", "keeper", "defaults", "props", "roles", "durations", "placeholders")
    loaded = {name: sorted(i for i in top_level_imports(PACKAGE / f"{name}.py") if is_jsii(i)) for name in pure}

    assert {name: found for name, found in loaded.items() if found} == {}


def test_the_packages_export_exactly_the_names_they_load_on_use() -> None:
    import constructs_nld
    import constructs_nld.deploy

    for package in (constructs_nld, constructs_nld.deploy):
        homes = vars(package)["_HOMES"]
        assert sorted(package.__all__) == sorted(name for names in homes.values() for name in names)
        for name in package.__all__:
            assert getattr(package, name) is getattr(importlib.import_module(package_of(homes, name)), name)


def package_of(homes: dict[str, tuple[str, ...]], name: str) -> str:
    return next(module for module, names in homes.items() if name in names)


def all_imports(path: Path) -> set[str]:
    """Every module ``path`` imports, at load or on use."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def test_nothing_past_the_argument_layer_sees_argparse() -> None:
    seeing = sorted(module_name(path) for path in sorted(DEPLOY.rglob("*.py")) if "argparse" in all_imports(path))

    assert seeing == ["constructs_nld.deploy.cli"]


def test_the_command_registry_is_the_clis_list_of_commands_in_its_order() -> None:
    from constructs_nld.deploy.commands import COMMANDS, TOOLS
    from constructs_nld.deploy.exitcodes import COMMANDS as NAMES

    assert (*COMMANDS, *TOOLS) == NAMES


def test_every_wait_of_deploy_goes_through_the_one_wait_helper() -> None:
    sleeping = sorted(
        module_name(path)
        for path in sorted(DEPLOY.rglob("*.py"))
        if "time.sleep(" in path.read_text() or "PollBackoff(" in path.read_text()
    )

    assert sleeping == ["constructs_nld.deploy.wait"]


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes of ``tree``'s module, classes and functions, and of field docstrings."""
    found: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for statement in body:
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                found.add(id(statement.value))
    return found


def test_no_message_names_a_program_the_user_may_not_have() -> None:
    named = {}
    for path in sorted(DEPLOY.rglob("*.py")):
        if path.name == "program.py":
            continue
        tree = ast.parse(path.read_text())
        docs = _docstrings(tree)
        texts = [
            node.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
        ]
        hits = [text for text in texts if "deploy.py" in text or "nld-deploy " in text]
        if hits:
            named[module_name(path)] = hits

    assert named == {}
