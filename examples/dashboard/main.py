"""The spec's component with the Grafana dashboard, for a Grafana that loads dashboards from ConfigMaps.

The dashboard ConfigMap goes to the monitoring namespace, labelled for the Grafana sidecar.
"""

from constructs_nld import NodeLocalDNSProps
from constructs_nld.app import main

raise SystemExit(main(NodeLocalDNSProps(dashboard=True)))
