"""A corporate zone forwarded to its own resolvers, beside the spec's blocks.

``corp.example`` goes to the company's resolvers over TCP with its own cache TTL; every other
name keeps the spec's path (cluster names to kube-dns-upstream, the rest to the node's
resolvers).
"""

from constructs_nld import ForwardOptions, ForwardZone, NodeLocalDNSProps, ZoneCache
from constructs_nld.app import main

CORP = ForwardZone(
    names=("corp.example",),
    upstreams=("[fd10::53]:53", "[fd10::54]:53"),
    forward=ForwardOptions(protocol="force_tcp"),
    cache=ZoneCache(ttl=60),
)

raise SystemExit(main(NodeLocalDNSProps(zones=(CORP,))))
