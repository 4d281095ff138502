"""The documentation site: ``make docs`` builds it (``mkdocs build --strict``), its API reference has every
public name and every prop with its ``Default:`` line, none of its assets comes from the internet, and
headless Chromium, in a network namespace with nothing but loopback, renders its home and props pages
(``tools/screenshot.py``, the code of ``make screenshots``).

The expectations come from the code: the props from ``dataclasses.fields``, their defaults from the
docstrings under the fields (``tools/readme.py`` reads them for the README too), the public names from
the packages' ``__all__`` and ``_HOMES``, the headings from the Markdown sources.
"""

from __future__ import annotations

import dataclasses
import html
import importlib.util
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from PIL import Image

import constructs_nld
import constructs_nld.deploy
from constructs_nld import NodeLocalDNSProps
from tests.conftest import REPO_ROOT


def _load_tool(name: str) -> ModuleType:
    """``tools/NAME.py``, loaded from its path (tools/ is not a package)."""
    spec = importlib.util.spec_from_file_location(f"test_docs_{name}_tool", REPO_ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


screenshot = _load_tool("screenshot")
readme = _load_tool("readme")

PROPS_PAGE = screenshot.PAGES["props"]
PROPS_ID = "constructs_nld.nodelocaldns.NodeLocalDNSProps"
_ID = re.compile(r'\bid="([^"]+)"')
_TAG = re.compile(r"<[^>]+>")


def _text(markup: str) -> str:
    """What a reader sees of ``markup``: no tags (inline ones join their text), entities decoded, spaces collapsed."""
    return " ".join(html.unescape(_TAG.sub("", markup)).split())


def _sections(markup: str, parent: str) -> dict[str, str]:
    """The HTML of each member of ``parent``, from its anchor to the next member's."""
    anchors = list(re.finditer(rf'\bid="{re.escape(parent)}\.(\w+)"', markup))
    ends = [anchor.start() for anchor in anchors[1:]] + [len(markup)]
    return {anchor.group(1): markup[anchor.start() : end] for anchor, end in zip(anchors, ends, strict=True)}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site as ``make docs`` builds it, into a directory of this module's."""
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        ["make", "docs", f"SITE={out}"], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, f"make docs: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return out


@pytest.fixture(scope="module")
def shots(site: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The screenshots of every page of ``screenshot.PAGES``, as ``make screenshots`` takes them."""
    taken: dict[str, Any] = screenshot.take(site, tmp_path_factory.mktemp("screenshots"))
    return taken


def _reference_pages() -> list[str]:
    """The Markdown sources of the reference, as paths under docs/."""
    return sorted(str(path.relative_to(screenshot.DOCS)) for path in (screenshot.DOCS / "reference").glob("*.md"))


def test_make_docs_builds_the_home_page_with_links_to_every_reference_page(site: Path) -> None:
    home = screenshot.page_html(site, "index.md").read_text()

    assert screenshot.heading_of("index.md") in _text(home)
    links = set(re.findall(r'href="([^"#]*)"', home))
    for source in _reference_pages():
        target = screenshot.page_html(site, source).relative_to(site).as_posix().removesuffix("index.html")
        assert target in links, f"the home page has no link to {source} ({target})"


def test_the_props_page_documents_every_field_of_the_props_with_its_default(site: Path) -> None:
    page = screenshot.page_html(site, PROPS_PAGE).read_text()
    sections = _sections(page, PROPS_ID)
    docs = readme.field_docs(NodeLocalDNSProps)
    fields = [field.name for field in dataclasses.fields(NodeLocalDNSProps) if field.init]

    assert f'id="{PROPS_ID}"' in page
    assert fields, "NodeLocalDNSProps has no fields"
    assert [name for name in fields if name not in sections] == [], "fields without a section on the props page"
    for name in fields:
        line = readme.DefaultLine.of(docs[name])
        assert line is not None, f"{name}: its docstring has no Default: line"
        shown = line.text if line.value is not None else str(line.note)  # a prose default shown without its "- "
        expected = "Default: " + " ".join(shown.replace("``", "").split())
        assert expected in _text(sections[name]), f"{name}: {expected!r} is not in its section of the props page"


@pytest.mark.parametrize("package", [constructs_nld, constructs_nld.deploy], ids=lambda package: package.__name__)
def test_every_public_name_is_documented_in_the_reference_where_it_is_defined(site: Path, package: ModuleType) -> None:
    homes: dict[str, str] = {name: home for home, names in package._HOMES.items() for name in names}
    public: list[str] = list(package.__all__)
    ids = {
        anchor
        for source in _reference_pages()
        for anchor in _ID.findall(screenshot.page_html(site, source).read_text())
    }

    assert sorted(public) == sorted(homes), f"{package.__name__}: __all__ and _HOMES name different sets"
    assert public, f"{package.__name__} exports nothing"
    missing = [f"{homes[name]}.{name}" for name in public if f"{homes[name]}.{name}" not in ids]
    assert missing == [], f"public names on no page of docs/reference/ (add a ::: {{home}}.{{name}} there): {missing}"


def test_the_docstrings_roles_are_shown_as_code_and_prose_defaults_plain(site: Path) -> None:
    pages = {source: _text(screenshot.page_html(site, source).read_text()) for source in _reference_pages()}
    verbatim = {
        source: re.findall(r":(?:class|func|meth|mod|data|attr|exc|obj):`[^`]*`", text)
        for source, text in pages.items()
    }
    roles = sum(
        1 for path in (REPO_ROOT / "constructs_nld").rglob("*.py") for _ in re.finditer(r":class:`", path.read_text())
    )

    assert roles > 0, "the docstrings use no role: this test checks nothing"
    assert {source: found for source, found in verbatim.items() if found} == {}
    assert "NodeCacheOptions" in pages["reference/constructs.md"]
    assert [source for source, text in pages.items() if "Default: - " in text] == []


class _Assets(HTMLParser):
    """The addresses an HTML page makes the browser load: scripts, stylesheets, icons, images, frames."""

    def __init__(self) -> None:
        super().__init__()
        self.loaded: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        """Collect ``src`` of any element, ``href`` of ``<link>``, and each address of ``srcset``."""
        for name, value in attrs:
            if value is None:
                continue
            if name == "src" or (tag == "link" and name == "href"):
                self.loaded.append(value)
            elif name == "srcset":
                self.loaded += [candidate.split()[0] for candidate in value.split(",") if candidate.strip()]


def test_nothing_the_site_loads_comes_from_the_internet(site: Path) -> None:
    remote = re.compile(r"^(?:[a-z][a-z0-9+.-]*:)?//", re.I)
    pages = sorted(site.rglob("*.html"))
    found = []
    for page in pages:
        parser = _Assets()
        parser.feed(page.read_text())
        found += [f"{page.relative_to(site)}: {address}" for address in parser.loaded if remote.match(address)]
    for sheet in sorted(site.rglob("*.css")):
        found += [
            f"{sheet.relative_to(site)}: {url}"
            for url in re.findall(r"url\(\s*[\"']?((?:https?:)?//[^)\"']*)", sheet.read_text())
        ]
        found += [f"{sheet.relative_to(site)}: @import" for _ in re.findall(r"@import", sheet.read_text())]

    assert len(pages) > len(_reference_pages()), "the site has fewer pages than the reference alone"
    assert found == []


def test_chromium_runs_in_a_network_namespace_with_nothing_but_loopback(tmp_path: Path) -> None:
    command = screenshot.chromium_command("file:///index.html", tmp_path / "page.png", tmp_path / "profile")
    isolated = list(screenshot.ISOLATED)
    seen = subprocess.run([*isolated, "cat", "/proc/net/dev"], capture_output=True, text=True, timeout=30, check=False)
    interfaces = [line.split(":")[0].strip() for line in seen.stdout.splitlines()[2:]]

    assert command[: len(isolated)] == isolated
    assert command[len(isolated)] == "chromium"
    assert {"--disable-background-networking", "--disable-component-update", "--no-first-run"} <= set(command)
    assert seen.returncode == 0, seen.stderr
    assert interfaces == ["lo"]


@pytest.mark.parametrize("name", list(screenshot.PAGES))
def test_chromium_renders_the_page_with_the_theme(shots: dict[str, Any], name: str) -> None:
    shot = shots[name]
    source = screenshot.PAGES[name]
    with Image.open(shot.png) as image:
        size = image.size
        colours = image.convert("RGB").getcolors(maxcolors=size[0] * size[1])

    assert size == (screenshot.WIDTH, screenshot.HEIGHT)
    assert colours is not None and len(colours) >= screenshot.MIN_COLOURS, "the screenshot is blank"
    assert screenshot.problems(shot, screenshot.heading_of(source)) == []
    assert screenshot.heading_of(source) in shot.headings


def test_the_rendered_props_page_has_the_props_and_every_field(shots: dict[str, Any]) -> None:
    dom: str = shots["props"].dom
    missing = [
        field.name for field in dataclasses.fields(NodeLocalDNSProps) if f'id="{PROPS_ID}.{field.name}"' not in dom
    ]

    assert f'id="{PROPS_ID}"' in dom
    assert missing == []


def test_the_rendered_home_page_links_to_the_props_page(shots: dict[str, Any], site: Path) -> None:
    dom: str = shots["home"].dom
    target = screenshot.page_html(site, PROPS_PAGE).relative_to(site).as_posix().removesuffix("index.html")

    assert f'href="{target}"' in dom


def test_a_missing_page_fails_the_screenshots_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"

    assert screenshot.main(["--site", str(tmp_path / "empty"), "--out", str(out)]) == 1
    said = capsys.readouterr().err
    assert "index.html" in said and "Page load failed" in said, said
    assert not (out / "home.png").exists()


def test_a_blank_page_and_one_without_the_theme_are_refused(tmp_path: Path) -> None:
    blank = tmp_path / "blank.html"
    blank.write_text("<!DOCTYPE html><html><body></body></html>")
    bare = tmp_path / "bare.html"
    bare.write_text(
        "<!DOCTYPE html><html><body><h1>Bare</h1><p>A page without the theme's stylesheet.</p></body></html>"
    )

    blank_problems = " | ".join(screenshot.problems(screenshot.screenshot(blank, tmp_path / "blank.png"), "Bare"))
    bare_problems = " | ".join(screenshot.problems(screenshot.screenshot(bare, tmp_path / "bare.png"), "Bare"))

    for expected in ("a blank page", "its stylesheet did not load", "no md-header", "<h1> headings are []"):
        assert expected in blank_problems, blank_problems
    for expected in ("its stylesheet did not load", "no md-header"):
        assert expected in bare_problems, bare_problems
    assert "<h1>" not in bare_problems, bare_problems
