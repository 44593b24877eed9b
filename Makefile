# finops — the two commands of the README's quick start are `make demo` and `make test`.
GO      ?= go
BIN     := bin/finops
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)
FUZZTIME ?= 15s
FUZZPKGS ?= ./...
FUZZFLAGS ?=

.PHONY: all build assets install demo test vet lint fmt-check test-fuzz bench clean

all: build

## assets: update the committed ECharts library the HTML report inlines: checks it against its sha256 and,
## when it differs (or UPDATE_HASH=1 for a new version), fetches the npm release (needs npm; fails without it)
assets:
	@bash internal/templates/fetch-echarts.sh

## build: the static, pure-Go finops binary in bin/ (everything but collect nvml)
build:
	@echo "make: building $(BIN) $(VERSION) (a cold build compiles every dependency first: a minute or two)"
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/finops

## build-nvml: bin/finops-nvml, the cgo build with the NVML sampler (finops collect nvml) for GPU hosts.
## go-nvml's headers mark a few NVML calls deprecated; those gcc warnings are silenced, not ours.
NVML_CGO_CFLAGS := -O2 -g -Wno-deprecated-declarations
.PHONY: build-nvml test-nvml
build-nvml:
	@echo "make: building bin/finops-nvml with -tags nvml (cgo, needs gcc)"
	CGO_ENABLED=1 CGO_CFLAGS='$(NVML_CGO_CFLAGS)' $(GO) build -tags nvml -trimpath -ldflags '$(LDFLAGS)' -o bin/finops-nvml ./cmd/finops

## test-nvml: build, vet and test the NVML sampler as the tagged build compiles it (the default build leaves it
## out). Built without build-nvml's -trimpath, which is part of every package's build-cache key: with it, every
## package make test just compiled would be compiled again; without it only those the tag changes are. The
## build only checks that it links: -ldflags='-s -w' skips writing DWARF (3 s of CPU less, measured), and
## -ldflags, unlike -trimpath, is the link's alone, in no compiled package's build-cache key.
test-nvml:
	CGO_ENABLED=1 CGO_CFLAGS='$(NVML_CGO_CFLAGS)' $(GO) build -tags nvml -ldflags='-s -w' -o /dev/null ./cmd/finops
	CGO_ENABLED=1 CGO_CFLAGS='$(NVML_CGO_CFLAGS)' $(GO) vet -tags nvml ./internal/ingest/nvml ./internal/cli ./e2e ./cmd/finops
	CGO_ENABLED=1 CGO_CFLAGS='$(NVML_CGO_CFLAGS)' $(GO) test -tags nvml -count=1 ./internal/ingest/nvml
	CGO_ENABLED=1 CGO_CFLAGS='$(NVML_CGO_CFLAGS)' $(GO) test -tags nvml -count=1 -run '^(TestCollectNVMLWithoutGPU|TestNVMLSpoolWeekSameNumbers)$$' ./e2e

## install: bin/finops as $(BINDIR)/finops, so the README's `finops …` commands run by name. BINDIR is
## $(PREFIX)/bin when PREFIX is set (make install PREFIX=/usr/local), else where `go install` puts binaries:
## $(go env GOBIN), or the first $(go env GOPATH)'s bin. DESTDIR stages a package.
PREFIX ?=
BINDIR ?= $(if $(PREFIX),$(PREFIX)/bin,$(or $(shell $(GO) env GOBIN),$(firstword $(subst :, ,$(shell $(GO) env GOPATH)))/bin))
.PHONY: install
install: build
	@bindir='$(BINDIR)'; set -e; \
	echo "make: installing $(BIN) as $(DESTDIR)$$bindir/finops"; \
	install -d "$(DESTDIR)$$bindir"; \
	install -m 0755 '$(BIN)' "$(DESTDIR)$$bindir/finops"; \
	case ":$$PATH:" in *":$$bindir:"*) ;; *) echo "make: $$bindir is not on PATH: add it (export PATH=\"$$bindir:\$$PATH\") to run finops by name";; esac

