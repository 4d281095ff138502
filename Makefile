# One entry point for setting up, synthesizing, testing and benchmarking.
# `make synth` and `make test` work on a fresh machine: each sets up what it needs.

SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV := .venv
PY := $(VENV)/bin/python
# checkov, the security scanner the least-privilege test runs on the synth, in a venv of its own:
# every checkov 3 release requires packaging<24, which pytest 9 refuses (docs/design.md, Libraries).
CHECKOV_VENV := .venv-checkov
CHECKOV_VERSION := 3.3.30
# The package's dependencies and build backend as wheels: the tests' fresh venvs install from
# here, offline.
WHEELHOUSE := .cache/wheelhouse
export PATH := $(CURDIR)/node_modules/.bin:$(CURDIR)/$(VENV)/bin:$(PATH)
# cdk8s must never reach for the network during synth or import.
CDK8S := cdk8s --check-upgrade false

.PHONY: help setup system binaries synth imports readme docs screenshots lint test fuzz bench clean

help:
	@echo "make synth   set up, then synthesize the preview to dist/ (KUBE_DNS_CLUSTER_IP=IP make synth OUT=DIR: deployable)"
	@echo "make test    set up (Python, npm, Debian packages, Go builds), lint, run every test suite"
	@echo "make fuzz    the props oracle at length: 10,000 random examples per test against the test API server"
	@echo "make bench   run the benchmarks under bench/"
	@echo "make imports regenerate imports/ from ../shared/crds with cdk8s import"
	@echo "make readme  regenerate the README's tables (props, exit codes) from the code"
	@echo "make docs    build the documentation site and API reference into .cache/site (make docs SITE=DIR: elsewhere)"
	@echo "make screenshots  build the site, then screenshot its home and props pages into docs/screenshots/"

setup: $(VENV)/.installed node_modules/.installed $(CHECKOV_VENV)/.installed $(WHEELHOUSE)/.done

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet -e ".[test]"
	touch $@

# The wheelhouse comes from pip's cache after the venv's own install.
$(WHEELHOUSE)/.done: pyproject.toml $(VENV)/.installed
	mkdir -p $(WHEELHOUSE)
	$(PY) -c 'import tomllib; p = tomllib.load(open("pyproject.toml", "rb")); print("\n".join(p["project"]["dependencies"] + p["build-system"]["requires"]))' > $(WHEELHOUSE)/requirements.txt
	$(PY) -m pip download --quiet --dest $(WHEELHOUSE) -r $(WHEELHOUSE)/requirements.txt
	touch $@

$(CHECKOV_VENV)/.installed: Makefile
	python3 -m venv $(CHECKOV_VENV)
	$(CHECKOV_VENV)/bin/pip install --quiet "checkov==$(CHECKOV_VERSION)"
	touch $@

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

# Debian packages the tests need: promtool and the backfilled soak's server (prometheus), openssl
# for the test control plane, for the data-plane suite ip6tables, dig, dnsperf, ip, sysctl and
# nsenter (a real node's processes in its namespace), containerd, runc and the CNI plugins (the
# real nodes' runtime), shellcheck for the fallthrough keeper's script, and for the monitoring
# suite socat (the bridges between network namespaces) and nft (a foreign rule node-cache cannot
# re-add its own around), chromium for the documentation site's screenshots (headless, without a network).
APT_PACKAGES := prometheus openssl iptables dnsutils dnsperf iproute2 procps util-linux shellcheck socat nftables containerd runc containernetworking-plugins chromium
APT_COMMANDS := promtool prometheus openssl ip6tables ip6tables-restore dig dnsperf ip sysctl nsenter shellcheck socat nft containerd runc ctr chromium
system:
	@missing=""; for c in $(APT_COMMANDS); do command -v $$c >/dev/null || missing="$$missing $$c"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" != 0 ]; then echo "missing$$missing: run as root to apt-get install $(APT_PACKAGES)" >&2; exit 1; fi; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(APT_PACKAGES) >/dev/null; \
	fi
	@promtool --version 2>&1 | head -n 1

# etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubectl, kubelet, kube-proxy, kwok,
# CoreDNS, prometheus-operator, Prometheus and kube-state-metrics, built from source through the Go module proxy into
# .cache/ (reused when present). node-cache is never built here: the tests find a binary outside
# the repository (docs/development.md, "The node-cache binary").
binaries:
	bash tools/build-binaries.sh etcd kube-apiserver kube-controller-manager kube-scheduler kubectl kubelet kube-proxy kwok coredns prometheus-operator prometheus kube-state-metrics

