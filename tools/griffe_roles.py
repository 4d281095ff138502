"""A griffe extension for the API reference: the docstrings' Sphinx roles as Markdown code, their prose defaults plain.

The library's docstrings name other objects the way Python's own docs do, with roles such as
``:class:`~constructs_nld.workload.NodeCacheOptions``` (Sphinx's syntax, which editors and
``help()`` readers know). mkdocstrings renders Markdown and would show the role verbatim; this
turns each into inline code of the name as Sphinx would print it: the last part after ``~``,
the path as written otherwise.

A ``Default: - none.`` line marks a default said in prose rather than as a literal (the
generated props tables and their test read the mark); the reader is shown ``Default: none.``.
``mkdocs.yml`` loads it by path.
"""

from __future__ import annotations

import re
from typing import Any, Final

import griffe

__all__ = ["SphinxRoles", "as_code"]

_ROLE: Final = re.compile(r":(?:class|func|meth|mod|data|attr|exc|obj):`(?P<short>~?)\.?(?P<path>[^`]+)`")
_PROSE_DEFAULT: Final = re.compile(r"\bDefault:(\s+)- ")


def as_code(text: str) -> str:
    """``text`` with every Sphinx cross-reference role written as inline code of its name, and prose defaults plain."""
    text = _ROLE.sub(lambda m: f"`{m['path'].rpartition('.')[2] if m['short'] else m['path']}`", text)
    return _PROSE_DEFAULT.sub(r"Default:\1", text)


class SphinxRoles(griffe.Extension):
    """Rewrites the roles of every loaded object's docstring (:func:`as_code`)."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        """Rewrite ``obj``'s docstring once griffe has loaded it."""
        if obj.docstring is not None:
            obj.docstring.value = as_code(obj.docstring.value)