## demo: generate a realistic fleet, run the whole pipeline, write out/finops-<week>.{xlsx,html,json}. Built as
## bin/finops-demo without the cloud storage clients (-tags finops_nocloud: no AWS, Azure or Google SDK, a fifth
## of a cold build), which the demo never uses; bin/finops (make build) has everything.
DEMO_BIN ?= bin/finops-demo
DEMO_OUT ?= out
## Static and -trimpath, as make build. Both are part of every compiled package's build-cache key (the standard
## library's too), so e2e TestDemoBuildLeavesCloudOut clears them (DEMO_CGO= DEMO_TRIMPATH=): make demo there
## links the packages make test and make vet just compiled instead of compiling all 438 again (about 200 s of
## CPU on a cold CI run, measured as make bench's cold make demo).
DEMO_CGO ?= 0
DEMO_TRIMPATH ?= -trimpath
demo:
	@echo "make: building $(DEMO_BIN), the demo's build (no cloud storage clients; a cold build compiles every dependency first: about a minute and a half on 2 cores)"
	CGO_ENABLED=$(DEMO_CGO) $(GO) build -tags finops_nocloud $(DEMO_TRIMPATH) -ldflags '$(LDFLAGS)' -o $(DEMO_BIN) ./cmd/finops
	@echo "make: running $(DEMO_BIN) demo --out $(DEMO_OUT)"
	$(DEMO_BIN) demo --out $(DEMO_OUT)

## test: formatting, vet, lint and every test (what CI runs). go test's output is summarised by
## internal/testsummary: a line per package, failing tests' output, and last every skipped test with
## what it needs (a server or browser not installed here) and how to install it.
# LINT=: .ci/run runs make lint on its own, beside the builds that precede make test.
LINT ?= lint
test: fmt-check vet $(LINT)
	@echo "make: go test -count=1 ./... (a cold run compiles every package first; the skipped tests are listed at the end)"
	GO=$(GO) $(GO) run ./internal/testsummary -count=1 ./...

vet:
	$(GO) vet ./...
	$(GO) vet -tags finops_nocloud ./internal/objstore ./cmd/finops

## lint: staticcheck ./... and deadcode -test ./..., pinned in scripts/lint.sh (scripts/lint.sh install gets them).
## deadcode's rule: every function is reached from the finops binary or from a test; one that only tests reach
## may stay (a test helper, an API a test drives), one that nothing reaches is deleted. A missing linter is
## skipped with its install command here and fails CI (CI=true), as a missing real server does.
lint:
	GO=$(GO) bash scripts/lint.sh

fmt-check:
	@out="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))"; \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

