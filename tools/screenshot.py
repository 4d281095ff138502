"""Screenshots of the built documentation site, by headless Chromium cut off from every network.

``make screenshots`` writes ``docs/screenshots/home.png`` and ``docs/screenshots/props.png``, the
README's preview of the site; ``tests/integration/test_docs.py`` takes the same screenshots of a
fresh build with this code and checks them. Chromium runs in a network namespace of its own
(``unshare --net``: a loopback interface, down, and nothing else), so neither the pages nor
Chromium's own background services (updates, safe browsing, metrics) can send a packet; the pages
load through ``file://``. A page that fails to load, or renders without its heading, the theme's
header or any content, is an error, never a picture of an error page.
"""

from __future__ import annotations

import argparse
import html
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from PIL import Image

REPO: Final = Path(__file__).resolve().parent.parent
DOCS: Final = REPO / "docs"
OUT: Final = DOCS / "screenshots"
WIDTH: Final = 1280
HEIGHT: Final = 1600
PAGES: Final[Mapping[str, str]] = {"home": "index.md", "props": "reference/nodelocaldns.md"}
"""Each screenshot's name, and the Markdown source under ``docs/`` of the page it shows."""
MIN_COLOURS: Final = 256
"""Fewer distinct colours than this is a blank page: a rendered page of text has a thousand or more."""
TIMEOUT: Final = 60.0
"""Seconds one Chromium run may take (about 1.5 s on a warm machine)."""
ISOLATED: Final = ("unshare", "--net", *(() if os.geteuid() == 0 else ("--map-root-user",)), "--")
"""The prefix that runs a command in a new network namespace; without root, in a user namespace too."""
_H1: Final = re.compile(r"<h1\b[^>]*>(?P<text>.*?)</h1>", re.S)
_TAG: Final = re.compile(r"<[^>]+>")


class ScreenshotError(RuntimeError):
    """A page could not be taken, or the picture is not the page rendered by the theme."""


@dataclass(frozen=True)
class Screenshot:
    """One page as Chromium rendered it: the PNG, what it measures, and the DOM after the page's scripts ran."""

    page: Path
    png: Path
    size: tuple[int, int]
    colours: int
    """Distinct RGB colours of the PNG."""
    header_colour: tuple[int, int, int]
    """A pixel of the header band, at the top right (the theme's primary colour when its CSS loaded)."""
    dom: str

    @property
    def headings(self) -> list[str]:
        """The text of the DOM's ``<h1>`` elements, without the permalink mark."""
        return [
            " ".join(html.unescape(_TAG.sub("", m.group("text"))).replace("¶", "").split())
            for m in _H1.finditer(self.dom)
        ]


def page_html(site: Path, source: str) -> Path:
    """The HTML file MkDocs builds from the Markdown ``source`` (relative to docs/), with directory URLs."""
    stem = source.removesuffix(".md")
    if stem == "index" or stem.endswith("/index"):
        return site / f"{stem}.html"
    return site / stem / "index.html"


def heading_of(source: str) -> str:
    """The page's title as its Markdown source writes it: the first ``# `` line."""
    for line in (DOCS / source).read_text().splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    raise ScreenshotError(f"docs/{source}: no '# ' heading")


def chromium_command(url: str, png: Path, profile: Path) -> list[str]:
    """Headless Chromium, in a network namespace of its own, writing ``url``'s screenshot and printing its DOM."""
    return [
        *ISOLATED,
        "chromium",
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
        "--no-default-browser-check",
        f"--user-data-dir={profile}",
        f"--window-size={WIDTH},{HEIGHT}",
        f"--screenshot={png}",
        "--dump-dom",
        url,
    ]


def screenshot(page: Path, png: Path) -> Screenshot:
    """Render the HTML file ``page`` to ``png``; an error when Chromium fails or the page does not load.

    Chromium exits 0 on a page that failed to load: it then writes no PNG and no DOM, and says
    ``Page load failed`` on stderr.
    """
    for command in (ISOLATED[0], "chromium"):
        if shutil.which(command) is None:
            raise ScreenshotError(f"{command} is not installed: `make system` installs it (as root)")
    png.parent.mkdir(parents=True, exist_ok=True)
    png.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
        done = subprocess.run(
            chromium_command(page.resolve().as_uri(), png, Path(profile)),
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
    said = "\n".join(
        line for line in done.stderr.splitlines() if "dbus" not in line and "/usr/bin/chromium:" not in line
    )
    if done.returncode != 0 or "Page load failed" in said or not png.is_file() or not done.stdout.strip():
        raise ScreenshotError(f"{page}: Chromium exited {done.returncode} without rendering the page\n{said}")
    with Image.open(png) as image:
        rgb = image.convert("RGB")
        colours = rgb.getcolors(maxcolors=WIDTH * HEIGHT)
        assert colours is not None, "getcolors returns None only beyond maxcolors, here the pixel count"
        pixel = rgb.getpixel((rgb.width - 8, 8))
    assert isinstance(pixel, tuple), "an RGB image's pixel is a tuple"
    return Screenshot(page, png, rgb.size, len(colours), (pixel[0], pixel[1], pixel[2]), done.stdout)


def problems(shot: Screenshot, heading: str) -> list[str]:
    """What is wrong with ``shot`` as the rendered page titled ``heading``: nothing, for a good picture."""
    found = []
    if shot.size != (WIDTH, HEIGHT):
        found.append(f"the PNG is {shot.size[0]}x{shot.size[1]}, not the window's {WIDTH}x{HEIGHT}")
    if shot.colours < MIN_COLOURS:
        found.append(f"the PNG has {shot.colours} colours (fewer than {MIN_COLOURS}): a blank page")
    if max(shot.header_colour) - min(shot.header_colour) < 64:
        found.append(f"the header band is {shot.header_colour}, not the theme's colour: its stylesheet did not load")
    if 'class="md-header' not in shot.dom:
        found.append("the DOM has no md-header: not a page of the material theme")
    if heading not in shot.headings:
        found.append(f"the DOM's <h1> headings are {shot.headings}, not {heading!r}")
    return found


def take(site: Path, out: Path) -> dict[str, Screenshot]:
    """Screenshot every page of :data:`PAGES` in the built ``site`` to ``out/NAME.png``; an error on a bad one."""
    shots = {}
    for name, source in PAGES.items():
        shot = screenshot(page_html(site, source), out / f"{name}.png")
        found = problems(shot, heading_of(source))
        if found:
            raise ScreenshotError(f"{shot.page}: " + "; ".join(found))
        shots[name] = shot
    return shots


def default_site() -> Path:
    """Where ``mkdocs build`` writes the site: mkdocs.yml's ``site_dir``."""
    from mkdocs.config import load_config

    return Path(load_config(str(REPO / "mkdocs.yml"))["site_dir"])


def main(argv: Sequence[str] | None = None) -> int:
    """Write the screenshots of a built site (``make docs`` builds it); 1, naming the page, when one fails."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--site", type=Path, help="the built site (default: mkdocs.yml's site_dir)")
    parser.add_argument("--out", type=Path, default=OUT, help=f"where the PNGs go (default: {OUT.relative_to(REPO)})")
    args = parser.parse_args(argv)
    try:
        shots = take(args.site or default_site(), args.out)
    except ScreenshotError as error:
        print(f"screenshot: {error}", file=sys.stderr)
        return 1
    for shot in shots.values():
        print(shot.png)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