# The app itself, as cdk8s synth runs it: a preview to dist/, replaced only when the synth
# succeeds. With KUBE_DNS_CLUSTER_IP set, name another directory: make synth OUT=build/deployable.
synth: setup
	$(if $(OUT),CDK8S_OUTDIR=$(OUT) )$(PY) main.py

imports: setup
	rm -rf imports
	$(CDK8S) import
	$(PY) -m pip install --quiet -e ".[test]"

readme: setup
	$(PY) tools/readme.py

# The documentation site (mkdocs.yml): docs/*.md and the API reference mkdocstrings renders from the docstrings.
# --strict: a warning (a broken link, a docstring griffe cannot read) fails the build. NO_MKDOCS_2_WARNING
# silences the banner mkdocs-material prints on every build.
docs: setup
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet$(if $(SITE), --site-dir $(SITE))

# The README's preview of the site, by headless Chromium without a network (tools/screenshot.py).
screenshots: docs
	$(PY) tools/screenshot.py$(if $(SITE), --site $(SITE))

lint: setup
	mkdir -p .cache/mypy-path && ln -sfn ../../imports .cache/mypy-path/constructs_nld_imports
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	MYPYPATH=.cache/mypy-path $(VENV)/bin/mypy

# The data-plane suite (tests/e2e: network namespaces, real nodes) runs beside the rest, in two
# processes of about equal time: the modules of E2E_HALF, and the others with the user-facing
# integration modules of USER_PATHS (a clean clone's quickstart, the examples, the wheel, the
# RBAC, the site). Most of the data plane's time is spent waiting on timers (probes, TTLs, back-offs,
# kubelet), so the three share the cores well and the run takes about as long as the longest of
# them. Their output follows the rest's; the exit code is the first failure's.
E2E_HALF := tests/e2e/test_kubelet.py tests/e2e/test_kube_proxy.py tests/e2e/test_dns_options.py \
	tests/e2e/test_portable.py tests/e2e/test_real_cluster.py tests/e2e/test_fallthrough.py
USER_PATHS := tests/integration/test_quickstart.py tests/integration/test_examples.py \
	tests/integration/test_package.py tests/integration/test_rbac.py tests/integration/test_docs.py
# SIM_PATHS: simulated-cluster modules that mostly wait on the controllers, beside E2E_HALF.
SIM_PATHS := tests/integration/test_cutover.py
# LOAD_PATHS: the throttled API server (Priority and Fairness), mostly waiting out Retry-After, beside the
# other data-plane modules.
LOAD_PATHS := tests/integration/test_throttling.py
test: setup system binaries lint
	@mkdir -p .cache; \
	$(PY) -m pytest $(E2E_HALF) $(SIM_PATHS) > .cache/e2e-half.log 2>&1 & half=$$!; \
	$(PY) -m pytest tests/e2e $(addprefix --ignore=,$(E2E_HALF)) $(USER_PATHS) $(LOAD_PATHS) > .cache/e2e.log 2>&1 & e2e=$$!; \
	$(PY) -m pytest --ignore=tests/e2e $(addprefix --ignore=,$(USER_PATHS) $(SIM_PATHS) $(LOAD_PATHS)); rest=$$?; \
	wait $$half; half_rc=$$?; wait $$e2e; e2e_rc=$$?; cat .cache/e2e-half.log .cache/e2e.log; \
	for rc in $$rest $$half_rc $$e2e_rc; do if [ $$rc -ne 0 ]; then exit $$rc; fi; done

# The CI profile of the oracle runs in `make test`; this one explores at random, far longer.
fuzz: setup system binaries
	$(PY) -m pytest tests/integration/test_oracle.py -p no:cacheprovider --hypothesis-profile=fuzz --hypothesis-show-statistics

bench: setup system binaries
	$(PY) bench/cli.py
	$(PY) bench/synth.py
	$(PY) bench/deploy.py
	$(PY) bench/dataplane.py
	$(PY) bench/disruption.py
	$(PY) bench/soak.py
	$(PY) bench/scale.py
	$(PY) bench/discovery.py

clean:
	rm -rf $(VENV) $(CHECKOV_VENV) node_modules .cache/mypy-path .pytest_cache .mypy_cache .ruff_cache
