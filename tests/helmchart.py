"""A running Helm release of NodeLocal DNSCache in the deliveryhero chart's shapes, made with the real helm binary.

The handover tests start from this state. The chart is written for the tests (it is not the
deliveryhero chart), with the shapes a handover meets: object names from the release's
``fullname`` (``node-local-dns``), the chart's labels, a DaemonSet that selects its pods by
``app.kubernetes.io/name`` and ``app.kubernetes.io/instance``, node-cache pointed at a
Service ``<fullname>-upstream``, a headless metrics Service ``<fullname>``, and the chart's
values for an IPv6 cluster (``config.bindIp: true``, ``localDns`` and ``dnsServer``).
helm (v4.3.2, ``tools/build-binaries.sh helm``) keeps its state under the test's directory and
talks to the test's API server only.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from constructs_nld import defaults
from tests.harness.rest import Rest

__all__ = ["CHART_SELECTOR", "HELM", "RELEASE", "UPSTREAM", "Helm", "helm_release", "write_chart"]

REPO_ROOT: Final = Path(__file__).resolve().parent.parent
HELM: Final = REPO_ROOT / ".cache" / "bin" / "helm"
RELEASE: Final = "node-local-dns"
UPSTREAM: Final = f"{RELEASE}-upstream"
CHART_SELECTOR: Final = f"app.kubernetes.io/name=node-local-dns,app.kubernetes.io/instance={RELEASE}"
"""The chart's pods, as its DaemonSet selects them."""

_CHART: Final = """\
apiVersion: v2
name: node-local-dns
version: 2.9.2
appVersion: 1.26.8
"""

_VALUES: Final = """\
image:
  repository: registry.k8s.io/dns/k8s-dns-node-cache
  tag: ""
config:
  localDns: fd00::10
  dnsServer: fd00:10:96::a
  dnsDomain: cluster.local
  healthPort: 8080
  setupInterface: true
updateStrategy:
  rollingUpdate:
    maxUnavailable: 10%
resources:
  requests:
    cpu: 25m
    memory: 128Mi
securityContext:
  capabilities:
    add: [NET_ADMIN]
"""

_HELPERS: Final = """\
{{- define "nld.fullname" -}}
{{- if contains .Chart.Name .Release.Name }}{{ .Release.Name }}{{ else }}{{ .Release.Name }}-{{ .Chart.Name }}{{ end }}
{{- end }}
{{- define "nld.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}
{{- define "nld.labels" -}}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{ include "nld.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}
"""

_SERVICE_ACCOUNT: Final = """\
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ include "nld.fullname" . }}
  namespace: kube-system
  labels:
    {{- include "nld.labels" . | nindent 4 }}
"""

_CONFIG_MAP: Final = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "nld.fullname" . }}
  namespace: kube-system
  labels:
    {{- include "nld.labels" . | nindent 4 }}
data:
  Corefile: |
    {{ .Values.config.dnsDomain }}:53 {
        errors
        cache {
                success 9984 30
                denial 9984 5
        }
        reload
        loop
        bind {{ .Values.config.localDns }} {{ .Values.config.dnsServer }}
        forward . __PILLAR__CLUSTER__DNS__ {
                force_tcp
        }
        prometheus :9253
        health :{{ .Values.config.healthPort }}
    }
    .:53 {
        errors
        cache 30
        reload
        loop
        bind {{ .Values.config.localDns }} {{ .Values.config.dnsServer }}
        forward . __PILLAR__UPSTREAM__SERVERS__
        prometheus :9253
    }
"""

_UPSTREAM: Final = """\
apiVersion: v1
kind: Service
metadata:
  name: {{ include "nld.fullname" . }}-upstream
  namespace: kube-system
  labels:
    {{- include "nld.labels" . | nindent 4 }}
spec:
  ports:
  - {name: dns, port: 53, protocol: UDP, targetPort: 53}
  - {name: dns-tcp, port: 53, protocol: TCP, targetPort: 53}
  selector:
    k8s-app: kube-dns
"""

_METRICS: Final = """\
apiVersion: v1
kind: Service
metadata:
  name: {{ include "nld.fullname" . }}
  namespace: kube-system
  labels:
    {{- include "nld.labels" . | nindent 4 }}
spec:
  clusterIP: None
  ports:
  - {name: metrics, port: 9253, targetPort: 9253}
  selector:
    {{- include "nld.selectorLabels" . | nindent 4 }}
"""

_DAEMON_SET: Final = """\
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: {{ include "nld.fullname" . }}
  namespace: kube-system
  labels:
    {{- include "nld.labels" . | nindent 4 }}
