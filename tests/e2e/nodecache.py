"""node-cache as our synthesized manifests run it: the invocation read from the synth, and the process.

:func:`node_cache_invocation` reads everything from ``synthesize(props)`` — the DaemonSet's
container args, probe, ports and grace period, the ConfigMap volumes and where they are
mounted, the kube-dns-upstream Service — never retyped, so node-cache runs here with exactly
what a cluster gives it. What kubelet adds — the Service variables of the pod's namespace,
and ``$(VAR)`` expanded in the args — comes from kubelet's own code of Kubernetes v1.34
(``tools/kubelet-env``, built by ``tools/build-binaries.sh kubelet-env``).

:class:`NodeCache` runs that invocation with the real binary in the test bed's node
namespace, adding only ``-setupinterface=false`` (this kernel has no dummy interfaces; the
addresses are on the node's ``lo``) and file paths relocated into a directory of the test
(the pod's volumes and each container's own files), as a private mount namespace would. A
container that is not privileged runs under ``setpriv`` with the capabilities its
securityContext adds as its bounding set, and ``--no-new-privs`` for
``allowPrivilegeEscalation: false`` (:class:`Security`), as the container runtime starts a
root process.

:func:`render_runtime_corefile` is node-cache 1.26.8's own rendering of ``Corefile.base``
(``updateCorefile`` in ``cmd/node-cache/app/configmap.go``), for loading the Corefile on
plain CoreDNS where no node-cache binary is at hand.

The binary is never built by this repository: :func:`find_node_cache_binary` looks at
``$NODE_CACHE_BIN``, else at ``~/.local/share/constructs-nld/node-cache``.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import count
from pathlib import Path, PurePosixPath
from typing import Any, Self

from constructs_nld import NodeLocalDNSProps, synthesize
from constructs_nld import placeholders as ph
from tests.e2e import probes
from tests.e2e.netns import REPO_ROOT, ClusterIPs, Testbed
from tests.harness.process import Process, ProcessExitedError, require_binary, wait_until

__all__ = [
    "DEFAULT_NODE_CACHE_BINARY",
    "NODE_CACHE_BIN_ENV",
    "NODE_CACHE_MISSING",
    "NodeCache",
    "NodeCacheExitedError",
    "NodeCacheInvocation",
    "RULES_PER_LOCAL_IP",
    "KUBELET_ENV_BINARY",
    "ContainerProcess",
    "Security",
    "cluster_services",
    "config_map_volumes",
    "kubelet_env",
    "find_node_cache_binary",
    "node_cache_binary_or_skip",
    "node_cache_container",
    "node_cache_invocation",
    "render_runtime_corefile",
    "synthesized_objects",
    "write_config_map",
]

NODE_CACHE_BIN_ENV = "NODE_CACHE_BIN"
"""Environment variable naming the node-cache binary; it wins over the per-user default."""

DEFAULT_NODE_CACHE_BINARY = Path.home() / ".local" / "share" / "constructs-nld" / "node-cache"
"""Where the tests look for node-cache when ``$NODE_CACHE_BIN`` is unset: outside the repository."""

NODE_CACHE_MISSING = (
    f"node-cache binary not found: set {NODE_CACHE_BIN_ENV} or put it at ~/.local/share/constructs-nld/node-cache "
    "(README, 'The node-cache binary')"
)
"""The one line a run without the binary prints for the node-cache tests it skips."""

NODE_CACHE_ENTRYPOINT = "/node-cache"
"""The image's ENTRYPOINT: the DaemonSet gives ``args`` only."""

NODE_CACHE_RESOLV_CONF = "/etc/resolv.conf"
"""What node-cache writes for ``__PILLAR__UPSTREAM__SERVERS__`` when no kube-dns ConfigMap names
upstreams: CoreDNS's ``forward`` then reads the nameservers from the node's resolv.conf
(``dnsPolicy: Default`` on the host network)."""

RULES_PER_LOCAL_IP = 12
"""Rules node-cache 1.26.8 writes per ``-localip`` address (``initIptables``): raw PREROUTING
NOTRACK udp/tcp to the DNS port, raw OUTPUT NOTRACK udp/tcp from and to the DNS port and tcp
from and to the health port, filter INPUT and OUTPUT ACCEPT udp/tcp."""

