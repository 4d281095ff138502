"""The cdk8s app: configure NodeLocal DNSCache here. ``cdk8s synth`` and ``python deploy.py`` both run this file.

Every prop defaults to the spec's value (the README's Props table lists them); give
``NodeLocalDNSProps`` yours. ``deploy.py`` runs this app with ``$KUBE_DNS_CLUSTER_IP`` set
to the live kube-dns ClusterIP, so what is configured here is what reaches the cluster.
"""

from constructs_nld import NodeLocalDNSProps
from constructs_nld.app import main

raise SystemExit(main(NodeLocalDNSProps()))
