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

shot() { # shot FILE WIDTH PNG [HEIGHT]
	local abs
	abs=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
	"$chromium" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --no-first-run --no-default-browser-check \
		--user-data-dir="$profile" --proxy-server=127.0.0.1:9 --host-resolver-rules='MAP * ~NOTFOUND' \
		--hide-scrollbars --force-device-scale-factor=1 --window-size="$2,${4:-2400}" \
		--virtual-time-budget=5000 --screenshot="$3" "file://$abs" >/dev/null 2>&1
	[[ -s "$3" ]] || { echo "screenshots: chromium wrote no $3" >&2; exit 1; }
	echo "wrote $3"
}
shot "$report" 1400 "$out/screenshots/report-first-screen.png" 900 # what a team lead sees on opening it
shot "$report" 1280 "$out/screenshots/report-desktop.png"
shot "$report" 390 "$out/screenshots/report-phone.png"
if [[ -f "$email" ]]; then
	shot "$email" 1280 "$out/screenshots/email-desktop.png"
	shot "$email" 390 "$out/screenshots/email-phone.png"
fi

# The workbook as LibreOffice prints it (its page setup: landscape, one page
# wide, header rows repeated): the Summary sheet's page, and the page count.
workbook=${report%.html}.xlsx
if command -v soffice >/dev/null 2>&1 && command -v pdftoppm >/dev/null 2>&1 && [[ -f "$workbook" ]]; then
	pdfdir=$(mktemp -d)
	soffice --headless -env:UserInstallation="file://$profile/lo" --convert-to pdf --outdir "$pdfdir" "$workbook" >/dev/null 2>&1
	pdf="$pdfdir/$(basename "${workbook%.xlsx}").pdf"
	[[ -s "$pdf" ]] || { echo "screenshots: LibreOffice wrote no PDF of $workbook" >&2; exit 1; }
	pdftoppm -png -r 110 -f 1 -l 1 -singlefile "$pdf" "$out/screenshots/workbook-print-summary"
	echo "wrote $out/screenshots/workbook-print-summary.png ($(pdfinfo "$pdf" 2>/dev/null | awk '/^Pages:/ {print $2}') printed pages in all)"
	rm -rf "$pdfdir"
else
	echo "screenshots: no printed workbook (needs soffice and pdftoppm: apt-get install -y libreoffice-calc-nogui poppler-utils)" >&2
fi
