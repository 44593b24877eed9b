#!/usr/bin/env bash
# Year benchmark (make bench): a year of history for a 1,000-GPU fleet in one
# database, then the weekly report and the quarterly review over it. Inputs
# (bench/reportgen): the report benchmark's week (2026-W46: 200,000 billing
# lines, 2,016,000 nvidia-smi samples of 1,000 GPUs every 5 minutes) and the 51
# weeks before it as weekly FOCUS exports (42,000 instance-hour lines each).
# All of it goes through `finops ingest` (timed, one run), which compacts the
# week's telemetry into GPU-days as it would in production. The 51 earlier
# weeks of telemetry are written straight into gpu_days in that compacted
# form by reportgen -telemetry-db (ingesting 105 million more samples would
# take hours here), after it checks that its blobs for the ingested week equal
# finops' own byte for byte. Then, BENCH_RUNS times each under /usr/bin/time
# -v: `finops report --week 2026-W46 --format xlsx,html,json` (with the
# default 8-week trend, and again with `report.trend_weeks: 0`) and `finops
# review --quarter 2026Q4`. Also recorded: the database's size per table
# (sqlite3's dbstat), per GPU-year, and SQLite's query plans on it.
#
#   BENCH_RUNS        runs per measurement (default 3)
#   BENCH_DIR         where the generated files go (default a temporary folder, removed after)
#   BENCH_NO_WRITE=1  print the table, leave docs/BENCHMARKS.md alone
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${BENCH_RUNS:-3}
go=${GO:-go}
week=2026-W46
quarter=2026Q4
. bench/lib.sh
bench_need /usr/bin/time sqlite3
bench_setup
if [ ! -s "$dir/smi.csv" ] || [ ! -s "$dir/focus.csv" ] || [ ! -d "$dir/history" ]; then
	echo "bench: generating a year of 1,000 GPUs (1.8 GB of CSV)" >&2
	$go run ./bench/reportgen -o "$dir" -week "$week" -history 51
fi

: >"$dir/results"
db="$dir/year.db"
rm -f "$db" "$db-wal" "$db-shm"
echo "bench: ingesting 52 weekly exports and the week's telemetry" >&2
measure ingest bin/finops --db "$db" ingest --tz UTC "$dir/history" "$dir/focus.csv" "$dir/smi.csv"
$go run ./bench/reportgen -week "$week" -history 51 -telemetry-db "$db" >&2
# The same report without the weekly history (issue #27), to say what it costs.
printf 'report:\n  trend_weeks: 0\n' >"$dir/notrend.yaml"
for i in $(seq "$runs"); do
	echo "bench: run $i of $runs" >&2
	rm -rf "$dir/out"
	measure report bin/finops --db "$db" report --week "$week" --format xlsx,html,json --out "$dir/out"
	measure report0 bin/finops --db "$db" --config "$dir/notrend.yaml" report --week "$week" --format xlsx,html,json --out "$dir/out"
	measure review bin/finops --db "$db" review --quarter "$quarter" --out "$dir/out"
done

q() { sqlite3 "$db" "$1"; }
lines=$(q "SELECT count(*) FROM billing_lines")
days=$(q "SELECT count(*) FROM gpu_days")
minutes=$(q "SELECT count(*) FROM gpu_minutes")
gpus=$(q "SELECT count(*) FROM gpus")
# Bytes per table with its indexes (dbstat: the pages each b-tree holds).
tbl() { q "SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name = '$1' OR name IN (SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = '$1')"; }
tele=$(($(tbl gpu_days) + $(tbl gpu_minutes)))
bill=$(tbl billing_lines)
total=$(stat -c %s "$db")
gpuyears=$(awk -v d="$days" -v m="$minutes" 'BEGIN { printf "%.1f", (d + m / 1440) / 365 }')
per() { awk -v b="$1" -v n="$2" 'BEGIN { printf "%.2f MB", b / n / 1e6 }'; }
# The plans SQLite chooses on this database (no ANALYZE statistics, as finops
# leaves it) for the queries TestQueryPlans pins (internal/store/overlap.go, internal/store/series.go).
from=$(date -u -d 2026-10-12 +%s) # the report's lookback starts four weeks before 2026-W46 ends
plan() { q "EXPLAIN QUERY PLAN $1" | sed -n 's/^.*--//p; s/^QUERY PLAN$//p' | sed 's/^ *//' | grep . | paste -sd';' -; }
p_bound=$(plan "SELECT min(charge_start) FROM billing_lines INDEXED BY billing_lines_end WHERE charge_end >= $from")
p_lines=$(plan "SELECT * FROM billing_lines WHERE charge_start >= $from AND charge_start < $from + 3024000 AND (charge_end > $from OR (charge_end = charge_start AND charge_start >= $from)) ORDER BY charge_start, id")
p_days=$(plan "SELECT day, util FROM gpu_days WHERE gpu_id = 1 AND day >= 20400 AND day < 20440 ORDER BY day")

