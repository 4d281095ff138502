"""The fallthrough keeper: ip6tables rules that divert the pods' DNS only while node-cache listens, and their keeper.

node-cache's own rules (the spec's mode) NOTRACK every packet to the kube-dns ClusterIP,
so kube-proxy's DNAT is skipped whether or not node-cache is alive: a SIGKILL, an OOM kill
or a crash loop leaves them behind and black-holes the node's DNS until node-cache is back.
In the fallthrough mode node-cache runs with ``-setupiptables=false`` and a second
container of the same image, the keeper, keeps these rules instead:

- a query to the ClusterIP is NOTRACKed in ``raw PREROUTING`` only while a socket is bound
  to that address and port (``-m socket``): while node-cache listens it gets the query;
  the moment it is gone the packet is tracked again and kube-proxy DNATs it to cluster
  CoreDNS. Without ``--nowildcard``: a socket bound to ``[::]:53`` (another daemon on the
  node) must not make the rule apply; node-cache binds each address itself.
- replies from the ClusterIP, and everything to and from the local IP (``fd00::10``, which
  nothing else serves), are NOTRACKed and ACCEPTed as node-cache itself does it.
- host-network clients go through ``raw OUTPUT``, where the kernel offers no socket match:
  their queries to the ClusterIP are never diverted (kube-proxy sends them to cluster
  CoreDNS); queries to the local IP are, as in node-cache's mode.

Everything lives in four chains of ours, entered by one jump each from the built-in chains,
so the rules are installed atomically (``ip6tables-restore --noflush`` flushes and refills a
chain it declares) and counted, re-asserted and removed as a unit. The jumps are checked
before they are inserted (``-C``, then ``-I``), so no number of restarts duplicates them.

Pure code (no cdk8s): :class:`Keeper` renders the ``ip6tables-restore`` input and
the keeper's script, a POSIX shell script for the image's ``/bin/sh``. The node-cache image
is built on Kubernetes' distroless-iptables, which ships ``/bin/sh`` (dash) because its
``ip6tables`` is the iptables-wrapper shell script: no ``ip6tables`` of that image runs
without a shell.
"""

from __future__ import annotations

import hashlib
import json
import shlex
from dataclasses import dataclass, field
from typing import Final, Literal

from constructs_nld import defaults
from constructs_nld.placeholders import KUBE_DNS_CLUSTER_IP
from constructs_nld.props import Ports, canonical_ipv6, check_types

__all__ = [
    "CHAINS",
    "KEEPER_COMMAND",
    "READINESS_COMMAND",
    "SETUP_IPTABLES_OFF",
    "Ip6tablesRule",
    "Jump",
    "Keeper",
]

SETUP_IPTABLES_OFF: Final = "-setupiptables=false"
"""The node-cache flag of the fallthrough mode: node-cache writes no rule of its own."""

Table = Literal["raw", "filter"]

PREROUTING_CHAIN: Final = "NODELOCALDNS-PREROUTING"
RAW_OUTPUT_CHAIN: Final = "NODELOCALDNS-OUTPUT"
INPUT_CHAIN: Final = "NODELOCALDNS-INPUT"
FILTER_OUTPUT_CHAIN: Final = "NODELOCALDNS-OUTPUT"


@dataclass(frozen=True)
class Jump:
    """The one rule of ours in a built-in chain: a jump to our chain."""

    table: Table
    builtin: str
    target: str


CHAINS: Final = (
    Jump("raw", "PREROUTING", PREROUTING_CHAIN),
    Jump("raw", "OUTPUT", RAW_OUTPUT_CHAIN),
    Jump("filter", "INPUT", INPUT_CHAIN),
    Jump("filter", "OUTPUT", FILTER_OUTPUT_CHAIN),
)
"""Our chains, each entered from one built-in chain, in the order they are installed."""

