#!/usr/bin/env bash
# Billing-ingest benchmark (make bench): `finops ingest` of a generated FOCUS
# export against `sqlite3 DB ".mode csv" ".import FILE raw"` of the same file,
# which only copies text into one table. Both run as child processes under
# /usr/bin/time -v, one at a time, BENCH_RUNS times each (median reported);
# peak RSS is the process's maximum resident set size. The table goes into
# docs/BENCHMARKS.md between the bench:ingest markers. The same export with
# every field quoted and a resource per row (focusgen -quote-all -distinct,
# issue #15) is measured the same way against sqlite3 .import of it.
#
#   BENCH_ROWS        rows of the main export (default 200000, about 150 MB)
#   BENCH_SMALL_ROWS  rows of the small export for the memory check (default BENCH_ROWS / 10)
#   BENCH_RUNS        runs per measurement (default 3)
#   BENCH_DIR         where the generated files go (default a temporary folder, removed after)
#   BENCH_NO_WRITE=1  print the table, leave docs/BENCHMARKS.md alone
set -euo pipefail
cd "$(dirname "$0")/.."

rows=${BENCH_ROWS:-200000}
small=${BENCH_SMALL_ROWS:-$((rows / 10))}
runs=${BENCH_RUNS:-3}
go=${GO:-go}

need() {
	if command -v "$1" >/dev/null 2>&1 || [ -x "$1" ]; then return; fi
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "bench: installing $2" >&2
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null
	else
		echo "bench: $1 is missing: apt-get install -y $2" >&2
		exit 1
	fi
}
need /usr/bin/time time
need sqlite3 sqlite3

. bench/lib.sh
bench_setup
prev=$(bench_prev)
for n in "$small" "$rows"; do
	if [ ! -s "$dir/focus-$n.csv" ]; then
		echo "bench: generating a FOCUS export of $n rows" >&2
		$go run ./bench/focusgen -rows "$n" -o "$dir/focus-$n.csv"
	fi
done
if [ ! -s "$dir/focus-quoted-$rows.csv" ]; then
	echo "bench: generating a quoted FOCUS export of $rows rows, a resource each" >&2
	$go run ./bench/focusgen -rows "$rows" -quote-all -distinct -o "$dir/focus-quoted-$rows.csv"
fi


: >"$dir/results"
for i in $(seq "$runs"); do
	echo "bench: run $i of $runs" >&2
	for n in "$rows" "$small"; do
		rm -f "$dir/finops.db" "$dir/finops.db-wal" "$dir/finops.db-shm"
		measure "finops-$n" bin/finops --db "$dir/finops.db" ingest "$dir/focus-$n.csv"
	done
	rm -f "$dir/sqlite.db"
	measure "sqlite3-$rows" sqlite3 "$dir/sqlite.db" ".mode csv" ".import $dir/focus-$rows.csv raw"
	# The previous release, side by side (bench_prev; issue #35's column).
	for n in "$rows" "$small"; do
		[ -n "$prev" ] || break
		rm -f "$dir/prev.db" "$dir/prev.db-wal" "$dir/prev.db-shm"
		measure "prev-$n" "$prev" --db "$dir/prev.db" ingest "$dir/focus-$n.csv"
	done
	rm -f "$dir/finops.db" "$dir/finops.db-wal" "$dir/finops.db-shm"
	measure "finops-quoted" bin/finops --db "$dir/finops.db" ingest "$dir/focus-quoted-$rows.csv"
	rm -f "$dir/sqlite.db"
	measure "sqlite3-quoted" sqlite3 "$dir/sqlite.db" ".mode csv" ".import $dir/focus-quoted-$rows.csv raw"
done


