"""Hold one CPU core busy until killed: the load beside which ``make flake`` runs the chosen test modules.

A test that passes only on an idle machine fails in CI, where the suite's three processes, the
Go builds and other jobs share two cores. One busy process takes one core's worth of CPU from
everything else, as the suite's own neighbours do.
"""

from __future__ import annotations


def main() -> None:
    """Spin: each iteration does a little arithmetic, so the interpreter never sleeps."""
    count = 0
    while True:
        count = (count + 1) % 1_000_003


if __name__ == "__main__":
    main()