BASE_COREFILE_DEFAULT = "/etc/coredns/Corefile.base"
BASE_COREFILE_NAME = "Corefile.base"
"""The file node-cache reads in its ConfigMap volume (the ConfigMap's ``Corefile`` key, mapped)."""
"""node-cache's ``-basecorefile`` when the args do not name one."""

KUBE_DNS_CM_DEFAULT = "/etc/kube-dns"
"""Where node-cache looks for the kube-dns ConfigMap when ``-kubednscm`` is unset and the directory exists."""

PATH_FLAGS = ("-conf", "-pidfile", "-basecorefile", "-kubednscm")
"""node-cache flags whose value is a path in the container: relocated under the test's directory."""

KUBELET_ENV_BINARY = REPO_ROOT / ".cache" / "bin" / "kubelet-env"
"""kubelet's Service variables and ``$(VAR)`` expansion (``tools/kubelet-env``), built from Kubernetes v1.34."""

CONTAINER_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
"""``PATH`` of the container: node-cache runs ``ip6tables`` from it."""


def find_node_cache_binary(environ: Mapping[str, str] = os.environ) -> Path | None:
    """``$NODE_CACHE_BIN``, else the per-user default if it exists, else ``None``.

    A ``$NODE_CACHE_BIN`` that names no executable file raises ``FileNotFoundError``: a
    wrong setting must fail, not skip.
    """
    configured = environ.get(NODE_CACHE_BIN_ENV)
    if configured:
        path = Path(configured)
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise FileNotFoundError(f"{NODE_CACHE_BIN_ENV}={configured} is not an executable file")
        return path
    if DEFAULT_NODE_CACHE_BINARY.is_file() and os.access(DEFAULT_NODE_CACHE_BINARY, os.X_OK):
        return DEFAULT_NODE_CACHE_BINARY
    return None


def node_cache_binary_or_skip() -> Path:
    """The node-cache binary, or a module-level skip of the calling test module.

    Raised here, the skip of every node-cache module is one line of pytest's summary,
    naming ``NODE_CACHE_BIN``.
    """
    import pytest

    binary = find_node_cache_binary()
    if binary is None:
        pytest.skip(NODE_CACHE_MISSING, allow_module_level=True)
    return binary


def synthesized_objects(props: NodeLocalDNSProps) -> list[dict[str, Any]]:
    """Every object of the synth of ``props``, in apply order."""
    return [obj for chart in synthesize(props) for obj in chart.objects]


def _one(objects: list[dict[str, Any]], kind: str, name: str | None = None) -> dict[str, Any]:
    found = [o for o in objects if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)]
    if len(found) != 1:
        raise LookupError(f"expected one {kind} {name or ''} in the synth, found {len(found)}")
    return found[0]


def _flag(args: list[str], flag: str) -> str:
    if flag not in args:
        raise LookupError(f"node-cache args lack {flag}: {args}")
    return args[args.index(flag) + 1]


def node_cache_container(pod: Mapping[str, Any]) -> dict[str, Any]:
    """The pod spec's node-cache container: the one with ``-localip`` and ``-upstreamsvc`` in its args."""
    found = [c for c in pod["containers"] if {"-localip", "-upstreamsvc"} <= {str(arg) for arg in c.get("args") or []}]
    if len(found) != 1:
        raise LookupError(f"expected one node-cache container in the synth, found {len(found)}")
    return dict(found[0])


@dataclass(frozen=True, kw_only=True)
class Security:
    """A container's ``securityContext``, as the container runtime applies it to a root process."""

    privileged: bool
    """Every capability, as ``privileged: true`` gives."""

    capabilities: tuple[str, ...]
    """Otherwise the capabilities added after ``drop: [ALL]`` (without ``CAP_``), the bounding set."""

    no_new_privs: bool
    """``allowPrivilegeEscalation: false``."""

    @staticmethod
    def of(container: Mapping[str, Any]) -> Security:
        """Read ``container``'s securityContext; only the shapes the synth writes are understood."""
        context = container.get("securityContext") or {}
        if context.get("privileged"):
            return Security(privileged=True, capabilities=(), no_new_privs=False)
        capabilities = context.get("capabilities") or {}
        if capabilities.get("drop") != ["ALL"]:
            raise LookupError(f"unprivileged without drop [ALL]: {context}")
        return Security(
            privileged=False,
            capabilities=tuple(str(c) for c in capabilities.get("add") or ()),
            no_new_privs=context.get("allowPrivilegeEscalation") is False,
        )

    def wrap(self, argv: list[str]) -> list[str]:
        """``argv`` run with this security: unchanged when privileged, else under ``setpriv``.

        A container's root process gets its bounding set as permitted and effective
        capabilities; ``setpriv --bounding-set`` makes exactly that for the exec'd program.
        """
        if self.privileged:
            return argv
        bounding = ",".join(["-all", *(f"+{c.lower()}" for c in self.capabilities)])
        wrapper = ["setpriv", f"--bounding-set={bounding}", "--inh-caps=-all"]
        if self.no_new_privs:
            wrapper.append("--no-new-privs")
        return [*wrapper, "--", *argv]


