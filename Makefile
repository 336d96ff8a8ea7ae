# mcpspec — the two commands a newcomer needs are `make run` and `make test`.
GO      ?= go
BIN     := bin/mcpspec
PKGS    := ./...
# Packages whose concurrency matters most run under the race detector, and only there: a plain
# run of them beside it would prove nothing the race run does not, and would crowd the self-tests.
RACE_PKGS := ./harness/... ./fixtures/... ./reports/...
UNIT_PKGS  = $(filter-out $(shell $(GO) list $(RACE_PKGS)),$(shell $(GO) list $(PKGS)))
# A count, not a duration: a duration races Go's fuzz coordinator at its deadline and fails with
# "context deadline exceeded" on a loaded machine (golang/go#75804, fixed in Go 1.27).
FUZZTIME ?= 50000x

.PHONY: all build run test unit race selftest fuzz lint bench bench-local interop clean chromium

all: build

# CGO_ENABLED=0: a static binary, with no dynamic loader or C runtime to set up at each start. A
# run starts the reference server ~120 times (each stdio connection to it is a process) and a cgo
# build pays ~4 ms more CPU per start (issue 28); mcpspec needs no C library (the race detector of
# `make test` builds on its own). mcpspec-reference is that server alone, which run starts over
# stdio instead of mcpspec when it lies beside it: ~2 ms of CPU a start instead of ~15.
build:
	CGO_ENABLED=0 $(GO) build -o $(BIN) ./cmd/mcpspec
	CGO_ENABLED=0 $(GO) build -o $(BIN)-reference ./cmd/mcpspec-reference

# The suite against the bundled reference server, over stdio and HTTP, at every revision.
run: build
	./$(BIN) run --out mcpspec-report

# The project's own tests: lint, unit tests, race detector, fuzzing smoke runs, self-tests.
# -timeout 30m: cmd/mcpspec takes ~3 min on an idle 2-core machine and Go's default per-package
# bound of 10 min is too close on a busy one; a hang still ends.
test: lint build chromium
	$(GO) test -count=1 -timeout 30m -parallel 4 $(UNIT_PKGS)
	$(GO) test -count=1 -timeout 30m -race $(RACE_PKGS)
	$(MAKE) fuzz

fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzFramer$$' -fuzztime $(FUZZTIME) ./harness/stdio
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./harness/jsonrpc
	$(GO) test -run '^$$' -fuzz '^FuzzReader$$' -fuzztime $(FUZZTIME) ./harness/sse

# Build outputs stay out of git: no tracked file may exceed 1 MiB (checked when in a git checkout).
lint:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	@if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
	  big=$$(git ls-files -z | xargs -0 -r stat -c '%s %n' 2>/dev/null | awk '$$1 > 1048576 {print $$2}'); \
	  if [ -n "$$big" ]; then echo "tracked files over 1 MiB (build outputs belong in .gitignore):"; echo "$$big"; exit 1; fi; \
	fi

# Wall time, specs/s, servers spawned, quiet-window time, CPU, peak memory and largest report of whole runs, then the
# Go benchmarks of the hot paths (parsing, framing, SSE, schema validation).
# server-everything and the official conformance suite (timed beside mcpspec on one running
# server-everything) are installed into the interop cache first (npm, pinned); the TypeScript SDK
# client's rows run where make interop installed it, and are skipped with a note elsewhere.
bench: build
	$(GO) run ./cmd/mcpspec-bench -mcpspec $(BIN) -runs 5 \
	  -everything "$$(bash fixtures/targets/install-everything.sh)" -preload "$(CURDIR)/fixtures/targets/bind-localhost.cjs" \
	  -conformance "$$(bash fixtures/targets/install-conformance.sh)" -conformance-import "$(CURDIR)/fixtures/targets/node20-fs-globsync.mjs" $(BENCH_FLAGS)
	$(GO) test -run '^$$' -bench . -benchmem ./harness/jsonrpc ./harness/stdio ./harness/sse ./harness/schema

# The whole-run figures of the bundled reference alone, server (`make run`) and client (`mcpspec
# client` at --parallel 1 and the default), then the proxy rows (latency `mcpspec proxy` adds per
# message, stdio and HTTP, and its peak memory over a 1M-message session): no npm install, no Go
# benchmarks.
bench-local: build
	$(GO) run ./cmd/mcpspec-bench -mcpspec $(BIN) -runs 5 $(BENCH_FLAGS)

# The compatibility matrix over real SDK servers (fixtures/targets/matrix.yaml): installs the pinned
# targets into $(MCPSPEC_INTEROP_CACHE) (default ~/.cache/mcpspec-interop), never the repository.
interop:
	bash fixtures/targets/interop.sh

clean:
	rm -rf bin mcpspec-report

# The headless-browser test of report.html needs Debian's Chromium: CI installs it when absent
# (as root, or with sudo); elsewhere the test is skipped with a note.
CHROMIUM := /usr/bin/chromium
SUDO     := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

chromium:
	@if [ ! -x $(CHROMIUM) ]; then \
	  if [ -n "$$CI" ]; then $(SUDO) apt-get update && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; \
	  else echo "note: $(CHROMIUM) absent; the headless-Chromium test of report.html will be skipped (apt-get install -y chromium)"; fi; \
	fi
