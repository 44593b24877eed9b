package e2e

// Issue 14, item 2: bytes from a file (its header, its values, its name)
// never reach the terminal as escape sequences: standard output goes through
// sanitize.Writer, which shows a control character as U+FFFD.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/cli"
)

// titleSeq retitles an xterm window (OSC 0 … BEL); clearSeq clears the
// screen (CSI 2J).
const (
	titleSeq = "\x1b]0;pwned\x07"
	clearSeq = "\x1b[2J"
)

// noEscapes fails when out holds ESC, BEL or a C1 control (CSI as one byte
// is U+009B in UTF-8): the bytes that start or end terminal sequences.
func noEscapes(t *testing.T, what, out string) {
	t.Helper()
	if i := strings.IndexAny(out, "\x1b\x07\u009b"); i >= 0 {
		t.Errorf("%s holds a terminal control byte at %d: %q", what, i, out[max(0, i-60):min(len(out), i+20)])
	}
}

func TestHostileTerminalEscapes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sample, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata", "ingest", "autodl_sample.csv"))
	if err != nil {
		t.Fatal(err)
	}
	// What each shows instead, computed by hand: every control byte is one U+FFFD.
	shownTitle, shownClear := "\uFFFD]0;pwned\uFFFD", "\uFFFD[2J"
	header := write("header.csv", "ChargePeriodStart,x"+titleSeq+",y"+clearSeq+"\n2026-11-01,1,2\n")
	named := write("bill"+titleSeq+clearSeq+".csv", string(sample))
	runpod := write("runpod"+titleSeq+".json", `[{"amount": 29.9, "gpuTypeId": "NVIDIA RTX \u001b]0;pwned\u0007X9000 \u001b[2J",`+
		` "podId": "p1", "time": "2026-11-02T00:00:00Z", "timeBilledMs": 3600000}]`)
	badRunpod := write("bad"+clearSeq+".json", `[{"amount": "ten", "gpuTypeId": "H100", "podId": "p1", "time": "2026-11-02T00:00:00Z"}]`)

	db, before := hostileDB(t)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string // in stdout, as shown
	}{
		// A control character in a header or a value is refused as a bad
		// field (ingest's checkControl), its value quoted (\x1b, \a).
		{"CSV header", []string{"ingest", header}, cli.ExitFailed, []string{"header: a control character U+001B", `x\x1b]0;pwned\a`}},
		{"CSV header, --check", []string{"ingest", "--check", header}, cli.ExitFailed, []string{"INVALID", `x\x1b]0;pwned\a`}},
		{"file name", []string{"ingest", "--check", named}, cli.ExitOK, []string{"bill" + shownTitle + shownClear + ".csv: OK"}},
		{"JSON values, --check", []string{"ingest", "--check", runpod}, cli.ExitFailed, []string{"runpod" + shownTitle + ".json: INVALID", `field "[0].gpuTypeId": a control character`}},
		{"JSON file name, refused", []string{"ingest", badRunpod}, cli.ExitFailed, []string{"bad" + shownClear + ".json: FAILED", `"[0].amount"`}},
		// A usage error is printed on stderr as it is; pflag quotes no flag name.
		{"flag name on stderr", []string{"ingest", "--x" + titleSeq, header}, cli.ExitUsage, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runFinops(t, append([]string{"--db", db}, tc.args...)...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\n%q\n%q", code, tc.code, stdout, stderr)
			}
			noEscapes(t, "stdout", stdout)
			noEscapes(t, "stderr", stderr)
			for _, w := range tc.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout does not show %q:\n%q", w, stdout)
				}
			}
			if after := counts(t, db); !equalCounts(before, after) {
				t.Errorf("database changed: %v → %v", before, after)
			}
		})
	}
}
