"""checkov on the synthesized manifests: which findings least privilege and the fallthrough mode change.

checkov 3.3.30 runs from its own venv (``make setup`` makes ``.venv-checkov``): every checkov 3
release requires ``packaging<24``, which pytest 9 refuses, so it cannot share the test venv.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from constructs_nld import NodeLocalDNSProps, synthesize
from tests.controlplane import REPO_ROOT

CHECKOV = REPO_ROOT / ".venv-checkov" / "bin" / "checkov"

SPEC_FINDINGS = {
    "CKV2_K8S_6",  # no NetworkPolicy (the spec: the VPC CNI enforces none)
    "CKV_K8S_9",  # no readiness probe on node-cache
    "CKV_K8S_11",  # no CPU limit (the spec: throttling is DNS latency)
    "CKV_K8S_13",  # no memory limit (the spec: an OOM kill orphans the rules)
    "CKV_K8S_15",  # imagePullPolicy IfNotPresent
    "CKV_K8S_16",  # privileged
    "CKV_K8S_19",  # hostNetwork
    "CKV_K8S_20",  # allowPrivilegeEscalation not false
    "CKV_K8S_22",  # writable root filesystem (node-cache writes /etc/Corefile and its pidfile)
    "CKV_K8S_23",  # runs as root
    "CKV_K8S_28",  # NET_RAW not dropped
    "CKV_K8S_29",  # no pod securityContext
    "CKV_K8S_31",  # no seccomp profile
    "CKV_K8S_37",  # capabilities not dropped
    "CKV_K8S_40",  # no high UID
    "CKV_K8S_43",  # image by tag, not digest
}
"""What checkov finds in the spec's DaemonSet (all on it, CKV2_K8S_6 on its pod)."""


def checkov_findings(props: NodeLocalDNSProps, directory: Path) -> set[str]:
    """The IDs of the checks the synth of ``props`` fails."""
    if not CHECKOV.is_file():
        raise FileNotFoundError(f"{CHECKOV} missing: run `make setup`")
    for index, chart in enumerate(synthesize(props)):
        (directory / f"{index}.yaml").write_text(yaml.safe_dump_all(chart.objects))
    result = subprocess.run(
        [str(CHECKOV), "-d", str(directory), "--framework", "kubernetes", "-o", "json", "--quiet", "--compact"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    report: dict[str, Any] = json.loads(result.stdout)
    return {finding["check_id"] for finding in report["results"]["failed_checks"]}


@pytest.mark.parametrize(
    ("kwargs", "dropped", "added"),
    [
        ({}, set(), set()),
        # CKV_K8S_28 passes on drop: [ALL] although NET_RAW is added back, for legacy-backend nodes;
        # CKV_K8S_25 fails on any added capability, and these are the ones the binaries need;
        # CKV_K8S_31 passes on the containers' RuntimeDefault seccomp profile.
        ({"privileged": False}, {"CKV_K8S_16", "CKV_K8S_20", "CKV_K8S_28", "CKV_K8S_31", "CKV_K8S_37"}, {"CKV_K8S_25"}),
        # The keeper has a readiness probe (its rules) and no liveness probe: it exits on failure.
        ({"interception": "fallthrough"}, set(), {"CKV_K8S_8"}),
        (
            {"interception": "fallthrough", "privileged": False},
            {"CKV_K8S_16", "CKV_K8S_20", "CKV_K8S_28", "CKV_K8S_31", "CKV_K8S_37"},
            {"CKV_K8S_25", "CKV_K8S_8"},
        ),
    ],
    ids=["spec", "privileged-false", "fallthrough", "fallthrough-privileged-false"],
)
def test_checkov_findings(kwargs: dict[str, Any], dropped: set[str], added: set[str], tmp_path: Path) -> None:
    props = NodeLocalDNSProps(kube_dns_cluster_ip="fd00:ec2::a", **kwargs)

    assert checkov_findings(props, tmp_path) == (SPEC_FINDINGS - dropped) | added
