#!/usr/bin/env bash
# Build etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubectl, kubelet, kube-proxy,
# kwok, coredns, prometheus-operator, prometheus, kube-state-metrics and helm from source, through the Go module proxy only, into
# <cache>/bin (default <repo>/.cache/bin; override the cache root with NLD_CACHE_DIR). A binary is
# reused when its stamp file
# (<cache>/stamps/<name>) matches the version/toolchain/recipe it would be
# built from; otherwise it is rebuilt.
#
#   tools/build-binaries.sh                       # all of them
#   tools/build-binaries.sh etcd kube-apiserver   # a selection
#
# Environment:
#   NLD_CACHE_DIR       cache root (default: <repo>/.cache)
#   NLD_GOTOOLCHAIN     value for GOTOOLCHAIN (default: local; the approved
#                       newer toolchain is go1.27.3, none of the versions below
#                       needs it)
#
# Each build uses a throwaway module under <cache>/src/<name> that requires the
# upstream module, then `go build`s the upstream main package. The shared
# GOMODCACHE/GOCACHE (go env defaults) make rebuilds fast.
set -euo pipefail

# ---------------------------------------------------------------- versions ---
# etcd: newest 3.6.x patch the proxy serves. kubeadm v1.34.4 pairs kubernetes
# 1.34 with etcd 3.6.5 (cmd/kubeadm/app/constants: DefaultEtcdVersion); 3.6.16 is
# the same minor with later fixes. Its go.mod says `go 1.26.0` (toolchain line
# go1.26.10 only applies when etcd itself is the main module), so it builds
# with the local go1.26.8.
ETCD_VERSION=v3.6.16
# kubernetes: newest v1.34.x patch the proxy serves (v1.34.0/.2/.3/.4 listed);
# go.mod says `go 1.24.0`. Staging modules are used at the matching v0.34.4.
# kubectl comes from the same release: the tests install the spec's manifests with
# it exactly as the spec's deploy.sh does (client-side `kubectl apply`); so do
# kube-controller-manager and kube-scheduler, which act on what the tests apply
# (DaemonSet controller, garbage collector, scheduler) as on a real cluster.
KUBE_VERSION=v1.34.4
# kwok: simulates kubelets (nodes that report Ready, pods that go Running or fail as
# a Stage says). v0.8.0 is the newest release the proxy serves; its go.mod says
# `go 1.26.0`, so it builds with the local go1.26.8. It talks to our v1.34
# kube-apiserver through client-go v0.36, inside the two-minor skew client-go
# supports.
KWOK_VERSION=v0.8.0
# coredns: the CoreDNS that node-cache 1.26.8 embeds (k8s.io/dns 9aa70b8f97dc
# requires github.com/coredns/coredns v1.13.2; see DECISIONS.md), so the e2e
# suite loads our Corefile on the same CoreDNS. The proxy's @v/list only shows
# v1.14.3+, but it serves v1.13.2 when asked for that exact version.
COREDNS_VERSION=v1.13.2
# prometheus-operator: the release whose CRDs ../shared/crds holds (their
# operator.prometheus.io/version annotation says 0.93.0). The e2e suite runs it
# against the test kube-apiserver to turn our PodMonitor and PrometheusRule into
# the Prometheus configuration it generates; its other CRDs (Prometheus, ...) are
# read from this module's download at test time.
PROMETHEUS_OPERATOR_VERSION=v0.93.0
# prometheus: the server the e2e monitoring suite runs as the operator's StatefulSet
# would. Debian's prometheus 2.42 (which gives us promtool) is built without the
# Kubernetes service discovery that every PodMonitor relies on
# ("field kubernetes_sd_configs not found"), so the real server is built from the
# module prometheus-operator v0.93.0 itself depends on: v0.313.1 is Prometheus 3.13.1.
PROMETHEUS_VERSION=v0.313.1
# kube-state-metrics: the exporter whose DaemonSet and pod series our alerts and the soak
# read, scraped in the e2e monitoring suite. v2.20.0 is the newest the proxy serves for an
# exact version (its @v/list is refused, so `go install ...@latest` cannot work; the wrapper
# module asks for the version itself). Its go.mod says `go 1.26.0`.
KUBE_STATE_METRICS_VERSION=v2.20.0
# helm: the client a team leaving the deliveryhero chart runs today; the e2e suite installs a chart
# in that chart's shapes with it, hands the release over to our deploy and runs `helm uninstall`
# (issue 36). v4.3.2 is the newest v4 the proxy serves; its go.mod says `go 1.26.0`.
HELM_VERSION=v4.3.2

