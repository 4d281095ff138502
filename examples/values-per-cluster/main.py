"""An app configured by values files alone: ``values/common.yaml``, then the cluster's own file.

The cluster is the one ``nld-deploy`` synthesizes for (``$NLD_CLUSTER``: the ``name:`` of its
``--contexts-from`` entry, else its kubeconfig context): ``values/<cluster>.yaml`` is layered
over the common file, and a cluster without a file is refused rather than given the common
props alone. A preview (``cdk8s synth``, no cluster) takes the common file. ``nld-deploy
--values``/``--set`` still apply on top.
"""

import os
import sys
from pathlib import Path

from constructs_nld import cluster_from_environment
from constructs_nld.app import main
from constructs_nld.values import props_with_values

VALUES = Path("values")  # cdk8s and nld-deploy run the app in its project directory

cluster = cluster_from_environment(os.environ)
files = [VALUES / "common.yaml"]
if cluster is not None:
    own = VALUES / f"{cluster}.yaml"
    if not own.is_file():
        known = ", ".join(sorted(path.stem for path in VALUES.glob("*.yaml") if path.stem != "common"))
        print(
            f"error: no values/{cluster}.yaml for cluster {cluster!r} (the clusters with one: {known})", file=sys.stderr
        )
        raise SystemExit(2)
    files.append(own)
try:
    props = props_with_values(None, files, [])
except ValueError as error:
    print(f"error: {error}", file=sys.stderr)
    raise SystemExit(2) from None
raise SystemExit(main(props))
