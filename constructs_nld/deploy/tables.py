"""Text tables as the commands print them: columns two spaces apart, each as wide as its widest cell.

``soak``'s signals, ``cutover status``'s canary and signals, and a fleet's summary are all
printed this way, so that a reader (or a ``grep``) finds the same layout everywhere.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["format_table"]


def format_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """The header and each row as a line, cells left-aligned in columns, trailing spaces dropped."""
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header))]
    return [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in (header, *rows)
    ]
