"""The ``node-local-dns`` ServiceAccount: an identity with no token and no RBAC.

node-cache never talks to the API server (it learns the upstream address from an env
var kubelet injects), so the privileged container gets no token it could leak. An init
container that runs ``kubectl`` would silently fail until token mounting is re-enabled.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from constructs_nld import defaults
from constructs_nld.metadata import object_meta
from constructs_nld.props import ObjectProps, props_or_defaults
from constructs_nld.roles import Role
from constructs_nld.runtime import Construct, k8s

__all__ = ["ServiceAccount", "ServiceAccountProps"]


@dataclass(frozen=True, kw_only=True)
class ServiceAccountProps(ObjectProps):
    """Props of :class:`ServiceAccount`."""

    name: str = defaults.SERVICE_ACCOUNT_NAME
    """ServiceAccount name, referenced by the DaemonSet. Default: node-local-dns."""

    namespace: str = defaults.NAMESPACE
    """Namespace of the node-cache pods. Default: kube-system."""

    labels: Mapping[str, str] = field(
        default_factory=lambda: {**defaults.NODE_CACHE_APP_LABEL, **defaults.MANAGED_BY_LABEL}
    )
    """Labels. Default: ``k8s-app: node-local-dns``, ``app.kubernetes.io/managed-by: osdc-base``."""


class ServiceAccount(Construct):
    """The node-cache ServiceAccount, with ``automountServiceAccountToken: false``."""

    def __init__(self, scope: Construct, id: str, props: ServiceAccountProps | None = None) -> None:
        """Define the ServiceAccount in ``scope``."""
        super().__init__(scope, id)
        self.props = props_or_defaults(props, ServiceAccountProps)
        self.api_object = k8s.KubeServiceAccount(
            self,
            "Resource",
            metadata=object_meta(self.props, Role.SERVICE_ACCOUNT),
            automount_service_account_token=False,
        )