fw=$(median 2 "finops-$rows")
fr=$(median 3 "finops-$rows")
fc=$(median 4 "finops-$rows")
sw=$(median 2 "sqlite3-$rows")
sr=$(median 3 "sqlite3-$rows")
sc=$(median 4 "sqlite3-$rows")
smw=$(median 2 "finops-$small")
smr=$(median 3 "finops-$small")
mb=$(awk -v b="$(stat -c %s "$dir/focus-$rows.csv")" 'BEGIN { printf "%.0f", b / 1e6 }')
ratio=$(awk -v a="$fw" -v b="$sw" 'BEGIN { printf "%.2f", a / b }')
grow=$(awk -v a="$fr" -v b="$smr" 'BEGIN { printf "%.2f", a / b }')
lps=$(awk -v r="$rows" -v w="$fw" 'BEGIN { printf "%.0f", r / w }')
qw=$(median 2 finops-quoted)
qr=$(median 3 finops-quoted)
qc=$(median 4 finops-quoted)
qsw=$(median 2 sqlite3-quoted)
qsr=$(median 3 sqlite3-quoted)
qsc=$(median 4 sqlite3-quoted)
qmb=$(awk -v b="$(stat -c %s "$dir/focus-quoted-$rows.csv")" 'BEGIN { printf "%.0f", b / 1e6 }')
qratio=$(awk -v a="$qw" -v b="$qsw" 'BEGIN { printf "%.2f", a / b }')
verdict() { if awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; then echo "met"; else echo "**not met**"; fi; }
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")

# Issue #35's rows: time against sqlite3, and flat memory from 20k to 200k rows.
pw=- pr=- psr=- pratio=- pgrow=-
if [ -n "$prev" ]; then
	pw=$(median 2 "prev-$rows") pr=$(median 3 "prev-$rows") psr=$(median 3 "prev-$small")
	pratio=$(awk -v a="$pw" -v b="$sw" 'BEGIN { printf "%.2f", a / b }')
	pgrow=$(awk -v a="$pr" -v b="$psr" 'BEGIN { printf "%.2f", a / b }')
	pw="$pw s ($pratio×)" pr="$(mib "$pr") / $(mib "$psr") ($pgrow×)"
fi
bench_target "FOCUS ingest, $rows rows: \`finops ingest\` vs \`sqlite3 .import\` (time)" "$fw s" "$pw" "$sw s" "**$ratio×**" "≤ 0.9×" "$(pass "$ratio" '<=' 0.9)"
bench_target "FOCUS ingest peak RSS, $rows rows / $small rows" "$(mib "$fr") / $(mib "$smr")" "$pr" "\`sqlite3 .import\` $(mib "$sr")" "**$grow×**" "≤ 1.15×" "$(pass "$grow" '<=' 1.15)"
table=$(
	cat <<EOF
<!-- bench:ingest:start (written by bench/run.sh; edit the script, not this table) -->
\`make bench\` (bench/run.sh) on $(date -u +%Y-%m-%d), $($go version | cut -d' ' -f3,4), $(nproc) CPUs ($(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || echo unknown)), load average $load at the end; median of $runs runs:

| run | rows | wall | peak RSS | CPU (user+sys) |
|---|---:|---:|---:|---:|
| \`finops ingest\` | $rows ($mb MB) | $fw s ($lps lines/s) | $(mib "$fr") | $fc s |
| \`sqlite3 .import\` | $rows | $sw s | $(mib "$sr") | $sc s |
| \`finops ingest\` | $small | $smw s | $(mib "$smr") | |
| previous release (${BENCH_PREV:-5228183}) \`finops ingest\` | $rows / $small | $pw | $pr | |
| \`finops ingest\`, every field quoted, a resource per row | $rows ($qmb MB) | $qw s | $(mib "$qr") | $qc s |
| \`sqlite3 .import\` of it | $rows | $qsw s | $(mib "$qsr") | $qsc s |

- finops / sqlite3 time: **$ratio×** (issue #35's target ≤ 0.9×: $(pass "$ratio" '<=' 0.9))
- finops peak RSS for $rows rows: $(mib "$fr") (target < 150 MB: $(verdict "$fr" 146484))
- peak RSS for 10× the rows ($rows vs $small): **$grow×** (issue #35's target ≤ 1.15×: $(pass "$grow" '<=' 1.15))
- quoted export, finops / sqlite3 time: **$qratio×** (target ≤ 1.3×: $(verdict "$qratio" 1.3)); peak RSS $(mib "$qr") (target < 150 MB: $(verdict "$qr" 146484))
<!-- bench:ingest:end -->
EOF
)
echo "$table"

write_section ingest "Billing ingest" "$table"
