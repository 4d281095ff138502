"""One writer per cluster: the Lease a deploy holds from its first write to its last.

Two deploys of one cluster at once (two CI pipelines, two versions of the app) would
interleave their writes: one's final narrowing of the ApplySet parent drops a kind the other
just added, whose members are then never pruned. So a deploy that has something to write
takes the Lease :data:`~constructs_nld.defaults.DEPLOY_LEASE_NAME` in the component's
namespace first. A deploy that finds it held by another says so on one line, naming the
holder, and waits for it (up to ``--lease-timeout``, then exit 6 with nothing applied); once
it holds the Lease it reads the cluster again, since the other run changed it. A no-op deploy
reads only and takes no Lease.

The Lease is read, then taken by server-side apply under a field manager of this run's own:
created without force when absent (while another run's manager owns ``holderIdentity``, the
API server refuses ours with a conflict), taken on the resourceVersion read when free, so two
runs that both find the Lease free (or absent) cannot both take it. A holder that stopped
renewing (killed) has its Lease lapse after
:data:`~constructs_nld.defaults.DEPLOY_LEASE_SECONDS` by the API server's clock; it is then
taken over the same way, so only one run takes it over. So is at once the Lease
of a run on this machine whose process is gone (a deploy killed and rerun where it ran), or
that ended in this process without giving it up (the API server unreachable then): the holder
names its host and process. Releasing it is the holder's apply of nothing: the API
server drops the fields only that manager owned. A release that cannot reach the API server
leaves the Lease to lapse.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Final

from kubernetes.client.exceptions import ApiException

from constructs_nld import defaults
from constructs_nld.deploy import stop
from constructs_nld.deploy.errors import DeployError, WaitTimeoutError
from constructs_nld.deploy.kube import KubeClient, Manifest, ObjectRef
from constructs_nld.deploy.wait import Poll, wait_for

__all__ = ["DeployLease"]

_MANAGER_PREFIX: Final = "nld-deploy-lease-"
_RENEWALS: Final = 3
"""Renewals per Lease duration."""


_HELD: set[str] = set()
"""The holders of this process that hold their Lease (a run that could not give its Lease up is no longer one)."""


def _gone(holder: str) -> bool:
    """Whether ``holder`` (``host/pid/token``) is a run on this machine that has ended: its process, or its hold."""
    host, _, rest = holder.partition("/")
    pid = rest.partition("/")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return False
    if int(pid) == os.getpid():
        return holder not in _HELD
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def _micro_time(epoch: float) -> str:
    """A Lease's MicroTime: ``2026-12-03T18:30:00.000000Z``."""
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _epoch(text: Any) -> float | None:
    """A MicroTime as epoch seconds, or None when it is absent or not one."""
    if not isinstance(text, str):
        return None
    try:
        return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC).timestamp()
    except ValueError:
        return None