# Bump when the build recipe (flags, ldflags) changes, to invalidate stamps.
RECIPE_REV=2

ALL_BINARIES=(etcd kube-apiserver kube-controller-manager kube-scheduler kubectl kubelet kube-proxy kwok coredns prometheus-operator prometheus kube-state-metrics helm)

# ------------------------------------------------------------------ setup ---
PROG=build-binaries.sh
REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE_DIR=${NLD_CACHE_DIR:-$REPO_ROOT/.cache}
BIN_DIR=$CACHE_DIR/bin
SRC_DIR=$CACHE_DIR/src
STAMP_DIR=$CACHE_DIR/stamps
LOG_DIR=$CACHE_DIR/logs

die() { echo "$PROG: ERROR: $*" >&2; exit 1; }

usage() {
  local IFS='|'
  echo "usage: $0 [${ALL_BINARIES[*]}]..."
  echo "builds the selected binaries (default: all) into \$NLD_CACHE_DIR/bin (default <repo>/.cache/bin)"
}

SELECTED=()
for arg in "$@"; do
  case "$arg" in
    -h|--help) usage; exit 0 ;;
    etcd|kube-apiserver|kube-controller-manager|kube-scheduler|kubectl|kubelet|kube-proxy|kwok|coredns|prometheus-operator|prometheus|kube-state-metrics|helm) SELECTED+=("$arg") ;;
    *) usage >&2; die "unknown binary '$arg' (choose from: ${ALL_BINARIES[*]})" ;;
  esac
