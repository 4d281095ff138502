"""The generated regions written from the code's docstrings: verify's check lists and the repository's layout.

``test_defaults.py`` checks that every region is current; these check what the generators
write and that they stop, naming the file, when the tree cannot give it.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

from constructs_nld.deploy.checks import CHECKS, UNINSTALLED_CHECKS, Check

REPO = Path(__file__).resolve().parents[2]


def _readme_tool() -> ModuleType:
    """``tools/readme.py``, loaded from its path once (``test_defaults.py`` loads it by the same name)."""
    if "readme_tool" in sys.modules:
        return sys.modules["readme_tool"]
    spec = importlib.util.spec_from_file_location("readme_tool", REPO / "tools" / "readme.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


readme = _readme_tool()


def _minimal_tree(root: Path) -> Path:
    """The layout's fixed entries under ``root``, and a package of one documented module; returns the package."""
    for name, _ in (*readme.LAYOUT_BEFORE, *readme.LAYOUT_AFTER):
        if name.endswith("/"):
            (root / name).mkdir()
        else:
            (root / name).write_text("")
    package = root / "constructs_nld"
    package.mkdir()
    (package / "__init__.py").write_text('"""The package."""\n')
    (package / "documented.py").write_text('"""A module with a docstring.\n\nMore."""\n')
    return package


def test_the_layout_lists_every_module_of_the_package_in_its_folder() -> None:
    rows = {(row.folder, row.name.strip()) for row in readme.layout_rows()}
    expected = {
        (
            (path.parent.parent if path.name == "__init__.py" else path.parent).relative_to(REPO).as_posix(),
            f"{path.parent.name}/" if path.name == "__init__.py" else path.name,
        )
        for path in (REPO / "constructs_nld").rglob("*.py")
    }

    assert sorted(expected - rows) == []


def test_the_layout_shows_each_modules_first_docstring_line_within_its_width() -> None:
    text = readme.layout()
    rows = {row.name.strip(): row.summary for row in readme.layout_rows()}

    assert max(len(line) for line in text.splitlines()) <= readme.LAYOUT_WIDTH
    assert rows["podmonitor_scrapes_both_ports.py"] == "the app's PodMonitor scrapes both metrics ports"
    assert rows["checks/"].startswith("The checks of verify, one module each")
    assert rows["daemonset_healthy.py"].startswith("a ready node-cache pod on every settled node")
    assert rows["nothing_left.py"].startswith("verify --uninstalled: no object")
    assert "``" not in text.strip("`\n") and ":mod:" not in text


def test_the_layout_of_a_small_tree(tmp_path: Path) -> None:
    _minimal_tree(tmp_path)

    text = readme.layout(tmp_path)

    assert "constructs_nld/  The package\n  documented.py  A module with a docstring\n" in text
    assert text.startswith("```\ncdk8s.yaml ") and text.endswith(
        "CHANGELOG.md     what changed, and what counts as breaking (SemVer)\n```\n"
    )


def test_a_module_without_a_docstring_stops_the_layout(tmp_path: Path) -> None:
    package = _minimal_tree(tmp_path)
    (package / "sub").mkdir()
    (package / "sub" / "__init__.py").write_text('"""A subpackage."""\n')
    (package / "sub" / "bare.py").write_text("VALUE = 1\n")

    with pytest.raises(readme.DocstringError, match=re.escape("bare.py: no module docstring")):
        readme.layout(tmp_path)


def test_a_module_in_a_folder_that_is_not_a_package_stops_the_layout(tmp_path: Path) -> None:
    package = _minimal_tree(tmp_path)
    (package / "loose").mkdir()
    (package / "loose" / "stray.py").write_text('"""Not importable as part of the package."""\n')

    with pytest.raises(FileNotFoundError, match=re.escape("constructs_nld/loose/stray.py")):
        readme.layout(tmp_path)


def test_a_fixed_entry_missing_from_the_tree_stops_the_layout(tmp_path: Path) -> None:
    _minimal_tree(tmp_path)
    (tmp_path / "CHANGELOG.md").unlink()

    with pytest.raises(FileNotFoundError, match="CHANGELOG.md"):
        readme.layout(tmp_path)


@pytest.mark.parametrize(
    ("registry", "generator"), [(CHECKS, "verify_checks"), (UNINSTALLED_CHECKS, "uninstalled_checks")]
)
def test_the_check_lists_follow_the_registry(registry: tuple[Check, ...], generator: str) -> None:
    text = getattr(readme, generator)()
    names = re.findall(r"^\d+\. \*\*`([a-z-]+)`\*\*: ", text, re.M)

    assert names == [sys.modules[check.__module__].NAME for check in registry]


def test_each_checks_docstring_gives_what_passes() -> None:
    docs = readme.check_docs((*CHECKS, *UNINSTALLED_CHECKS))

    assert [doc.name for doc in docs if not doc.summary] == []


def test_a_check_docstring_is_read_as_summary_details_cause_and_fix() -> None:
    doc = readme.CheckDoc.of(
        "some-check",
        "``some-check`` (verify --uninstalled): what passes.\n\nWhat it reads,\nwrapped.\n\n"
        "Cause: why it fails.\n\nFix: ``python deploy.py``.",
        "some_check.py",
    )

    assert doc == readme.CheckDoc(
        "some-check", "what passes.", "What it reads, wrapped.", "why it fails.", "``python deploy.py``."
    )
    assert readme.check_list([doc]) == (
        "1. **`some-check`**: what passes. What it reads, wrapped.\n\n"
        "    *Cause:* why it fails. *Fix:* `python deploy.py`.\n"
    )


def test_a_check_docstring_must_start_with_its_name() -> None:
    with pytest.raises(readme.DocstringError, match="some_check.py"):
        readme.CheckDoc.of("some-check", "``other-check``: what passes.", "some_check.py")
