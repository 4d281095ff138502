"""NodeLocal DNSCache composed into a platform team's own app: their namespace, their taint.

The team's chart creates the ``observability`` namespace where their Prometheus looks for
monitoring objects; the NodeLocal DNS monitoring chart goes there and depends on it, so
``nld-deploy`` applies the namespace first. The DaemonSet tolerates the team's dedicated
nodes (``dedicated=ci:NoSchedule``) besides the spec's tolerations.
"""

import os

from constructs_nld import NodeLocalDNS, NodeLocalDNSProps, Toleration, default_tolerations, props_from_environment

# cdk8s and cdk8s-plus as the library loads them, after its one-line check of the Node.js jsii runs.
from constructs_nld.runtime import cdk8s, k8s

app = cdk8s.App()
team = cdk8s.Chart(app, "team")
k8s.KubeNamespace(team, "observability", metadata=k8s.ObjectMeta(name="observability"))

props = NodeLocalDNSProps(
    tolerations=(
        *default_tolerations(),
        Toleration(key="dedicated", operator="Equal", value="ci", effect="NoSchedule"),
    ),
    labels={"team": "platform"},
    monitoring_namespace="observability",
    monitoring_labels={"release": "kube-prometheus"},
)
nld = NodeLocalDNS(app, "nodelocaldns", props_from_environment(os.environ, props))
nld.monitoring_chart.add_dependency(team)
app.synth()
