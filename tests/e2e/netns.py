"""A Kubernetes node in network namespaces, for data-plane tests and benchmarks.

Three namespaces per :class:`Testbed`, named ``nld-e2e-<pid>-<n>-<role>`` so that runs never
collide, joined by veth pairs created inside them (no interface ever appears in the root
namespace)::

    pod                 node                                  cluster-dns
    eth0 fd0b::2 ---- pod0 fd0b::1
                      eth0 fd01::1 ------------------------ eth0 fd01::2
                                                                 fd01::53  cluster CoreDNS (kube-dns endpoint)
                                                                 fd01::54… more cluster CoreDNS, if asked
                      lo   fd00::10, kube-dns ClusterIP      lo  fd03::53, fd03::54  "internet" resolvers

- **cluster-dns**: real CoreDNS (``.cache/bin/coredns``, the v1.13.2 node-cache embeds) as
  the kube-dns endpoint, serving ``cluster.local`` and the service range's ``ip6.arpa`` zone
  from generated zone files and forwarding the rest to its ``/etc/resolv.conf``, as EKS's
  CoreDNS does; and a second CoreDNS, the "internet": ``example.com`` and ``example.org``,
  NXDOMAIN for every other name. Nothing leaves the machine: no namespace has an uplink.
- **node**: routes between pod and cluster, the real kube-proxy v1.34.4 (iptables mode
  unless told otherwise) programming the kube-dns and kube-dns-upstream ClusterIPs from the
  Services of :mod:`tests.e2e.serviceapi` (its API server reached through a bridge on the
  node's loopback), and the node's ``/etc/resolv.conf`` (through ``/etc/netns/<node>/resolv.conf``) naming the
  internet resolvers, as a VPC resolver would be named. ``fd00::10`` and the kube-dns
  ClusterIP sit on the node's ``lo``: this kernel has no dummy interfaces, and ``lo`` is what
  node-cache's dummy ``nodelocaldns`` interface amounts to (local delivery, no neighbours),
  so node-cache can run here with ``-setupinterface=false``. The addresses alone divert
  nothing: without node-cache's NOTRACK rules, kube-proxy's DNAT rewrites the destination
  in PREROUTING/OUTPUT, before the routing decision that would deliver locally.
- **pod**: the client; default route via the node, ``/etc/resolv.conf`` as kubelet writes it
  for ``dnsPolicy: ClusterFirst`` (the kube-dns ClusterIP, the cluster search path, ndots 5).

Everything is torn down by :meth:`Testbed.close` (processes, then ``/etc/netns`` entries, then
namespaces), also when building fails half-way and, as a last resort, at interpreter exit.
"""

from __future__ import annotations

import contextlib
import functools
import ipaddress
import os
import random
import re
import shutil
import signal
import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import count
from pathlib import Path

from tests.e2e import serviceapi, zones
from tests.harness.coredns import COREDNS_BINARY, CoreDNS
from tests.harness.node import KubeProxy, ProxyMode
from tests.harness.process import require_binary, wait_until
from tests.harness.socat import Bridge
from tests.harness.stack import Stack

__all__ = [
    "CLUSTER_DOMAIN",
    "INTERNET_RESOLVERS",
    "KUBE_DNS_ENDPOINT",
    "NODE_LOCAL_DNS_IP",
    "POD_IP",
    "SERVICE_CIDR",
    "ClusterIPs",
    "Namespace",
    "Testbed",
    "allocate_cluster_ips",
    "require_root",
    "sweep_stale",
]

CLUSTER_DOMAIN = "cluster.local"
SERVICE_CIDR = ipaddress.IPv6Network("fd00:ec2::/108")
"""The service range AWS allocates on IPv6-only EKS."""
NODE_LOCAL_DNS_IP = "fd00::10"
"""The address node-cache binds besides the kube-dns ClusterIP (the spec's ``-localip``)."""
NODE_UPLINK_IP = "fd01::1"
CLUSTER_UPLINK_IP = "fd01::2"
KUBE_DNS_ENDPOINT = "fd01::53"
"""Pod IP of the cluster CoreDNS: the endpoint of both kube-dns and kube-dns-upstream."""
CLUSTER_COREDNS_METRICS_PORT = 9153
INTERNET_RESOLVERS = ("fd03::53", "fd03::54")
"""The node's nameservers (a VPC resolver, in production)."""
POD_GATEWAY_IP = "fd0b::1"
POD_IP = "fd0b::2"

