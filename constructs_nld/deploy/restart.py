"""The spec's step 7: restart the node-cache pods when, and only when, the cluster shows they lack an address.

kubelet gives a pod the variables of the Services that exist when the pod is created
(``KUBE_DNS_UPSTREAM_SERVICE_HOST``, which node-cache forwards to; in portable output also
``KUBE_DNS_SERVICE_HOST``, which it intercepts). A pod created before such a Service lacks
it. So the decision is read from the cluster, exactly, whatever run made the objects or
was interrupted:

- a restart records on the DaemonSet (not its pod template) the uid of each Service it was
  made for; a recreated Service has a new uid, so a record that differs means the pods
  lack the new address, and one that matches means a restart is rolling or done;
- with no record (a first deploy, an install by the spec's ``deploy.sh`` or by a
  client-side ``kubectl apply`` of our synth), a node-cache pod created before the Service
  is the fact that decides. Pods the DaemonSet controller makes after ``deploy`` created the
  Service have the variable: a fresh install needs no restart.

The restart itself is ``kubectl rollout restart``'s (``kubectl.kubernetes.io/restartedAt``),
confirmed on a fresh read and conditional on that read's ``resourceVersion``, so of two
deploys at once only one restarts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Final

from kubernetes.client.exceptions import ApiException

from constructs_nld.defaults import RESTART_ANNOTATION
from constructs_nld.deploy.errors import WaitTimeoutError
from constructs_nld.deploy.kube import RESTART_FIELD_MANAGER, KubeClient, Manifest, ObjectRef, RereadError
from constructs_nld.deploy.manifest import created_at
from constructs_nld.deploy.wait import Poll, wait_for

__all__ = [
    "RESTARTED_FOR_ANNOTATION",
    "RESTARTED_FOR_KUBE_DNS_ANNOTATION",
    "RESTART_ANNOTATION",
    "Restart",
    "restart_reason",
]

RESTARTED_FOR_ANNOTATION: Final = "nodelocaldns.osdc/restarted-for-upstream-uid"
"""On the DaemonSet: the uid of the kube-dns-upstream Service its pods were last restarted for."""

RESTARTED_FOR_KUBE_DNS_ANNOTATION: Final = "nodelocaldns.osdc/restarted-for-kube-dns-uid"
"""On a portable install's DaemonSet: the uid of the kube-dns Service its pods were last restarted for."""

_CONFLICT_RETRIES: Final = 3


def _older(pods: Sequence[Mapping[str, Any]], service: Mapping[str, Any]) -> list[str]:
    created = created_at(service)
    return sorted(
        str(p["metadata"]["name"])
        for p in pods
        if not p["metadata"].get("deletionTimestamp") and created_at(p) < created
    )


def _reason(
    annotations: Mapping[str, str], annotation: str, service: Mapping[str, Any], pods: Sequence[Mapping[str, Any]]
) -> str | None:
    name = service["metadata"]["name"]
    recorded = annotations.get(annotation)
    if recorded is not None:
        if recorded == service["metadata"].get("uid"):
            return None
        return f"{name} was recreated since the last restart: its pods lack the new address"
    early = _older(pods, service)
    if not early:
        return None
    listed = ", ".join(early[:3]) + (f" and {len(early) - 3} more" if len(early) > 3 else "")
    return f"{len(early)} pod(s) predate {name} (created {service['metadata']['creationTimestamp']}): {listed}"


def restart_reason(
    daemon_set: Mapping[str, Any] | None,
    upstream: Mapping[str, Any],
    pods: Sequence[Mapping[str, Any]],
    *,
    kube_dns: Mapping[str, Any] | None = None,
) -> str | None:
    """Why the DaemonSet's pods must restart, or None when every one of them has the addresses it needs.

    ``pods`` are the DaemonSet's (their metadata is enough); ``kube_dns`` is given for a
    portable install, whose pods take kube-dns's address from kubelet too. A DaemonSet that
    does not exist yet needs no restart: its pods will be created after the Services.
    """
    if daemon_set is None:
        return None
    annotations = daemon_set["metadata"].get("annotations") or {}
    reason = _reason(annotations, RESTARTED_FOR_ANNOTATION, upstream, pods)
    if reason is None and kube_dns is not None:
        reason = _reason(annotations, RESTARTED_FOR_KUBE_DNS_ANNOTATION, kube_dns, pods)
    return reason