done
[[ ${#SELECTED[@]} -gt 0 ]] || SELECTED=("${ALL_BINARIES[@]}")

command -v go >/dev/null 2>&1 || die "'go' not found in PATH"

export GOTOOLCHAIN=${NLD_GOTOOLCHAIN:-local}
export GOFLAGS="-mod=mod -buildvcs=false"
export GOWORK=off
export GO111MODULE=on
export CGO_ENABLED=0

mkdir -p "$BIN_DIR" "$SRC_DIR" "$STAMP_DIR" "$LOG_DIR"

# Serialise concurrent runs on the same cache.
if command -v flock >/dev/null 2>&1; then
  exec 9>"$CACHE_DIR/.lock"
  flock -w 7200 9 || die "could not lock $CACHE_DIR/.lock"
fi

GO_VERSION=$(go env GOVERSION) || die "'go env GOVERSION' failed (GOTOOLCHAIN=$GOTOOLCHAIN)"
GO_PLATFORM="$(go env GOOS)/$(go env GOARCH)"

# ---------------------------------------------------------------- helpers ---
LOG=/dev/null

# run CMD...: log the command and its output to $LOG; on failure print the
# command, exit code and the tail of its output, and fail.
run() {
  local rc=0
  { printf '+ (cd %q &&' "$PWD"; printf ' %q' "$@"; printf ')\n'; } >>"$LOG"
  "$@" >>"$LOG" 2>&1 || rc=$?
  if [[ $rc -ne 0 ]]; then
    {
      printf '%s: ERROR: command failed (exit %s): (cd %q &&' "$PROG" "$rc" "$PWD"; printf ' %q' "$@"; printf ')\n'
      echo "---- last lines of $LOG ----"
      tail -n 25 "$LOG" | sed 's/^/    /'
    } >&2
    if grep -q 'GOTOOLCHAIN=local' "$LOG" && grep -qE 'requires go >= ?[0-9]' "$LOG"; then
      echo "$PROG: a module needs a newer Go than $GO_VERSION; the approved one is used with NLD_GOTOOLCHAIN=go1.27.3" >&2
    fi
    return "$rc"
  fi
}

# json_field FIELD < go-json: first "FIELD": "value" in `go ... -json` output.
json_field() { sed -n "s/^[[:space:]]*\"$1\": \"\(.*\)\",\{0,1\}\$/\1/p" | head -n 1; }

# mod_download MODULE@QUERY: download through the proxy (checked against the
# checksum DB); prints the `go mod download -json` record.
mod_download() {
  local out rc=0
  out=$(cd "$SRC_DIR" && go mod download -json "$1" 2>&1) || rc=$?
  printf '+ go mod download -json %s\n%s\n' "$1" "$out" >>"$LOG"
  if [[ $rc -ne 0 ]]; then
    echo "$PROG: ERROR: command failed (exit $rc): go mod download -json $1" >&2
    printf '%s\n' "$out" | grep -E '"Error"|^go:' | sed 's/^/    /' >&2 || true
    return "$rc"
  fi
  printf '%s\n' "$out"
}

# gomod_header GOMODFILE: the `go` and `godebug` directives of an upstream main
# module, so our wrapper module builds with the same language version and
# GODEBUG defaults that upstream's own build uses.
gomod_header() {
  awk '
    /^go[ \t]/ { print; next }
    /^godebug[ \t]*\(/ { inblk = 1; print; next }
    inblk { print; if ($0 ~ /^\)/) inblk = 0; next }
    /^godebug[ \t]/ { print }
  ' "$1"
}

# gomod_replaces GOMODFILE: the replace directives of an upstream main module
# that point at another module version (not at a local ./ or ../ directory), one
# `replace A => B vX` line each. Upstream builds with them in force; in our
# wrapper module the dependency's replaces would be ignored, so copy them.
gomod_replaces() {
  awk '
    function emit(spec) {
      sub(/\/\/.*/, "", spec)
      n = split(spec, f, /[ \t]+/)
      for (i = 1; i <= n; i++) if (f[i] == "=>") break
      if (i >= n) return                      # malformed / no target
      if (f[i+1] ~ /^(\.\.?\/|\/)/) return     # local directory target
      if (i + 2 > n) return                   # a module target needs a version
      print "replace " spec
    }
    /^replace[ \t]*\(/ { inblk = 1; next }
    inblk && /^\)/ { inblk = 0; next }
    inblk { line = $0; sub(/^[ \t]+/, "", line); if (line != "") emit(line); next }
    /^replace[ \t]/ { line = $0; sub(/^replace[ \t]+/, "", line); emit(line) }
  ' "$1"
}

# write_wrapper NAME HEADER REQUIRE TOOLPKG [EXTRA]: fresh wrapper module.
write_wrapper() {
  local dir=$SRC_DIR/$1 extra
  rm -rf "$dir"
  mkdir -p "$dir"
  {
    echo "// Generated by tools/build-binaries.sh; throwaway module to build $4."
    echo "module nld.local/build/$1"
    echo
    printf '%s\n' "$2"
    echo
    echo "require $3"
    echo
    extra=${5:-}
    if [[ -n ${extra//[[:space:]]/} ]]; then printf '%s\n' "$extra"; echo; fi
    [[ -z $4 ]] || echo "tool $4"
  } >"$dir/go.mod"
}

# go_build NAME PKG LDFLAGS [TIDY_FLAG]: tidy the wrapper module and build PKG into bin/NAME.
go_build() {
  local name=$1 pkg=$2 ldflags=$3
  cd "$SRC_DIR/$name"
  run go mod tidy ${4:-}
  run go build -trimpath ${BUILD_TAGS:+-tags "$BUILD_TAGS"} -ldflags "$ldflags" -o "$BIN_DIR/.$name.tmp" "$pkg"
  rm -f "$STAMP_DIR/$name"   # the old stamp no longer describes bin/$name
  mv -f "$BIN_DIR/.$name.tmp" "$BIN_DIR/$name"
}

stamp_of() { printf '%s %s %s %s recipe=%s\n' "$1" "$2" "$GO_VERSION" "$GO_PLATFORM" "$RECIPE_REV"; }

# -------------------------------------------------------------- recipes ---
build_etcd() {
  local rec gomod sha
  rec=$(mod_download "go.etcd.io/etcd/server/v3@$ETCD_VERSION")
  gomod=$(json_field GoMod <<<"$rec")
  # etcd's scripts/build_lib.sh: -X go.etcd.io/etcd/api/v3/version.GitSHA=$(git rev-parse --short HEAD).
  # The proxy gives the commit only when it recorded an Origin; else use the tag.
  sha=$(json_field Hash <<<"$rec")
  sha=${sha:0:7}
  sha=${sha:-$ETCD_VERSION}
  write_wrapper etcd "$(gomod_header "$gomod")" "go.etcd.io/etcd/server/v3 $ETCD_VERSION" go.etcd.io/etcd/server/v3 \
    "$(gomod_replaces "$gomod")"
  go_build etcd go.etcd.io/etcd/server/v3 "-s -w -X go.etcd.io/etcd/api/v3/version.GitSHA=$sha"
}

# kubernetes_wrapper NAME TOOLPKG: a wrapper module requiring k8s.io/kubernetes at
# $KUBE_VERSION with its staging modules at their published tags; sets KUBE_LDFLAGS.
kubernetes_wrapper() {
  local name=$1 tool=$2 rec gomod staging minor major mm replaces="" m commit ldflags="-s -w"
  rec=$(mod_download "k8s.io/kubernetes@$KUBE_VERSION")
  gomod=$(json_field GoMod <<<"$rec")
  [[ $KUBE_VERSION =~ ^v([0-9]+)\.([0-9]+)\.[0-9]+ ]] || die "KUBE_VERSION '$KUBE_VERSION' is not vMAJOR.MINOR.PATCH"
  major=${BASH_REMATCH[1]}
  minor=${BASH_REMATCH[2]}
  # Every `k8s.io/X => ./staging/src/k8s.io/X` replace of kubernetes' go.mod
  # becomes `k8s.io/X => k8s.io/X v0.MINOR.PATCH` (the published staging tag).
  staging=$(sed -n 's#^[[:space:]]*\(replace[[:space:]]\{1,\}\)\{0,1\}\(k8s\.io/[^[:space:]]*\)[[:space:]]*=>[[:space:]]*\./staging/src/k8s\.io/.*#\2#p' "$gomod" | sort -u)
  [[ -n $staging ]] || die "found no './staging/src/k8s.io/...' replace directives in $gomod"
  mm="v0.${KUBE_VERSION#v${major}.}"
  replaces="replace ("
  for m in $staging; do replaces+=$'\n\t'"$m => $m $mm"; done
  replaces+=$'\n)'
  m=$(gomod_replaces "$gomod")
  [[ -z $m ]] || replaces+=$'\n'"$m"
  write_wrapper "$name" "$(gomod_header "$gomod")" "k8s.io/kubernetes $KUBE_VERSION" "$tool" "$replaces"
  # As hack/lib/version.sh (kube::version::ldflags) does, for both packages.
  kv() { ldflags+=" -X 'k8s.io/client-go/pkg/version.$1=$2' -X 'k8s.io/component-base/version.$1=$2'"; }
  kv buildDate "$(date ${SOURCE_DATE_EPOCH:+--date=@$SOURCE_DATE_EPOCH} -u +%Y-%m-%dT%H:%M:%SZ)"
  commit=$(json_field Hash <<<"$rec")
  [[ -n $commit ]] && kv gitCommit "$commit"
  kv gitTreeState clean
  kv gitVersion "$KUBE_VERSION"
  kv gitMajor "$major"
  kv gitMinor "$minor"
  KUBE_LDFLAGS=$ldflags
}

# build_kubernetes_cmd NAME: k8s.io/kubernetes/cmd/NAME at $KUBE_VERSION.
build_kubernetes_cmd() {
  kubernetes_wrapper "$1" "k8s.io/kubernetes/cmd/$1"
  go_build "$1" "k8s.io/kubernetes/cmd/$1" "$KUBE_LDFLAGS"
}

build_kube_apiserver() { build_kubernetes_cmd kube-apiserver; }
build_kube_controller_manager() { build_kubernetes_cmd kube-controller-manager; }
build_kube_scheduler() { build_kubernetes_cmd kube-scheduler; }
build_kubectl() { build_kubernetes_cmd kubectl; }
build_kubelet() { build_kubernetes_cmd kubelet; }
build_kube_proxy() { build_kubernetes_cmd kube-proxy; }

build_kwok() {
  local rec gomod
  rec=$(mod_download "sigs.k8s.io/kwok@$KWOK_VERSION")
  gomod=$(json_field GoMod <<<"$rec")
  write_wrapper kwok "$(gomod_header "$gomod")" "sigs.k8s.io/kwok $KWOK_VERSION" sigs.k8s.io/kwok/cmd/kwok \
    "$(gomod_replaces "$gomod")"
  # kwok hack/releases.sh: -X sigs.k8s.io/kwok/pkg/consts.Version=${VERSION} (and PreRelease).
  go_build kwok sigs.k8s.io/kwok/cmd/kwok "-s -w -X sigs.k8s.io/kwok/pkg/consts.Version=${KWOK_VERSION#v} -X sigs.k8s.io/kwok/pkg/consts.PreRelease=GA"
}

build_coredns() {
  local rec gomod
  rec=$(mod_download "github.com/coredns/coredns@$COREDNS_VERSION")
  gomod=$(json_field GoMod <<<"$rec")
  write_wrapper coredns "$(gomod_header "$gomod")" "github.com/coredns/coredns $COREDNS_VERSION" github.com/coredns/coredns \
    "$(gomod_replaces "$gomod")"
  # coredns Makefile: -ldflags="-s -w -X github.com/coredns/coredns/coremain.GitCommit=$(git describe --dirty --always)";
  # at the release tag `git describe` prints the tag itself.
  go_build coredns github.com/coredns/coredns "-s -w -X github.com/coredns/coredns/coremain.GitCommit=$COREDNS_VERSION"
}

# gomod_requires GOMODFILE: every require directive of an upstream main module,
# as one require block. prometheus-operator's own modules (pkg/apis/monitoring,
# pkg/client) are replaced by local directories upstream; without upstream's
# versions of everything else, `go mod tidy` in a wrapper module picks newer
# ones and fails on an ambiguous import (cloud.google.com/go/compute/metadata).
gomod_requires() {
  awk '
    /^require[ \t]*\(/ { inblk = 1; next }
    inblk && /^\)/ { inblk = 0; next }
    inblk { line = $0; sub(/\/\/.*/, "", line); sub(/^[ \t]+/, "", line); if (line != "") print "\t" line; next }
    /^require[ \t]/ { line = $0; sub(/^require[ \t]+/, "", line); sub(/\/\/.*/, "", line); print "\t" line }
  ' "$1"
}

build_prometheus_operator() {
  local rec gomod mod=github.com/prometheus-operator/prometheus-operator v=$PROMETHEUS_OPERATOR_VERSION sha
  rec=$(mod_download "$mod@$v")
  gomod=$(json_field GoMod <<<"$rec")
  write_wrapper prometheus-operator "$(gomod_header "$gomod")" \
    "($(printf '\n\t%s %s' "$mod" "$v" "$mod/pkg/apis/monitoring" "$v" "$mod/pkg/client" "$v")
$(gomod_requires "$gomod")
)" "$mod/cmd/operator" "$(gomod_replaces "$gomod")"
  # As upstream's Makefile (GO_BUILD_LDFLAGS), with the tag as version.
  sha=$(json_field Hash <<<"$rec")
  go_build prometheus-operator "$mod/cmd/operator" \
    "-s -w -X github.com/prometheus/common/version.Version=${v#v} -X github.com/prometheus/common/version.Revision=${sha:-$v} -X github.com/prometheus/common/version.Branch=$v"
}

build_prometheus() {
  local rec gomod mod=github.com/prometheus/prometheus v=$PROMETHEUS_VERSION release sha
  rec=$(mod_download "$mod@$v")
  gomod=$(json_field GoMod <<<"$rec")
  release=$(cat "$(json_field Dir <<<"$rec")/VERSION")
  write_wrapper prometheus "$(gomod_header "$gomod")" \
    "($(printf '\n\t%s %s' "$mod" "$v")
$(gomod_requires "$gomod")
)" "$mod/cmd/prometheus" "$(gomod_replaces "$gomod")"
  # As upstream's .promu.yml: the release (from its VERSION file) stamped into
  # prometheus/common's version package. Without the builtinassets tag the web UI is
  # left out; the HTTP API, which the tests use, is all there. Of the service discoveries
  # only Kubernetes' (what a PodMonitor becomes) and the built-in file, HTTP and static ones
  # are compiled in: remove_all_sd leaves out the cloud providers' (Prometheus's own
  # plugins/ mechanism), a third of the build.
  sha=$(json_field Hash <<<"$rec")
  BUILD_TAGS=remove_all_sd,enable_kubernetes_sd go_build prometheus "$mod/cmd/prometheus" \
    "-s -w -X github.com/prometheus/common/version.Version=$release -X github.com/prometheus/common/version.Revision=${sha:-$v} -X github.com/prometheus/common/version.Branch=v$release"
}

build_kube_state_metrics() {
  local rec gomod mod=k8s.io/kube-state-metrics/v2 v=$KUBE_STATE_METRICS_VERSION sha
  rec=$(mod_download "$mod@$v")
  gomod=$(json_field GoMod <<<"$rec")
  write_wrapper kube-state-metrics "$(gomod_header "$gomod")" \
    "($(printf '\n\t%s %s' "$mod" "$v")
$(gomod_requires "$gomod")
)" "$mod" "$(gomod_replaces "$gomod")"
  # As upstream's Makefile (VERSION, GIT_COMMIT, BRANCH into prometheus/common's version package).
  # `tidy -e`: the tests of grpc's dependencies name inet.af/netaddr, which the proxy refuses
  # (403); the binary needs none of them.
  sha=$(json_field Hash <<<"$rec")
  go_build kube-state-metrics "$mod" \
    "-s -w -X github.com/prometheus/common/version.Version=$v -X github.com/prometheus/common/version.Revision=${sha:-$v} -X github.com/prometheus/common/version.Branch=release-${v%.*}" -e
}

build_helm() {
  local rec gomod mod=helm.sh/helm/v4 v=$HELM_VERSION sha
  rec=$(mod_download "$mod@$v")
  gomod=$(json_field GoMod <<<"$rec")
  write_wrapper helm "$(gomod_header "$gomod")" \
    "($(printf '\n\t%s %s' "$mod" "$v")
$(gomod_requires "$gomod")
)" "$mod/cmd/helm" "$(gomod_replaces "$gomod")"
  # As upstream's Makefile (LDFLAGS): the tag, the commit and a clean tree into internal/version.
  sha=$(json_field Hash <<<"$rec")
  go_build helm "$mod/cmd/helm" \
    "-s -w -X $mod/internal/version.version=$v -X $mod/internal/version.gitCommit=${sha:-$v} -X $mod/internal/version.gitTreeState=clean"
}

version_of() {
  case "$1" in
    etcd) echo "$ETCD_VERSION" ;;
    kube-apiserver|kube-controller-manager|kube-scheduler|kubectl|kubelet|kube-proxy) echo "$KUBE_VERSION" ;;
    kwok) echo "$KWOK_VERSION" ;;
    coredns) echo "$COREDNS_VERSION" ;;
    prometheus-operator) echo "$PROMETHEUS_OPERATOR_VERSION" ;;
    prometheus) echo "$PROMETHEUS_VERSION" ;;
    kube-state-metrics) echo "$KUBE_STATE_METRICS_VERSION" ;;
    helm) echo "$HELM_VERSION" ;;
  esac
}

