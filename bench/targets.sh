#!/usr/bin/env bash
# The last step of make bench: issue #15's four targets, each row appended to
# $BENCH_TARGETS by the script (or test) that measured it in this same run,
# written as one table into docs/BENCHMARKS.md between the bench:targets
# markers. A row that is missing (its step failed or was skipped) makes the
# table say so instead of keeping an older number.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
f=${BENCH_TARGETS:?BENCH_TARGETS: the rows make bench collected}
rows=$(cat "$f" 2>/dev/null || true)
n=$(printf '%s' "$rows" | grep -c '^|' || true)
missing=""
[ "$n" -eq 4 ] || missing=" **Only $n of the 4 rows were measured in this run: the table is incomplete.**"
met=$(printf '%s\n' "$rows" | grep -c '^|' || true)
notmet=$(printf '%s\n' "$rows" | awk -F'|' '$(NF-1) ~ /not met/' | wc -l)
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
table=$(
	cat <<EOT
<!-- bench:targets:start (written by bench/targets.sh at the end of make bench; edit the scripts, not this table) -->
\`make bench\` on $(date -u +%Y-%m-%d), $(${GO:-go} version | cut -d' ' -f3,4), $(nproc) CPUs ($(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || echo unknown)), load average $load at the end: every row below comes from this one run (the sections further down have each row's details).$missing

| work | finops | reference | result | target | verdict |
|---|---|---|---|---|---|
$rows

$([ "$notmet" -eq 0 ] && [ "$n" -eq 4 ] && echo "All four targets met in this run." || echo "Targets not met in this run: $notmet of $met measured.")
<!-- bench:targets:end -->
EOT
)
echo "$table"
write_section targets "Issue #15's targets, one run" "$table"
