#!/usr/bin/env bash
# 10,000 GPUs on one machine (issue #15; bench/, not CI, not make bench): a
# week of a 10,000-GPU fleet — 2,500 g5.12xlarge resources, nvidia-smi samples
# every minute (100.8 million rows, about 17 GB of CSV), 1,000,000 billing
# lines — through `finops ingest`, then `finops report --week` over that
# database; then a year of history for the same fleet added to the same file
# and the weekly report again. Targets: each report under 60 s and 1 GB.
#
# The history: 51 weekly FOCUS exports of FLEET_HISTORY_LINES lines each,
# generated, ingested through `finops ingest` and deleted one at a time (51
# at once would be 35 GB of CSV), and the 51 weeks of telemetry written as
# compacted gpu_days rows by reportgen -telemetry-db, which first checks that
# its blob for a day of the ingested week equals finops' own (as
# bench/year.sh; 357 million samples more through ingest would take hours).
# Before the year the script checks the free disk space against an estimate
# (5.9 KB a GPU-day, 340 bytes a billing line, measured on the 1,000-GPU
# year): when the year does not fit, it adds only the weeks that do, and the
# table says so and extrapolates the file size, labelled as such.
#
# Each run is a child process under /usr/bin/time -v. One last report over
# the year runs with --cpuprofile, and the share of its CPU in the store's
# queries (SQLite) is printed: where SQLite is the wall, in numbers.
#
#   FLEET_RESOURCES      resources of 4 GPUs (default 2500)
#   FLEET_STEP           sampling interval, 1m to 5m in whole minutes (default 1m)
#   FLEET_LINES          billing lines in the report week (default 1000000)
#   FLEET_WEEKS          history weeks before it (default 51: a year with the report week)
#   FLEET_HISTORY_LINES  billing lines per history week (default FLEET_LINES)
#   BENCH_RUNS           report runs per database (default 1)
#   BENCH_DIR            where the files go (default a temporary folder, removed after)
#   BENCH_NO_WRITE=1     print the table, leave docs/BENCHMARKS.md alone
#   FLEET_STOP=built     build the databases (the week, then the year) and stop
#                        before the reports; a later run with the same BENCH_DIR
#                        finds them (fleet-week.db, fleet.db, history.done) and
#                        only runs the reports, with the ingest rows measured
#                        when they were built. The build takes about an hour of
#                        both cores; the reports take minutes.
set -euo pipefail
cd "$(dirname "$0")/.."

resources=${FLEET_RESOURCES:-2500}
step=${FLEET_STEP:-1m}
lines=${FLEET_LINES:-1000000}
weeks=${FLEET_WEEKS:-51}
hlines=${FLEET_HISTORY_LINES:-$lines}
runs=${BENCH_RUNS:-1}
go=${GO:-go}
week=2026-W46
gpus=$((resources * 4))
. bench/lib.sh
bench_need /usr/bin/time sqlite3
bench_setup
db="$dir/fleet.db"
weekdb="$dir/fleet-week.db" # the week alone, kept for its report once the year is added
gen() { $go run ./bench/reportgen -resources "$resources" -step "$step" "$@"; }
built=""
if [ "${FLEET_STOP:-}" = built ] && [ -z "${BENCH_DIR:-}" ]; then
	echo "bench: FLEET_STOP=built needs BENCH_DIR (where the databases stay for the reports)" >&2
	exit 2
fi
if [ -s "$weekdb" ] && [ -e "$dir/history.done" ] && [ -s "$dir/results" ]; then
	built=1
	echo "bench: reusing the databases built on $(date -u -r "$dir/history.done" +%F) in $dir" >&2
	grep -v '^report' "$dir/results" >"$dir/results.tmp" && mv "$dir/results.tmp" "$dir/results"
	. "$dir/history.done"
else
	rm -f "$db" "$db-wal" "$db-shm" "$weekdb" "$dir/history.done"
	: >"$dir/results"
fi