NAME_PREFIX = "nld-e2e-"
_NAME = re.compile(rf"^{NAME_PREFIX}(?P<pid>\d+)-\d+-[a-z-]+$")
_sequence = count()


def require_root() -> None:
    """Fail, naming the reason, unless running as root (namespaces, ip6tables and /etc/netns need it)."""
    if os.geteuid() != 0:
        raise PermissionError("the data-plane test bed needs root: ip netns, veth, ip6tables and /etc/netns")
    for tool in ("ip", "ip6tables-restore", "dig"):
        if shutil.which(tool) is None:
            raise FileNotFoundError(f"{tool} not found: apt-get install iproute2 iptables dnsutils")


def _run(argv: Sequence[str], *, input: str | None = None, timeout: float = 30) -> str:
    """Run ``argv``; return stdout, or raise with the command and its output."""
    result = subprocess.run(argv, input=input, capture_output=True, text=True, timeout=timeout, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {result.returncode}: {result.stderr.strip() or result.stdout}")
    return result.stdout


class Namespace:
    """A named network namespace (``ip netns``) and the ways to run commands in it."""

    def __init__(self, name: str) -> None:
        """Refer to the namespace ``name``; :meth:`create` makes it."""
        self.name = name

    def __repr__(self) -> str:
        """``Namespace('name')``."""
        return f"Namespace({self.name!r})"

    @property
    def etc_dir(self) -> Path:
        """``/etc/netns/<name>``: ``ip netns exec`` bind-mounts its files over ``/etc``."""
        return Path("/etc/netns") / self.name

    def create(self) -> None:
        """Create the namespace with ``lo`` up and without duplicate address detection.

        DAD would leave fresh addresses "tentative" (unbindable) for about a second.
        """
        _run(["ip", "netns", "add", self.name])
        self.ip("link", "set", "lo", "up")
        for scope in ("all", "default"):
            self.sysctl(f"net.ipv6.conf.{scope}.accept_dad", "0")

    def delete(self) -> None:
        """Delete the namespace and its ``/etc/netns`` entry, if present."""
        shutil.rmtree(self.etc_dir, ignore_errors=True)
        if self.name in list_namespaces():
            _run(["ip", "netns", "delete", self.name])

    def argv(self, *command: str) -> list[str]:
        """``command`` wrapped to run inside the namespace."""
        return ["ip", "netns", "exec", self.name, *command]

    def run(self, *command: str, input: str | None = None, timeout: float = 30) -> str:
        """Run ``command`` inside the namespace; return stdout, raise on failure."""
        return _run(self.argv(*command), input=input, timeout=timeout)

    def ip(self, *args: str) -> str:
        """``ip -n <name> ARGS``."""
        return _run(["ip", "-n", self.name, *args])

    def sysctl(self, key: str, value: str) -> None:
        """Set ``key`` inside the namespace."""
        self.run("sysctl", "-q", "-w", f"{key}={value}")

    def write_etc(self, filename: str, text: str) -> None:
        """Give processes run by :meth:`argv` their own ``/etc/<filename>``."""
        self.etc_dir.mkdir(parents=True, exist_ok=True)
        (self.etc_dir / filename).write_text(text)

    def pids(self) -> list[int]:
        """Processes inside the namespace."""
        return [int(pid) for pid in _run(["ip", "netns", "pids", self.name]).split()]


def list_namespaces() -> list[str]:
    """Names of all named network namespaces."""
    return [line.split()[0] for line in _run(["ip", "netns", "list"]).splitlines() if line.strip()]


def sweep_stale() -> list[str]:
    """Delete test-bed namespaces left by runs whose process is gone (e.g. SIGKILLed); return them.

    Only names this module makes are touched, and only when their owner pid no longer
    exists; processes still inside such a namespace were started by that dead run.
    """
    swept = []
    for name in list_namespaces():
        match = _NAME.match(name)
        if match is None or _pid_alive(int(match.group("pid"))):
            continue
        namespace = Namespace(name)
        for pid in namespace.pids():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        namespace.delete()
        swept.append(name)
    return swept


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@dataclass(frozen=True, kw_only=True)
class ClusterIPs:
    """ClusterIPs allocated in :data:`SERVICE_CIDR`, as the API server would."""

    kubernetes: str
    """``default/kubernetes``: the first address of the range."""

    kube_dns: str
    """``kube-system/kube-dns``: the tenth address, as AWS assigns it."""

    kube_dns_upstream: str
    """``kube-system/kube-dns-upstream``: any free address."""

    others: tuple[zones.ServiceRecord, ...]
    """A few more Services for the zone."""

    def services(self) -> tuple[zones.ServiceRecord, ...]:
        """Every Service of the cluster, for the zone files."""
        return (
            zones.ServiceRecord(
                namespace="default", name="kubernetes", cluster_ip=self.kubernetes, tcp_ports=(("https", 443),)
            ),
            zones.ServiceRecord(namespace="kube-system", name="kube-dns", cluster_ip=self.kube_dns),
            zones.ServiceRecord(namespace="kube-system", name="kube-dns-upstream", cluster_ip=self.kube_dns_upstream),
            *self.others,
        )


def allocate_cluster_ips(seed: int) -> ClusterIPs:
    """Allocate the ClusterIPs; all but kubernetes and kube-dns are random (seeded) free addresses."""
    hosts = SERVICE_CIDR.num_addresses - 1
    rng = random.Random(seed)
    offsets = rng.sample(range(11, hosts), 4)
    ip = [str(SERVICE_CIDR.network_address + offset) for offset in offsets]
    return ClusterIPs(
        kubernetes=str(SERVICE_CIDR.network_address + 1),
        kube_dns=str(SERVICE_CIDR.network_address + 10),
        kube_dns_upstream=ip[0],
        others=(
            zones.ServiceRecord(namespace="shop", name="web", cluster_ip=ip[1], tcp_ports=(("http", 80),)),
            zones.ServiceRecord(namespace="shop", name="db", cluster_ip=ip[2]),
            zones.ServiceRecord(namespace="kube-system", name="metrics-server", cluster_ip=ip[3]),
        ),
    )


def _cluster_corefile(address: str, reverse: str, data: Path) -> str:
    """Cluster CoreDNS at ``address``, as EKS's: the cluster zones from ``data``'s files, the rest forwarded.

    The rest goes to the resolvers of its own ``/etc/resolv.conf``; 30 s cache; metrics on ``address``.
    """
    metrics = f"prometheus [{address}]:{CLUSTER_COREDNS_METRICS_PORT}"
    return f"""\
{CLUSTER_DOMAIN}:53 {{
    bind {address}
    errors
    file {data / "db.cluster"}
    cache 30
    {metrics}
}}
{reverse}:53 {{
    bind {address}
    errors
    file {data / "db.reverse"}
    cache 30
    {metrics}
}}
.:53 {{
    bind {address}
    errors
    forward . /etc/resolv.conf
    cache 30
    {metrics}
}}
"""


class Testbed(Stack):
    """The three namespaces, cluster DNS and the node's kube-proxy; a context manager."""

    __test__ = False  # not a pytest test class, despite the name

    def __init__(
        self,
        *,
        workdir: Path,
        coredns_binary: Path = COREDNS_BINARY,
        ips: ClusterIPs | None = None,
        proxy_mode: ProxyMode = "iptables",
        cluster_dns_endpoints: tuple[str, ...] = (KUBE_DNS_ENDPOINT,),
    ) -> None:
        """Plan the test bed; :meth:`start` builds it.

        Without ``ips``, the node runs the real kube-proxy in ``proxy_mode`` against this
        process's :mod:`~tests.e2e.serviceapi` (the bed's addresses, allocated from the process
        id). With ``ips``, the caller's API server allocated them and the caller runs kube-proxy.
        ``cluster_dns_endpoints``: the addresses of cluster CoreDNS in the cluster-dns namespace,
        one CoreDNS process each, as one pod each (the first is :data:`KUBE_DNS_ENDPOINT`).
        """
        super().__init__()
        tag = f"{NAME_PREFIX}{os.getpid()}-{next(_sequence)}"
        self.cluster_dns = Namespace(f"{tag}-cluster-dns")
        self.node = Namespace(f"{tag}-node")
        self.pod = Namespace(f"{tag}-pod")
        self.workdir = workdir
        self.coredns_binary = coredns_binary
        self.runs_kube_proxy = ips is None
        self.ips = ips or allocate_cluster_ips(os.getpid())
        self.proxy_mode = proxy_mode
        self.kube_proxy: KubeProxy | None = None
        if cluster_dns_endpoints[:1] != (KUBE_DNS_ENDPOINT,):
            raise ValueError(
                f"cluster_dns_endpoints: the first must be {KUBE_DNS_ENDPOINT}, got {cluster_dns_endpoints}"
            )
        self.cluster_dns_endpoints = cluster_dns_endpoints
        self.internet_dns: CoreDNS | None = None

    @property
    def namespaces(self) -> tuple[Namespace, Namespace, Namespace]:
        """cluster-dns, node and pod."""
        return (self.cluster_dns, self.node, self.pod)

    # ------------------------------------------------------------------ building ---
    def start_parts(self) -> None:
        """The namespaces and their wiring, kube-proxy (unless the caller runs it), then cluster DNS."""
        require_binary(self.coredns_binary, "run `bash tools/build-binaries.sh coredns`")
        self.workdir.mkdir(parents=True, exist_ok=True)
        for namespace in self.namespaces:
            self.at_close(namespace.delete)
            namespace.create()
        self._wire()
        self._write_resolv_confs()
        if self.runs_kube_proxy:
            self._start_kube_proxy()
        self._start_cluster_dns()
        if self.kube_proxy is not None:
            for address in (self.ips.kube_dns, self.ips.kube_dns_upstream):
                wait_until(
                    f"kube-proxy to program {address}",
                    functools.partial(self.kube_proxy.programs, address),
                    60,
                    0.1,
                    watch=(self.kube_proxy,),
                )

    def _wire(self) -> None:
        node, cluster, pod = self.node, self.cluster_dns, self.pod
        node.ip("link", "add", "eth0", "type", "veth", "peer", "name", "eth0", "netns", cluster.name)
        node.ip("link", "add", "pod0", "type", "veth", "peer", "name", "eth0", "netns", pod.name)
        node.ip("addr", "add", f"{NODE_UPLINK_IP}/64", "dev", "eth0", "nodad")
        node.ip("addr", "add", f"{POD_GATEWAY_IP}/64", "dev", "pod0", "nodad")
        for address in (NODE_LOCAL_DNS_IP, self.ips.kube_dns):
            node.ip("addr", "add", f"{address}/128", "dev", "lo")
        cluster.ip("addr", "add", f"{CLUSTER_UPLINK_IP}/64", "dev", "eth0", "nodad")
        for address in self.cluster_dns_endpoints:
            cluster.ip("addr", "add", f"{address}/64", "dev", "eth0", "nodad")
        for address in INTERNET_RESOLVERS:
            cluster.ip("addr", "add", f"{address}/128", "dev", "lo")
        pod.ip("addr", "add", f"{POD_IP}/64", "dev", "eth0", "nodad")
        for namespace, link in ((node, "eth0"), (node, "pod0"), (cluster, "eth0"), (pod, "eth0")):
            namespace.ip("link", "set", link, "up")
        node.sysctl("net.ipv6.conf.all.forwarding", "1")
        # The node's default route is its uplink, as on a real node: the ClusterIPs kube-proxy
        # DNATs in OUTPUT need a route before the rewrite.
        node.ip("-6", "route", "add", "default", "via", CLUSTER_UPLINK_IP, "dev", "eth0")
        cluster.ip("-6", "route", "add", "default", "via", NODE_UPLINK_IP, "dev", "eth0")
        pod.ip("-6", "route", "add", "default", "via", POD_GATEWAY_IP, "dev", "eth0")

    def _write_resolv_confs(self) -> None:
        upstream = "".join(f"nameserver {address}\n" for address in INTERNET_RESOLVERS)
        self.node.write_etc("resolv.conf", upstream)
        self.cluster_dns.write_etc("resolv.conf", upstream)
        search = " ".join(f"{suffix}{CLUSTER_DOMAIN}" for suffix in ("default.svc.", "svc.", ""))
        self.pod.write_etc("resolv.conf", f"search {search}\nnameserver {self.ips.kube_dns}\noptions ndots:5\n")

    def _start_kube_proxy(self) -> None:
        """kube-proxy in the node, reaching this process's API server through a bridge on the node's loopback."""
        api = serviceapi.shared(self.ips, endpoint=KUBE_DNS_ENDPOINT, node_ip=NODE_UPLINK_IP)
        bridge = Bridge(
            listen_namespace=self.node,
            listen=("127.0.0.1", api.port),
            target_namespace=None,
            target=("127.0.0.1", api.port),
            directory=self.workdir / "bridge",
        )
        self.enter_context(bridge)
        self.kube_proxy = KubeProxy(
            name=serviceapi.NODE_NAME,
            netns=self.node.name,
            mode=self.proxy_mode,
            directory=self.workdir / "kube-proxy",
            binary=api.control_plane.cache_dir / "bin" / "kube-proxy",
            kubeconfig=api.kubeconfig,
        )
        self.start_process(self.kube_proxy, wait=False)

    def _start_cluster_dns(self) -> None:
        data = self.workdir / "cluster-dns"
        data.mkdir(exist_ok=True)
        services = self.ips.services()
        reverse = zones.reverse_zone_origin(SERVICE_CIDR)
        (data / "db.cluster").write_text(
            zones.cluster_zone(domain=CLUSTER_DOMAIN, services=services, dns_ip=self.ips.kube_dns)
        )
        (data / "db.reverse").write_text(
            zones.reverse_zone(network=SERVICE_CIDR, domain=CLUSTER_DOMAIN, services=services)
        )
        internet_zones = {
            "example.com": (
                zones.ExternalRecord(name="example.com", address="2001:db8::e1"),
                zones.ExternalRecord(name="www.example.com", address="2001:db8::e2"),
            ),
            "example.org": (zones.ExternalRecord(name="www.example.org", address="2001:db8::f1"),),
        }
        bind = "bind " + " ".join(INTERNET_RESOLVERS)
        internet = []
        for origin, records in internet_zones.items():
            (data / f"db.{origin}").write_text(zones.external_zone(origin=origin, records=records))
            internet.append(f"{origin}:53 {{\n    {bind}\n    errors\n    file {data / f'db.{origin}'}\n}}\n")
        (data / "db.root").write_text(zones.root_zone())
        internet.append(f".:53 {{\n    {bind}\n    errors\n    file {data / 'db.root'} .\n}}\n")
        self.internet_dns = self.start_coredns(self.cluster_dns, "".join(internet), "internet")
        for index, address in enumerate(self.cluster_dns_endpoints):
            name = "cluster-coredns" if index == 0 else f"cluster-coredns-{index}"
            self.start_coredns(self.cluster_dns, _cluster_corefile(address, reverse, data), name)

    # ----------------------------------------------------------------- processes ---
    def start_coredns(self, namespace: Namespace, corefile: str, name: str, *, wait: bool = True) -> CoreDNS:
        """Run CoreDNS with ``corefile`` in ``namespace``, stopped at teardown; wait for it unless told not to."""
        directory = self.workdir / name
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / "Corefile"
        path.write_text(corefile)
        process = self.start_process(CoreDNS(namespace, path, self.coredns_binary), wait=False)
        if wait:
            process.wait_started()
        return process

    @contextlib.contextmanager
    def coredns(self, namespace: Namespace, corefile: str, name: str) -> Iterator[CoreDNS]:
        """:meth:`start_coredns` for a ``with`` block: stopped at its end."""
        process = self.start_coredns(namespace, corefile, name)
        try:
            yield process
        finally:
            process.stop()

    def cluster_coredns_metrics_url(self, endpoint: str = KUBE_DNS_ENDPOINT) -> str:
        """Where the ``prometheus`` plugin of the cluster CoreDNS at ``endpoint`` listens (reachable from the node)."""
        return f"http://[{endpoint}]:{CLUSTER_COREDNS_METRICS_PORT}/metrics"
