# cudb — `make help` lists the targets.
SHELL := /bin/bash
GO ?= go
SNAPSHOTS ?= ../shared/sources
FUZZTIME ?= 5s
# Minimizing each new input for the default 60 s starves short runs: a
# parser with many branches finds new coverage on almost every early input.
FUZZMINIMIZE ?= 200ms
# Fuzz targets run side by side, one worker each (2 cores in CI).
FUZZJOBS ?= 2
# Alternating (trivial, cudb) pairs per case for bench-start.
PAIRS ?= 21
SOAKTIME ?= 5m

# Release stamps: a tag vX.Y.Z gives version X.Y.Z (PEP 440 for the
# wheels); untagged builds are 0.0.0.dev0. data_as_of is read from the
# database the binary embeds.
VERSION ?= $(or $(shell git describe --tags --exact-match 2>/dev/null | sed 's/^v//'),0.0.0.dev0)
COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null)
DATA_AS_OF = $(shell $(GO) run ./cmd/cudb version --json | sed -n 's/.*"data_as_of": "\(.*\)".*/\1/p')
STAMP = github.com/cudb/cudb/cmd/cudb/internal/cli
LDFLAGS = -s -w -X $(STAMP).Version=$(VERSION) -X $(STAMP).Commit=$(COMMIT) -X $(STAMP).DataAsOf=$(DATA_AS_OF)
DIST ?= dist
# GOOS/GOARCH pairs of the release binaries; the wheels cover all but windows/arm64.
TARGETS = linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
WHEEL_TARGETS = linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64
IMAGE ?= cudb:$(VERSION)

.PHONY: help build test test-slow vet lint race data fuzz adversarial bench bench-start fmt load soak binaries wheels release image image-test mcp-ts-deps docs-figures

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-11s %s\n", $$1, $$2}'

# cudb ships as one static binary: without cgo, net's resolver is pure Go and
# no dynamic loader or C library starts before cudb does.
build: ## build ./cudb (static)
	CGO_ENABLED=0 $(GO) build -o cudb ./cmd/cudb

# The summary (internal/testenv/summary) prints go test's usual lines, then
# one line naming the tests left out because ../shared is absent.
test: ## run the tests (the README's test command; the browser and wheel suites are in test-slow)
	set -o pipefail; $(GO) test -json ./... | $(GO) run ./internal/testenv/summary

test-slow: ## the slow suites: the site in headless Chromium, the wheel installed in a venv, the pre-commit hook built by pre-commit
	set -o pipefail; CUDB_SLOW=1 $(GO) test -json ./cmd/cudb/internal/site/ ./cmd/wheel/ | $(GO) run ./internal/testenv/summary
	set -o pipefail; CUDB_SLOW=1 $(GO) test -json -run '^TestPreCommitTryRepo$$' ./cmd/cudb/ | $(GO) run ./internal/testenv/summary

vet: ## go vet and gofmt check
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }

# staticcheck at a pinned version, fetched through the module proxy on first use.
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2

# golangci-lint runs only the linters staticcheck lacks (.golangci.yml:
# nilerr, containedctx).
GOLANGCI ?= github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v2.15.0

lint: ## staticcheck and golangci-lint (pinned) with no finding allowed
	$(GO) run $(STATICCHECK) ./...
	$(GO) run $(GOLANGCI) run ./...

race: ## tests with the race detector
	$(GO) test -race ./...

data: ## rebuild data/ from the source snapshots ($(SNAPSHOTS))
	$(GO) run ./cmd/cudb refresh --snapshots $(SNAPSHOTS) --data data

fuzz: ## run every fuzz target for $(FUZZTIME), $(FUZZJOBS) at a time
	FUZZTIME=$(FUZZTIME) FUZZMINIMIZE=$(FUZZMINIMIZE) FUZZJOBS=$(FUZZJOBS) GO=$(GO) ./.ci/fuzz

# The parsers of check under a memory cap: GOMEMLIMIT keeps the collector
# working hard, and each fuzz target's heap watchdog (query/check) fails
# an input whose live heap passes 512 MiB.
ADV_FUZZ = FuzzParseDockerfile FuzzParseCompose FuzzParseRequirements FuzzParseTOML FuzzParseCondaEnv FuzzDetect FuzzCheck

adversarial: ## the hostile inputs of issue 29 (generated) in every door, their benchmarks, and check's fuzz targets under a memory cap
	CUDB_SLOW=1 $(GO) test ./query/check/ -run '^TestAdversarialInputs$$' -count=1 -v
	$(GO) test ./internal/input/ -count=1
	$(GO) test ./cmd/cudb/internal/cli/ -run '^(TestCheckBoundsEveryDoor|TestOneValidationPerValue|TestMCPBadLinesKeepTheSession)$$' -count=1 -v
	$(GO) test ./cmd/cudb/internal/httpapi/ -run '^TestConnectionCaps$$' -count=1 -v
	$(GO) test ./query/check/ -run '^$$' -bench '^BenchmarkAdversarial$$' -benchtime 1x -benchmem
	@for f in $(ADV_FUZZ); do \
	  echo "fuzz ./query/check $$f (GOMEMLIMIT=256MiB)"; \
	  GOMEMLIMIT=256MiB $(GO) test ./query/check/ -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) >/tmp/cudb-adv-fuzz.$$$$ 2>&1; rc=$$?; \
	  tail -n 3 /tmp/cudb-adv-fuzz.$$$$; \
	  if [ $$rc -ne 0 ] && ! grep -q '^    context deadline exceeded$$' /tmp/cudb-adv-fuzz.$$$$; then cat /tmp/cudb-adv-fuzz.$$$$; rm -f /tmp/cudb-adv-fuzz.$$$$; exit 1; fi; \
	  rm -f /tmp/cudb-adv-fuzz.$$$$; \
	done