# ------------------------------------------------------------------ build ---
# NLD_BUILD_JOBS builds at once (default 2), longest first: one `go build` leaves the cores idle
# while it downloads modules and while it links, which a second one fills. They share GOCACHE
# and GOMODCACHE, which Go locks for concurrent use.
JOBS=${NLD_BUILD_JOBS:-2}
LONGEST_FIRST=(kube-apiserver prometheus prometheus-operator coredns kube-state-metrics kwok etcd
  helm kube-controller-manager kubectl kubelet kube-proxy kube-scheduler)

# build_one NAME WANT: build NAME, stamp it with WANT; its exit code in $LOG_DIR/NAME.rc.
build_one() {
  local name=$1 want=$2 start=$SECONDS rc=0
  LOG=$LOG_DIR/$name.log
  : >"$LOG"
  (
    set -euo pipefail
    "build_${name//-/_}"
  ) || rc=$?
  if [[ $rc -eq 0 ]]; then
    printf '%s\n' "$want" >"$STAMP_DIR/$name"
    echo "$name $(version_of "$name"): built in $((SECONDS - start))s"
  else
    echo "$name $(version_of "$name"): FAILED after $((SECONDS - start))s (log: $LOG)" >&2
  fi
  echo "$rc" >"$LOG_DIR/$name.rc"
}

