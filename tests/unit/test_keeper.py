"""The fallthrough keeper's model: the restore input, the keeper script, node-cache's own rules, validation."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from constructs_nld import Keeper, Ports

RULES = Keeper(local_ip="fd00::10", kube_dns_cluster_ip="fd00:ec2::a")

BOUND = '-m socket -m comment --comment "NodeLocal DNS fallthrough: skip conntrack while node-cache listens" -j NOTRACK'
SKIP = '-m comment --comment "NodeLocal DNS fallthrough: skip conntrack" -j NOTRACK'
ALLOW = '-m comment --comment "NodeLocal DNS fallthrough: allow DNS traffic" -j ACCEPT'

EXPECTED_RESTORE_INPUT = f"""\
# NodeLocal DNS fallthrough rules: ip6tables-restore --noflush input (constructs_nld.keeper).
# Declaring a chain creates it, or flushes it when it exists: applying this file any number of
# times leaves each chain with exactly these rules. The jumps into the chains are the keeper's.
*raw
:NODELOCALDNS-PREROUTING - [0:0]
:NODELOCALDNS-OUTPUT - [0:0]
-A NODELOCALDNS-PREROUTING -d fd00:ec2::a/128 -p udp -m udp --dport 53 {BOUND}
-A NODELOCALDNS-PREROUTING -d fd00:ec2::a/128 -p tcp -m tcp --dport 53 {BOUND}
-A NODELOCALDNS-PREROUTING -d fd00::10/128 -p udp -m udp --dport 53 {BOUND}
-A NODELOCALDNS-PREROUTING -d fd00::10/128 -p tcp -m tcp --dport 53 {BOUND}
-A NODELOCALDNS-OUTPUT -s fd00:ec2::a/128 -p udp -m udp --sport 53 {SKIP}
-A NODELOCALDNS-OUTPUT -s fd00:ec2::a/128 -p tcp -m tcp --sport 53 {SKIP}
-A NODELOCALDNS-OUTPUT -s fd00::10/128 -p udp -m udp --sport 53 {SKIP}
-A NODELOCALDNS-OUTPUT -s fd00::10/128 -p tcp -m tcp --sport 53 {SKIP}
-A NODELOCALDNS-OUTPUT -d fd00::10/128 -p udp -m udp --dport 53 {SKIP}
-A NODELOCALDNS-OUTPUT -d fd00::10/128 -p tcp -m tcp --dport 53 {SKIP}
-A NODELOCALDNS-OUTPUT -d fd00::10/128 -p tcp -m tcp --dport 8080 {SKIP}
-A NODELOCALDNS-OUTPUT -s fd00::10/128 -p tcp -m tcp --sport 8080 {SKIP}
COMMIT
*filter
:NODELOCALDNS-INPUT - [0:0]
:NODELOCALDNS-OUTPUT - [0:0]
-A NODELOCALDNS-INPUT -d fd00:ec2::a/128 -p udp -m udp --dport 53 {ALLOW}
-A NODELOCALDNS-INPUT -d fd00:ec2::a/128 -p tcp -m tcp --dport 53 {ALLOW}
-A NODELOCALDNS-INPUT -d fd00::10/128 -p udp -m udp --dport 53 {ALLOW}
-A NODELOCALDNS-INPUT -d fd00::10/128 -p tcp -m tcp --dport 53 {ALLOW}
-A NODELOCALDNS-OUTPUT -s fd00:ec2::a/128 -p udp -m udp --sport 53 {ALLOW}
-A NODELOCALDNS-OUTPUT -s fd00:ec2::a/128 -p tcp -m tcp --sport 53 {ALLOW}
-A NODELOCALDNS-OUTPUT -s fd00::10/128 -p udp -m udp --sport 53 {ALLOW}
-A NODELOCALDNS-OUTPUT -s fd00::10/128 -p tcp -m tcp --sport 53 {ALLOW}
COMMIT
"""


def test_restore_input_declares_our_four_chains_and_fills_them() -> None:
    assert RULES.restore_input() == EXPECTED_RESTORE_INPUT


def test_queries_to_the_cluster_ip_are_diverted_only_with_a_socket_and_never_from_output() -> None:
    lines = RULES.restore_input().splitlines()
    notrack = [line for line in lines if "-d fd00:ec2::a/128" in line and line.endswith("-j NOTRACK")]

    assert len(notrack) == 2
    assert all(line.startswith("-A NODELOCALDNS-PREROUTING") and " -m socket " in line for line in notrack)
    assert not any("--nowildcard" in line for line in lines)


def test_health_port_follows_the_ports_prop() -> None:
    text = Keeper(kube_dns_cluster_ip="fd00:ec2::a", ports=Ports(health=8081)).restore_input()

    assert "--dport 8081" in text and "--sport 8081" in text
    assert "8080" not in text


def test_preview_writes_the_cluster_ip_placeholder() -> None:
    text = Keeper().restore_input()

    assert "-d __KUBE_DNS_CLUSTER_IP__/128 -p udp -m udp --dport 53 -m socket" in text


def test_node_cache_rules_are_its_24_with_its_own_arguments() -> None:
    rules = RULES.node_cache_rules()

    assert len(rules) == 24
    assert rules[0].table == "raw" and rules[0].chain == "PREROUTING"
    assert rules[0].spec == (
        "-p", "tcp", "-d", "fd00::10", "--dport", "53", "-j", "NOTRACK",
        "-m", "comment", "--comment", "NodeLocal DNS Cache: skip conntrack",
    )  # fmt: skip
    assert {(r.table, r.chain) for r in rules} == {
        ("raw", "PREROUTING"),
        ("raw", "OUTPUT"),
        ("filter", "INPUT"),
        ("filter", "OUTPUT"),
    }


def test_black_holes_are_node_cache_notrack_of_queries_to_the_cluster_ip() -> None:
    holes = {(r.chain, " ".join(r.spec[:8])) for r in RULES.black_holes()}

    assert holes == {
        ("PREROUTING", "-p tcp -d fd00:ec2::a --dport 53 -j NOTRACK"),
        ("PREROUTING", "-p udp -d fd00:ec2::a --dport 53 -j NOTRACK"),
        ("OUTPUT", "-p tcp -d fd00:ec2::a --dport 53 -j NOTRACK"),
        ("OUTPUT", "-p udp -d fd00:ec2::a --dport 53 -j NOTRACK"),
    }


# --- the keeper script ------------------------------------------------------------------------


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "keeper.sh"
    path.write_text(RULES.keeper_script())
    return path


def test_keeper_script_is_posix_sh_that_shellcheck_passes(script: Path) -> None:
    result = subprocess.run(["shellcheck", "--shell=sh", str(script)], capture_output=True, text=True, check=False)

    assert result.returncode == 0, result.stdout


def test_keeper_script_parses_under_dash(script: Path) -> None:
    assert subprocess.run(["dash", "-n", str(script)], capture_output=True, check=False).returncode == 0


def test_keeper_installs_the_rules_file_beside_it_and_checks_before_it_inserts_each_jump() -> None:
    text = RULES.keeper_script()

    assert 'rules="${0%/*}/rules"' in text
    assert 'ip6tables-restore -w 5 --noflush "$rules" || return 1' in text
    for table, builtin, chain in (
        ("raw", "PREROUTING", "NODELOCALDNS-PREROUTING"),
        ("raw", "OUTPUT", "NODELOCALDNS-OUTPUT"),
        ("filter", "INPUT", "NODELOCALDNS-INPUT"),
        ("filter", "OUTPUT", "NODELOCALDNS-OUTPUT"),
    ):
        assert f"    jump {table} {builtin} {chain} || return 1\n" in text
        assert f"    unjump {table} {builtin} {chain}\n" in text
        assert f"    drop_chain {table} {chain}\n" in text
    assert (
        '    ipt -t "$1" -C "$2" -j "$3" 2>/dev/null\n    case $? in\n        0) ;;\n        1) ipt -t "$1" -I' in text
    )


def test_keeper_deletes_node_cache_rules_at_start_and_its_probe_looks_for_the_black_holes() -> None:
    text = RULES.keeper_script()

    assert text.count("    delete_all ") == 24
    assert (
        "    delete_all raw PREROUTING -p udp -d fd00:ec2::a --dport 53 -j NOTRACK -m comment --comment "
        "'NodeLocal DNS Cache: skip conntrack'\n"
    ) in text
    assert text.count("    if ipt -t raw -C ") == 4
    assert (
        "    if ipt -t raw -C OUTPUT -p udp -d fd00:ec2::a --dport 53 -j NOTRACK -m comment --comment "
        "'NodeLocal DNS Cache: skip conntrack' 2>/dev/null; then\n"
    ) in text


def test_keeper_reasserts_every_60_seconds_and_removes_its_rules_on_sigterm() -> None:
    text = RULES.keeper_script()

    assert "        sleep 60 &\n" in text
    assert "    trap stop TERM INT\n" in text
    assert re.search(r"stop\(\) \{\n.*\n    remove\n", text)


def test_usage_errors_exit_2(script: Path) -> None:
    result = subprocess.run(["dash", str(script), "bogus"], capture_output=True, text=True, check=False)

    assert result.returncode == 2
    assert "usage:" in result.stderr and "keep|check|remove" in result.stderr


# --- validation ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"local_ip": "169.254.20.10"}, "keeper.local_ip: must be an IPv6 address, got IPv4 '169.254.20.10'"),
        ({"kube_dns_cluster_ip": "fe80::1"}, "keeper.kube_dns_cluster_ip: must not be link-local, got 'fe80::1'"),
        (
            {"kube_dns_cluster_ip": "FD00::10"},
            "keeper.kube_dns_cluster_ip: 'FD00::10' is the address of local_ip 'fd00::10'",
        ),
        ({"ports": 53}, "keeper.ports: must be a Ports, got 53"),
        ({"local_ip": None}, "keeper.local_ip: must be a string, got None"),
    ],
)
def test_fails_when_a_rules_value_is_bad(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=rf"^{re.escape(message)}"):
        Keeper(**kwargs)


def test_addresses_are_kept_in_rfc_5952_form() -> None:
    rules = Keeper(local_ip="FD00:0::10", kube_dns_cluster_ip="fd00:ec2:0:0:0:0:0:a")

    assert (rules.local_ip, rules.kube_dns_cluster_ip) == ("fd00::10", "fd00:ec2::a")


_STUB = """#!/bin/sh
echo "${0##*/} $*" >> "$STUB_LOG"
exit 1
"""


@pytest.mark.parametrize(
    ("table", "line"),
    [
        ("filter", "-A INPUT -j DROP"),
        ("filter", ":KUBE-SERVICES - [0:0]"),
        ("filter", "-I NODELOCALDNS-INPUT 1 -j ACCEPT"),
        ("raw", "-A NODELOCALDNS-INPUT -j ACCEPT"),
        ("nat", "-A NODELOCALDNS-OUTPUT -j ACCEPT"),
    ],
    ids=["a-builtin-chain", "another-chain", "an-insert", "a-chain-of-the-other-table", "another-table"],
)
def test_the_keeper_refuses_a_rules_file_outside_its_chains_and_installs_nothing(
    tmp_path: Path, table: str, line: str
) -> None:
    mount = tmp_path / "keeper"
    mount.mkdir()
    (mount / "keeper.sh").write_text(RULES.keeper_script())
    rules = RULES.restore_input()
    if table == "nat":
        rules += f"*nat\n{line}\nCOMMIT\n"
    else:
        rules = rules.replace(f"*{table}\n", f"*{table}\n{line}\n", 1)
    (mount / "rules").write_text(rules)
    stubs = tmp_path / "bin"
    stubs.mkdir()
    for name in ("ip6tables", "ip6tables-restore"):
        (stubs / name).write_text(_STUB)
        (stubs / name).chmod(0o755)
    log = tmp_path / "calls"
    env = {"PATH": f"{stubs}:/usr/bin:/bin", "STUB_LOG": str(log)}

    result = subprocess.run(
        ["dash", str(mount / "keeper.sh"), "keep"], capture_output=True, text=True, env=env, timeout=30, check=False
    )

    assert result.returncode == 1
    refused = "*nat" if table == "nat" else line  # another table is refused at its first line
    assert f"refusing {mount}/rules: '{refused}' is outside the keeper's chains; nothing installed" in result.stderr
    calls = log.read_text().splitlines() if log.exists() else []
    assert not any(call.startswith("ip6tables-restore") or " -I " in call or " -A " in call for call in calls)
