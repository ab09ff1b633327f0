# ruvio — build, run, test and measure. Every target works from a fresh
# clone with Go 1.26; `bench` installs Debian's redis-server if missing.

GO        ?= go
BIN       := bin/ruvio
VERSION   ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -X github.com/ruvio/ruvio/ruvio/server.BuildVersion=$(VERSION)
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
BENCH_ARGS ?=
BENCH_QUICK ?=

SCENARIO  ?= crash
BACKEND   ?= auto
CHAOS_ARGS ?=

FIGURE_RUNS ?= 3

.PHONY: build run test fuzz bench lint image release chaos figures partition-table compat-readme compat-deep clean

build:
	CGO_ENABLED=0 $(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/ruvio

# The data node on its embedded defaults: 127.0.0.1:6379, one shard, ./data.
run: build
	./$(BIN) server

# Unit, property and integration tests (real TCP clients: go-redis, and
# redis-cli where installed), with the race detector.
# The chaos runner's package runs a short form of every scenario with
# real processes; on a loaded 2-core machine it needs more than go test's
# default 10 minutes, so the limit is set here (CI's budget is 90).
test:
	$(GO) test -race -count=1 -timeout 30m ./...

# A bounded fuzzing pass over every decoder of bytes that come from the
# network or the disk (the coordinators' Raft entries and snapshots too), FUZZTIME each (seed corpora in the packages'
# testdata/ and in the fuzz functions). `make test` runs the seeds alone.
FUZZTIME ?= 30s
FUZZ_TARGETS := \
	./ruvio/resp/:FuzzReadCommand \
	./ruvio/wal/:FuzzSegment \
	./ruvio/wal/:FuzzFrameReader \
	./ruvio/repl/:FuzzDecoder \
	./ruvio/repl/:FuzzHandshake \
	./ruvio/snapshot/:FuzzLoad \
	./ruvio/config/:FuzzLoadFile \
	./ruvio/glob/:FuzzMatch \
	./coordinator/:FuzzFSMApply \
	./coordinator/:FuzzFSMRestore \
	./coordinator/:FuzzParseConfig

fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; fn=$${t##*:}; \
		echo "== $$fn ($$pkg, $(FUZZTIME))"; \
		$(GO) test $$pkg -run '^$$' -fuzz "^$$fn$$" -fuzztime $(FUZZTIME); \
	done

# ruvio against Debian's redis-server 7 on loopback, same redis-benchmark
# runs, one table of ops/s and ratios per durability profile: memory (no
# AOF) at every shard count, always and everysec (AOF with that fsync
# policy) at one shard, each row the median of three rounds (--rounds); e.g. BENCH_ARGS='--durability always' for one.
# redis-benchmark sends 200k requests per test at -P 1 and 1M at -P 16
# (--requests, --pipelined-requests), so every run lasts a second or more.
# Then replication, memory and always: primaries with 0, 1 and 2 replicas
# (SET/GET ops/s and ratios), and with 1 replica the lag under a SET load
# (positions in records/bytes, ms until a write is readable on the replica),
# twice: pass 1 while the primary's backlog is still filling, pass 2 after
# a SET load has filled it; all over 100k random keys (--replication-keys).
# Then durable writes (always, memory; 1 and 2 replicas): ruvio CLIENT
# DURABILITY REPLICAS k against redis SET + WAIT k 0, 8 and 50 clients,
# 1 and 32 SETs per round trip (ops/s, p50/p99 ms, ratios); BENCH_ARGS=
# '--durable none' skips it.
# Every redis-benchmark row also has the server's CPU seconds (user+sys,
# /proc/<pid>/stat) per million requests for both sides and their ratio.
# Then a pinned row (memory, 1 shard, SET/GET at -P 1 and 16, the server on
# CPU 0 and redis-benchmark on CPU 1 via taskset); a TLS row (SET/GET over
# redis-benchmark --tls, certificates for 127.0.0.1 made per run); a
# keyspace row (memory, 1 shard, SET/GET with redis-benchmark -r over 100k
# random keys); memory (bytes per key by used_memory and RSS: 1M 16-byte
# strings, 100k hashes and 100k sorted sets of 10); recovery with
# --durability always, 1M and 4M keys (restart from the WAL alone and
# after SAVE from the snapshot, against Redis's AOF replay and RDB load; a
# fresh replica's full copy at 1M). '--pinned none', '--tls none',
# '--keyspace none', '--memory none', '--recovery none' skip them.
# BENCH_QUICK=1 runs everything with fewer requests and keys, to try it out.
bench: build
	@command -v redis-server >/dev/null && command -v redis-benchmark >/dev/null || \
		(echo "installing redis-server and redis-tools"; apt-get update -qq && apt-get install -y -qq redis-server redis-tools)
	$(GO) run ./cmd/benchcmp --ruvio ./$(BIN) $(if $(BENCH_QUICK),--quick) $(BENCH_ARGS)

# One chaos scenario (chaos list shows them) with the Docker backend when
# an engine answers, else local processes; it prints which. Results go to
# results/<scenario>/<timestamp>/ (and results/<scenario>/latest).
chaos:
	$(GO) run ./cmd/chaos run $(SCENARIO) --backend $(BACKEND) $(CHAOS_ARGS)

# Every scenario that publishes figures, FIGURE_RUNS times each; rewrites
# the table between the markers of docs/figures.md (min/median/max), with
# the figures' definitions. About 45 minutes with 3 runs (the coordinator
# scenarios stall and coord-partition hold for 30 s each); BACKEND=local
# forces processes.
figures:
	$(GO) run ./cmd/chaos figures --runs $(FIGURE_RUNS) --backend $(BACKEND)

# The partition table: every fault shape against every protection, ruvio
# and Redis + Sentinel side by side, RUNS times per cell (default 1: about
# 50 minutes locally; RUNS=3 for the published table); rewrites the table
# between the markers of docs/partition-table.md and prints it. Exits 1
# when a cell breaks what the documentation promises. Needs redis-server
# (Debian: redis-server, redis-sentinel) for the Redis cells.
RUNS ?= 1
TABLE_ARGS ?=
partition-table:
	$(GO) run ./cmd/chaos table --runs $(RUNS) --backend $(BACKEND) $(TABLE_ARGS)

# The "Compatibility with Redis 7" section of README.md, between its
# markers: the Redis 7 commands ruvio does not implement (redis-server's
# COMMAND against ruvio's) and how many of ruvio's commands the
# differential tests exercise (they list what they send in
# COMPAT_COVERAGE). Needs redis-server.
COMPAT_COVERAGE ?= $(or $(TMPDIR),/tmp)/ruvio-compat-coverage.txt
compat-readme:
	rm -f $(COMPAT_COVERAGE)
	RUVIO_COMPAT_COVERAGE=$(COMPAT_COVERAGE) $(GO) test -count=1 -run 'MatchRedis|AsRedis' ./ruvio/server
	$(GO) run ./cmd/compatlist -coverage $(COMPAT_COVERAGE) -readme README.md

# The drawn differential tests against redis-server (random command
# sequences per family, drawn protocol requests, COMMAND GETKEYS of drawn
# commands) with COMPAT_CHECKS draws each instead of rapid's default 100,
# which `make test` runs: about 3 minutes per 1000. Needs redis-server.
COMPAT_CHECKS ?= 5000
compat-deep:
	$(GO) test -count=1 -timeout 120m -run 'TestRepliesMatchRedis|TestFamilyRepliesMatchRedis|TestDrawnRequestsAnswerAsRedis|TestGetKeysOfDrawnCommandsMatchRedis' \
		./ruvio/server -rapid.checks=$(COMPAT_CHECKS)

lint:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...
	@echo "building for macOS and Windows: the binary must keep building for every system a release ships"
	CGO_ENABLED=0 GOOS=darwin GOARCH=arm64 $(GO) build -o /dev/null ./cmd/ruvio
	CGO_ENABLED=0 GOOS=windows GOARCH=amd64 $(GO) build -o /dev/null ./cmd/ruvio

# The release binaries in dist/: ruvio (data node and coordinator) for
# Linux, macOS and Windows on amd64 and arm64, static (CGO_ENABLED=0),
# named ruvio-<version>-<os>-<arch>, with their SHA256SUMS.
RELEASE_TARGETS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
release:
	rm -rf dist && mkdir -p dist
	@set -e; for t in $(RELEASE_TARGETS); do \
		os=$${t%/*}; arch=$${t#*/}; ext=; if [ $$os = windows ]; then ext=.exe; fi; \
		out=dist/ruvio-$(VERSION)-$$os-$$arch$$ext; echo "$$out"; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $$out ./cmd/ruvio; \
	done
	cd dist && sha256sum ruvio-* > SHA256SUMS

# The node's container image, FROM scratch (no registry needed).
image: build
	docker build -t ruvio:$(VERSION) -t ruvio:latest -f docker/Dockerfile .

clean:
	rm -rf bin dist
