"""cdk8s, cdk8s-plus and constructs, as this library loads them: the one place where jsii starts.

The first import of any jsii library starts jsii's Node.js process. Just before, the Node.js
it will run is checked (:mod:`constructs_nld.nodejs`): one jsii does not support gets one line
on stderr saying what to install. jsii's own warnings stay on; nothing is silenced. Every
construct module imports cdk8s through this module, so ``import constructs_nld`` alone
changes nothing (the deploy CLI never loads it).
"""

from __future__ import annotations

import os
import sys

from constructs_nld.nodejs import node_version, node_warning

_warning = node_warning(node_version(os.environ))
if _warning is not None:
    print(_warning, file=sys.stderr)

import cdk8s  # noqa: E402 (jsii starts here, after the check above)
from cdk8s_plus_28 import k8s  # noqa: E402
from constructs import Construct  # noqa: E402

__all__ = ["Construct", "cdk8s", "k8s"]
