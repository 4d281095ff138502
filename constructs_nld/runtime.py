"""cdk8s, cdk8s-plus and constructs, as this library loads them: the one place where jsii starts.

The first import of any jsii library starts jsii's Node.js process, and under Node 20, which
jsii calls end-of-life, that process prints a page-wide banner at every start. Node 20 is what
this project's machines run, knowingly: the banner of that one version is silenced here, in the
environment the Node.js process inherits, just before it starts; every other jsii warning stays
on, and a value the caller set is kept. Every construct module imports cdk8s through this
module, so ``import constructs_nld`` alone changes nothing (the deploy CLI never loads it).
"""

from __future__ import annotations

import os

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

import cdk8s  # noqa: E402 (jsii starts here, with the environment above)
from cdk8s_plus_28 import k8s  # noqa: E402
from constructs import Construct  # noqa: E402

__all__ = ["Construct", "cdk8s", "k8s"]
