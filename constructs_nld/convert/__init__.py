"""Values files of other NodeLocal DNSCache deployers, converted into this library's values.

One module per deployer whose values a file holds: :mod:`constructs_nld.convert.deliveryhero`
reads the deliveryhero ``node-local-dns`` Helm chart's. Pure code: no cdk8s, no cluster.
``nld-deploy convert`` is the command in front of them.
"""

from __future__ import annotations

__all__: list[str] = []
