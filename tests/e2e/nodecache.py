"""node-cache as our synthesized manifests run it: the binary, and its invocation read from the synth.

:func:`node_cache_invocation` reads everything from ``synthesize(props)`` — the DaemonSet's
container args, probe, ports and grace period, the ConfigMap volumes and where they are
mounted — never retyped. The data-plane suite runs node-cache itself only on a real node
(:mod:`tests.e2e.realnode`), where kubelet gives it its environment and expands its args;
the invocation serves the tests that load the synthesized Corefile on plain CoreDNS.

:func:`render_runtime_corefile` is node-cache 1.26.8's own rendering of ``Corefile.base``
(``updateCorefile`` in ``cmd/node-cache/app/configmap.go``), for loading the Corefile on
plain CoreDNS where no node-cache binary is at hand.

The binary is never built by this repository: :func:`find_node_cache_binary` looks at
``$NODE_CACHE_BIN``, else at ``~/.local/share/constructs-nld/node-cache``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from constructs_nld import NodeLocalDNSProps, synthesize
from constructs_nld import placeholders as ph

__all__ = [
    "DEFAULT_NODE_CACHE_BINARY",
    "NODE_CACHE_BIN_ENV",
    "NODE_CACHE_MISSING",
    "NodeCacheInvocation",
    "config_map_volumes",
    "find_node_cache_binary",
    "node_cache_binary_or_skip",
    "node_cache_container",
    "node_cache_invocation",
    "render_runtime_corefile",
    "synthesized_objects",
]

NODE_CACHE_BIN_ENV = "NODE_CACHE_BIN"
"""Environment variable naming the node-cache binary; it wins over the per-user default."""

DEFAULT_NODE_CACHE_BINARY = Path.home() / ".local" / "share" / "constructs-nld" / "node-cache"
"""Where the tests look for node-cache when ``$NODE_CACHE_BIN`` is unset: outside the repository."""

NODE_CACHE_MISSING = (
    f"node-cache binary not found: set {NODE_CACHE_BIN_ENV} or put it at ~/.local/share/constructs-nld/node-cache "
    "(docs/development.md, 'The node-cache binary')"
)
"""The one line a run without the binary prints for the node-cache tests it skips."""

NODE_CACHE_ENTRYPOINT = "/node-cache"
"""The image's ENTRYPOINT: the DaemonSet gives ``args`` only."""

NODE_CACHE_RESOLV_CONF = "/etc/resolv.conf"
"""What node-cache writes for ``__PILLAR__UPSTREAM__SERVERS__`` when no kube-dns ConfigMap names
upstreams: CoreDNS's ``forward`` then reads the nameservers from the node's resolv.conf
(``dnsPolicy: Default`` on the host network)."""

BASE_COREFILE_NAME = "Corefile.base"
"""The file node-cache reads in its ConfigMap volume (the ConfigMap's ``Corefile`` key, mapped)."""


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
class NodeCacheInvocation:
    """How the synthesized DaemonSet runs node-cache on a node."""

    argv: tuple[str, ...]
    """The command line: the image entrypoint and the container args, as the synth writes them."""

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


def node_cache_invocation(props: NodeLocalDNSProps) -> NodeCacheInvocation:
    """node-cache's command line, volumes and Corefile, from the synth of ``props``.

    The args are the synth's: kubelet's ``$(VAR)`` expansion is left out, so ``props`` must
    not be portable (its args name no variable).
    """
    objects = synthesized_objects(props)
    daemon_set = _one(objects, "DaemonSet")
    pod = daemon_set["spec"]["template"]["spec"]
    container = node_cache_container(pod)
    args = [str(arg) for arg in container["args"]]
    if any("$(" in arg for arg in args):
        raise ValueError(f"the args name kubelet's variables, which only kubelet expands: {args}")
    volumes = config_map_volumes(objects, pod, container)
    probe = container["livenessProbe"]["httpGet"]
    return NodeCacheInvocation(
        argv=(NODE_CACHE_ENTRYPOINT, *args),
        volumes=volumes,
        corefile_base=next(files[BASE_COREFILE_NAME] for files in volumes.values() if BASE_COREFILE_NAME in files),
        local_ips=tuple(_flag(args, "-localip").split(",")),
        rendered_corefile_path=_flag(args, "-conf"),
        liveness_url=f"http://[{probe['host']}]:{probe['port']}{probe['path']}",
        container_ports={port["name"]: int(port["containerPort"]) for port in container["ports"]},
        grace_period=int(pod["terminationGracePeriodSeconds"]),
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
