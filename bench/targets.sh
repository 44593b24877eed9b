#!/usr/bin/env bash
# The last step of make bench: issue #35's targets, each row appended to
# $BENCH_TARGETS by the script (or test) that measured it in this same run,
# written as one table into docs/BENCHMARKS.md between the bench:targets
# markers, with the machine, the date and the Go version. The rows are
# sorted by the order below (the table's structure does not depend on which
# step finished first); a row that is missing (its step failed) is named as
# missing instead of keeping an older number.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
f=${BENCH_TARGETS:?BENCH_TARGETS: the rows make bench collected}
# Each expected row: a pattern of its first column, and what to call it when missing.
expected=(
	'FOCUS ingest, .* rows:|FOCUS ingest time vs sqlite3 (bench/run.sh)'
	'FOCUS ingest peak RSS|FOCUS ingest peak RSS 200k / 20k (bench/run.sh)'
	'nvidia-smi samples every 15 s|1M nvidia-smi samples vs sqlite3 (TestIngestSMIBenchmark)'
	'weekly report|the weekly report vs pandas + openpyxl (bench/report.sh)'
	'binary `make build` writes|stripped binary size (bench/size.sh)'
	'cold `make demo`|cold make demo (bench/cold.sh, BENCH_COLD=1)'
	'second pull|incremental second pull (bench/incr.sh)'
	'cold `.ci/run`|cold .ci/run (bench/ci.sh, BENCH_CI=1)'
)
rows="" missing=""
for e in "${expected[@]}"; do
	row=$(grep -E -- "^\|[^|]*${e%%|*}" "$f" 2>/dev/null | tail -1 || true)
	if [ -z "$row" ] && [ "${e%%|*}" = 'cold `make demo`' ] && [ "${BENCH_COLD:-}" != 1 ]; then
		row="| cold \`make demo\` (empty GOCACHE, modules downloaded) | - | - | | - | ≤ 120 s | SKIP: opt-in, \`make bench BENCH_COLD=1\` (compiles every package again) |"
	elif [ -z "$row" ] && [ "${e%%|*}" = 'cold `.ci/run`' ] && [ "${BENCH_CI:-}" != 1 ]; then
		row="| cold \`.ci/run\` (fresh clone, empty module and build caches, CI=true) | - | - | | - | ≤ 20 min | SKIP: opt-in, \`make bench BENCH_CI=1\` (about 20 minutes, every server built from source) |"
	elif [ -z "$row" ]; then
		missing="$missing ${e#*|};"
		row="| ${e#*|} | | | | | | **not measured in this run** |"
	fi
	rows="$rows$row"$'\n'
done
pass=$(printf '%s' "$rows" | awk -F'|' '$(NF-1) ~ /PASS/ && $(NF-1) !~ /MISS/' | wc -l)
miss=$(printf '%s' "$rows" | awk -F'|' '$(NF-1) ~ /MISS|not measured/' | wc -l)
skip=$(printf '%s' "$rows" | awk -F'|' '$(NF-1) ~ /SKIP/' | wc -l)
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
mem=$(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo 2>/dev/null || echo "? GiB")
table=$(
	cat <<EOT
<!-- bench:targets:start (written by bench/targets.sh at the end of make bench; edit the scripts, not this table) -->
\`make bench\` on $(date -u +%Y-%m-%d), $(${GO:-go} version | cut -d' ' -f3,4), commit $(git rev-parse --short HEAD 2>/dev/null || echo "?")$(git diff --quiet HEAD 2>/dev/null || echo " (modified)"), $(nproc) CPUs ($(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || echo unknown)), $mem, load average $load at the end: every row comes from this one run (the sections below have each row's details). "Previous" is the release before issue #35's work (\`BENCH_PREV\`, default 5228183), built and run side by side in the same run.

| work | this tree | previous | reference | result | target | verdict |
|---|---|---|---|---|---|---|
$rows
$pass passed, $miss missed or not measured, $skip skipped.${missing:+ Not measured in this run:$missing}
<!-- bench:targets:end -->
EOT
)
echo "$table"
write_section targets "Issue #35's targets, one run" "$table"
