# stackops: the two commands a user needs are `make demo` and `make test`. Both do all set-up
# on a fresh machine (npm ci, building the local control plane, building packages) and are
# quick when everything is already there.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

# npm scripts and everything below run on the Node 24 pinned in package.json, not the machine's.
export PATH := $(CURDIR)/node_modules/.bin:$(PATH)
export NX_NO_CLOUD := true
export NX_DAEMON := false
export NX_TUI := false
export NX_SKIP_NX_CACHE ?= false

STAMP := node_modules/.stackops-installed
KUBE_ENV := node tools/kube-env/dist/cli.js
TEST_CLUSTER := stackops-test
ARGS ?=

.PHONY: help deps build control-plane images lint typecheck test unit bench demo uninstall clean

help:
	@echo "make demo   - start a local control plane and run all operators on it (ARGS=--exit to stop after the summary)"
	@echo "make test   - lint, typecheck and every package's tests against a real local control plane"
	@echo "make uninstall - remove stackops from the current kubectl context: CRs, the Helm release, then exactly its CRDs"
	@echo "make images - the operators' OCI images (no Docker) into build/images/, with digests and sizes"
	@echo "make bench  - benchmarks, printing their figures"
	@echo "make lint   - biome lint + format check, knip dead-code check"
	@echo "make clean  - remove build outputs and stop local clusters"

# npm ci only when node_modules is missing or older than the lockfile. Registry mirrors that lack
# other platforms' optional binaries (biome, nx, esbuild) make `npm ci` refuse a lockfile that
# cannot list them; `npm install` then installs the same locked versions.
$(STAMP): package-lock.json package.json
	@echo "==> npm ci"
	@npm ci --no-audit --no-fund --loglevel=error 2>/dev/null || { \
	  echo "    npm ci refused the lockfile (optional packages missing from this registry); npm install instead"; \
	  npm install --no-audit --no-fund --loglevel=error; }
	@touch $(STAMP)

deps: $(STAMP)

build: deps
	@echo "==> build packages"
	@npx nx run-many -t build --outputStyle=static

# Builds kube-apiserver & co. from Go modules into ~/.cache/stackops/kube-env/<key> when missing.
control-plane: build
	@$(KUBE_ENV) build

# The four operators' OCI images (tools/images): bundles, then crane, into build/images/.
images: build
	@echo "==> images"
	@npx nx run @stackops/images:images --outputStyle=static

# knip loads every package's vitest config, which imports kube-env's built setup: build first.
lint: build
	@echo "==> lint (biome)"
	@npx biome ci .
	@echo "==> dead code (knip: unused files, exports, dependencies)"
	@npx knip

typecheck: build
	@echo "==> typecheck"
	@npx nx run-many -t typecheck --outputStyle=static

