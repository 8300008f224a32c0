# cudb — `make help` lists the targets.
SHELL := /bin/bash
GO ?= go
SNAPSHOTS ?= ../shared/sources
FUZZTIME ?= 5s
# Minimizing each new input for the default 60 s starves short runs: a
# parser with many branches finds new coverage on almost every early input.
FUZZMINIMIZE ?= 200ms
# Alternating (trivial, cudb) pairs per case for bench-start.
PAIRS ?= 21
SOAKTIME ?= 5m

.PHONY: help build test vet lint race data fuzz bench bench-start fmt load soak

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-11s %s\n", $$1, $$2}'

# cudb ships as one static binary: without cgo, net's resolver is pure Go and
# no dynamic loader or C library starts before cudb does.
build: ## build ./cudb (static)
	CGO_ENABLED=0 $(GO) build -o cudb ./cmd/cudb

test: ## run every test (the README's test command)
	$(GO) test ./...

vet: ## go vet and gofmt check
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }

# staticcheck at a pinned version, fetched through the module proxy on first use.
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2

lint: ## staticcheck (pinned) with no finding allowed
	$(GO) run $(STATICCHECK) ./...

race: ## tests with the race detector
	$(GO) test -race ./...

data: ## rebuild data/ from the source snapshots ($(SNAPSHOTS))
	$(GO) run ./cmd/cudb refresh --snapshots $(SNAPSHOTS) --data data

fuzz: ## run every fuzz target for $(FUZZTIME)
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz'); do \
	    echo "fuzz $$pkg $$f"; \
	    out=$$($(GO) test $$pkg -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) 2>&1); rc=$$?; \
	    echo "$$out" | tail -n 3; \
	    if [ $$rc -ne 0 ]; then \
	      if echo "$$out" | grep -q 'Failing input written'; then echo "$$out"; exit 1; fi; \
	      if echo "$$out" | grep -q '^    context deadline exceeded$$'; then \
	        echo "  (Go 1.26 fuzz coordinator race at the -fuzztime deadline, golang/go#75804: no failing input; ignored)"; \
	      else echo "$$out"; exit 1; fi; \
	    fi; \
	  done; \
	done

bench: ## run the benchmarks recorded in docs/benchmarks.md
	$(GO) test -run '^$$' -bench . -benchmem ./...

bench-start: ## whole-process start-up A/B against a trivial Go binary (resolve, verify --from, pin; docs/benchmarks.md)
	$(GO) run ./cmd/cudb/internal/benchstart -pairs $(PAIRS)

fmt: ## format the code
	gofmt -w $$(git ls-files '*.go')

load: ## load-test cudb serve on loopback with wrk (installed from Debian when missing), 60 s
	@command -v wrk >/dev/null || (apt-get update -qq && apt-get install -y -qq wrk)
	CGO_ENABLED=0 $(GO) build -o cudb ./cmd/cudb
	@./cudb serve --addr 127.0.0.1:18090 2>/dev/null & pid=$$!; sleep 1; \
	  wrk -t1 -c4 -d60s --latency -s cmd/cudb/internal/loadgen/wrk-mix.lua http://127.0.0.1:18090; \
	  echo "server RSS after the run: $$(ps -o rss= -p $$pid) KiB"; kill $$pid

soak: ## 5 minutes (SOAKTIME) of mixed traffic, hostile bodies included, on loopback: throughput, p99 per class, memory (not run by CI)
	$(GO) test ./cmd/cudb/internal/httpapi -run '^TestSoak$$' -soak $(SOAKTIME) -soak.requests 5000000 -count 1 -v -timeout 30m