## test-fuzz: every Fuzz* target of every package (FUZZPKGS: ./...) for FUZZTIME each, one at a time (a fuzz run takes one
## target); stops at the first failure and names it. The targets are read from the test files go list names (each
## func Fuzz... at the start of a line, as go test -list finds them): go test -list would link and run every package's
## test binary first, about 100 s of CPU for ./... (measured). The failing input lands in PKG/testdata/fuzz/NAME/.
## Each package's instrumented test binary is built once (go test -c -fuzz) and run once per target in the
## package's folder, as go test runs it, with go test's corpus cache: go test -fuzz per target would link it
## again for every target. -ldflags='-s -w': go test -c keeps the symbol table and DWARF, which plain go test
## (and go test -fuzz) drop; neither the fuzzer nor a failure's stack trace (pclntab) reads them. FUZZFLAGS:
## more go test flags for those builds (.ci/run's smoke pass compiles the dependencies with -N -l). Go 1.26's coordinator can end a clean run with a bare "context deadline exceeded"
## at the fuzztime boundary (go.dev/issue/75804, fixed in Go 1.27): with no failing input written, that is
## reported and not a failure.
test-fuzz:
	@files="$$($(GO) list -f '{{$$p := .}}{{range .TestGoFiles}}{{$$p.ImportPath}} {{.}} {{$$p.Dir}}{{"\n"}}{{end}}{{range .XTestGoFiles}}{{$$p.ImportPath}} {{.}} {{$$p.Dir}}{{"\n"}}{{end}}' $(FUZZPKGS))" || \
		{ echo "$$files"; echo "test-fuzz: go list failed"; exit 1; }; \
	targets="$$(echo "$$files" | while read -r pkg f dir; do [ -n "$$f" ] || continue; \
		sed -n 's/^func \(Fuzz\([^a-z(][A-Za-z0-9_]*\)\{0,1\}\)(.*/\1/p' "$$dir/$$f" | while read -r t; do echo "$$pkg $$t $$dir"; done; done)"; \
	echo "test-fuzz: $$(echo "$$targets" | grep -c .) targets, $(FUZZTIME) each"; \
	tmp="$$(mktemp -d)"; trap 'rm -rf "$$tmp"' EXIT; log="$$tmp/log"; fuzzcache="$$($(GO) env GOCACHE)/fuzz"; \
	echo "$$targets" | while read -r pkg t dir; do \
		[ -n "$$t" ] || continue; \
		bin="$$tmp/$$(echo "$$pkg" | tr / _).test"; \
		if [ ! -x "$$bin" ]; then \
			echo "test-fuzz: building $$pkg's instrumented test binary"; \
			$(GO) test -c -fuzz . -ldflags='-s -w' $(FUZZFLAGS) -o "$$bin" "$$pkg" || { echo "test-fuzz: FAIL building $$pkg"; exit 1; }; \
		fi; \
		echo "fuzz $$pkg $$t ($(FUZZTIME))"; \
		if (cd "$$dir" && "$$bin" -test.run '^$$' -test.fuzz "^$$t$$" -test.fuzztime $(FUZZTIME) -test.timeout 10m \
			-test.fuzzcachedir "$$fuzzcache/$$pkg") >"$$log" 2>&1; then cat "$$log"; \
		elif grep -qx '    context deadline exceeded' "$$log" && \
			! grep -q 'Failing input written\|failure while testing seed corpus' "$$log"; then \
			cat "$$log"; echo "test-fuzz: $$t: Go's fuzztime deadline race (go.dev/issue/75804), no failing input: not a finding"; \
		else cat "$$log"; echo "test-fuzz: FAIL $$t in $$pkg"; exit 1; fi; \
	done

## bench: issue #35's targets side by side in one run, with the previous release (BENCH_PREV, default 5228183)
## as a column: FOCUS ingest of 20k and 200k rows and 1M nvidia-smi samples vs sqlite3 .import, the weekly
## report vs pandas + openpyxl, the stripped binary's size, the incremental second pull (BenchmarkSecondPull,
## when the tree has it), with BENCH_COLD=1 a cold `make demo` and with BENCH_CI=1 a cold `.ci/run` of HEAD on a
## fresh clone (about 20 minutes); bench/targets.sh writes the summary into
## docs/BENCHMARKS.md (§Issue #35's targets), each script its own section. BENCH_RUNS runs each (median;
## default 3). BENCH_ALL=1 also runs every Go benchmark, the Prometheus fetch and the year of history.
# A step that fails (a target test that fails, a tool missing) does not stop
# the others (the leading -): its row is then named missing in the summary.
BENCH_COLD ?=
BENCH_CI ?=
BENCH_ALL ?=
bench: export BENCH_TARGETS = $(CURDIR)/bin/bench-targets.md
bench:
	mkdir -p bin && : >"$$BENCH_TARGETS"
	-GO=$(GO) bash bench/size.sh
	-GO=$(GO) bash bench/run.sh
	# telemetry: 1,000,000 nvidia-smi samples every 15 s, and 1,002,240 once a minute over 87 old days, vs sqlite3 .import, peak RSS at 100k and 1M (docs/BENCHMARKS.md §Telemetry)
	-FINOPS_BENCH_SMI=1 $(GO) test ./e2e -run '^TestIngestSMIBenchmark$$' -count=1 -v
	-GO=$(GO) bash bench/report.sh
	-GO=$(GO) bash bench/incr.sh
ifeq ($(BENCH_COLD),1)
	-GO=$(GO) bash bench/cold.sh
