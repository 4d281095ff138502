"""The Node.js check before jsii starts: one line for a Node.js jsii does not support, nothing for 22 and 24."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from constructs_nld.nodejs import node_version, node_warning

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("version", "line"),
    [
        ("24.22.3", None),
        ("22.11.0", None),
        (
            "20.20.2",
            "warning: Node.js 20.20.2 is end-of-life for jsii, which supports 22 and 24: install Node.js 24; cdk8s may "
            "stop working on it",
        ),
        (
            "23.11.1",
            "warning: Node.js 23.11.1 is end-of-life for jsii, which supports 22 and 24: install Node.js 24; cdk8s may "
            "stop working on it",
        ),
        ("26.1.0", "warning: Node.js 26.1.0 is newer than jsii has tested (22 and 24): if a synth fails, use 24"),
        (
            None,
            "warning: no Node.js found (node on PATH, or $JSII_NODE): cdk8s needs it to synthesize; install Node.js 24 "
            "(jsii supports 22 and 24)",
        ),
    ],
)
def test_each_node_line_gets_its_one_line(version: str | None, line: str | None) -> None:
    assert node_warning(version) == line


def _pretending(tmp_path: Path, version: str) -> Path:
    """A ``node`` that says it is ``version`` and runs the real one for anything else."""
    real = shutil.which("node")
    assert real is not None, "the suite needs Node.js on PATH (make test installs it)"
    script = tmp_path / "node"
    script.write_text(f'#!/bin/sh\nif [ "$1" = --version ]; then echo v{version}; else exec {real} "$@"; fi\n')
    script.chmod(0o755)
    return script


def test_the_version_is_that_of_the_node_jsii_would_start(tmp_path: Path) -> None:
    assert node_version({"JSII_NODE": str(_pretending(tmp_path, "20.20.2"))}) == "20.20.2"
    assert node_version({"JSII_NODE": str(tmp_path / "no-such-node")}) is None
    assert node_version(os.environ) == subprocess.run(
        ["node", "--version"], capture_output=True, text=True, check=True
    ).stdout.strip().removeprefix("v")


@pytest.mark.parametrize(("version", "lines"), [("20.20.2", 1), ("24.22.3", 0)])
def test_loading_cdk8s_says_it_in_one_line_and_silences_nothing(tmp_path: Path, version: str, lines: int) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JSII_")}
    env["JSII_NODE"] = str(_pretending(tmp_path, version))

    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import os, constructs_nld.runtime; print(sorted(k for k in os.environ if k.startswith('JSII_SILENCE')))",
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )

    assert [line for line in done.stderr.splitlines() if line.startswith("warning: Node.js")] == (
        [node_warning(version)] if lines else []
    )
    assert done.stdout.strip() == "[]"
