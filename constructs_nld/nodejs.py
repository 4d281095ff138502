"""The Node.js that jsii will run, checked before it starts: one line when jsii does not support it.

cdk8s runs its constructs in jsii's Node.js process: ``$JSII_NODE`` if set, else ``node`` on
``PATH``. jsii supports the lines of :data:`~constructs_nld.defaults.NODE_SUPPORTED`; on an
end-of-life one it prints a page-wide banner of its own, and on a newer one it says the line
is untested. Those warnings stay on. This check adds the one line a CI log shows at a glance,
with what to install, and costs one ``node --version`` (a few milliseconds).
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Mapping
from typing import Final

from constructs_nld.defaults import NODE_SUPPORTED

__all__ = ["node_version", "node_warning"]

_VERSION: Final = re.compile(r"^v?(?P<major>\d+)\.\d+\.\d+")


def node_version(environ: Mapping[str, str]) -> str | None:
    """The version of the Node.js jsii would start (``20.20.2``), or None when there is none to run."""
    node = environ.get("JSII_NODE") or "node"
    try:
        done = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = done.stdout.strip()
    return text.removeprefix("v") if done.returncode == 0 and _VERSION.match(text) else None


def node_warning(version: str | None) -> str | None:
    """The one line for a Node.js jsii does not support (None: a supported one, nothing to say)."""
    supported = " and ".join(str(major) for major in NODE_SUPPORTED)
    newest = max(NODE_SUPPORTED)
    if version is None:
        return (
            f"warning: no Node.js found (node on PATH, or $JSII_NODE): cdk8s needs it to synthesize; "
            f"install Node.js {newest} (jsii supports {supported})"
        )
    match = _VERSION.match(version)
    major = int(match.group("major")) if match else 0
    if major in NODE_SUPPORTED:
        return None
    if major < newest:
        return (
            f"warning: Node.js {version} is end-of-life for jsii, which supports {supported}: "
            f"install Node.js {newest}; cdk8s may stop working on it"
        )
    return f"warning: Node.js {version} is newer than jsii has tested ({supported}): if a synth fails, use {newest}"
