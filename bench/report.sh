#!/usr/bin/env bash
# Report benchmark (make bench): `finops report --week W --format xlsx,html,json`
# over a week of 1,000 GPUs (250 g5.12xlarge) and 200,000 billing lines, against
# bench/pandas_report.py, which builds the same workbook with pandas + openpyxl
# from the same input files (bench/reportgen: a FOCUS export and nvidia-smi
# samples every 5 minutes). finops reads the database `finops ingest` made of
# those files (the ingest is timed too, on its own row); pandas reads the CSVs.
# Every run is a child process under /usr/bin/time -v, one at a time,
# BENCH_RUNS times each (median reported); peak RSS is the process's maximum
# resident set size. The pandas script runs in openpyxl's normal mode (what a
# notebook's DataFrame.to_excel does) each round, and once in its write_only
# mode with BENCH_PANDAS_WO=1. The previous release (bench_prev) ingests the
# same files into its own database and reports over it in each round.
# The table goes into docs/BENCHMARKS.md between the bench:report markers.
#
#   BENCH_RUNS        runs per measurement (default 3; BENCH_REPORT_RUNS overrides it here)
#   BENCH_DIR         where the generated files go (default a temporary folder, removed after)
#   BENCH_NO_WRITE=1  print the table, leave docs/BENCHMARKS.md alone
#   PYTHON            the Python with pandas and openpyxl (default /usr/bin/python3: Debian's
#                     python3-pandas and python3-openpyxl, installed with apt-get when missing)
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${BENCH_REPORT_RUNS:-${BENCH_RUNS:-3}}
go=${GO:-go}
py=${PYTHON:-/usr/bin/python3}
week=2026-W46

if ! [ -x /usr/bin/time ] || ! "$py" -c 'import pandas, openpyxl' 2>/dev/null; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "bench: installing time, python3-pandas, python3-openpyxl" >&2
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time python3-pandas python3-openpyxl >/dev/null
	else
		echo "bench: need /usr/bin/time and $py with pandas and openpyxl: apt-get install -y time python3-pandas python3-openpyxl" >&2
		exit 1
	fi
fi

. bench/lib.sh
bench_setup
prev=$(bench_prev)
if [ ! -s "$dir/smi.csv" ] || [ ! -s "$dir/focus.csv" ]; then
	echo "bench: generating a week of 1,000 GPUs and 200,000 billing lines" >&2
	$go run ./bench/reportgen -o "$dir" -week "$week"
fi


: >"$dir/results"
# The ingest is not part of the comparison (pandas' CSV reading is): one run, for the record.
rm -f "$dir/finops.db" "$dir/finops.db-wal" "$dir/finops.db-shm"
measure ingest bin/finops --db "$dir/finops.db" ingest --tz UTC "$dir/focus.csv" "$dir/smi.csv"
if [ -n "$prev" ]; then # the previous release reads the database it made itself
	rm -f "$dir/prev.db" "$dir/prev.db-wal" "$dir/prev.db-shm"
	measure prev-ingest "$prev" --db "$dir/prev.db" ingest --tz UTC "$dir/focus.csv" "$dir/smi.csv"
fi
for i in $(seq "$runs"); do
	echo "bench: run $i of $runs" >&2
	rm -rf "$dir/out"
	measure report bin/finops --db "$dir/finops.db" report --week "$week" --format xlsx,html,json --out "$dir/out"
	if [ -n "$prev" ]; then
		rm -rf "$dir/prev-out"
		measure prev-report "$prev" --db "$dir/prev.db" report --week "$week" --format xlsx,html,json --out "$dir/prev-out"
	fi
	measure pandas "$py" bench/pandas_report.py "$dir" "$dir/pandas.xlsx"
	# write_only mode is for the record, not a target: one run, and only with
	# BENCH_PANDAS_WO=1 (it takes a minute).
	if [ "$i" = 1 ] && [ "${BENCH_PANDAS_WO:-}" = 1 ]; then
		measure pandas-wo "$py" bench/pandas_report.py "$dir" "$dir/pandas-wo.xlsx" --write-only
	fi
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }
for l in ingest report pandas pandas-wo prev-ingest prev-report; do
	if grep -q "^$l " "$dir/results"; then
		eval "w_${l//-/_}=\$(median 2 $l) r_${l//-/_}=\$(median 3 $l) c_${l//-/_}=\$(median 4 $l)"
	else
		eval "w_${l//-/_}=0 r_${l//-/_}=0 c_${l//-/_}=0"
	fi
