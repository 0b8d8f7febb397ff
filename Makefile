# robot_formats - build/setup entry points. `make help` lists the targets.
# Every step is idempotent and skips itself when nothing changed (stamps in .venv/, underlay/ and install/).

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help
# setup/build steps share .venv, underlay/ and install/: never run them concurrently (make -j), and serialize
# concurrent invocations (several shells or developers in one checkout) with a lock file.
.NOTPARALLEL:
LOCK := flock $(CURDIR)/.make.lock

# DDS stays on this machine for everything started from here (Kilted ignores ROS_LOCALHOST_ONLY).
export ROS_AUTOMATIC_DISCOVERY_RANGE := LOCALHOST

# Source the venv + workspace environment inside a recipe line.
ENV := . tools/env.sh

.PHONY: help setup setup-test underlay build test fuzz demo bench docs clean distclean

help: ## list the targets
	@echo "robot_formats make targets:"
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/^([a-z-]+):.*## (.*)/  \1\t\2/' | expand -t 14

setup: ## create/update .venv (pinned ROS 2 Kilted wheels, colcon, libraries)
	@$(LOCK) bash tools/setup_env.sh

setup-test: ## setup + the opt-in test dependencies (tools/requirements-test.txt)
	@$(LOCK) bash tools/setup_env.sh --test

underlay: setup ## setup + the upstream ROS packages the environment lacks, into underlay/install
	@$(LOCK) bash tools/build_upstream.sh

build: setup ## setup + underlay + colcon build (build/ install/ log/); skipped when no input changed
	@$(LOCK) bash tools/build_ws.sh

# pytest runs directly (not `colcon test`) so its exit code and closing 'N passed' line are the result.
# Exit code 5 (no tests collected) counts as a failure. ROS_DOMAIN_ID (100-199, override with
# TEST_ROS_DOMAIN_ID=N) is the preferred start; the node tests lock a block of 25 domain ids for the run
# (test/nodes/conftest.py), so parallel runs on one machine never see each other.
test: setup-test build ## setup-test + build + run the test suite (python -m pytest test -q)
	@$(ENV); \
	export ROS_DOMAIN_ID="$${TEST_ROS_DOMAIN_ID:-$$(( $$$$ % 100 + 100 ))}"; \
	echo "test: python -m pytest test -q (ROS_DOMAIN_ID=$$ROS_DOMAIN_ID, discovery LOCALHOST)"; \
	rc=0; python -m pytest test -q || rc=$$?; \
	if [ "$$rc" -eq 5 ]; then echo "test: FAILED: pytest collected no tests (exit 5)" >&2; exit 1; fi; \
	exit "$$rc"

# The fuzzing of test/core/test_fuzz_formats.py at full budget (make test runs 50 cases per format):
# FUZZ_CASES per format (default 10000) on FUZZ_WORKERS worker processes (default 2).
fuzz: setup-test build ## setup-test + build + fuzz every format with 10,000 hostile and mutated files
	@$(ENV); FUZZ_CASES="$${FUZZ_CASES:-10000}" python -m pytest test/core/test_fuzz_formats.py -q -s

demo: build ## build + run the demo (tools/demo.sh)
	@$(ENV); bash tools/demo.sh

# tools/install_bench_deps.sh adds the benchmarks' own references (the Python URDF loaders of
# tools/requirements-bench-nodeps.txt, libsdformat 12). The run measures the landed main of
# benchmarks/BASELINE beside the working tree (BENCH_ARGS=--no-baseline: the working tree alone).
bench: setup-test build ## setup-test + build + run the benchmarks (python -m benchmarks), landed main beside
	@bash tools/install_bench_deps.sh
	@$(ENV); python -m benchmarks $(BENCH_ARGS)

docs: setup ## setup + regenerate the pictures in docs/images/ from the bundled examples (tools/make_docs.py)
	@$(ENV); python tools/make_docs.py

clean: ## remove build/ install/ log/ and the underlay's builds (keeps .venv and fetched sources)
	rm -rf build install log underlay/build underlay/install underlay/log

distclean: clean ## clean + remove .venv and underlay/ (fetched sources too)
	rm -rf .venv underlay
