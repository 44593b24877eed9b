package e2e

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/fifotest"
)

// barBytes are what a drawn progress bar leaves on a stream: the carriage
// return that redraws the line and the bar's own characters.
var barBytes = []string{"\r", "\x1b[", "█", "%|"}

// finopsProgress runs one command line in-process with the bars forced on
// (FINOPS_PROGRESS=1, as for a terminal behind tee) and drawn at every
// change, so that a file read in a few milliseconds still shows its rows.
func finopsProgress(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	m := cli.NewMain(bytes.NewReader(nil), &out, &errb)
	m.Now = func() time.Time { return now }
	m.Getenv = func(k string) string {
		if k == cli.ProgressEnv {
			return "1"
		}
		return ""
	}
	m.ProgressEvery = time.Nanosecond
	code = m.Run(context.Background(), args)
	return code, out.String(), errb.String()
}

// focusSample is a 755 kB FOCUS export of 1000 rows: a dozen 64 kB reads,
// so a bar drawn at every read shows it part way.
func focusSample(t *testing.T) string {
	return filepath.Join(repoRoot(t), "testdata", "ingest", "focus_sample.csv")
}

func TestHostileProgressNotOnAPipe(t *testing.T) {
	// The tests' stderr is a buffer, as cron's is a pipe: no bar at all.
	db := filepath.Join(t.TempDir(), "f.db")
	code, stdout, stderr := runFinops(t, "--db", db, "ingest", focusSample(t))
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s %s", code, stdout, stderr)
	}
	for _, b := range barBytes {
		if strings.Contains(stdout+stderr, b) {
			t.Errorf("progress bytes %q without a terminal: stdout %q, stderr %q", b, stdout, stderr)
		}
	}
}

func TestHostileProgressForced(t *testing.T) {
	// Named from its own folder: the bar cuts a long label to the
	// terminal's width, and the test must not depend on where the
	// repository is cloned.
	t.Chdir(filepath.Dir(focusSample(t)))
	f := "focus_sample.csv"
	db := filepath.Join(t.TempDir(), "f.db")
	code, stdout, stderr := finopsProgress(t, "--db", db, "ingest", f)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s %s", code, stdout, stderr)
	}
	// The label is [file of files] and the name; the rows stored so far
	// follow it. Each read of 64 kB holds about 86 of the file's 1000 rows
	// of ~755 B, so some drawing shows a count above zero and below 1000.
	rows := regexp.MustCompile(`\[1/1\] \S*focus_sample\.csv ([0-9]+) rows`).FindAllStringSubmatch(stderr, -1)
	part := false
	for _, r := range rows {
		part = part || (r[1] != "0" && r[1] != "1000")
	}
	if !part {
		t.Errorf("no drawing shows rows part way (%d drawings): %q", len(rows), stderr)
	}
	// Bytes of the file's size (755423 B: "755 kB" in SI units), a rate
	// and the time left, as [elapsed:left], while it is parsed (its sha256
	// is taken beside the parse: no bar of its own).
	for _, re := range []string{`/755 kB, [0-9.]+ [kMG]?B/s\)`, `\[[0-9]+s:[0-9]+s\]`, `\r`,
		`focus_sample\.csv [0-9]+ rows +[0-9]+% \|[^|]*\| \([0-9.]+/755 kB, [0-9.]+ [kMG]?B/s\) \[[0-9]+s:[0-9]+s\]`} {
		if !regexp.MustCompile(re).MatchString(stderr) {
			t.Errorf("stderr lacks %s: %q", re, stderr)
		}
	}
	// The bar is cleared before the file's line, and stdout carries none of it.
	if !strings.HasPrefix(stdout, f+": focus, 1000 rows") {
		t.Errorf("stdout = %q", stdout)
	}
	for _, b := range barBytes {
		if strings.Contains(stdout, b) {
			t.Errorf("stdout has progress bytes %q: %q", b, stdout)
		}
	}

	// --quiet wins over the forcing.
	db = filepath.Join(t.TempDir(), "f.db")
	if code, stdout, stderr = finopsProgress(t, "--quiet", "--db", db, "ingest", f); code != cli.ExitOK || stdout != "" || stderr != "" {
		t.Errorf("--quiet with %s=1: exit %d, stdout %q, stderr %q", cli.ProgressEnv, code, stdout, stderr)
	}
}