done
# A step not run has no figures: its row says so rather than show zeros.
worow="| pandas + openpyxl, \`write_only\` mode (one run) | not run (\`BENCH_PANDAS_WO=1\` runs it) | | | |"
if grep -q "^pandas-wo " "$dir/results"; then
	worow="| pandas + openpyxl, \`write_only\` mode (one run) | $w_pandas_wo s | $(mib "$r_pandas_wo") | $c_pandas_wo s | xlsx $(mb "$dir/pandas-wo.xlsx") |"
fi
tw=$(ratio "$w_pandas" "$w_report")
tr=$(ratio "$r_pandas" "$r_report")
twi=$(awk -v a="$w_pandas" -v b="$w_report" -v c="$w_ingest" 'BEGIN { printf "%.1f", a / (b + c) }')
wo="not run (BENCH_PANDAS_WO=1 runs it)"
[ "$w_pandas_wo" = 0 ] || wo="$(ratio "$w_pandas_wo" "$w_report")× the time, $(ratio "$r_pandas_wo" "$r_report")× the memory"
pcol=- prow="| previous release (${BENCH_PREV:-5228183}) | not built | | | |"
if [ "$w_prev_report" != 0 ]; then
	pcol="$w_prev_report s, $(mib "$r_prev_report") ($(ratio "$w_pandas" "$w_prev_report")×, $(ratio "$r_pandas" "$r_prev_report")×)"
	prow="| previous release (${BENCH_PREV:-5228183}) \`finops report\`, its own ingest | $w_prev_report s | $(mib "$r_prev_report") | $c_prev_report s | ingest $w_prev_ingest s, $(mib "$r_prev_ingest") |"
fi
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
out="$dir/out/finops-$week"

bench_target "weekly report, 1,000 GPUs, 200k billing lines: \`finops report --format xlsx,html,json\` vs pandas + openpyxl" "$w_report s, $(mib "$r_report")" "$pcol" "pandas + openpyxl $w_pandas s, $(mib "$r_pandas")" "**${tw}× faster, ${tr}× leaner**" "≥ 15× both" "$(pass "$tw" '>=' 15), $(pass "$tr" '>=' 15)"
table=$(
	cat <<EOT
<!-- bench:report:start (written by bench/report.sh; edit the script, not this table) -->
\`make bench\` (bench/report.sh) on $(date -u +%Y-%m-%d), $($go version | cut -d' ' -f3,4), $("$py" -c 'import sys, pandas, openpyxl; print("Python %d.%d.%d" % sys.version_info[:3], "pandas", pandas.__version__, "openpyxl", openpyxl.__version__)'), $(nproc) CPUs ($(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || echo unknown)), load average $load at the end; median of $runs runs. Inputs: $(mb "$dir/focus.csv") FOCUS export (200,000 lines), $(mb "$dir/smi.csv") nvidia-smi samples (2,016,000 rows).

| run | wall | peak RSS | CPU (user+sys) | output |
|---|---:|---:|---:|---|
| \`finops ingest\` (both files, one run, not part of the comparison) | $w_ingest s | $(mib "$r_ingest") | $c_ingest s | $(mb "$dir/finops.db") database |
| \`finops report --format xlsx,html,json\` | **$w_report s** | **$(mib "$r_report")** | $c_report s | xlsx $(mb "$out.xlsx"), html $(mb "$out.html"), json $(mb "$out.json") |
| pandas + openpyxl, normal mode (\`DataFrame.to_excel\`) | $w_pandas s | $(mib "$r_pandas") | $c_pandas s | xlsx $(mb "$dir/pandas.xlsx") |
$prow
$worow

- pandas (normal) / finops report, time: **${tw}×** (issue #35's target ≥ 15×: $(pass "$tw" '>=' 15)); counting finops' ingest too: ${twi}×
- pandas (normal) / finops report, peak RSS: **${tr}×** (issue #35's target ≥ 15×: $(pass "$tr" '>=' 15))
- against openpyxl's write_only mode: $wo
<!-- bench:report:end -->
EOT
)
echo "$table"

write_section report "Report vs pandas" "$table"
