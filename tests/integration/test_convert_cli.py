"""``nld-deploy convert deliveryhero`` as a process: the values on stdout or in --output, what is not carried on stderr.

No cluster and no app: the command reads a file and writes one. Each test runs this
repository's ``deploy.py`` from an empty directory (no ``cdk8s.yaml``), as a team does on its
first day.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.controlplane import REPO_ROOT

DEPLOY = [sys.executable, str(REPO_ROOT / "deploy.py")]

CARRIED = """
    config:
      localDns: fd00::20
      dnsServer: fd00:10:96::a
      enableLogging: true
    resources:
      requests: {cpu: 50m, memory: 200Mi}
      limits: null
    podLabels: {team: platform}
    tolerations:
      - {key: dedicated, operator: Equal, value: ci, effect: NoSchedule}
"""

CARRIED_VALUES = """\
local_ip: fd00::20
query_log:
- all
pod_labels:
  team: platform
max_unavailable: 10%
privileged: false
cpu_request: 50m
memory_request: 200Mi
tolerations:
- key: dedicated
  operator: Equal
  value: ci
  effect: NoSchedule
"""

PARTLY = """
    config:
      localDns: 169.254.20.10
      dnsServer: fd00:10:96::a
      customConfig: ".:53 {\\n    forward . /etc/resolv.conf\\n}\\n"
    resources:
      limits: {memory: 200Mi}
    tolerations:
      - {operator: Exists}
      - {key: dedicated, operator: Exists}
"""

PARTLY_VALUES = """\
max_unavailable: 10%
privileged: false
memory_request: 128Mi
tolerations:
- key: dedicated
  operator: Exists
