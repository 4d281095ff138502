"""node-cache as our synthesized manifests run it: command line, environment, files, runtime Corefile.

Everything here is read from ``synthesize(NodeLocalDNSProps(kube_dns_cluster_ip=...))`` —
the DaemonSet's container args, the ConfigMap's ``Corefile`` and the volume that mounts it,
the kube-dns-upstream Service — never retyped, so that the day a node-cache binary exists it
runs with exactly what a cluster would give it. :func:`render_runtime_corefile` is
node-cache 1.26.8's own rendering of ``Corefile.base`` (``updateCorefile`` in
``cmd/node-cache/app/configmap.go``, with no ``kube-dns`` ConfigMap, as the spec ships none).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any, Literal, cast

from constructs_nld import NodeLocalDNSProps, synthesize
from constructs_nld import placeholders as ph
from tests.e2e.netns import UpstreamPort

__all__ = [
    "NodeCacheInvocation",
    "node_cache_invocation",
    "render_runtime_corefile",
    "runtime_corefile",
    "synthesized_objects",
    "upstream_ports",
]

NODE_CACHE_ENTRYPOINT = "/node-cache"
"""The image's ENTRYPOINT: the DaemonSet gives ``args`` only."""

NODE_CACHE_RESOLV_CONF = "/etc/resolv.conf"
"""What node-cache writes for ``__PILLAR__UPSTREAM__SERVERS__`` when no kube-dns ConfigMap names
upstreams: CoreDNS's ``forward`` then reads the nameservers from the node's resolv.conf
(``dnsPolicy: Default`` on the host network)."""


def synthesized_objects(kube_dns_cluster_ip: str | None) -> list[dict[str, Any]]:
    """Every object of the synth, in apply order (``None``: the preview)."""
    props = NodeLocalDNSProps(kube_dns_cluster_ip=kube_dns_cluster_ip)
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


def _service_env(name: str) -> str:
    """Kubelet's Service environment variable prefix, as node-cache's ``toSvcEnv`` reads it."""
    return name.upper().replace("-", "_")


@dataclass(frozen=True, kw_only=True)
class NodeCacheInvocation:
    """How the synthesized DaemonSet runs node-cache on a node."""

    argv: tuple[str, ...]
    """The exact command line: the image entrypoint (or ``binary``) and the container args."""

    env: Mapping[str, str]
    """What kubelet injects for the ``-upstreamsvc`` Service: ``<NAME>_SERVICE_HOST`` and ports."""

    files: Mapping[str, str]
    """Files the pod sees, by path: the ConfigMap's Corefile at its ``Corefile.base`` mount."""

    corefile_base: str
    """The ConfigMap's ``Corefile``, placeholders of node-cache unfilled."""

    local_ips: tuple[str, ...]
    """``-localip``, split: the addresses node-cache binds and intercepts."""

    rendered_corefile_path: str
    """``-conf``: where node-cache writes the rendered Corefile and CoreDNS loads it from."""

    upstream_service: str
    """``-upstreamsvc``: the Service whose ClusterIP ``__PILLAR__CLUSTER__DNS__`` becomes."""

    def without_dummy_interface(self) -> tuple[str, ...]:
        """:attr:`argv` plus ``-setupinterface=false``, for kernels without dummy interfaces.

        The addresses must then already be on the node (the test bed puts them on ``lo``);
        node-cache still installs its iptables rules.
        """
        return (*self.argv, "-setupinterface=false")


def node_cache_invocation(
    *, kube_dns_cluster_ip: str | None, kube_dns_upstream_ip: str, binary: str = NODE_CACHE_ENTRYPOINT
) -> NodeCacheInvocation:
    """node-cache's command line, environment and Corefile, from the synth with ``kube_dns_cluster_ip``.

    ``None`` reads the preview synth, ``__KUBE_DNS_CLUSTER_IP__`` and all.

    ``kube_dns_upstream_ip`` is the ClusterIP the API server gave kube-dns-upstream: kubelet
    passes it as ``KUBE_DNS_UPSTREAM_SERVICE_HOST``.
    """
    objects = synthesized_objects(kube_dns_cluster_ip)
    daemon_set = _one(objects, "DaemonSet")
    pod = daemon_set["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    args = [str(arg) for arg in container["args"]]
    upstream_name = _flag(args, "-upstreamsvc")
    upstream = _one(objects, "Service", upstream_name)
    env = {f"{_service_env(upstream_name)}_SERVICE_HOST": kube_dns_upstream_ip}
    ports = upstream["spec"]["ports"]
    env[f"{_service_env(upstream_name)}_SERVICE_PORT"] = str(ports[0]["port"])
    for port in ports:
        env[f"{_service_env(upstream_name)}_SERVICE_PORT_{_service_env(port['name'])}"] = str(port["port"])

    config_map = _one(objects, "ConfigMap")
    volume = next(v for v in pod["volumes"] if v.get("configMap", {}).get("name") == config_map["metadata"]["name"])
    mount = next(m for m in container["volumeMounts"] if m["name"] == volume["name"])
    files = {
        str(PurePosixPath(mount["mountPath"]) / item["path"]): config_map["data"][item["key"]]
        for item in volume["configMap"]["items"]
    }
    corefile_base = config_map["data"]["Corefile"]
    return NodeCacheInvocation(
        argv=(binary, *args),
        env=env,
        files=files,
        corefile_base=corefile_base,
        local_ips=tuple(_flag(args, "-localip").split(",")),
        rendered_corefile_path=_flag(args, "-conf"),
        upstream_service=upstream_name,
    )


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


def upstream_ports(objects: list[dict[str, Any]]) -> tuple[UpstreamPort, ...]:
    """The synthesized kube-dns-upstream Service's ports, for kube-proxy's rules."""
    args = _one(objects, "DaemonSet")["spec"]["template"]["spec"]["containers"][0]["args"]
    service = _one(objects, "Service", _flag([str(a) for a in args], "-upstreamsvc"))
    return tuple(
        UpstreamPort(
            name=port["name"],
            protocol=cast(Literal["udp", "tcp"], port.get("protocol", "TCP").lower()),
            port=int(port["port"]),
            target_port=int(port.get("targetPort", port["port"])),
        )
        for port in service["spec"]["ports"]
    )


def runtime_corefile(*, kube_dns_cluster_ip: str, kube_dns_upstream_ip: str) -> str:
    """The synthesized Corefile as node-cache would load it on a node with these ClusterIPs."""
    invocation = node_cache_invocation(
        kube_dns_cluster_ip=kube_dns_cluster_ip, kube_dns_upstream_ip=kube_dns_upstream_ip
    )
    return render_runtime_corefile(
        invocation.corefile_base,
        # node-cache reads the -upstreamsvc ClusterIP from the variable kubelet injects.
        cluster_dns_ip=invocation.env[f"{_service_env(invocation.upstream_service)}_SERVICE_HOST"],
        local_ips=invocation.local_ips,
    )
