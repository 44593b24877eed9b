#!/usr/bin/env bash
# Incremental pulls (make bench), issue #35: the second pull of an unchanged
# 10,000-object prefix must finish in < 5 s with no download. The benchmark
# itself belongs to the incremental-pull work (a Go benchmark named
# BenchmarkSecondPull…, in whichever package holds the pull): this step runs
# every such benchmark once (-benchtime 1x) and reports the slowest, or says
# in the summary that the tree has none yet instead of leaving the row out.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
go=${GO:-go}
pkgs=$({ grep -rl --include='*_test.go' '^func BenchmarkSecondPull' . || true; } | xargs -r -n1 dirname | sort -u)
work="second pull of an unchanged 10,000-object prefix (\`go test -bench BenchmarkSecondPull\`)"
if [ -z "$pkgs" ]; then
	echo "bench: no BenchmarkSecondPull in this tree: the incremental-pull row is skipped" >&2
	bench_target "$work" "-" "-" "" "-" "< 5 s, no download" "SKIP: no BenchmarkSecondPull in this tree"
	exit 0
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# shellcheck disable=SC2086 # one argument per package
$go test -v -run '^$' -bench '^BenchmarkSecondPull' -benchtime 1x $pkgs | tee "$out" >&2
# -v prints a skip (--- SKIP); "BenchmarkSecondPull/s3-2  1  1234567 ns/op …": the slowest sub-benchmark decides.
worst=$(awk '/^BenchmarkSecondPull/ { for (i = 1; i < NF; i++) if ($(i+1) == "ns/op" && $i > w) { w = $i; n = $1 } } END { if (n != "") printf "%.2f %s\n", w / 1e9, n }' "$out")
if [ -z "$worst" ]; then
	# A benchmark that skipped (its servers not installed) measured nothing: SKIP with its reason, not MISS.
	if grep -q -- '--- SKIP' "$out"; then
		bench_target "$work" "-" "-" "" "-" "< 5 s, no download" "SKIP: the benchmark skipped (a server not installed: its output says which)"
	else
		bench_target "$work" "-" "-" "" "-" "< 5 s, no download" "**MISS**: the benchmark printed no ns/op"
	fi
	exit 0
fi
set -- $worst
bench_target "$work" "$1 s (slowest: $2)" "-" "" "**$1 s**" "< 5 s, no download" "$(pass "$1" '<' 5)"