binaries: ## cross-compile $(DIST)/cudb-OS-ARCH for $(TARGETS) (CGO_ENABLED=0, stamped)
	@mkdir -p $(DIST)
	@ldflags='$(LDFLAGS)'; for t in $(TARGETS); do \
	  os=$${t%/*}; arch=$${t#*/}; ext=; [ $$os = windows ] && ext=.exe; \
	  echo "build $(DIST)/cudb-$$os-$$arch$$ext"; \
	  CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags "$$ldflags" -o $(DIST)/cudb-$$os-$$arch$$ext ./cmd/cudb || exit 1; \
	done

wheels: binaries ## Python wheels in $(DIST)/wheels (pip/uv/pipx install the binary; no network)
	@for t in $(WHEEL_TARGETS); do \
	  os=$${t%/*}; arch=$${t#*/}; ext=; [ $$os = windows ] && ext=.exe; \
	  $(GO) run ./cmd/wheel -binary $(DIST)/cudb-$$os-$$arch$$ext -goos $$os -goarch $$arch -version $(VERSION) -out $(DIST)/wheels || exit 1; \
	done

# SHA256SUMS names each file as the GitHub release uploads it (flat, no
# wheels/ folder), so `sha256sum -c --ignore-missing SHA256SUMS` works on
# any one downloaded file.
release: wheels ## binaries + wheels + $(DIST)/SHA256SUMS (flat names, as uploaded)
	cd $(DIST) && { command -v sha256sum >/dev/null && sum='sha256sum' || sum='shasum -a 256'; \
	  $$sum cudb-* > SHA256SUMS && (cd wheels && $$sum *.whl) >> SHA256SUMS; } && cat SHA256SUMS

image: ## the container image for cudb serve (FROM scratch; needs a docker engine)
	@docker info >/dev/null 2>&1 || { echo "image: no docker engine reachable: skipped"; exit 0; }; \
	  docker buildx version >/dev/null 2>&1 || { echo "image: this docker has no buildx (BuildKit), which the Dockerfile's COPY --chmod needs; install it (Debian: docker-buildx)"; exit 1; }; \
	  $(MAKE) binaries TARGETS=linux/$$($(GO) env GOARCH) && \
	  DOCKER_BUILDKIT=1 docker build --target serve --build-arg TARGETARCH=$$($(GO) env GOARCH) -t $(IMAGE) .

# image-test builds from binaries without execute bits, as the release
# workflow's artifacts may deliver them: the Dockerfile must set the mode.

image-test: ## build the image, run cudb serve in it and ask it one question (skips without docker)
	@docker info >/dev/null 2>&1 || { echo "image-test: no docker engine reachable: skipped (CI runs it where docker is)"; exit 0; }; \
	  docker buildx version >/dev/null 2>&1 || { echo "image-test: this docker has no buildx (BuildKit), which the Dockerfile's COPY --chmod needs: skipped (TestImageRootFS checks the image's files without an engine)"; exit 0; }; \
	  $(MAKE) binaries TARGETS=linux/$$($(GO) env GOARCH) && chmod 0644 $(DIST)/cudb-linux-* && \
	  DOCKER_BUILDKIT=1 docker build --target serve --build-arg TARGETARCH=$$($(GO) env GOARCH) -t cudb:ci . && \
	  id=$$(docker run -d -p 127.0.0.1:18091:8080 cudb:ci) && trap "docker rm -f $$id >/dev/null" EXIT && \
	  for i in 1 2 3 4 5 6 7 8 9 10; do curl -fsS http://127.0.0.1:18091/healthz >/dev/null 2>&1 && break; sleep 1; done && \
	  body=$$(curl -fsS 'http://127.0.0.1:18091/v1/resolve?req=torch==2.1') && echo "$$body" | grep -q 'torch==2.1.0+cu121\|2.1.0+cu121' && \
	  echo "image-test: cudb serve answers from the container" && \
	  docker image inspect cudb:ci --format 'image size: {{.Size}} bytes'

docs-figures: ## write the figures the docs state (page weight, site size, schema version, test counts)
	$(GO) run ./cmd/cudb/internal/docsfigures

mcp-ts-deps: ## install the official MCP TypeScript SDK (npm, pinned by its lock file) for TestMCPTypeScriptSDK
	cd cmd/cudb/testdata/mcp-ts && npm ci --no-audit --no-fund

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