spec:
  updateStrategy:
    {{- toYaml .Values.updateStrategy | nindent 4 }}
  selector:
    matchLabels:
      {{- include "nld.selectorLabels" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "nld.labels" . | nindent 8 }}
      annotations:
        prometheus.io/port: "9253"
        prometheus.io/scrape: "true"
    spec:
      priorityClassName: system-node-critical
      serviceAccountName: {{ include "nld.fullname" . }}
      hostNetwork: true
      dnsPolicy: Default
      tolerations:
      - {key: CriticalAddonsOnly, operator: Exists}
      - {effect: NoExecute, operator: Exists}
      - {effect: NoSchedule, operator: Exists}
      containers:
      - name: node-cache
        image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"
        resources:
          {{- toYaml .Values.resources | nindent 10 }}
        args:
        - "-localip"
        - "{{ .Values.config.localDns }},{{ .Values.config.dnsServer }}"
        - "-conf"
        - "/etc/Corefile"
        - "-upstreamsvc"
        - "{{ include "nld.fullname" . }}-upstream"
        - "-skipteardown=false"
        - "-setupinterface={{ .Values.config.setupInterface }}"
        - "-setupiptables=true"
        securityContext:
          {{- toYaml .Values.securityContext | nindent 10 }}
        ports:
        - {containerPort: 53, name: dns, protocol: UDP}
        - {containerPort: 53, name: dns-tcp, protocol: TCP}
        - {containerPort: 9253, name: metrics, protocol: TCP}
        livenessProbe:
          httpGet:
            path: /health
            port: {{ .Values.config.healthPort }}
          initialDelaySeconds: 60
          timeoutSeconds: 5
        volumeMounts:
        - {mountPath: /run/xtables.lock, name: xtables-lock, readOnly: false}
        - {name: config-volume, mountPath: /etc/coredns}
        - {name: kube-dns-config, mountPath: /etc/kube-dns}
      volumes:
      - name: xtables-lock
        hostPath: {path: /run/xtables.lock, type: FileOrCreate}
      - name: kube-dns-config
        configMap:
          name: {{ include "nld.fullname" . }}
          optional: true
      - name: config-volume
        configMap:
          name: {{ include "nld.fullname" . }}
          items:
          - {key: Corefile, path: Corefile.base}
"""


def write_chart(directory: Path) -> Path:
    """The chart, written into ``directory``; its path for ``helm install``."""
    templates = directory / "templates"
    templates.mkdir(parents=True)
    (directory / "Chart.yaml").write_text(_CHART)
    (directory / "values.yaml").write_text(_VALUES)
    for name, text in {
        "_helpers.tpl": _HELPERS,
        "serviceaccount.yaml": _SERVICE_ACCOUNT,
        "configmap.yaml": _CONFIG_MAP,
        "service-upstream.yaml": _UPSTREAM,
        "service.yaml": _METRICS,
        "daemonset.yaml": _DAEMON_SET,
    }.items():
        (templates / name).write_text(text)
    return directory


class Helm:
    """The helm binary against one kubeconfig, its cache, config and data under ``home``."""

    def __init__(self, kubeconfig: Path, home: Path) -> None:
        """Plan the runs; fail naming the build command when the binary is missing."""
        if not HELM.is_file():
            raise FileNotFoundError(f"{HELM} missing: run `bash tools/build-binaries.sh helm`")
        self.kubeconfig = kubeconfig
        self.env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(home),
            "HELM_CACHE_HOME": str(home / "cache"),
            "HELM_CONFIG_HOME": str(home / "config"),
            "HELM_DATA_HOME": str(home / "data"),
            "HELM_DRIVER": "secret",
        }

    def run(self, *args: str) -> str:
        """``helm ARGS`` in the release's namespace; its standard output, or fail with its standard error."""
        result = subprocess.run(
            [str(HELM), "--kubeconfig", str(self.kubeconfig), "--namespace", defaults.NAMESPACE, *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        if result.returncode != 0:
            raise RuntimeError(f"helm {' '.join(args)} exited {result.returncode}: {result.stderr.strip()}")
        return result.stdout + result.stderr

    def install(self, chart: Path, *values: str) -> str:
        """``helm install`` of the release from ``chart`` with ``--set`` ``values``."""
        return self.run("install", RELEASE, str(chart), *(f"--set={value}" for value in values))


_LEFTOVERS: Final = (
    ("/api/v1/namespaces/kube-system/secrets", f"owner=helm,name={RELEASE}"),
    ("/apis/apps/v1/namespaces/kube-system/daemonsets", f"app.kubernetes.io/instance={RELEASE}"),
    ("/api/v1/namespaces/kube-system/services", f"app.kubernetes.io/instance={RELEASE}"),
    ("/api/v1/namespaces/kube-system/configmaps", f"app.kubernetes.io/instance={RELEASE}"),
    ("/api/v1/namespaces/kube-system/serviceaccounts", f"app.kubernetes.io/instance={RELEASE}"),
)
"""Where a release's records and the chart's objects are, by label: what a cluster reset leaves (not our labels)."""


@contextlib.contextmanager
def helm_release(helm: Helm, api: Rest, chart: Path, *values: str) -> Iterator[str]:
    """The release installed from ``chart``; its install's output.

    Afterwards, uninstalled if the test did not; then whatever is left of it (a record a test
    broke, the chart's objects) deleted through ``api``, so that the next test starts clean.
    """
    output = helm.install(chart, *values)
    try:
        yield output
    finally:
        with contextlib.suppress(RuntimeError):
            helm.run("uninstall", RELEASE)
        for collection, selector in _LEFTOVERS:
            for item in api.items(collection, labelSelector=selector):
                api.request("DELETE", f"{collection}/{item['metadata']['name']}", ok=(200, 202, 404))