load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
# The review's targets (issue #15): peak RSS ≤ 300 MB, and time within 1.2× of
# the 16.54 s it took when the issue was filed (this table, 2026-11-30, at 984 MB).
rw=$(median 2 review)
rr=$(median 3 review)
rv=$(awk -v w="$rw" -v r="$rr" 'BEGIN { printf "%s, %s", (r * 1024 <= 300e6 ? "met" : "**not met**"), (w <= 1.2 * 16.54 ? "met" : "**not met**") }')
bench_target "quarterly review, 1,000 GPUs, a year in the database: \`finops review --quarter $quarter\`" "$rw s, $(mib "$rr")" "16.54 s, 984 MB (2026-11-30)" "**$(mib "$rr")**, $(awk -v w="$rw" 'BEGIN { printf "%.2f", w / 16.54 }')× the time" "≤ 300 MB, ≤ 1.2× the time" "$rv"
table=$(
	cat <<EOT
<!-- bench:year:start (written by bench/year.sh; edit the script, not this table) -->
\`make bench\` (bench/year.sh) on $(date -u +%Y-%m-%d), $($go version | cut -d' ' -f3,4), $(nproc) CPUs ($(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || echo unknown)), load average $load at the end; median of $runs runs. Database: $gpus GPUs, $gpuyears GPU-years of telemetry ($days GPU-days compacted, $minutes GPU-minutes not), $lines billing lines (a year of weekly FOCUS exports).

| run | wall | peak RSS | CPU (user+sys) |
|---|---:|---:|---:|
| \`finops ingest\` of 52 weekly exports and the week's 2,016,000 samples (one run) | $(median 2 ingest) s | $(mib "$(median 3 ingest)") | $(median 4 ingest) s |
| \`finops report --week $week --format xlsx,html,json\` (8-week trend, the default) | **$(median 2 report) s** | **$(mib "$(median 3 report)")** | $(median 4 report) s |
| the same with \`report.trend_weeks: 0\` (no trend) | $(median 2 report0) s | $(mib "$(median 3 report0)") | $(median 4 report0) s |
| \`finops review --quarter $quarter\` | **$(median 2 review) s** | **$(mib "$(median 3 review)")** | $(median 4 review) s |

| database | bytes | per GPU-year |
|---|---:|---:|
| whole file | $(mb "$db") | $(per "$total" "$gpuyears") |
| telemetry (gpu_days, gpu_minutes) | $(awk -v b="$tele" 'BEGIN { printf "%.1f MB", b / 1e6 }') | $(per "$tele" "$gpuyears") |
| billing lines with their indexes | $(awk -v b="$bill" 'BEGIN { printf "%.1f MB", b / 1e6 }') | $(per "$bill" "$gpuyears") |

- Targets (issue #15), peak RSS ≤ 300 MB and wall time ≤ 1.2 × 16.54 s (the review when the issue was filed): $rv.

Query plans on this database: lines' start bound \`$p_bound\`; lines \`$p_lines\`; a GPU's days \`$p_days\`.
<!-- bench:year:end -->
EOT
)
echo "$table"
write_section year "A year of history" "$table"
