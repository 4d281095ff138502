"""The fallthrough interception mode with least privilege.

The keeper container holds rules that divert the pods' lookups only while node-cache listens,
so a killed or crash-looping node-cache falls through to kube-proxy instead of black-holing
the node's DNS; neither container is privileged (node-cache: NET_ADMIN, NET_BIND_SERVICE;
the keeper: NET_ADMIN, NET_RAW; both under the runtime's default seccomp filter).
"""

from constructs_nld import NodeLocalDNSProps
from constructs_nld.app import main

raise SystemExit(main(NodeLocalDNSProps(interception="fallthrough", privileged=False)))
