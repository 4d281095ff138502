"""The JSON Schemas of ``-o json`` under docs/schemas/, written from the documents the commands declare.

``python tools/schemas.py`` writes ``docs/schemas/<name>.schema.json`` for every document of
:data:`constructs_nld.deploy.commands.DOCUMENTS` and removes a file no document has any more;
``--check`` exits 1 when a file is stale, missing or left over (a test runs it).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Final

REPO: Final = Path(__file__).resolve().parent.parent
SCHEMAS: Final = REPO / "docs" / "schemas"
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from constructs_nld.deploy.commands import DOCUMENTS  # noqa: E402  (the repository first on the path)


def expected() -> dict[str, str]:
    """Each schema file's name and its text."""
    return {
        document.file_name: json.dumps(document.json_schema(), indent=2, ensure_ascii=False) + "\n"
        for document in DOCUMENTS
    }


def stale() -> list[str]:
    """The files under docs/schemas/ that differ from the code's schemas, are missing, or are left over."""
    wanted = expected()
    found = {path.name: path.read_text() for path in SCHEMAS.glob("*.schema.json")}
    return sorted(name for name in wanted.keys() | found.keys() if wanted.get(name) != found.get(name))


def main(argv: list[str]) -> int:
    """Write the schemas, or with ``--check`` say which are stale; the exit code."""
    if argv == ["--check"]:
        names = stale()
        for name in names:
            print(f"docs/schemas/{name} is stale: run python tools/schemas.py", file=sys.stderr)
        return 1 if names else 0
    if argv:
        print("usage: python tools/schemas.py [--check]", file=sys.stderr)
        return 2
    SCHEMAS.mkdir(parents=True, exist_ok=True)
    wanted = expected()
    for path in SCHEMAS.glob("*.schema.json"):
        if path.name not in wanted:
            path.unlink()
    for name, text in wanted.items():
        (SCHEMAS / name).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
