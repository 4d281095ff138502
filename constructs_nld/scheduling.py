"""Where the node-cache pods may run: node affinity as typed values, validated as the API server does.

A DaemonSet's pods go to every node its template's node selector and node affinity allow
(the DaemonSet controller reads them, then pins each pod to its node); the required terms are
ORed, a term's requirements ANDed. Pod (anti-)affinity is left out: a DaemonSet runs one pod
per node by construction. Pure code: the DaemonSet construct renders these.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from constructs_nld.props import check_label_value, check_qualified_name, check_types

__all__ = ["NodeAffinity", "NodeSelectorRequirement", "NodeSelectorTerm", "PreferredTerm"]

_INT64 = re.compile(r"-?[0-9]+")
"""What the API server's ``strconv.ParseInt`` reads for Gt and Lt (and then within int64)."""

Operator = Literal["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]


@dataclass(frozen=True, kw_only=True)
class NodeSelectorRequirement:
    """One requirement on a node label: ``key`` with ``operator`` (and ``values``)."""

    key: str
    """The node label's key, e.g. ``node-fleet``."""

    operator: Operator
    """``In``/``NotIn`` a list of values, ``Exists``/``DoesNotExist``, or ``Gt``/``Lt`` a number."""

    values: tuple[str, ...] = ()
    """The values: some for In and NotIn, none for Exists and DoesNotExist, one integer for Gt and Lt.

    Default: - none.
    """

    def __post_init__(self) -> None:
        """Validate as the API server validates a node selector requirement."""
        check_types(self, "affinity.")
        check_qualified_name("affinity.key", self.key)
        if self.operator in ("In", "NotIn"):
            if not self.values:
                raise ValueError(f"affinity.values: operator {self.operator} needs at least one value for {self.key!r}")
            for value in self.values:
                check_label_value("affinity.values", self.key, value)
        elif self.operator in ("Exists", "DoesNotExist"):
            if self.values:
                raise ValueError(f"affinity.values: operator {self.operator} takes no values, got {self.values!r}")
        elif self.operator in ("Gt", "Lt"):
            if (
                len(self.values) != 1
                or not _INT64.fullmatch(self.values[0])
                or not -(2**63) <= int(self.values[0]) < 2**63
            ):
                raise ValueError(f"affinity.values: operator {self.operator} takes one integer, got {self.values!r}")
            if self.values[0].startswith("-"):
                raise ValueError(
                    f"affinity.values: operator {self.operator} takes an integer of 0 or more (the API server also "
                    f"reads it as a label value, which starts with a digit), got {self.values!r}"
                )
        else:
            raise ValueError(
                f"affinity.operator: must be In, NotIn, Exists, DoesNotExist, Gt or Lt, got {self.operator!r}"
            )


@dataclass(frozen=True, kw_only=True)
class NodeSelectorTerm:
    """Requirements a node must all meet (ANDed)."""

    match_expressions: tuple[NodeSelectorRequirement, ...]
    """The requirements; at least one."""

    def __post_init__(self) -> None:
        """A term without requirements would match no node."""
        check_types(self, "affinity.")
        if not self.match_expressions:
            raise ValueError("affinity.match_expressions: a term needs at least one requirement, got none")


@dataclass(frozen=True, kw_only=True)
class PreferredTerm:
    """A term the scheduler prefers, with its weight."""

    weight: int
    """1-100."""

    term: NodeSelectorTerm
    """What a preferred node meets."""

    def __post_init__(self) -> None:
        """The weight is in the API server's range."""
        check_types(self, "affinity.")
        if isinstance(self.weight, bool) or not 1 <= self.weight <= 100:
            raise ValueError(f"affinity.weight: must be 1-100, got {self.weight!r}")


@dataclass(frozen=True, kw_only=True)
class NodeAffinity:
    """Node affinity of the node-cache pods.

    Replaces: deliveryhero ``affinity`` (its node affinity).
    """

    required: tuple[NodeSelectorTerm, ...] = ()
    """Nodes must meet one of these terms (ORed). Default: - any node the tolerations allow."""

    preferred: tuple[PreferredTerm, ...] = ()
    """Terms the scheduler prefers. Default: - none."""

    def __post_init__(self) -> None:
        """An affinity says something."""
        check_types(self, "affinity.")
        if not self.required and not self.preferred:
            raise ValueError("affinity: needs a required or a preferred term, got neither (leave it None)")