func TestHostileQuiet(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "f.db")
	good := focusSample(t)
	bad := filepath.Join(repoRoot(t), "testdata", "ingest", "bad", "bad_number.csv")

	// A good file: nothing at all.
	if code, stdout, stderr := runFinops(t, "-q", "--db", db, "ingest", good); code != cli.ExitOK || stdout != "" || stderr != "" {
		t.Errorf("ingest -q: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// A bad file among good ones: only its problem, the good one unsaid.
	code, stdout, stderr := runFinops(t, "--quiet", "--db", db, "ingest", good, bad)
	if code != cli.ExitFailed || !strings.Contains(stdout, bad+": FAILED") || strings.Contains(stdout, good) {
		t.Errorf("ingest --quiet of a bad file: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// A FIFO in a folder is refused while planning the source: still named
	// with --quiet (the returned error says every problem is on stdout).
	folder := filepath.Join(dir, "bills")
	os.MkdirAll(folder, 0o755)
	fifo := fifotest.Make(t, filepath.Join(folder, "pipe.csv"))
	code, stdout, stderr = runFinops(t, "--quiet", "--db", db, "ingest", folder)
	if code != cli.ExitFailed || !strings.Contains(stdout, "FAILED") || !strings.Contains(stdout, fifo) {
		t.Errorf("ingest --quiet of a folder with a FIFO: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// JSON results are the output, not a summary: they stay.
	code, stdout, _ = runFinops(t, "--quiet", "--log-format", "json", "--db", db, "ingest", good)
	if code != cli.ExitOK || !strings.HasPrefix(stdout, "{") || !strings.Contains(stdout, `"status"`) {
		t.Errorf("ingest --quiet --log-format json: exit %d, stdout %q", code, stdout)
	}

	// The report is written, its summary and "wrote" lines are not printed.
	out := filepath.Join(dir, "out")
	code, stdout, stderr = runFinops(t, "--quiet", "--db", db, "report", "--from", "2024-09-01", "--to", "2024-09-30", "--format", "json", "--out", out)
	if code != cli.ExitOK || stdout != "" || stderr != "" {
		t.Errorf("report --quiet: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if files, _ := filepath.Glob(filepath.Join(out, "*.json")); len(files) == 0 {
		t.Errorf("report --quiet wrote no json in %s", out)
	}
	// Without --quiet the same report prints its summary: the test above
	// would pass for a command that prints nothing anyway.
	if _, stdout, _ = runFinops(t, "--db", db, "report", "--from", "2024-09-01", "--to", "2024-09-30", "--format", "json", "--out", out); !strings.Contains(stdout, "wrote ") {
		t.Errorf("report without --quiet: stdout %q", stdout)
	}
	if err := os.RemoveAll(out); err != nil {
		t.Fatal(err)
	}
}

func TestHostileProgressSheets(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "f.db")
	if code, stdout, stderr := runFinops(t, "--db", db, "ingest", focusSample(t)); code != cli.ExitOK {
		t.Fatalf("ingest: exit %d: %s %s", code, stdout, stderr)
	}
	code, stdout, stderr := finopsProgress(t, "--db", db, "report", "--from", "2024-09-01", "--to", "2024-09-30",
		"--format", "xlsx", "--out", filepath.Join(dir, "out"))
	if code != cli.ExitOK {
		t.Fatalf("report: exit %d: %s %s", code, stdout, stderr)
	}
	// The workbook has twelve sheets (report/xlsx.go: ten, Trend, the weekly
	// history report.trend_weeks asks for by default, and Movers, the one
	// view model's movers); the bar counts those filled, the first drawn
	// after the Summary sheet.
	for _, want := range []string{"workbook 2024-09-01_2024-09-30", "(1/12, ", "(11/12, ", " sheets/s)"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q: %q", want, stderr)
		}
	}
	for _, b := range barBytes {
		if strings.Contains(stdout, b) {
			t.Errorf("stdout has progress bytes %q: %q", b, stdout)
		}
	}
}

func TestHostileProgressPromDays(t *testing.T) {
	url, _ := credentialsIn(fakeProm(t, false))
	db := filepath.Join(t.TempDir(), "f.db")
	code, stdout, stderr := finopsProgress(t, "--db", db, "ingest", "prometheus", "--url", url, "--from", "2026-11-23", "--to", "2026-11-25")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s %s", code, stdout, stderr)
	}
	// Three days asked for: the bar counts each one done before the next.
	for _, want := range []string{"(1/3, ", "(2/3, ", " days/s)"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q: %q", want, stderr)
		}
	}
	// Each day's line is on stdout, below a cleared bar, and none of the
	// bar's bytes are: one line per day and the server's total.
	if n := strings.Count(stdout, "\n"); n != 4 {
		t.Errorf("stdout has %d lines, want 4: %q", n, stdout)
	}
	for _, b := range barBytes {
		if strings.Contains(stdout, b) {
			t.Errorf("stdout has progress bytes %q: %q", b, stdout)
		}
	}
	noSecret(t, map[string]string{"stderr": stderr})
}