# The week first needs its CSVs and their minute rows (164 bytes a sample of
# CSV, 52 a GPU-minute row, 684 a FOCUS line; measured at 1,000 GPUs).
samples=$((gpus * 10080 / ${step%m}))
need=$((samples * (164 + 52) + lines * (684 + 340)))
if [ -z "$built" ] && [ "$(df -B1 --output=avail "$dir" | tail -1)" -lt "$need" ]; then
	echo "bench: the week needs about $((need / 1000000000)) GB in $dir: free some, or set BENCH_DIR" >&2
	exit 1
fi
if [ -z "$built" ]; then
echo "bench: generating a week of $gpus GPUs every $step and $lines billing lines" >&2
gen -o "$dir/week" -week "$week" -lines "$lines"
smi_mb=$(mb "$dir/week/smi.csv")
focus_mb=$(mb "$dir/week/focus.csv")
measure ingest bin/finops --db "$db" ingest --tz UTC "$dir/week/focus.csv" "$dir/week/smi.csv"
rm -rf "$dir/week" # 17 GB the year needs
sqlite3 "$db" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
cp "$db" "$weekdb"
fi
report() {
	for i in $(seq "$runs"); do
		rm -rf "$dir/out"
		measure "$1" bin/finops --db "$2" report --week "$week" --format xlsx,html,json --out "$dir/out"
	done
}
week_db=$(stat -c %s "$weekdb")
[ "${FLEET_STOP:-}" = built ] || [ -n "$built" ] || report report-week "$weekdb"

# The year: what fits on the disk.
if [ -z "$built" ]; then
per_week=$((gpus * 7 * 5900 + hlines * 340))
free=$(df -B1 --output=avail "$dir" | tail -1)
fit=$(((free - 2 * 1024 * 1024 * 1024) / per_week))
added=$weeks
if [ "$fit" -lt "$weeks" ]; then
	added=$((fit < 0 ? 0 : fit))
	echo "bench: a year needs about $((weeks * per_week / 1000000000)) GB more, $((free / 1000000000)) GB are free: adding $added weeks" >&2
fi
ws=$(date -u -d "2026-01-05 + $(((10#${week#*-W} - 2) * 7)) days" +%F) # the week's Monday (2026-01-05 is 2026-W02's)
hist_wall=0
for w in $(seq "$added"); do
	wk=$(date -u -d "$ws - $((7 * w)) days" +%G-W%V)
	gen -o "$dir/hist" -week "$wk" -lines "$hlines" -smi=false >/dev/null
	measure "ingest-$w" bin/finops --db "$db" ingest --tz UTC "$dir/hist/focus.csv"
	rm -rf "$dir/hist"
done
t0=$(date +%s)
[ "$added" -eq 0 ] || gen -week "$week" -history "$added" -telemetry-db "$db" >&2
tele_s=$(($(date +%s) - t0))
printf 'smi_mb="%s"\nfocus_mb="%s"\nadded=%s\ntele_s=%s\nfree=%s\n' "$smi_mb" "$focus_mb" "$added" "$tele_s" "$free" >"$dir/history.done"
fi
if [ "${FLEET_STOP:-}" = built ]; then
	echo "bench: the databases are built in $dir; run bench/fleet.sh again with BENCH_DIR=$dir for the reports" >&2
	trap - EXIT
	exit 0
fi
[ -z "$built" ] || report report-week "$weekdb"
report report-year "$db"
bin/finops --db "$db" --quiet report --week "$week" --format xlsx,html,json --out "$dir/out" --cpuprofile "$dir/cpu.out" >/dev/null
# A function's cumulative share of the profile (EachLine is inlined: "(inline)" follows its name).
share() { $go tool pprof -top -cum bin/finops "$dir/cpu.out" 2>/dev/null | awk -v f="$1" 'index($0, " " f) { print $5; exit }'; }
# Held lines (store.Lines) below the report's hold threshold, streamed
# (store.EachLine, also what the Billing lines sheet reads) above it.
s_lines=$(share 'github.com/finops-oss/finops/store.(*Store).Lines')
s_each=$(share 'github.com/finops-oss/finops/store.(*Store).EachLine')
s_sum=$(share 'github.com/finops-oss/finops/store.(*Store).LineSummary')
s_series=$(share 'github.com/finops-oss/finops/store.(*Store).LoadSeries')
s_mutex=$($go tool pprof -top -cum bin/finops "$dir/cpu.out" 2>/dev/null | awk '/modernc.org\/libc.Xpthread_mutex_(lock|unlock)$/ { sub("%", "", $5); s += $5 } END { printf "%.1f%%", s }')
s_an=$(share 'github.com/finops-oss/finops/analysis.AnalyzeContext')
s_xlsx=$(share 'github.com/finops-oss/finops/report.writeXLSX')