FAILED=()
BUILT_OK=()
QUEUED=()
for name in "${LONGEST_FIRST[@]}"; do
  [[ " ${SELECTED[*]} " == *" $name "* ]] || continue
  want=$(stamp_of "$name" "$(version_of "$name")")
  if [[ -x $BIN_DIR/$name && -f $STAMP_DIR/$name && "$(cat "$STAMP_DIR/$name")" == "$want" ]]; then
    echo "$name $(version_of "$name"): cached"
    BUILT_OK+=("$name")
    continue
  fi
  while [[ $(jobs -rp | wc -l) -ge $JOBS ]]; do wait -n || true; done
  rm -f "$LOG_DIR/$name.rc"
  build_one "$name" "$want" &
  QUEUED+=("$name")
done
wait
for name in "${QUEUED[@]}"; do
  if [[ "$(cat "$LOG_DIR/$name.rc" 2>/dev/null)" == 0 ]]; then
    BUILT_OK+=("$name")
  else
    FAILED+=("$name")
  fi
done

# ----------------------------------------------------------------- verify ---
# one_line CMD...: the command's output (stdout+stderr) joined on one line.
one_line() { "$@" 2>&1 | sed '/^[[:space:]]*$/d' | paste -sd'|' - | sed 's/|/ | /g'; }