"""

PARTLY_REFUSED = """\
not carried: config.localDns: must be an IPv6 address, got IPv4 '169.254.20.10' (this component is IPv6-only); \
local_ip stays fd00::10
not carried: config.customConfig: a whole Corefile: the library writes it from props; its usual cases are zones, \
upstream_servers, upstream_forward, cluster_forward, cache, hosts, query_log, dns64 and extra_server_blocks
not carried: resources.limits.memory: the spec sets no memory limit by design: an OOM kill leaves node-cache's rules \
behind and black-holes the node's DNS until it is back (memory_request is the headroom)
not carried: tolerations[0]: {operator: Exists} has no key: it tolerates every taint (karpenter.sh/unschedulable and \
the not-ready taints among them); list your nodes' taint keys in tolerations
4 not carried; everything else is in the values
"""


def convert(workdir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*DEPLOY, *args], cwd=workdir, capture_output=True, text=True, timeout=120, check=False)


def values_file(workdir: Path, text: str, name: str = "values.yaml") -> Path:
    path = workdir / name
    path.write_text(textwrap.dedent(text))
    return path


def test_everything_carried_is_exit_0_with_the_values_on_stdout_alone(tmp_path: Path) -> None:
    values_file(tmp_path, CARRIED)

    done = convert(tmp_path, "convert", "deliveryhero", "values.yaml")

    assert (done.returncode, done.stdout, done.stderr) == (0, CARRIED_VALUES, "")


def test_keys_not_carried_are_listed_on_stderr_with_exit_14_and_the_rest_on_stdout(tmp_path: Path) -> None:
    values_file(tmp_path, PARTLY)

    done = convert(tmp_path, "convert", "deliveryhero", "values.yaml")

    assert (done.returncode, done.stdout, done.stderr) == (14, PARTLY_VALUES, PARTLY_REFUSED)


def test_output_is_written_when_the_conversion_succeeds_and_stdout_stays_empty(tmp_path: Path) -> None:
    values_file(tmp_path, CARRIED, "carried.yaml")
    values_file(tmp_path, PARTLY, "partly.yaml")

    carried = convert(tmp_path, "convert", "deliveryhero", "carried.yaml", "--output", "ours.yaml")
    partly = convert(tmp_path, "convert", "deliveryhero", "partly.yaml", "--output", "partly-ours.yaml")

    assert (carried.returncode, carried.stdout, carried.stderr) == (0, "", "")
    assert (tmp_path / "ours.yaml").read_text() == CARRIED_VALUES
    assert (partly.returncode, partly.stdout, partly.stderr) == (14, "", PARTLY_REFUSED)
    assert (tmp_path / "partly-ours.yaml").read_text() == PARTLY_VALUES


def test_fails_on_input_it_cannot_read_with_one_line_and_writes_no_output(tmp_path: Path) -> None:
    values_file(tmp_path, "config:\n  cacheTTL: [30\n", "broken.yaml")
    values_file(tmp_path, "config:\n  cacheTTL: thirty\n", "wrong.yaml")
    values_file(tmp_path, "- a\n", "list.yaml")
    (tmp_path / "binary.yaml").write_bytes(b"\xff\xfe\x00")
    kept = tmp_path / "ours.yaml"
    kept.write_text("kept: true\n")
    cases = {
        "broken.yaml": "error: broken.yaml: not YAML (line 3)\n",
        "wrong.yaml": "error: config.cacheTTL: must be an integer, got 'thirty'\n",
        "list.yaml": "error: list.yaml: must be a mapping of the chart's keys, got list\n",
        "binary.yaml": "error: binary.yaml: not UTF-8 text\n",
        "missing.yaml": "error: missing.yaml: cannot be read (No such file or directory)\n",
    }

    for name, message in cases.items():
        done = convert(tmp_path, "convert", "deliveryhero", name, "--output", "ours.yaml")

        assert (done.returncode, done.stdout, done.stderr) == (2, "", message), name
        assert kept.read_text() == "kept: true\n", name
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "binary.yaml",
        "broken.yaml",
        "list.yaml",
        "ours.yaml",
        "wrong.yaml",
    ]


def test_fails_when_the_output_cannot_be_written(tmp_path: Path) -> None:
    values_file(tmp_path, CARRIED)

    done = convert(tmp_path, "convert", "deliveryhero", "values.yaml", "--output", "no-such-dir/ours.yaml")

    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "error: --output no-such-dir/ours.yaml: cannot be written (No such file or directory)\n"


def test_fails_on_bad_arguments_and_on_flags_of_a_cluster(tmp_path: Path) -> None:
    values_file(tmp_path, CARRIED)

    other = convert(tmp_path, "convert", "kubespray", "values.yaml")
    missing = convert(tmp_path, "convert", "deliveryhero")
    cluster = convert(tmp_path, "--context", "prod", "convert", "deliveryhero", "values.yaml")
    values = convert(tmp_path, "-f", "values.yaml", "convert", "deliveryhero", "values.yaml")

    assert (other.returncode, other.stdout) == (2, "")
    assert other.stderr == (
        "error: argument deployer: invalid choice: 'kubespray' (choose from 'deliveryhero') "
        "(see deploy.py convert --help)\n"
    )
    assert (missing.returncode, missing.stderr) == (
        2,
        "error: the following arguments are required: VALUES_FILE (see deploy.py convert --help)\n",
    )
    assert (cluster.returncode, cluster.stdout) == (2, "")
    refusal = (
        "error: convert: reads a file and touches neither the app nor a cluster: --app, --values, --set, "
        "--kubeconfig, --context, --all-contexts and --contexts-from do not apply\n"
    )
    assert (cluster.stderr, values.stderr) == (refusal, refusal)
    assert (values.returncode, values.stdout) == (2, "")


PROBE = """
import json, sys
from constructs_nld.deploy.cli import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "loaded": sorted({m.split(".")[0] for m in sys.modules})}), file=sys.stderr)
"""


def test_the_command_starts_no_jsii(tmp_path: Path) -> None:
    values_file(tmp_path, CARRIED)

    done = subprocess.run(
        [sys.executable, "-c", PROBE, "convert", "deliveryhero", "values.yaml"],
        cwd=tmp_path,
        env={"PYTHONPATH": str(REPO_ROOT), "PATH": str(Path(sys.executable).parent)},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    probe = json.loads(done.stderr.strip().splitlines()[-1])

    assert probe["code"] == 0
    assert [name for name in ("jsii", "cdk8s", "cdk8s_plus_28", "constructs") if name in probe["loaded"]] == []
