"""The verify checks' modules and their registry: each module is named as its check, and registered once."""

from __future__ import annotations

import importlib
import pkgutil
from collections import Counter
from types import ModuleType

from constructs_nld.deploy import checks
from constructs_nld.deploy.checks import CHECKS, UNINSTALLED_CHECKS

NOT_CHECKS = frozenset({"cluster"})
"""Modules of the checks package that are not a check: what every check reads."""


def check_modules() -> dict[str, ModuleType]:
    """Every check module of the package, by its module name (the package itself and ``cluster`` aside)."""
    return {
        info.name: importlib.import_module(f"{checks.__name__}.{info.name}")
        for info in pkgutil.iter_modules(checks.__path__)
        if info.name not in NOT_CHECKS
    }


def test_every_check_module_is_named_as_its_check() -> None:
    misnamed = {name: module.NAME for name, module in check_modules().items() if module.NAME != name.replace("_", "-")}

    assert misnamed == {}, "rename each module to its NAME with - as _"


def test_every_check_module_is_registered_exactly_once() -> None:
    registered = Counter(check.__module__.rpartition(".")[2] for check in (*CHECKS, *UNINSTALLED_CHECKS))
    modules = set(check_modules())

    assert {name: count for name, count in registered.items() if count != 1} == {}
    assert sorted(modules - set(registered)) == [], "add the check to CHECKS or UNINSTALLED_CHECKS"
    assert sorted(set(registered) - modules) == []


def test_each_registered_check_is_its_modules_check_function() -> None:
    modules = check_modules()

    for check in (*CHECKS, *UNINSTALLED_CHECKS):
        assert check is modules[check.__module__.rpartition(".")[2]].check
