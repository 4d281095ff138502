"""The commands of the deploy CLI, one module each, and their registry. None imports another.

Each module declares its :class:`~constructs_nld.deploy.command.Command` as ``COMMAND``: a
function of one cluster's session and its options, what it reads of the cluster first,
and whether it runs across a fleet. :data:`COMMANDS` names them for the runner
(:mod:`constructs_nld.deploy.runner`), then :data:`TOOLS` the commands of files alone (a
:class:`~constructs_nld.deploy.command.Tool`), in the order of
:data:`constructs_nld.deploy.exitcodes.COMMANDS` (a test checks they agree). Adding a
command is a module here, its line below, its options class
(:mod:`constructs_nld.deploy.options`), its flags (:mod:`constructs_nld.deploy.cli`) and its
exit codes (:mod:`constructs_nld.deploy.exitcodes`); a command with a JSON document for
``-o json`` declares it beside its code and adds it to :data:`DOCUMENTS`.
"""

from __future__ import annotations

from typing import Any, Final

from constructs_nld.deploy.command import Command, Tool
from constructs_nld.deploy.commands import convert, cutover, deploy, history, rollback, soak, uninstall, verify
from constructs_nld.deploy.documents import DocumentSchema
from constructs_nld.deploy.report import FLEET_DOCUMENT

__all__ = ["COMMANDS", "DOCUMENTS", "TOOLS"]

COMMANDS: Final[dict[str, Command[Any]]] = {
    "deploy": deploy.COMMAND,
    "verify": verify.COMMAND,
    "uninstall": uninstall.COMMAND,
    "soak": soak.COMMAND,
    "cutover": cutover.COMMAND,
    "history": history.COMMAND,
    "rollback": rollback.COMMAND,
}
"""Every command, by the name the CLI gives it."""

TOOLS: Final[dict[str, Tool[Any]]] = {"convert": convert.TOOL}
"""The commands of files alone: no app, no cluster."""

DOCUMENTS: Final[tuple[DocumentSchema, ...]] = (
    verify.DOCUMENT,
    soak.DOCUMENT,
    cutover.STATUS_DOCUMENT,
    history.DOCUMENT,
    FLEET_DOCUMENT,
)
"""Every document of ``-o json``; ``python tools/schemas.py`` writes each one's JSON Schema under docs/schemas/."""