class DeployLease:
    """The deploy Lease of one cluster, as this run takes, renews and releases it."""

    def __init__(self, client: KubeClient, namespace: str, *, seconds: int = defaults.DEPLOY_LEASE_SECONDS) -> None:
        """Name this run's hold: its host, its process and a random part (no two runs share it)."""
        self.client = client
        self.ref = ObjectRef("coordination.k8s.io/v1", "Lease", namespace, defaults.DEPLOY_LEASE_NAME)
        self.seconds = seconds
        self.holder = f"{socket.gethostname()}/{os.getpid()}/{secrets.token_hex(6)}"
        self.manager = f"{_MANAGER_PREFIX}{self.holder.rsplit('/', 1)[1]}"
        self._stop = threading.Event()
        self._renewer: threading.Thread | None = None
        self._acquired = 0.0

    def _manifest(self, acquired: float | None) -> Manifest:
        metadata = {"name": self.ref.name, "namespace": self.ref.namespace}
        if acquired is None:
            return {"apiVersion": self.ref.api_version, "kind": "Lease", "metadata": metadata}
        now = _micro_time(self.client.server_time())
        spec = {
            "holderIdentity": self.holder,
            "leaseDurationSeconds": self.seconds,
            "acquireTime": _micro_time(acquired),
            "renewTime": now,
        }
        return {"apiVersion": self.ref.api_version, "kind": "Lease", "metadata": metadata, "spec": spec}

    def _take(self) -> Manifest | None:
        """Take the Lease if it is free (or lapsed); None when taken, else the Lease as another run holds it.

        Absent, it is created without force: of two runs creating it at once, the API server
        gives the second a conflict. Present, it is taken on the resourceVersion read: of two
        runs taking it over at once, the second gets a conflict.
        """
        acquired = self.client.server_time()
        live = self.client.get(self.ref)
        if live is not None and not self._lapsed(live):
            return live
        try:
            if live is None:
                self.client.apply(self._manifest(acquired), field_manager=self.manager, force=False)
            else:
                self.client.apply(
                    self._manifest(acquired),
                    field_manager=self.manager,
                    resource_version=live["metadata"]["resourceVersion"],
                )
        except ApiException as error:
            if error.status != 409:
                raise
            return self.client.get(self.ref) or {}
        self._acquired = acquired
        _HELD.add(self.holder)
        self._renewer = threading.Thread(target=self._renew, name="deploy-lease", daemon=True)
        self._renewer.start()
        return None

    def acquire(self, *, timeout: float, interval: float, out: Callable[[str], None]) -> bool:
        """Take the Lease, waiting up to ``timeout`` seconds while another run holds it; whether this run waited.

        Raises :class:`~constructs_nld.deploy.errors.WaitTimeoutError` naming the holder when
        it still holds the Lease after ``timeout``.
        """
        held = self._take()
        if held is None:
            return False
        out(f"[5/7] {self._held_by(held)}: waiting for it to finish (up to {timeout:g}s, --lease-timeout)")
        holder: list[Manifest] = [held]

        def poll(_: float) -> Poll:
            found = self._take()
            if found is None:
                return Poll(done=True)
            changed = found != holder[0]
            holder[0] = found
            return Poll(changed=changed)

        def timed_out(elapsed: float) -> Exception:
            return WaitTimeoutError(
                f"{self._held_by(holder[0])} after {elapsed:.0f}s (--lease-timeout): another deploy of this cluster "
                "is still writing, and this one applied nothing; rerun when it has finished (a killed run's Lease "
                f"lapses {self.seconds} s after its last renewal)"
            )

        wait_for(poll, interval=interval, timeout=timeout, timed_out=timed_out)
        return True

    def _lapsed(self, live: Manifest) -> bool:
        """Whether the holder stopped renewing more than its duration ago (or holds nothing)."""
        spec = live.get("spec") or {}
        renewed = _epoch(spec.get("renewTime"))
        duration = spec.get("leaseDurationSeconds")
        holder = spec.get("holderIdentity")
        if not holder or renewed is None or not isinstance(duration, int) or _gone(str(holder)):
            return True
        return self.client.server_time() > renewed + duration

    def _held_by(self, live: Manifest | None) -> str:
        """``'host/pid/…' holds lease/kube-system/node-local-dns-deploy since …``: who holds it, one line."""
        spec = (live or {}).get("spec") or {}
        holder = " ".join(str(spec.get("holderIdentity") or "another run").split())[:128]
        since = " ".join(str(spec.get("acquireTime") or "").split())[:32]
        return f"{holder!r} holds {self.ref}{' since ' + since if since else ''}"

    def _renew(self) -> None:
        stop.leave_signals_to_main()
        while not self._stop.wait(self.seconds / _RENEWALS):
            try:
                self.client.apply(self._manifest(self._acquired), field_manager=self.manager, force=False)
            except ApiException:
                continue

    def release(self) -> None:
        """Stop renewing and give the Lease up: this run's fields dropped, the Lease object left for the next.

        Best effort: when the API server cannot be reached (the error that ends the run, say),
        the Lease lapses on its own.
        """
        self._stop.set()
        if self._renewer is None:
            return
        self._renewer.join()
        self._renewer = None
        _HELD.discard(self.holder)
        with contextlib.suppress(ApiException, DeployError), stop.finishing():
            self.client.apply(self._manifest(None), field_manager=self.manager, force=False)