verify() {
  local name=$1 bin=$BIN_DIR/$1 out
  case "$name" in
    etcd)
      out=$(one_line "$bin" --version)
      [[ $out == *"etcd Version: ${ETCD_VERSION#v}"* ]] || { echo "verify etcd: unexpected --version output: $out" >&2; return 1; }
      ;;
    kube-apiserver|kube-controller-manager|kube-scheduler|kubelet|kube-proxy)
      out=$(one_line "$bin" --version)
      [[ $out == "Kubernetes $KUBE_VERSION" ]] || { echo "verify $name: expected 'Kubernetes $KUBE_VERSION', got: $out" >&2; return 1; }
      ;;
    kwok)
      out=$(one_line "$bin" --version)
      [[ $out == *"${KWOK_VERSION#v}"* ]] || { echo "verify kwok: expected version ${KWOK_VERSION#v}, got: $out" >&2; return 1; }
      ;;
    kubectl)
      out=$(one_line "$bin" version --client)
      [[ $out == *"Client Version: $KUBE_VERSION"* ]] || { echo "verify kubectl: expected 'Client Version: $KUBE_VERSION', got: $out" >&2; return 1; }
      ;;
    coredns)
      out=$(one_line "$bin" -version)
      [[ $out == *"CoreDNS-${COREDNS_VERSION#v}"* ]] || { echo "verify coredns: unexpected -version output: $out" >&2; return 1; }
      local plugins p missing=()
      plugins=$("$bin" -plugins 2>&1)
      for p in forward cache bind health prometheus hosts file template log errors; do
        # `coredns -plugins` lists them as "  dns.NAME" (older) or "NAME" (1.13+).
        grep -qxE "[[:space:]]*(dns\.)?$p" <<<"$plugins" || missing+=("$p")
      done
      [[ ${#missing[@]} -eq 0 ]] || { echo "verify coredns: -plugins lacks: ${missing[*]}" >&2; return 1; }
      out+=" | plugins ok: forward cache bind health prometheus hosts file template log errors"
      ;;
    prometheus-operator)
      out=$(one_line "$bin" -version)
      [[ $out == *"prometheus-operator, version ${PROMETHEUS_OPERATOR_VERSION#v} "* ]] || { echo "verify prometheus-operator: unexpected -version output: $out" >&2; return 1; }
      ;;
    prometheus)
      out=$(one_line "$bin" --version)
      [[ $out == "prometheus, version 3."* ]] || { echo "verify prometheus: unexpected --version output: $out" >&2; return 1; }
      ;;
    kube-state-metrics)
      out=$(one_line "$bin" version)
      [[ $out == *"$KUBE_STATE_METRICS_VERSION"* ]] || { echo "verify kube-state-metrics: unexpected --version output: $out" >&2; return 1; }
      ;;
    helm)
      out=$(one_line "$bin" version --template '{{.Version}}')
      [[ $out == "$HELM_VERSION" ]] || { echo "verify helm: expected '$HELM_VERSION', got: $out" >&2; return 1; }
      ;;
  esac
  echo "verify $name: $out"
}

for name in "${BUILT_OK[@]}"; do
  if ! verify "$name"; then
    rm -f "$STAMP_DIR/$name"   # do not trust this binary on the next run
    FAILED+=("$name")
  fi
done

if [[ ${#FAILED[@]} -gt 0 ]]; then
  die "failed: ${FAILED[*]} (logs in $LOG_DIR)"
fi
