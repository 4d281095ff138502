"""Public names loaded on first use (PEP 562), for the package ``__init__`` modules.

A package that re-exports its modules' names eagerly loads them all at ``import``; this
library's constructs load cdk8s (and start jsii), its deploy side the kubernetes client.
The deploy CLI lives in the same package and must answer ``--help`` without either.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(
    package: str, homes: Mapping[str, tuple[str, ...]], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``, whose public names live in the modules of ``homes``.

    ``namespace`` is the package's ``globals()``: a name is cached there once loaded.
    """
    module_of = {name: module for module, names in homes.items() for name in names}

    def getattr_(name: str) -> Any:
        module = module_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def dir_() -> list[str]:
        return sorted({*namespace, *module_of})

    return getattr_, dir_
