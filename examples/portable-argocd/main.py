"""Portable output for GitOps (Argo CD, Flux): manifests that name no cluster's address.

node-cache's args read the kube-dns ClusterIP from ``$(KUBE_DNS_SERVICE_HOST)``, which kubelet
expands at each container start, so the same ``dist/`` applies to every cluster. Commit
``dist/`` and point the Argo CD Application at it.
"""

from constructs_nld import NodeLocalDNSProps
from constructs_nld.app import main

raise SystemExit(main(NodeLocalDNSProps(portable=True)))