class Restart:
    """Step 7 against a cluster: decide from its facts, confirm on a fresh read, patch once."""

    def __init__(
        self,
        client: KubeClient,
        ref: ObjectRef,
        pod_selector: str,
        *,
        timeout: float,
        dry_run: bool,
        out: Callable[[str], None],
    ) -> None:
        """Restart the DaemonSet ``ref``, whose pods ``pod_selector`` selects; one line to ``out``."""
        self.client = client
        self.ref = ref
        self.pod_selector = pod_selector
        self.timeout = timeout
        self.dry_run = dry_run
        self.out = out
        self.suffix = " (dry run)" if dry_run else ""

    def pods(self) -> list[Manifest]:
        """The DaemonSet's pods, metadata only: their creation times decide."""
        return self.client.list_metadata("v1", "Pod", self.ref.namespace, label_selector=self.pod_selector)

    def run(self, known: Manifest | None, upstream: Manifest, kube_dns: Manifest | None, *, preview: bool) -> bool:
        """Restart when :func:`restart_reason` says so (at most once); True when a restart was made.

        ``preview`` (a diff) only says what would happen; a dry run sends the patch as one. A
        conflict that left the generation alone (the controller's status writes), or a patch
        throttled or lost, is decided again at once on a fresh read until ``timeout``
        (:func:`~constructs_nld.deploy.wait.wait_for`); three spec changes give up.
        """
        services = f"{ObjectRef.of(upstream)}" + (" and kube-dns" if kube_dns is not None else "")
        reason = restart_reason(known, upstream, self.pods() if known is not None else [], kube_dns=kube_dns)
        if reason is None:
            self.out(f"[7/7] rollout restart: not needed (the pods of {self.ref} start after {services})")
            return False
        if preview:
            self.out(f"[7/7] rollout restart: would restart {self.ref} ({reason})")
            return False
        spec_changes, generation = 0, None
        made: list[bool] = []

        def decide(_: float) -> Poll:
            nonlocal spec_changes, generation
            current = self.client.get(self.ref)
            reason = restart_reason(current, upstream, self.pods(), kube_dns=kube_dns)
            if current is None or reason is None:
                self.out(f"[7/7] rollout restart: not needed (another deploy restarted {self.ref} for this Service)")
                made.append(False)
                return Poll(done=True)
            if generation is not None and current["metadata"].get("generation") != generation:
                spec_changes += 1
                if spec_changes >= _CONFLICT_RETRIES:
                    raise changing()
            generation = current["metadata"].get("generation")
            stamp = self._patch(current, upstream, kube_dns)
            if stamp is None:
                return Poll(changed=True)  # decided again at once, on a fresh read
            self.out(f"[7/7] rollout restart: {self.ref} restarted at {stamp} ({reason}){self.suffix}")
            if (current.get("spec", {}).get("updateStrategy") or {}).get("type") == "OnDelete":
                self.out(
                    f"[7/7] OnDelete: the pods take the restart only when deleted; until then they forward to "
                    f"the old address. Delete them node by node: kubectl delete pod -n {self.ref.namespace} "
                    f"-l {self.pod_selector} --field-selector spec.nodeName=NODE"
                )
            made.append(not self.dry_run)
            return Poll(done=True)

        def changing() -> WaitTimeoutError:
            return WaitTimeoutError(
                f"{self.ref} kept changing under the restart ({spec_changes} spec change(s) within "
                f"{self.timeout:g}s): rerun"
            )

        wait_for(decide, interval=0.0, timeout=self.timeout, timed_out=lambda _: changing())
        return made[0]

    def _patch(self, current: Manifest, upstream: Manifest, kube_dns: Manifest | None) -> str | None:
        """The conditional restart patch; its time, or None when the DaemonSet changed since ``current`` was read."""
        recorded = {RESTARTED_FOR_ANNOTATION: upstream["metadata"].get("uid")}
        if kube_dns is not None:
            recorded[RESTARTED_FOR_KUBE_DNS_ANNOTATION] = kube_dns["metadata"].get("uid")
        stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        patch = {
            "metadata": {"resourceVersion": current["metadata"]["resourceVersion"], "annotations": recorded},
            "spec": {"template": {"metadata": {"annotations": {RESTART_ANNOTATION: stamp}}}},
        }
        try:
            self.client.merge_patch(self.ref, patch, field_manager=RESTART_FIELD_MANAGER, dry_run=self.dry_run)
        except RereadError:
            # Throttled, or lost on the way: it may have been made. The next read decides (a made
            # restart recorded this Service's uid: "not needed").
            return None
        except ApiException as error:
            if error.status == 409:
                # Changed since the read: by another deploy (decide again), or — most often on a
                # live cluster — by the DaemonSet controller writing its status.
                return None
            raise
        return stamp
