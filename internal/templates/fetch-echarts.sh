#!/usr/bin/env bash
# Updates the committed ECharts library that the HTML report inlines: fetches
# the npm release, verifies it against the recorded SHA-256 and installs it as
# internal/templates/assets/echarts.min.js with its LICENSE and NOTICE.
#
# The verified file is committed, so a build never needs this script. When the
# committed file matches the hash it exits 0 without the network. Otherwise
# (file missing or altered, or UPDATE_HASH set) it must fetch: without npm or
# without network it fails (exit 1) and says so; an unverified script is never
# installed.
#
#   internal/templates/fetch-echarts.sh              # fetch and verify
#   UPDATE_HASH=1 internal/templates/fetch-echarts.sh  # record the hash of a new VERSION
set -euo pipefail

VERSION="${ECHARTS_VERSION:-5.6.0}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dest="$here/assets/echarts.min.js"
hashfile="$here/assets/echarts.min.js.sha256"

die() { echo "fetch-echarts: error: $*" >&2; exit 1; }

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

restore="restore the committed file with: git checkout -- internal/templates/assets"
if ! command -v npm >/dev/null 2>&1; then
	die "npm not found, cannot fetch echarts $VERSION; install npm, or $restore"
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

if ! (cd "$tmp" && npm pack --silent --fetch-retries=1 --fetch-timeout=30000 "echarts@$VERSION" >/dev/null 2>"$tmp/npm.err"); then
	sed 's/^/  npm: /' "$tmp/npm.err" >&2 || true
	die "npm pack echarts@$VERSION failed (offline?); $restore"
fi

tarball="$(ls "$tmp"/echarts-*.tgz 2>/dev/null | head -n1)"
if [[ -z "$tarball" ]]; then
	die "npm pack produced no tarball; $restore"
fi
tar -xzf "$tarball" -C "$tmp" package/dist/echarts.min.js package/LICENSE package/NOTICE package/licenses/LICENSE-d3
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
# Apache-2.0 asks that the license and notice travel with the file.
cp "$tmp/package/LICENSE" "$here/assets/echarts.LICENSE"
cp "$tmp/package/NOTICE" "$here/assets/echarts.NOTICE"
cp "$tmp/package/licenses/LICENSE-d3" "$here/assets/echarts.LICENSE-d3"
echo "fetch-echarts: installed echarts $VERSION ($got) to $dest"
