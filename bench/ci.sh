#!/usr/bin/env bash
# Cold CI run (make bench BENCH_CI=1), issue #35: `.ci/run` on a fresh clone
# of HEAD (committed work only) with CI=true and an empty GOPATH, module
# cache and build cache, as a fresh runner starts: every module downloaded,
# every server (versitygw, mailpit, fake-gcs-server, VictoriaMetrics,
# Thanos), staticcheck and deadcode built from source, every test run
# (CI=true: a test whose server or tool is missing fails instead of
# skipping), the fuzz pass. Target ≤ 20 minutes on 2 cores. What the
# machine already has system-wide stays: Debian's packages and Azurite
# (.ci/run installs only what is missing), so on a runner without them add
# their downloads, which .ci/run starts first, behind the builds. Opt-in: it
# takes about 20 minutes of all the cores, needs the module proxy, and
# .ci/run may call apt-get (root) for a missing package.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bench_need /usr/bin/time git
dir=$(mktemp -d)
trap 'chmod -R u+w "$dir" 2>/dev/null; rm -rf "$dir"' EXIT
git clone -q "$PWD" "$dir/src"
commit=$(git -C "$dir/src" rev-parse --short HEAD)
git diff --quiet HEAD 2>/dev/null || echo "bench: cold CI runs $commit as committed: the working tree's changes are not in it" >&2
echo "bench: cold .ci/run of $commit in $dir (empty GOPATH and GOCACHE, CI=true; about 20 minutes)" >&2
# The PATH of a fresh runner: none of this machine's Go-installed tools.
# .ci/run adds Azurite's folder (/opt/azurite, where it installs it) itself.
(
	cd "$dir/src"
	export GOPATH=$dir/gopath GOCACHE=$dir/gocache GOMODCACHE=$dir/gopath/pkg/mod CI=true
	export PATH=$(dirname "$(command -v "${GO:-go}")"):/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
	unset GOFLAGS
	measure cold-ci .ci/run
)
w=$(median 2 cold-ci)
c=$(median 4 cold-ci)
steps=$(grep -E '^ci: \+[0-9]+s ' "$dir/out.txt" || true)
echo "$steps" >&2
echo "bench: cold .ci/run $w s wall, $c s CPU" >&2
min=$(awk -v s="$w" 'BEGIN { printf "%.1f", s / 60 }')
bench_target "cold \`.ci/run\` of $commit (fresh clone, empty module and build caches, CI=true), $(nproc) CPUs" "$min min ($c s CPU)" "-" "" "**$min min**" "≤ 20 min" "$(pass "$w" '<=' 1200)"
