#!/usr/bin/env bash
# Cold first build (make bench BENCH_COLD=1), issue #35: `make demo` — the
# README's first command — with an empty build cache (a fresh GOCACHE in a
# temporary folder; the module cache stays, as on a machine that has
# downloaded the modules: this machine cannot reach the module proxy), timed
# end to end under /usr/bin/time -v: the build of every package and the demo
# run. Target ≤ 2 minutes on 2 cores. Opt-in, since it compiles everything
# again (minutes, and all the cores).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bench_need /usr/bin/time
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "bench: cold make demo (empty GOCACHE in $dir)" >&2
GOCACHE=$dir/gocache measure cold-demo make --no-print-directory demo
w=$(median 2 cold-demo)
r=$(median 3 cold-demo)
c=$(median 4 cold-demo)
echo "bench: cold make demo $w s wall, $c s CPU, peak RSS $(mib "$r")" >&2
bench_target "cold \`make demo\` (empty GOCACHE, modules downloaded), $(nproc) CPUs" "$w s ($c s CPU, peak $(mib "$r"))" "-" "" "**$w s**" "≤ 120 s" "$(pass "$w" '<=' 120)"
