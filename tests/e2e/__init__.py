"""Data-plane tests: a node in network namespaces, real CoreDNS, kube-proxy's DNAT rules."""