endif
ifeq ($(BENCH_CI),1)
	-GO=$(GO) bash bench/ci.sh
endif
ifeq ($(BENCH_ALL),1)
	-$(GO) test -run '^$$' -bench . -benchmem ./...
	# Prometheus: a week of 1,000 GPUs from a promtool-backfilled server, concurrent_days 1 and 4: time, heap, answer sizes (§Prometheus)
	-FINOPS_BENCH_PROM=1 $(GO) test ./internal/ingest/prom -run '^TestFetchWeekPeakHeap$$' -count=1 -v -timeout 30m
	# a year of 1,000 GPUs: the weekly report and the quarterly review over it, database size per GPU-year (§A year of history)
	-GO=$(GO) bash bench/year.sh
endif
	GO=$(GO) bash bench/targets.sh

clean:
	rm -rf bin out

## screenshots: the demo's HTML report and email as PNGs (the first screen at 1400×900, desktop 1280 px and phone
## 390 px wide) and the workbook's printed Summary page (LibreOffice), in out/screenshots/, which git ignores
## (needs chromium; the printed page needs soffice and pdftoppm). `make screenshots UPDATE=1` also copies the
## ones the README shows over the tracked docs/screenshots/; without it nothing tracked changes.
.PHONY: screenshots
screenshots: demo
	@bash scripts/screenshots.sh out
ifeq ($(UPDATE),1)
	@mkdir -p docs/screenshots
	@for f in report-first-screen email-phone workbook-print-summary; do \
		if [ -f out/screenshots/$$f.png ]; then cp out/screenshots/$$f.png docs/screenshots/; echo "updated docs/screenshots/$$f.png"; fi; done
else
	@echo "screenshots: in out/screenshots/; run make screenshots UPDATE=1 to update the README's in docs/screenshots/"
endif

## bench-report: the workbook over 1,000 GPUs and 200,000 billing lines: time, and peak RSS in child processes (docs/BENCHMARKS.md §Reports)
.PHONY: bench-report
bench-report:
	$(GO) test ./internal/report -run '^$$' -bench 'WriteXLSX200kLines' -benchtime 1x -benchmem
	FINOPS_BENCH_RSS=1 $(GO) test ./internal/report -run '^TestWorkbookPeakRSS$$' -count=1 -v

## test-faults: the fault suite (docs/OPERATIONS.md): Prometheus down/503/slow/partial, S3 down, SMTP refusing and
## stalling, kill -9 mid-run, two runs at once, disk full while writing the reports, bad files rolled back.
## All of it also runs in `make test`; this target runs just these, by name.
FAULT_TESTS := ^(TestPrometheusFaults|TestFetchDayFaults|TestFetchDaysStops|TestRunPublish|TestS3Down|TestSMTPDeadline|TestSMTPRefusesRecipients|TestRunLockExcludes|TestRunLockSurvivesKill|TestLedgerInterruptedSend|TestImportCancelledAmidBatches|TestImportParseErrorRollsBack|TestCheckIntegrityRejectsDamage|TestFaultDiskFull|TestBadFileLeavesDatabaseUnchanged|TestFaultPublishMidTransfer|TestSMTPClosedMidData|TestFaultKilledMidIngest|TestFaultSMIClockSkew)$$
.PHONY: test-faults
test-faults:
	$(GO) test -count=1 -run '$(FAULT_TESTS)' ./e2e ./internal/publish ./internal/ingest/prom ./internal/store

## test-hostile: the hostile-input suite (e2e/hostile_test.go); HOSTILE_LINE_MB sets the one-line file's size
HOSTILE_LINE_MB ?= 64
.PHONY: test-hostile
test-hostile:
	FINOPS_HOSTILE_LINE_MB=$(HOSTILE_LINE_MB) $(GO) test -count=1 -run '^TestHostile' -v ./e2e

## test-all: everything slow too: make test, the fault suite, the hostile suite with a 2 GB one-line file, the fuzzers
.PHONY: test-all
test-all: test test-faults
	$(MAKE) test-hostile HOSTILE_LINE_MB=2048
	$(MAKE) test-fuzz