KEEPER_SCRIPT_PATH: Final = f"{defaults.KEEPER_MOUNT}/{defaults.KEEPER_SCRIPT_KEY}"
KEEPER_COMMAND: Final = (defaults.SHELL, KEEPER_SCRIPT_PATH, "keep")
"""The keeper container's command: install, re-assert, and remove on SIGTERM."""
READINESS_COMMAND: Final = (defaults.SHELL, KEEPER_SCRIPT_PATH, "check")
"""The keeper's readiness probe: the jumps are in place and no unconditional NOTRACK of the ClusterIP is."""

_NAME_HASH: Final = 10
"""Hex digits of the content hash in the ConfigMap's name (as kustomize's ConfigMap generator writes it)."""
_NODE_CACHE_SKIP = "NodeLocal DNS Cache: skip conntrack"
_NODE_CACHE_ALLOW = "NodeLocal DNS Cache: allow DNS traffic"
_BOUND = "NodeLocal DNS fallthrough: skip conntrack while node-cache listens"
_SKIP = "NodeLocal DNS fallthrough: skip conntrack"
_ALLOW = "NodeLocal DNS fallthrough: allow DNS traffic"


@dataclass(frozen=True)
class Ip6tablesRule:
    """One ip6tables rule: its table, its chain and its specification (without ``-A CHAIN``)."""

    table: Table
    chain: str
    spec: tuple[str, ...]

    def restore_line(self) -> str:
        """``-A CHAIN SPEC`` as ``ip6tables-restore`` reads it (double quotes around words with spaces)."""
        words = (f'"{word}"' if " " in word else word for word in self.spec)
        return " ".join(("-A", self.chain, *words))


def _rule(table: Table, chain: str, proto: str, match: tuple[str, ...], comment: str, target: str) -> Ip6tablesRule:
    """A rule spelled as ``ip6tables-save`` prints it: address, protocol, port, socket, comment, target.

    ``match`` is ``(-d|-s, address, --dport|--sport, port[, -m, socket])``.
    """
    side, address, port_flag, port, *socket = match
    spec = (side, address, "-p", proto, "-m", proto, port_flag, port, *socket)
    return Ip6tablesRule(table, chain, (*spec, "-m", "comment", "--comment", comment, "-j", target))


