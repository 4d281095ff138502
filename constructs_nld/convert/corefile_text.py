"""A Corefile's text read into server blocks: just enough for a converter to recognise a forward zone.

Other deployers take Corefile snippets as strings (the deliveryhero chart's
``config.extraServerBlocks``). This reads one into :class:`TextBlock` values, each with its
zone keys and its directives as :class:`~constructs_nld.corefile.Directive` trees, so a
converter can tell a plain forward zone (``zones``) from a block that needs
``extra_server_blocks``. Comments, quoting and snippets (``import``, ``(name)``) are CoreDNS's
business: a ``#`` starts a comment, and anything beyond lines of words, ``{`` and ``}`` is
refused. Pure code.
"""

from __future__ import annotations

from dataclasses import dataclass

from constructs_nld.corefile import Directive

__all__ = ["TextBlock", "server_blocks"]


@dataclass(frozen=True)
class TextBlock:
    """One server block as written: its keys (``zone[:port]``) and its directives."""

    keys: tuple[str, ...]
    directives: tuple[Directive, ...]


@dataclass
class _Open:
    words: tuple[str, ...]
    children: list[Directive]


def server_blocks(text: str) -> tuple[TextBlock, ...]:
    """The server blocks of ``text``.

    Raises:
        ValueError: a brace without its pair, a directive outside a block, or an empty block header.
    """
    blocks: list[TextBlock] = []
    stack: list[_Open] = []
    for number, raw in enumerate(text.splitlines(), 1):
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        if words == ["}"]:
            if not stack:
                raise ValueError(f"line {number}: '}}' closes no block")
            closed = stack.pop()
            if stack:
                name, *args = closed.words
                stack[-1].children.append(Directive(name, tuple(args), tuple(closed.children)))
            else:
                blocks.append(TextBlock(closed.words, tuple(closed.children)))
            continue
        if "{" in words[:-1] or "}" in words:
            raise ValueError(f"line {number}: a brace must end its line or stand alone, got {raw.strip()!r}")
        if words[-1] == "{":
            if len(words) == 1:
                raise ValueError(f"line {number}: a block needs a header before '{{'")
            stack.append(_Open(tuple(words[:-1]), []))
            continue
        if not stack:
            raise ValueError(f"line {number}: {raw.strip()!r} is outside a server block")
        name, *args = words
        stack[-1].children.append(Directive(name, tuple(args)))
    if stack:
        raise ValueError(f"the block {' '.join(stack[-1].words)!r} is not closed")
    return tuple(blocks)
