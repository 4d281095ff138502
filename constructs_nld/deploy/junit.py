"""``verify --junit FILE``: the checks as JUnit XML, the report format CI systems show test by test.

One ``<testsuite>`` per cluster (named as the cluster), one ``<testcase>`` per check
(``classname`` the cluster, ``name`` the check). A failed check carries a ``<failure>``
whose ``message`` is what the check saw and whose text is its cause and fix: GitLab,
Jenkins and GitHub's JUnit reporters count and show ``<failure>``. A warning fails nothing,
so it is no ``<failure>``: it is the testcase's ``<system-out>``, starting ``WARN``, which
those reporters show beside the test. A cluster whose verify could not run (its API server
unreachable) is one testcase ``verify`` with an ``<error>``; one a ``--fail-fast`` or a
failed wave skipped is one testcase ``verify`` with ``<skipped>``. The file is built from
the verify documents (:mod:`constructs_nld.deploy.documents`), the same data as ``-o json``.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from typing import Any

from constructs_nld.deploy.fleet import Row

__all__ = ["junit_xml", "write_junit"]


def _testcase(suite: ET.Element, cluster: str, name: str, seconds: float = 0.0) -> ET.Element:
    return ET.SubElement(suite, "testcase", classname=cluster, name=name, time=f"{seconds:.3f}")


def _checks(suite: ET.Element, cluster: str, document: Mapping[str, Any]) -> None:
    for check in document["checks"]:
        case = _testcase(suite, cluster, check["name"])
        advice = "\n".join(
            f"{label}: {check[key]}" for label, key in (("cause", "cause"), ("fix", "fix")) if check[key]
        )
        if check["status"] == "fail":
            failure = ET.SubElement(case, "failure", message=check["detail"], type="fail")
            failure.text = advice or check["detail"]
        elif check["status"] == "warn":
            ET.SubElement(case, "system-out").text = "\n".join(filter(None, (f"WARN {check['detail']}", advice)))
        else:
            ET.SubElement(case, "system-out").text = f"PASS {check['detail']}"


def junit_xml(rows: Sequence[Row]) -> ET.Element:
    """The ``<testsuites>`` of a verify run: a ``<testsuite>`` per cluster, a ``<testcase>`` per check."""
    root = ET.Element("testsuites", name="verify")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for row in rows:
        cluster = row.target.name or row.target.context or "cluster"
        suite = ET.SubElement(root, "testsuite", name=cluster, time=f"{row.seconds:.3f}")
        counts = {"tests": 1, "failures": 0, "errors": 0, "skipped": 0}
        outcome = row.outcome
        if outcome is None:
            ET.SubElement(_testcase(suite, cluster, "verify"), "skipped", message=row.skipped)
            counts["skipped"] = 1
        elif outcome.document is None:
            ET.SubElement(_testcase(suite, cluster, "verify", row.seconds), "error", message=outcome.result)
            counts["errors"] = 1
        else:
            _checks(suite, cluster, outcome.document)
            counts["tests"] = len(outcome.document["checks"])
            counts["failures"] = int(outcome.document["failed"])
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
    for key, value in totals.items():
        root.set(key, str(value))
    return root


def write_junit(path: str, rows: Sequence[Row]) -> None:
    """Write the run's JUnit XML to ``path``, whole or not at all (a temporary file renamed over it)."""
    tree = ET.ElementTree(junit_xml(rows))
    ET.indent(tree)
    partial = f"{path}.partial"
    tree.write(partial, encoding="utf-8", xml_declaration=True)
    os.replace(partial, path)
