# Shared by the benchmark scripts (sourced from the repository root).

# bench_setup: $dir is BENCH_DIR, or a temporary folder removed on exit;
# bin/finops is built from this checkout.
bench_setup() {
	dir=${BENCH_DIR:-}
	if [ -z "$dir" ]; then
		dir=$(mktemp -d)
		trap 'rm -rf "$dir"' EXIT
	fi
	mkdir -p "$dir" bin
	echo "bench: building bin/finops" >&2
	CGO_ENABLED=0 ${GO:-go} build -trimpath -o bin/finops ./cmd/finops
}

# bench_need TOOL...: exits unless each tool is on PATH (the scripts that
# measure with /usr/bin/time and count rows with sqlite3).
bench_need() {
	local t
	for t in "$@"; do
		if ! command -v "$t" >/dev/null; then
			echo "bench: need $t: apt-get install -y time sqlite3" >&2
			exit 1
		fi
	done
}

# measure LABEL CMD...: runs CMD under /usr/bin/time -v, appends
# "LABEL wall_s rss_kb cpu_s" to $dir/results.
measure() {
	local label=$1
	shift
	if ! /usr/bin/time -v -o "$dir/time.txt" "$@" >"$dir/out.txt" 2>&1; then
		cat "$dir/out.txt" "$dir/time.txt" >&2
		echo "bench: $label failed" >&2
		exit 1
	fi
	awk -v label="$label" '
		/Elapsed \(wall clock\)/ { n = split($NF, p, ":"); wall = 0; for (i = 1; i <= n; i++) wall = wall * 60 + p[i] }
		/Maximum resident set size/ { rss = $NF }
		/User time/ { cpu += $NF }
		/System time/ { cpu += $NF }
		END { printf "%s %.2f %d %.2f\n", label, wall, rss, cpu }' "$dir/time.txt" >>"$dir/results"
}

# median FIELD LABEL: the median of a results column over the runs.
median() {
	awk -v label="$2" -v f="$1" '$1 == label { print $f }' "$dir/results" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

mib() { awk -v k="$1" 'BEGIN { printf "%.0f MB", k * 1024 / 1e6 }'; }
mb() { awk -v b="$(stat -c %s "$1")" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }

# write_section NAME TITLE TABLE: puts TABLE (which starts with the
# <!-- bench:NAME:start --> marker and ends with bench:NAME:end) into
# docs/BENCHMARKS.md in place of the previous one, or appends it under TITLE.
# BENCH_NO_WRITE=1 leaves the file alone.
write_section() {
	local name=$1 title=$2 table=$3 doc=docs/BENCHMARKS.md
	[ -z "${BENCH_NO_WRITE:-}" ] || return 0
	if grep -q "<!-- bench:$name:start" "$doc"; then
		awk -v table="$table" -v s="<!-- bench:$name:start" -v e="<!-- bench:$name:end" '
			index($0, s) == 1 { print table; skip = 1; next }
			index($0, e) == 1 { skip = 0; next }
			!skip { print }' "$doc" >"$doc.tmp" && mv "$doc.tmp" "$doc"
	else
		printf '\n## %s\n\n%s\n' "$title" "$table" >>"$doc"
	fi
	echo "bench: wrote the table into $doc" >&2
}

# bench_prev: the path of the previous release's binary (BENCH_PREV, a
# commit or tag, default 5228183: the release before issue #35's work), built
# once from `git archive` of it in a temporary folder with make build's flags
# and kept as bin/finops-prev-COMMIT; empty (and a note on stderr) when
# BENCH_PREV=none or it cannot be built, so the column says so instead.
bench_prev() {
	local rev=${BENCH_PREV:-5228183} commit out tmp
	[ "$rev" != none ] || return 0
	commit=$(git rev-parse --short=12 "$rev^{commit}" 2>/dev/null) || {
		echo "bench: previous release $rev: not in this repository's history" >&2
		return 0
	}
	out=bin/finops-prev-$commit
	if [ ! -x "$out" ]; then
		tmp=$(mktemp -d)
		echo "bench: building the previous release ($rev = $commit) into $out" >&2
		if git archive "$commit" | tar -x -C "$tmp" &&
			(cd "$tmp" && CGO_ENABLED=0 ${GO:-go} build -trimpath -ldflags '-s -w' -o "$OLDPWD/$out.tmp" ./cmd/finops); then
			mv "$out.tmp" "$out"
		else
			echo "bench: previous release $rev did not build: its column stays empty" >&2
		fi
		rm -rf "$tmp"
	fi
	[ -x "$out" ] && echo "$out"
	return 0
}

# bench_target WORK THIS PREVIOUS REFERENCE RESULT TARGET VERDICT: one row of
# issue #35's summary (bench/targets.sh writes the table at the end of make
# bench), appended to $BENCH_TARGETS when make bench sets it. VERDICT is PASS,
# MISS or SKIP with its reason.
bench_target() {
	[ -n "${BENCH_TARGETS:-}" ] || return 0
	printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$@" >>"$BENCH_TARGETS"
}

# pass A OP B: PASS when the comparison holds (awk: a <= b, a >= b, …), else MISS.
pass() { if awk -v a="$1" -v b="$3" "BEGIN { exit !(a $2 b) }"; then echo PASS; else echo "**MISS**"; fi; }
