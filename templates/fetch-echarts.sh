#!/usr/bin/env bash
# Fetches the ECharts library that the HTML report inlines, verifies it against
# the recorded SHA-256 and installs it as templates/assets/echarts.min.js.
#
# Without npm or without network it warns and exits 0: the Go build still works
# and the report shows a "charts are not available" banner instead of charts.
# A checksum mismatch is an error (exit 1): an unverified script is never installed.
#
#   templates/fetch-echarts.sh              # fetch and verify
#   UPDATE_HASH=1 templates/fetch-echarts.sh  # record the hash of a new VERSION
set -euo pipefail

VERSION="${ECHARTS_VERSION:-5.6.0}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dest="$here/assets/echarts.min.js"
hashfile="$here/assets/echarts.min.js.sha256"

warn() { echo "fetch-echarts: warning: $*" >&2; }

sha256() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | cut -d' ' -f1
	elif command -v shasum >/dev/null 2>&1; then
		shasum -a 256 "$1" | cut -d' ' -f1
	else
		echo "fetch-echarts: no sha256sum or shasum to verify the download" >&2
		exit 1
	fi
}

want=""
if [[ -f "$hashfile" ]]; then
	want="$(cut -d' ' -f1 <"$hashfile")"
fi

if [[ -f "$dest" && -n "$want" && "$(sha256 "$dest")" == "$want" && -z "${UPDATE_HASH:-}" ]]; then
	echo "fetch-echarts: $dest is up to date (echarts $VERSION)"
	exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
	warn "npm not found; the HTML report will be built without charts"
	exit 0
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

if ! (cd "$tmp" && npm pack --silent --fetch-retries=1 --fetch-timeout=30000 "echarts@$VERSION" >/dev/null 2>"$tmp/npm.err"); then
	warn "npm pack echarts@$VERSION failed (offline?); the HTML report will be built without charts"
	sed 's/^/  npm: /' "$tmp/npm.err" >&2 || true
	exit 0
fi

tarball="$(ls "$tmp"/echarts-*.tgz 2>/dev/null | head -n1)"
if [[ -z "$tarball" ]]; then
	warn "npm pack produced no tarball; the HTML report will be built without charts"
	exit 0
fi
tar -xzf "$tarball" -C "$tmp" package/dist/echarts.min.js
got="$(sha256 "$tmp/package/dist/echarts.min.js")"

if [[ -n "${UPDATE_HASH:-}" ]]; then
	echo "$got  echarts.min.js" >"$hashfile"
	echo "fetch-echarts: recorded sha256 $got for echarts $VERSION in $hashfile; review and commit it"
elif [[ -z "$want" ]]; then
	echo "fetch-echarts: $hashfile is missing; run with UPDATE_HASH=1 to record one" >&2
	exit 1
elif [[ "$got" != "$want" ]]; then
	echo "fetch-echarts: sha256 mismatch for echarts $VERSION: got $got, want $want" >&2
	exit 1
fi

# Write next to the target and rename, so a failed copy never leaves half a file
# that go:embed would pick up.
cp "$tmp/package/dist/echarts.min.js" "$dest.tmp"
mv -f "$dest.tmp" "$dest"
echo "fetch-echarts: installed echarts $VERSION ($got) to $dest"
