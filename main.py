"""Synthesize NodeLocal DNSCache into dist/ (``cdk8s synth`` runs this; set KUBE_DNS_CLUSTER_IP to deploy)."""

from constructs_nld.app import main

raise SystemExit(main())
