"""The library's version, kept in one place: ``pyproject.toml``'s ``[project] version``.

An installed package reads it from its metadata; a checkout that is not installed reads the
``pyproject.toml`` beside the package. The version follows SemVer as ``CHANGELOG.md`` defines
what breaks.
"""

from __future__ import annotations

import tomllib
from importlib import metadata
from pathlib import Path

__all__ = ["DISTRIBUTION", "version"]

DISTRIBUTION = "constructs-nld"
"""The distribution's name on an index and in ``pip``."""


def version() -> str:
    """The installed distribution's version, else the checkout's ``pyproject.toml`` version."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
        with pyproject.open("rb") as handle:
            return str(tomllib.load(handle)["project"]["version"])
