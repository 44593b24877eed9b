#!/usr/bin/env bash
# Screenshots of the demo's reports so anyone can look without a browser:
# the HTML report and the email body at desktop (1280 px) and phone (390 px)
# widths, written to OUT/screenshots/. Chromium runs headless with networking
# off (a dead proxy, no name resolution), as the browser tests do: a page that
# needed the network would show it here.
#
#   scripts/screenshots.sh [OUT]     (default: out; run `make demo` first)
set -euo pipefail
out=${1:-out}
chromium=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)}
if [[ -z "$chromium" ]]; then
	echo "screenshots: chromium not found; install it with: apt-get install -y chromium" >&2
	exit 1
fi
report=$(ls -t "$out"/finops-*.html 2>/dev/null | grep -v '\.email\.html$' | head -1 || true)
if [[ -z "$report" ]]; then
	echo "screenshots: no report in $out; run make demo first" >&2
	exit 1
fi
email=${report%.html}.email.html
mkdir -p "$out/screenshots"
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT

shot() { # shot FILE WIDTH PNG
	local abs
	abs=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
	"$chromium" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --no-first-run --no-default-browser-check \
		--user-data-dir="$profile" --proxy-server=127.0.0.1:9 --host-resolver-rules='MAP * ~NOTFOUND' \
		--hide-scrollbars --force-device-scale-factor=1 --window-size="$2,2400" \
		--virtual-time-budget=5000 --screenshot="$3" "file://$abs" >/dev/null 2>&1
	[[ -s "$3" ]] || { echo "screenshots: chromium wrote no $3" >&2; exit 1; }
	echo "wrote $3"
}
shot "$report" 1280 "$out/screenshots/report-desktop.png"
shot "$report" 390 "$out/screenshots/report-phone.png"
if [[ -f "$email" ]]; then
	shot "$email" 1280 "$out/screenshots/email-desktop.png"
	shot "$email" 390 "$out/screenshots/email-phone.png"
fi
