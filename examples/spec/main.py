"""The spec's NodeLocal DNSCache as is: every prop at its default.

``cdk8s synth`` writes the preview (the kube-dns ClusterIP a placeholder); ``nld-deploy``
runs this file with ``$KUBE_DNS_CLUSTER_IP`` set to the live address and applies the charts.
"""

from constructs_nld import NodeLocalDNSProps
from constructs_nld.app import main

raise SystemExit(main(NodeLocalDNSProps()))
