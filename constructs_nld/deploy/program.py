"""The name the user invoked the deploy CLI by, so that ``--help`` and every hint name a program they have.

The same CLI is ``nld-deploy`` (the console script a ``pip install`` puts on ``PATH``),
``python deploy.py`` (this repository's entry point) and ``python -m constructs_nld.deploy``.
A hint such as "rerun 'python deploy.py --wait'" is wrong in a project that has no
``deploy.py``: :func:`hint` writes it with the program of this process, which the CLI
sets once from ``sys.argv[0]`` (:func:`use`) before it parses anything.

Pure code: the CLI reads it before it imports anything else.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath
from typing import Final

__all__ = ["DEFAULT", "Program", "command_line", "hint", "invoked_as", "use"]


@dataclass(frozen=True)
class Program:
    """How the CLI is named in its usage line, and how a user runs it again."""

    usage: str
    """``--help``'s ``usage:`` name: ``nld-deploy``, ``deploy.py``."""

    command: str
    """The command line that runs it: ``nld-deploy``, ``python deploy.py``."""

    @classmethod
    def of(cls, argv0: str) -> Program:
        """The program ``sys.argv[0]`` names; :data:`DEFAULT` when it is none of the entry points (an embedding)."""
        path = PurePath(argv0)
        if path.parts[-3:] == ("constructs_nld", "deploy", "__main__.py"):
            return _MODULE
        return _BY_FILE.get(path.name, DEFAULT)


DEFAULT: Final = Program("deploy.py", "python deploy.py")
"""This repository's entry point: also what an embedding that calls ``main(argv)`` gets."""

_MODULE: Final = Program("python -m constructs_nld.deploy", "python -m constructs_nld.deploy")

_BY_FILE: Final = {"nld-deploy": Program("nld-deploy", "nld-deploy"), "deploy.py": DEFAULT}

_current = DEFAULT


def use(program: Program) -> None:
    """Make ``program`` the one every later hint names (the CLI calls it once, first)."""
    global _current
    _current = program


def invoked_as() -> Program:
    """The program of this process."""
    return _current


def command_line(arguments: str = "") -> str:
    """A command line to run: ``nld-deploy cutover promote``, with the program of this process."""
    return f"{_current.command}{' ' + arguments if arguments else ''}"


def hint(arguments: str = "") -> str:
    """A command line to run, quoted inside a sentence: ``'nld-deploy cutover promote'``."""
    return f"'{command_line(arguments)}'"
