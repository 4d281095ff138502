"""One command's hold on one cluster: its target, its client, its kube-dns, and the app synthesized once for it.

The runner opens a :class:`Session` per target before the command runs; every step of the
command then reads the same charts (one synth, so one kube-dns ClusterIP) and writes its
lines to the same place. What the session reads first depends on the command
(:data:`ClusterRead`):

``deployable``
    every Service of kube-system (the deploy's precondition reads kube-dns-upstream from
    the same list); kube-dns must exist with an IPv6 ClusterIP, else
    :class:`~constructs_nld.deploy.errors.ClusterIPError` before anything is synthesized;
    the app is synthesized with that address.
``installed``
    kube-dns alone; the app is synthesized with its address when it is a usable one, else
    as a preview: which objects are the component's does not depend on it.
``offline``
    no cluster at all (``soak`` reads Prometheus): the app is synthesized as a preview.
``recorded``
    the Services of kube-system, as ``deployable`` reads them, but the app is not run:
    ``history`` and ``rollback`` work on the revisions the cluster keeps
    (:mod:`constructs_nld.deploy.history`), so a rollback works while the app does not.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

from constructs_nld import defaults
from constructs_nld.deploy.component import Component, locate
from constructs_nld.deploy.errors import ClusterIPError
from constructs_nld.deploy.kube import KubeClient, Manifest, ObjectRef
from constructs_nld.deploy.manifest import KUBE_DNS, usable_cluster_ip
from constructs_nld.deploy.rollout import Progress
from constructs_nld.deploy.source import AppChart, AppSource
from constructs_nld.deploy.targets import Target
from constructs_nld.props import check_ipv6_address

__all__ = ["ClusterRead", "Session", "deployable_ip", "open_session"]

ClusterRead = Literal["deployable", "installed", "offline", "recorded"]
"""What a command reads of the cluster before the app is synthesized for it."""


@dataclass(frozen=True)
class Session:
    """A target, connected, with the app's charts synthesized for it; what every step of a command works on."""

    target: Target
    charts: tuple[AppChart, ...]
    """The app's charts, in apply order, synthesized once for this cluster."""
    client: KubeClient | None = None
    """None for a command that reads no API server (``soak``)."""
    kube_dns: Manifest | None = None
    """The live kube-dns Service, as read before the synth."""
    cluster_ip: str | None = None
    """The address the app was synthesized with (None: a preview)."""
    services: Mapping[ObjectRef, Manifest] = field(default_factory=dict)
    """The Services of kube-system read with kube-dns (``deployable`` only)."""
    out: Callable[[str], None] = print
    """Where the command's lines go (the runner prefixes them with the cluster's name in a fleet)."""
    source: AppSource | None = None
    """What the charts were synthesized from, for the release history's record of the app (None: not run)."""
    progress: Progress | None = None
    """How a rollout the command follows is shown, when the runner decides it (a fleet's display).

    Default: - as the command's ``progress`` option says, through ``out``.
    """

    @property
    def kube(self) -> KubeClient:
        """The client; a command that talks to the API server is only ever given a session that has one."""
        if self.client is None:
            raise TypeError(f"cluster {self.target.name!r}: this command was opened without an API client")
        return self.client

    @cached_property
    def component(self) -> Component:
        """NodeLocal DNS as the app defines it (found by its labels; refused when incomplete)."""
        return locate(self.charts)


def deployable_ip(kube_dns: Manifest | None) -> str:
    """kube-dns's ClusterIP, refused (exit 4) unless it is a usable IPv6 address."""
    if kube_dns is None:
        raise ClusterIPError(f"{KUBE_DNS} not found: the cluster DNS Service must exist before NodeLocal DNSCache")
    cluster_ip = kube_dns.get("spec", {}).get("clusterIP")
    if not cluster_ip or cluster_ip == "None":
        raise ClusterIPError(f"{KUBE_DNS} has no ClusterIP (got {cluster_ip!r}): node-cache needs one to intercept")
    try:
        check_ipv6_address("kube-dns ClusterIP", cluster_ip)
    except ValueError as error:
        raise ClusterIPError(str(error)) from None
    return str(cluster_ip)


def open_session(
    client: KubeClient | None,
    source: AppSource | None,
    *,
    read: ClusterRead,
    target: Target | None = None,
    out: Callable[[str], None] = print,
) -> Session:
    """Read what ``read`` says from the cluster behind ``client``, then synthesize the app of ``source`` once.

    ``target`` names the cluster in the session (default: a nameless one, for a program that
    holds its own client).
    """
    target = target or Target("", None)
    if read == "recorded" or source is None:
        if client is None:
            return Session(target, (), out=out)
        services = {ObjectRef.of(s): s for s in client.list("v1", "Service", defaults.NAMESPACE)}
        kube_dns = services.get(KUBE_DNS)
        return Session(target, (), client, kube_dns, usable_cluster_ip(kube_dns), services, out)
    if read == "offline" or client is None:
        return Session(target, tuple(source(None)), out=out, source=source)
    if read == "installed":
        kube_dns = client.get(KUBE_DNS)
        cluster_ip = usable_cluster_ip(kube_dns)
        return Session(target, tuple(source(cluster_ip)), client, kube_dns, cluster_ip, out=out, source=source)
    # The precondition's Services live beside kube-dns: one list serves both.
    services = {ObjectRef.of(s): s for s in client.list("v1", "Service", defaults.NAMESPACE)}
    kube_dns = services.get(KUBE_DNS)
    cluster_ip = deployable_ip(kube_dns)
    return Session(target, tuple(source(cluster_ip)), client, kube_dns, cluster_ip, services, out, source)