q() { sqlite3 "$db" "$1"; }
nlines=$(q "SELECT count(*) FROM billing_lines")
days=$(q "SELECT count(*) FROM gpu_days")
year_db=$(stat -c %s "$db")
gpuyears=$(awk -v d="$days" 'BEGIN { printf "%.0f", d / 365 }')
hist_wall=$(awk '$1 ~ /^ingest-/ { s += $2 } END { printf "%.0f", s }' "$dir/results")
extrap=""
if [ "$added" -lt "$weeks" ]; then
	extrap=" **Only $added of the $weeks history weeks fit on this disk ($((free / 1000000000)) GB free): the year's file size below is extrapolated from the measured growth per week, not measured.** Extrapolated full-year file: $(awk -v a="$week_db" -v b="$year_db" -v n="$added" -v w="$weeks" 'BEGIN { printf "%.1f GB", (a + (b - a) / n * w) / 1e9 }')."
fi
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
# r is time's KiB; 1 GB is 10⁹ bytes, as the table's MB (mib) are 10⁶.
verdict() { awk -v s="$1" -v r="$2" 'BEGIN { if (s < 60 && r * 1024 < 1e9) print "met"; else print "**not met**" }'; }
table=$(
	cat <<EOT
<!-- bench:fleet:start (written by bench/fleet.sh; edit the script, not this table) -->
\`bench/fleet.sh\` on $(date -u +%Y-%m-%d), $($go version | cut -d' ' -f3,4), $(nproc) CPUs ($(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || echo unknown)), $(free -g | awk '/Mem:/ { print $2 }') GiB memory, load average $load at the end; median of $runs runs. $gpus GPUs ($resources resources), samples every $step ($smi_mb of nvidia-smi CSV), $lines billing lines in the week ($focus_mb FOCUS export).$extrap

| run | wall | peak RSS | CPU (user+sys) |
|---|---:|---:|---:|
| \`finops ingest\` of the week (both files, one run) | $(median 2 ingest) s | $(mib "$(median 3 ingest)") | $(median 4 ingest) s |
| \`finops report --week $week\`, database of the week ($(awk -v b="$week_db" 'BEGIN { printf "%.1f GB", b / 1e9 }')) | **$(median 2 report-week) s** | **$(mib "$(median 3 report-week)")** | $(median 4 report-week) s |
| \`finops ingest\` of $added history weeks' exports, one run each (sum) | $hist_wall s | | |
| reportgen -telemetry-db: $added weeks of GPU-days | $tele_s s | | |
| \`finops report --week $week\`, the year ($(awk -v b="$year_db" 'BEGIN { printf "%.1f GB", b / 1e9 }'), $nlines lines, $days GPU-days ≈ $gpuyears GPU-years) | **$(median 2 report-year) s** | **$(mib "$(median 3 report-year)")** | $(median 4 report-year) s |

- Targets, report under 60 s and 1 GB: over the week $(verdict "$(median 2 report-week)" "$(median 3 report-week)"); over the year $(verdict "$(median 2 report-year)" "$(median 3 report-year)").
- Where the report over the year spends its CPU (profile, cumulative): the analysis $s_an, the workbook $s_xlsx. SQLite's part: \`store.EachLine\` (the lines streamed to the analysis and to the Billing lines sheet) $s_each, \`store.Lines\` (lines held, below the report's hold threshold) ${s_lines:-0%}, \`store.LineSummary\` (their count, extent and currencies) $s_sum, \`store.LoadSeries\` (the lookback's telemetry, a GPU at a time) $s_series; of these, the driver's per-call connection mutex (modernc \`Xpthread_mutex_lock\`/\`unlock\`) $s_mutex.
<!-- bench:fleet:end -->
EOT
)
echo "$table"
write_section fleet "10,000 GPUs on one machine" "$table"
