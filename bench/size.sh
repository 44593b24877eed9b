#!/usr/bin/env bash
# Binary weight (make bench): the size of the stripped binary `make build`
# writes (CGO_ENABLED=0, -trimpath, -ldflags '-s -w'), of this tree and of the
# previous release (bench_prev), and how many packages it links
# (`go list -deps`), against issue #35's ≤ 55 MB. docs/BENCHMARKS.md §Build
# weight says what each dependency costs; this is the one row of make bench's
# summary.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
go=${GO:-go}
mkdir -p bin
CGO_ENABLED=0 $go build -trimpath -ldflags '-s -w' -o bin/finops-stripped ./cmd/finops
size=$(stat -c %s bin/finops-stripped)
deps=$(CGO_ENABLED=0 $go list -deps ./cmd/finops | wc -l)
prev=$(bench_prev)
pcol=-
[ -z "$prev" ] || pcol=$(awk -v b="$(stat -c %s "$prev")" 'BEGIN { printf "%.1f MB", b / 1e6 }')
mb=$(awk -v b="$size" 'BEGIN { printf "%.1f", b / 1e6 }')
echo "bench: bin/finops stripped $mb MB, $deps packages (previous release: $pcol)" >&2
bench_target "binary \`make build\` writes, stripped ($deps packages linked)" "$mb MB" "$pcol" "" "**$mb MB**" "≤ 55 MB" "$(pass "$mb" '<=' 55)"