# One control plane for the whole run, shared by every package's tests, stopped at the end.
# tools/e2e brings its own cluster (two real nodes) and spends most of its time waiting for real
# pods, so by default (TEST_LANES=2) it runs beside the other packages, which run one at a time;
# TEST_LANES=1 runs everything one after another. kube-env's own tests go first, alone: they check
# what a real node leaves on the machine, which another cluster starting at the same moment would
# blur. The e2e output is printed whole when it ends. The prerequisites build everything the tests
# need, so the test commands skip nx's task dependencies: a dependency nx would restore from its
# cache rewrites that package's dist/ while the e2e lane is loading it (seen: a missing module).
# What the e2e lane builds where nothing is cached (the workload and network images, promtool, the
# previous release: ~20 min on two slow cores) is built by tools/e2e/prebuild.ts in the background
# from the start, beside lint, typecheck and the control plane's build; the e2e lane waits for it.
# Its own process group, so that a failure of anything before the tests stops it with its builds.
TEST_LANES ?= 2
test: build
	@mkdir -p .nx; rm -f .nx/prebuild.status; \
	  echo "==> tools/e2e/prebuild.ts builds what the e2e tests need, in the background (.nx/prebuild.log)"; \
	  setsid bash -c 'node tools/e2e/prebuild.ts; echo $$? > .nx/prebuild.status' > .nx/prebuild.log 2>&1 & prebuild=$$!; \
	  trap 'kill -- -$$prebuild 2>/dev/null || true' EXIT; \
	  e2e_ready() { for _ in $$(seq 1350); do [ -f .nx/prebuild.status ] && break; sleep 2; done; \
	    if [ -f .nx/prebuild.status ]; then echo "==> tools/e2e/prebuild.ts ended (status $$(cat .nx/prebuild.status))"; \
	    else echo "==> tools/e2e/prebuild.ts still runs after 45 min; the tests build what they miss"; fi; \
	    cat .nx/prebuild.log; }; \
	  $(MAKE) --no-print-directory lint typecheck control-plane images; \
	  echo "==> tests"; \
	  $(KUBE_ENV) up --name $(TEST_CLUSTER) --fresh; \
	  status=0; e2e_pid=""; exclude=""; \
	  export KUBE_ENV_NAME=$(TEST_CLUSTER) KUBE_ENV_REUSE=1; : > .nx/test.log; \
	  if [ "$(TEST_LANES)" = 2 ]; then \
	    npx nx run @stackops/kube-env:test --outputStyle=static --excludeTaskDependencies 2>&1 | tee -a .nx/test.log || status=$$?; \
	    echo "==> tools/e2e runs beside the other packages (output in .nx/test-e2e.log, printed when it ends)"; \
	    (e2e_ready; cd tools/e2e && npm test) > .nx/test-e2e.log 2>&1 & e2e_pid=$$!; \
	    exclude=--exclude=@stackops/e2e,@stackops/kube-env; \
	  else e2e_ready; fi; \
	  npx nx run-many -t test --outputStyle=static --parallel=1 --excludeTaskDependencies $$exclude 2>&1 | tee -a .nx/test.log || status=$$?; \
	  if [ -n "$$e2e_pid" ]; then \
	    echo "==> waiting for tools/e2e"; wait $$e2e_pid || status=$$?; \
	    cat .nx/test-e2e.log; cat .nx/test-e2e.log >> .nx/test.log; \
	  fi; \
	  $(KUBE_ENV) down --name $(TEST_CLUSTER); \
	  echo "==> vitest summary"; \
	  sed -e 's/\x1b\[[0-9;]*m//g' .nx/test.log | grep -E '^> @stackops/[^ ]+ test|^ +(Test Files|Tests) ' || true; \
	  failed=$$(sed -e 's/\x1b\[[0-9;]*m//g' .nx/test.log | awk '/^> @stackops\/[^ ]+ test/ { pkg = $$2 } /^ FAIL / { print pkg ":" $$0 }' | sort -u); \
	  if [ -n "$$failed" ]; then \
	    echo "==> why they failed (vitest's Failed Tests blocks, 80 lines of each at most)"; \
	    sed -e 's/\x1b\[[0-9;]*m//g' .nx/test.log | awk '/Failed Tests [0-9]+/ { on = 1; n = 0 } /^ +Test Files / { on = 0 } on && n++ < 80'; \
	    echo "==> failed tests (printed last: a log cut at the top still names them)"; echo "$$failed"; fi; \
	  exit $$status

# The packages' micro-benchmarks, then tools/bench: the four operators measured from outside
# (BENCH_ARGS, e.g. "--runs 5 --idle-seconds 300"; `node tools/bench/dist/cli.js --help`).
BENCH_ARGS ?=
bench: control-plane
	@npx nx run-many -t bench --outputStyle=static --parallel=1 --exclude=@stackops/bench
	@npx nx run @stackops/bench:bench --outputStyle=static -- $(BENCH_ARGS)

# The operators run as pods of the umbrella chart on a real node, from the images built here
# (ARGS=--local-operators: as local processes, without images or a real node).
demo: control-plane images
	@node tools/demo/dist/main.js $(ARGS)

# Against $KUBECONFIG's current context (ARGS=--help for the options).
uninstall: build
	@node tools/demo/dist/uninstall-main.js $(ARGS)

clean:
	-@[ -f tools/kube-env/dist/cli.js ] && $(KUBE_ENV) down --all || true
	@rm -rf .nx build libs/*/dist operators/*/dist operators/*/bundle tools/*/dist **/*.tsbuildinfo