def cluster_services(ips: ClusterIPs, objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The cluster's Services as the API server returns them: the test bed's, and the synth's kube-dns-upstream.

    kube-dns has CoreDNS's two ports; every other Service of the test bed its named TCP
    ports (or DNS's 53); kube-dns-upstream is the synthesized Service with the ClusterIP
    the test bed allocated to it.
    """
    services: list[dict[str, Any]] = []
    for record in ips.services():
        if record.name == "kube-dns-upstream":
            continue
        if record.name == "kube-dns":
            ports = [
                {"name": "dns", "port": 53, "protocol": "UDP"},
                {"name": "dns-tcp", "port": 53, "protocol": "TCP"},
            ]
        else:
            ports = [{"name": name, "port": port, "protocol": "TCP"} for name, port in record.tcp_ports] or [
                {"name": "dns", "port": 53, "protocol": "UDP"}
            ]
        services.append(
            {
                "apiVersion": "v1",
                "kind": "Service",
                "metadata": {"name": record.name, "namespace": record.namespace},
                "spec": {"clusterIP": record.cluster_ip, "ports": ports},
            }
        )
    args = node_cache_container(_one(objects, "DaemonSet")["spec"]["template"]["spec"])["args"]
    upstream = _one(objects, "Service", _flag([str(a) for a in args], "-upstreamsvc"))
    services.append({**upstream, "spec": {**upstream["spec"], "clusterIP": ips.kube_dns_upstream}})
    return services


def kubelet_env(
    *, namespace: str, enable_service_links: bool | None, services: list[dict[str, Any]], container: dict[str, Any]
) -> tuple[dict[str, str], list[str]]:
    """The environment and the args kubelet gives ``container`` of a pod in ``namespace``: kubelet's own code."""
    require_binary(KUBELET_ENV_BINARY, "run `bash tools/build-binaries.sh kubelet-env`")
    request: dict[str, Any] = {"namespace": namespace, "services": services, "container": container}
    if enable_service_links is not None:
        request["enableServiceLinks"] = enable_service_links
    done = subprocess.run(
        [str(KUBELET_ENV_BINARY)], input=json.dumps(request), capture_output=True, text=True, timeout=30, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"kubelet-env exited {done.returncode}: {done.stderr.strip()}")
    result = json.loads(done.stdout)
    return dict(result["env"]), list(result["args"] or [])


@dataclass(frozen=True, kw_only=True)
class NodeCacheInvocation:
    """How the synthesized DaemonSet runs node-cache on a node."""

    argv: tuple[str, ...]
    """The exact command line: the image entrypoint and the container args."""

    env: Mapping[str, str]
    """What kubelet injects: the Service variables of the pod's namespace (``KUBE_DNS_UPSTREAM_SERVICE_HOST``…)."""

    volumes: Mapping[str, Mapping[str, str]]
    """ConfigMap volumes by mount path: file name → content. An optional ConfigMap the synth
    does not hold (``kube-dns``) mounts as an empty directory, as kubelet mounts it."""

    corefile_base: str
    """The ConfigMap's ``Corefile``, placeholders of node-cache unfilled."""

    local_ips: tuple[str, ...]
    """``-localip``, split: the addresses node-cache binds and intercepts."""

    rendered_corefile_path: str
    """``-conf``: where node-cache writes the rendered Corefile and CoreDNS loads it from."""

    liveness_url: str
    """The URL kubelet's liveness probe GETs (``httpGet`` host, port, path)."""

    container_ports: Mapping[str, int]
    """The container's ports by name: ``dns``, ``dns-tcp``, ``metrics``, ``metrics-binary``."""

    grace_period: int
    """``terminationGracePeriodSeconds``: how long a SIGTERMed node-cache may take before SIGKILL."""

    security: Security
    """The container's securityContext."""


def node_cache_invocation(
    props: NodeLocalDNSProps,
    *,
    ips: ClusterIPs,
    enable_service_links: bool | None = None,
    missing_services: tuple[str, ...] = (),
) -> NodeCacheInvocation:
    """node-cache's command line, environment, volumes and Corefile, from the synth of ``props``.

    ``ips`` are the ClusterIPs of the cluster's Services, kube-dns-upstream's among them:
    kubelet's code turns them into the container's Service variables and expands the
    args with them. ``enable_service_links`` overrides the pod spec's field (None: the
    synth's, where unset means on); ``missing_services`` did not exist yet when the
    container started.
    """
    objects = synthesized_objects(props)
    daemon_set = _one(objects, "DaemonSet")
    pod = daemon_set["spec"]["template"]["spec"]
    container = node_cache_container(pod)
    env, args = kubelet_env(
        namespace=daemon_set["metadata"]["namespace"],
        enable_service_links=pod.get("enableServiceLinks") if enable_service_links is None else enable_service_links,
        services=[s for s in cluster_services(ips, objects) if s["metadata"]["name"] not in missing_services],
        container=container,
    )

    volumes = config_map_volumes(objects, pod, container)
    probe = container["livenessProbe"]["httpGet"]
    return NodeCacheInvocation(
        argv=(NODE_CACHE_ENTRYPOINT, *args),
        env=env,
        volumes=volumes,
        corefile_base=next(files[BASE_COREFILE_NAME] for files in volumes.values() if BASE_COREFILE_NAME in files),
        local_ips=tuple(_flag(args, "-localip").split(",")),
        rendered_corefile_path=_flag(args, "-conf"),
        liveness_url=f"http://[{probe['host']}]:{probe['port']}{probe['path']}",
        container_ports={port["name"]: int(port["containerPort"]) for port in container["ports"]},
        grace_period=int(pod["terminationGracePeriodSeconds"]),
        security=Security.of(container),
    )


def config_map_volumes(
    objects: list[dict[str, Any]], pod: Mapping[str, Any], container: Mapping[str, Any]
) -> dict[str, dict[str, str]]:
    """``container``'s ConfigMap volumes by mount path: file name → content, as kubelet projects them.

    An optional ConfigMap the synth does not hold (``kube-dns``) mounts as an empty directory.
    """
    config_maps = {o["metadata"]["name"]: o for o in objects if o["kind"] == "ConfigMap"}
    volumes: dict[str, dict[str, str]] = {}
    for mount in container["volumeMounts"]:
        volume = next(v for v in pod["volumes"] if v["name"] == mount["name"])
        source = volume.get("configMap")
        if source is None:
            continue  # the xtables lock: a host path, the same file here
        data = config_maps[source["name"]]["data"] if source["name"] in config_maps else {}
        if not data and not source.get("optional", False):
            raise LookupError(f"ConfigMap {source['name']} is not in the synth and its volume is not optional")
        items = source.get("items") or [{"key": key, "path": key} for key in data]
        volumes[mount["mountPath"]] = {item["path"]: data[item["key"]] for item in items}
    return volumes


def render_runtime_corefile(corefile_base: str, *, cluster_dns_ip: str | None, local_ips: tuple[str, ...]) -> str:
    """``Corefile.base`` rendered as node-cache 1.26.8 renders it at start, with no kube-dns ConfigMap.

    ``__PILLAR__UPSTREAM__SERVERS__`` becomes ``/etc/resolv.conf``; ``__PILLAR__CLUSTER__DNS__``
    the ``-upstreamsvc`` ClusterIP, or ``<nil>`` when its environment variable is missing
    (Go's ``net.IP(nil).String()``); ``__PILLAR__LOCAL__DNS__`` the local IPs, space separated;
    ``__PILLAR__DNS__SERVER__`` nothing.
    """
    text = corefile_base.replace(ph.UPSTREAM_SERVERS, NODE_CACHE_RESOLV_CONF)
    text = text.replace(ph.CLUSTER_DNS, cluster_dns_ip if cluster_dns_ip is not None else "<nil>")
    text = text.replace(ph.LOCAL_DNS, " ".join(local_ips))
    return text.replace(ph.DNS_SERVER, "")


def write_config_map(directory: Path, files: Mapping[str, str]) -> None:
    """Put ``files`` in ``directory``, swapped in atomically as kubelet does.

    Kubelet's layout: the files in a timestamped ``..<ts>`` directory, ``..data`` a symlink
    to it, renamed over the old one, and each file name a symlink into ``..data``.
    """
    directory.mkdir(parents=True, exist_ok=True)
    stamp = directory / f"..{time.strftime('%Y_%m_%d_%H_%M_%S')}.{time.monotonic_ns()}"
    stamp.mkdir()
    for name, text in files.items():
        (stamp / name).write_text(text)
    data = directory / "..data"
    old = data.resolve() if data.is_symlink() else None
    staging = directory / "..data_tmp"
    staging.symlink_to(stamp.name)
    staging.rename(data)
    for name in files:
        link = directory / name
        if not link.is_symlink():
            link.symlink_to(f"..data/{name}")
    if old is not None:
        for leftover in old.iterdir():
            leftover.unlink()
        old.rmdir()


# ------------------------------------------------------------------- the process ---
class NodeCacheExitedError(ProcessExitedError):
    """node-cache ended while it was expected to run."""


_instances = count()


class ContainerProcess(Process):
    """A container's process on the test bed's node: each start a new container, as kubelet's restart is.

    Subclasses build the command line of container number :attr:`starts` (:meth:`argv`) and
    its environment; this keeps one log per container (``container-N.log`` in ``directory``)
    and stops it as kubelet does, after the pod's grace period. :meth:`start` does not wait:
    the tests say what they wait for (``wait_ready``, ``wait_exit``).
    """

    def __init__(self, name: str, directory: Path, grace_period: float) -> None:
        """Containers' logs go to ``directory``; ``grace_period`` is the pod's ``terminationGracePeriodSeconds``."""
        super().__init__(name, directory / "container-0.log", grace_period=grace_period, startup_timeout=20)
        self.directory = directory

    def prepare(self, attempt: int) -> None:
        """A new container, whose log is ``container-<n>.log``."""
        self.log_path = self.directory / f"container-{self.starts + 1}.log"

    def start(self, *, wait: bool = False, attempts: int | None = None) -> Self:
        """Start a new container; the previous one must have ended. Waits only if told to."""
        if self.alive():
            raise RuntimeError(f"{self.name} is still running")
        return super().start(wait=wait, attempts=attempts)

    def stop(self) -> int:
        """Stop as kubelet does: SIGTERM, SIGKILL after the grace period; return the exit code."""
        self._started()
        code = super().stop()
        assert code is not None
        return code


class NodeCache(ContainerProcess):
    """The node-cache pod of the test bed's node: its volumes, and a container that starts, stops and restarts.

    Every :meth:`start` is a new container, as kubelet's restart is: fresh container files
    (``-conf``, ``-pidfile``), a new log, the same ConfigMap volumes. Nothing starts until
    :meth:`start`; the test bed stops node-cache at its close, before it deletes the node.
    """

    exited_error = NodeCacheExitedError

    def __init__(
        self,
        bed: Testbed,
        props: NodeLocalDNSProps,
        *,
        binary: Path,
        pidfile: bool = True,
        env: Mapping[str, str] | None = None,
        setup_interface: bool = False,
        enable_service_links: bool | None = None,
        missing_services: tuple[str, ...] = (),
    ) -> None:
        """Plan node-cache for ``bed`` from the synth of ``props``; write its ConfigMap volumes.

        ``pidfile=False`` drops ``-pidfile`` from the args; ``env`` replaces what kubelet injects;
        ``setup_interface=True`` leaves out ``-setupinterface=false``, so node-cache tries to
        create its dummy interface, which this kernel cannot (only its error is of interest);
        ``enable_service_links`` overrides the pod spec's field, as a webhook or a hand edit might;
        ``missing_services`` did not exist when kubelet started the container.
        """
        self.bed = bed
        self.invocation = node_cache_invocation(
            props, ips=bed.ips, enable_service_links=enable_service_links, missing_services=missing_services
        )
        self.binary = binary
        self.pidfile = pidfile
        self.setup_interface = setup_interface
        self.env = dict(self.invocation.env if env is None else env)
        super().__init__("node-cache", bed.workdir / f"node-cache-{next(_instances)}", self.invocation.grace_period)
        self.volumes_dir = self.directory / "volumes"
        for mount, files in self.invocation.volumes.items():
            self.write_config_map(mount, files)
        bed.at_close(self.close)

    # ------------------------------------------------------------------- files ---
    def _relocate(self, path: str, container_dir: Path) -> Path:
        """Where the container's ``path`` lives here: in a ConfigMap volume, or in the container's own files."""
        pure = PurePosixPath(path)
        for mount in self.invocation.volumes:
            if pure.is_relative_to(mount):
                return self.volumes_dir / PurePosixPath(mount).relative_to("/") / pure.relative_to(mount)
        target = container_dir / pure.relative_to("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        return target

    def write_config_map(self, mount: str, files: Mapping[str, str]) -> None:
        """Put ``files`` in the volume mounted at ``mount``, as kubelet updates a ConfigMap volume."""
        write_config_map(self.volumes_dir / PurePosixPath(mount).relative_to("/"), files)

    def argv(self, container_dir: Path | None = None) -> list[str]:
        """The synth's command line, as the node runs it, for a container whose own files live in ``container_dir``.

        Default: the directory of the container :meth:`start` makes next.
        """
        container_dir = self.container_dir(self.starts + 1) if container_dir is None else container_dir
        return self.bed.node.argv(*self._container_argv(container_dir))

    def container_dir(self, number: int) -> Path:
        """Where container ``number``'s own files (``-conf``, ``-pidfile``) live."""
        return self.directory / f"container-{number}"

    def _container_argv(self, container_dir: Path) -> list[str]:
        args = list(self.invocation.argv[1:])
        if not self.pidfile:
            index = args.index("-pidfile")
            del args[index : index + 2]
        if "-conf" not in args:
            raise LookupError(f"node-cache args lack -conf; it would write a Corefile on this machine: {args}")
        for flag in PATH_FLAGS:
            if flag in args:
                index = args.index(flag) + 1
                args[index] = str(self._relocate(args[index], container_dir))
        if "-basecorefile" not in args:
            args += ["-basecorefile", str(self._relocate(BASE_COREFILE_DEFAULT, container_dir))]
        if "-kubednscm" not in args and KUBE_DNS_CM_DEFAULT in self.invocation.volumes:
            # node-cache reads /etc/kube-dns when that directory exists, as the pod's mount makes it.
            args += ["-kubednscm", str(self._relocate(KUBE_DNS_CM_DEFAULT, container_dir))]
        if not self.setup_interface:
            args.append("-setupinterface=false")
        return self.invocation.security.wrap([str(self.binary), *args])

    @property
    def rendered_corefile_path(self) -> Path:
        """The current container's ``-conf`` file: the Corefile node-cache rendered."""
        return self._relocate(self.invocation.rendered_corefile_path, self.container_dir(self.starts))

    # ----------------------------------------------------------------- process ---
    def prepare(self, attempt: int) -> None:
        """A new container: its own files' directory, and its log."""
        super().prepare(attempt)
        self.container_dir(self.starts + 1).mkdir(parents=True)

    def environment(self) -> Mapping[str, str]:
        """Only what the container gets: the image's ``PATH`` and what kubelet injects."""
        return {"PATH": CONTAINER_PATH, **self.env}

    def wait_serving(self, timeout: float = 20) -> float:
        """Wait for CoreDNS's banner, printed once every listener is up; return seconds since :meth:`start`."""
        return wait_until(
            "node-cache to serve",
            lambda: "\nCoreDNS-" in "\n" + self.log,
            timeout,
            watch=(self,),
            since=self.started_at,
        )

    def wait_rules(self, timeout: float = 20, interval: float = 0.05) -> float:
        """Wait until all of node-cache's rules are in the node's ip6tables; return seconds since :meth:`start`."""
        expected = RULES_PER_LOCAL_IP * len(self.invocation.local_ips)
        return wait_until(
            f"all {expected} of node-cache's rules",
            lambda: len(probes.node_cache_rules(self.bed.node)) >= expected,
            timeout,
            interval,
            watch=(self,),
            since=self.started_at,
            detail=lambda: str(probes.node_cache_rules(self.bed.node)),
        )

    def wait_ready(self, timeout: float = 20) -> float:
        """:meth:`wait_serving`, then :meth:`wait_rules`: the node's DNS is intercepted. Seconds since start."""
        self.wait_serving(timeout)
        return self.wait_rules(timeout)
