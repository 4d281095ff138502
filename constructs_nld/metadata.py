"""The ``metadata`` every construct writes: the props' identity plus the role labels of :mod:`constructs_nld.roles`."""

from __future__ import annotations

from constructs_nld.props import ObjectProps
from constructs_nld.roles import Role, role_labels
from constructs_nld.runtime import cdk8s, k8s

__all__ = ["api_object_metadata", "object_meta"]


def _labels(props: ObjectProps, role: Role) -> dict[str, str]:
    return {**props.labels, **role_labels(role)}


def object_meta(props: ObjectProps, role: Role) -> k8s.ObjectMeta:
    """The typed ``metadata`` of a built-in kind: name, namespace, the props' labels and the role's."""
    return k8s.ObjectMeta(name=props.name, namespace=props.namespace, labels=_labels(props, role))


def api_object_metadata(props: ObjectProps, role: Role) -> cdk8s.ApiObjectMetadata:
    """The same, for a kind imported from a CRD (PodMonitor, PrometheusRule)."""
    return cdk8s.ApiObjectMetadata(name=props.name, namespace=props.namespace, labels=_labels(props, role))
