"""The test control plane, under the names the tests import: :mod:`tests.harness.controlplane` and its parts.

:class:`ControlPlane` is :class:`tests.harness.controlplane.ControlPlane`; the users come from
:mod:`tests.harness.credentials`, the audit helpers from :mod:`tests.harness.audit`, the
bootstrap objects from :mod:`tests.harness.bootstrap`.
"""

from __future__ import annotations

from tests.harness.apiserver import SERVICE_CLUSTER_IP_RANGES
from tests.harness.audit import MUTATING_VERBS, is_mutating
from tests.harness.bootstrap import CRD_FILES, MANAGED_BY_SELECTOR
from tests.harness.controlplane import REPO_ROOT, ControlPlane
from tests.harness.credentials import ADMIN_USER, APISERVER_USER, FIXTURE_USER

__all__ = [
    "ADMIN_USER",
    "APISERVER_USER",
    "CRD_FILES",
    "FIXTURE_USER",
    "MANAGED_BY_SELECTOR",
    "MUTATING_VERBS",
    "REPO_ROOT",
    "SERVICE_CLUSTER_IP_RANGES",
    "ControlPlane",
    "is_mutating",
]
