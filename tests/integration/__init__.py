"""Integration tests against a real etcd + kube-apiserver (tests/controlplane.py)."""