@dataclass(frozen=True, kw_only=True)
class Keeper:
    """The keeper of one node-cache: the rules for its addresses and ports, and the script that keeps them.

    The addresses and ports are the DaemonSet's, as its node-cache args give them.
    """

    local_ip: str = defaults.LOCAL_IP
    """node-cache's own address (``-localip``, first). Default: fd00::10."""

    kube_dns_cluster_ip: str | None = None
    """The kube-dns ClusterIP. Default: - ``__KUBE_DNS_CLUSTER_IP__`` (a preview, never deployed)."""

    ports: Ports = field(default_factory=Ports)
    """node-cache's ports: DNS (always 53) and health (its liveness probe). Default: - 53 and 8080."""

    def __post_init__(self) -> None:
        """The addresses are IPv6 node-cache can serve on, kept in RFC 5952 form, and differ."""
        check_types(self, "keeper.")
        object.__setattr__(self, "local_ip", canonical_ipv6("keeper.local_ip", self.local_ip))
        if self.kube_dns_cluster_ip is not None:
            cluster_ip = canonical_ipv6("keeper.kube_dns_cluster_ip", self.kube_dns_cluster_ip)
            if cluster_ip == self.local_ip:
                raise ValueError(
                    f"keeper.kube_dns_cluster_ip: {self.kube_dns_cluster_ip!r} is the address of local_ip "
                    f"{self.local_ip!r}; the rules treat them differently, so they must differ"
                )
            object.__setattr__(self, "kube_dns_cluster_ip", cluster_ip)

    @property
    def cluster_ip(self) -> str:
        """The ClusterIP as the rules write it: the address, or the preview's placeholder."""
        return self.kube_dns_cluster_ip or KUBE_DNS_CLUSTER_IP

    # ------------------------------------------------------------------ ours ---
    def rules(self) -> tuple[Ip6tablesRule, ...]:
        """Every rule of ours, chain by chain, in the order the restore input writes them."""
        cluster, local = f"{self.cluster_ip}/128", f"{self.local_ip}/128"
        dns, health = str(self.ports.dns), str(self.ports.health)
        both = ("udp", "tcp")
        # Queries: only while a socket is bound to the address and port, i.e. while node-cache listens.
        prerouting = [
            _rule("raw", PREROUTING_CHAIN, proto, ("-d", address, "--dport", dns, "-m", "socket"), _BOUND, "NOTRACK")
            for address in (cluster, local)
            for proto in both
        ]
        # Replies: only node-cache's sockets send from these addresses and port.
        output = [
            _rule("raw", RAW_OUTPUT_CHAIN, proto, ("-s", address, "--sport", dns), _SKIP, "NOTRACK")
            for address in (cluster, local)
            for proto in both
        ]
        # Host-network clients and kubelet's liveness probe to the local IP, which nothing else serves:
        # there is no DNAT to fall through to. Never to the ClusterIP: OUTPUT has no socket match, and
        # an unconditional rule would black-hole the node's own lookups whenever node-cache is down.
        output += [
            _rule("raw", RAW_OUTPUT_CHAIN, proto, ("-d", local, "--dport", dns), _SKIP, "NOTRACK") for proto in both
        ]
        output += [
            _rule("raw", RAW_OUTPUT_CHAIN, "tcp", ("-d", local, "--dport", health), _SKIP, "NOTRACK"),
            _rule("raw", RAW_OUTPUT_CHAIN, "tcp", ("-s", local, "--sport", health), _SKIP, "NOTRACK"),
        ]
        # Untracked packets are neither NEW nor ESTABLISHED: a host firewall that accepts only tracked
        # states would drop them, so they are accepted first, as node-cache does. A query DNATed to
        # cluster CoreDNS never reaches INPUT with the ClusterIP as its destination.
        accept = [
            _rule("filter", INPUT_CHAIN, proto, ("-d", address, "--dport", dns), _ALLOW, "ACCEPT")
            for address in (cluster, local)
            for proto in both
        ]
        accept += [
            _rule("filter", FILTER_OUTPUT_CHAIN, proto, ("-s", address, "--sport", dns), _ALLOW, "ACCEPT")
            for address in (cluster, local)
            for proto in both
        ]
        return (*prerouting, *output, *accept)

    def restore_input(self) -> str:
        """``ip6tables-restore --noflush`` input: declaring each chain of ours creates or flushes it, then fills it."""
        lines: list[str] = [
            "# NodeLocal DNS fallthrough rules: ip6tables-restore --noflush input (constructs_nld.keeper).",
            "# Declaring a chain creates it, or flushes it when it exists: applying this file any number of",
            "# times leaves each chain with exactly these rules. The jumps into the chains are the keeper's.",
        ]
        ours = self.rules()
        for table in ("raw", "filter"):
            lines.append(f"*{table}")
            chains = [jump.target for jump in CHAINS if jump.table == table]
            lines += [f":{chain} - [0:0]" for chain in chains]
            lines += [rule.restore_line() for rule in ours if rule.table == table]
            lines.append("COMMIT")
        return "\n".join(lines) + "\n"

    # ------------------------------------------------------------ node-cache's ---
    def node_cache_rules(self) -> tuple[Ip6tablesRule, ...]:
        """The rules node-cache 1.26.8 writes for these addresses (``initIptables``), with its own arguments.

        The keeper deletes them at start: left behind by a node-cache of the other mode that
        was SIGKILLed, their unconditional NOTRACK would black-hole the ClusterIP again.
        """
        dns, health = str(self.ports.dns), str(self.ports.health)
        rules: list[Ip6tablesRule] = []
        for address in (self.local_ip, self.cluster_ip):
            for proto in ("tcp", "udp"):
                rules += [
                    Ip6tablesRule(
                        "raw", "PREROUTING", _node_cache_spec(proto, "-d", address, "--dport", dns, "NOTRACK")
                    ),
                    Ip6tablesRule("filter", "INPUT", _node_cache_spec(proto, "-d", address, "--dport", dns, "ACCEPT")),
                    Ip6tablesRule("raw", "OUTPUT", _node_cache_spec(proto, "-s", address, "--sport", dns, "NOTRACK")),
                    Ip6tablesRule("filter", "OUTPUT", _node_cache_spec(proto, "-s", address, "--sport", dns, "ACCEPT")),
                    Ip6tablesRule("raw", "OUTPUT", _node_cache_spec(proto, "-d", address, "--dport", dns, "NOTRACK")),
                ]
            rules += [
                Ip6tablesRule("raw", "OUTPUT", _node_cache_spec("tcp", "-d", address, "--dport", health, "NOTRACK")),
                Ip6tablesRule("raw", "OUTPUT", _node_cache_spec("tcp", "-s", address, "--sport", health, "NOTRACK")),
            ]
        return tuple(rules)

    def black_holes(self) -> tuple[Ip6tablesRule, ...]:
        """node-cache's rules that divert queries to the ClusterIP unconditionally: what must never be in place here."""
        return tuple(
            rule
            for rule in self.node_cache_rules()
            if rule.table == "raw" and "-d" in rule.spec and self.cluster_ip in rule.spec and self._dns(rule)
        )

    def _dns(self, rule: Ip6tablesRule) -> bool:
        return rule.spec[rule.spec.index("--dport") + 1] == str(self.ports.dns)

    # ----------------------------------------------------------------- keeper ---
    def keeper_script(self) -> str:
        """The keeper: ``keep`` (the container), ``check`` (its readiness probe), ``remove`` (by hand)."""
        wait = defaults.IPTABLES_WAIT_SECONDS
        stale = "\n".join(
            f"    delete_all {rule.table} {rule.chain} {_shell(rule.spec)}" for rule in self.node_cache_rules()
        )
        jumps = "\n".join(f"    jump {j.table} {j.builtin} {j.target} || return 1" for j in CHAINS)
        unjumps = "\n".join(f"    unjump {j.table} {j.builtin} {j.target}" for j in CHAINS)
        drops = "\n".join(f"    drop_chain {j.table} {j.target}" for j in CHAINS)
        check_jumps = "\n".join(
            f'    ipt -t {j.table} -C {j.builtin} -j {j.target} 2>/dev/null || {{ echo "missing: -t {j.table} '
            f'-A {j.builtin} -j {j.target}" >&2; status=1; }}'
            for j in CHAINS
        )
        ours = "|".join(f'"{j.table}::{j.target} - [0:0]"|"{j.table}:-A {j.target} "*' for j in CHAINS)
        check_holes = "\n".join(
            f"    if ipt -t {rule.table} -C {rule.chain} {_shell(rule.spec)} 2>/dev/null; then\n"
            f"        echo \"unconditional NOTRACK of the ClusterIP in place (node-cache's own rule): "
            f'-t {rule.table} -A {rule.chain} {" ".join(rule.spec[:-4])}" >&2; status=1\n'
            f"    fi"
            for rule in self.black_holes()
        )
        return f"""\
# NodeLocal DNS fallthrough rules keeper (constructs_nld.keeper), for the node-cache image's /bin/sh.
#   keep    delete node-cache's own rules for {self.local_ip} and {self.cluster_ip}, install ours
#           (the file "rules" beside this script, and one jump into each chain), re-assert them
#           every {defaults.KEEPER_RESYNC_SECONDS} s; on SIGTERM remove ours and exit 0. Any failure exits 1.
#   check   exit 0 when every jump is in place and no unconditional NOTRACK of queries to the
#           kube-dns ClusterIP is (the readiness probe); each problem is printed.
#   remove  remove ours.
set -u
rules="${{0%/*}}/{defaults.KEEPER_RULES_KEY}"

ipt() {{
    ip6tables -w {wait} "$@"
}}

# Insert the jump from a built-in chain into ours unless it is there: never a second one.
jump() {{
    ipt -t "$1" -C "$2" -j "$3" 2>/dev/null
    case $? in
        0) ;;
        1) ipt -t "$1" -I "$2" 1 -j "$3" ;;
        *) echo "cannot check the jump from $2 to $3 in table $1" >&2; return 1 ;;
    esac
}}

unjump() {{
    while ipt -t "$1" -D "$2" -j "$3" 2>/dev/null; do :; done
}}

drop_chain() {{
    ipt -t "$1" -F "$2" 2>/dev/null && ipt -t "$1" -X "$2"
}}

delete_all() {{
    table=$1 chain=$2
    shift 2
    while ipt -t "$table" -D "$chain" "$@" 2>/dev/null; do :; done
}}

# Refuse a rules file that reaches outside our chains: our tables, our chains, COMMIT, comments.
ours_only() {{
    table=
    while IFS= read -r line || [ -n "$line" ]; do
        case $line in
            ''|'#'*|COMMIT) continue ;;
            '*raw'|'*filter') table=${{line#?}}; continue ;;
        esac
        case "$table:$line" in
            {ours}) ;;
            *) echo "refusing $rules: '$line' is outside the keeper's chains; nothing installed" >&2; return 1 ;;
        esac
    done < "$rules"
}}

install() {{
    ours_only || return 1
    ip6tables-restore -w {wait} --noflush "$rules" || return 1
{jumps}
}}

remove() {{
{unjumps}
{drops}
}}

remove_node_cache_rules() {{
{stale}
}}

check() {{
    status=0
{check_jumps}
{check_holes}
    return $status
}}

stop() {{
    if [ -n "$sleeper" ]; then kill "$sleeper" 2>/dev/null; fi
    remove
    echo "fallthrough rules removed"
    exit 0
}}

keep() {{
    sleeper=
    trap stop TERM INT
    remove_node_cache_rules
    install || {{ echo "cannot install the fallthrough rules" >&2; exit 1; }}
    echo "fallthrough rules in place"
    while :; do
        sleep {defaults.KEEPER_RESYNC_SECONDS} &
        sleeper=$!
        wait "$sleeper"
        sleeper=
        install || {{ echo "cannot re-assert the fallthrough rules" >&2; exit 1; }}
    done
}}

case "${{1:-}}" in
    keep) keep ;;
    check) check ;;
    remove) remove ;;
    *) echo "usage: $0 keep|check|remove" >&2; exit 2 ;;
esac
"""

    def files(self) -> dict[str, str]:
        """The ConfigMap's data: the keeper script and the rules it installs."""
        return {
            defaults.KEEPER_SCRIPT_KEY: self.keeper_script(),
            defaults.KEEPER_RULES_KEY: self.restore_input(),
        }

    def config_map_name(self, prefix: str = defaults.KEEPER_CONFIG_MAP_NAME) -> str:
        """``<prefix>-<hash>``: the ConfigMap's name, from its content, so a new script or rules roll like the template.

        Every node-cache pod mounts the ConfigMap its template names: a change is a new
        ConfigMap and a new template, which reaches the nodes under the DaemonSet's
        ``max_unavailable``, while the old pods keep the old one until they are replaced (the
        deploy prunes it once the rollout is complete). The hash is of the content as a preview
        writes it, the kube-dns ClusterIP left as its placeholder: that address is known only
        at deploy time, and ``DeployerRBAC`` names the ConfigMap from the props alone.
        """
        preview = Keeper(local_ip=self.local_ip, ports=self.ports).files()
        digest = hashlib.sha256(json.dumps(preview, sort_keys=True).encode()).hexdigest()
        return f"{prefix}-{digest[:_NAME_HASH]}"


def _node_cache_spec(proto: str, side: str, address: str, port_flag: str, port: str, target: str) -> tuple[str, ...]:
    comment = _NODE_CACHE_SKIP if target == "NOTRACK" else _NODE_CACHE_ALLOW
    # node-cache's own argument order (cache_app.go), so that -C and -D match what it inserted.
    return ("-p", proto, side, address, port_flag, port, "-j", target, "-m", "comment", "--comment", comment)


def _shell(words: tuple[str, ...]) -> str:
    return " ".join(shlex.quote(word) for word in words)
