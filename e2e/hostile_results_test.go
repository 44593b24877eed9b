package e2e

// What scripts and people read on stdout (issue #16, items 7 and 8):
// `ingest --check` names each file once, rounds totals to the currency's
// minor unit and reports each problem once; with --log-format json (or
// ingest --format json) stdout carries one JSON object per result.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/golden"
)

// TestHostileCheckOnce: a good and a refused file through --check. The
// golden file was read line by line against the fixtures: vast's three
// charges sum to 2.224 USD by hand (ingest tests), shown as 2.22; the
// RunPod file's second record has the amount "lots".
func TestHostileCheckOnce(t *testing.T) {
	dir := t.TempDir()
	good := rentalFile(t, "vast_invoices_legacy.json")
	bad := filepath.Join(dir, "runpod_bad.json")
	writeFile(t, bad, `[
{"amount": 1.5, "podId": "a", "time": "2026-11-02T00:00:00Z", "timeBilledMs": 3600000},
{"amount": "lots", "podId": "b", "time": "2026-11-02T00:00:00Z"}
]`)
	code, stdout, stderr := runFinops(t, "--db", filepath.Join(dir, "f.db"), "ingest", "--check", good, bad)
	if code != cli.ExitFailed {
		t.Errorf("exit %d, want %d", code, cli.ExitFailed)
	}
	for name, n := range map[string]int{
		good + ": OK\n":            1, // one heading, no one-line summary before it
		bad + ": ":                 1,
		"more than --max-bad-rows": 1, // the verdict once, not again under the rows
		"total cost:":              2,
	} {
		if got := strings.Count(stdout, name); got != n {
			t.Errorf("%q appears %d times, want %d:\n%s", name, got, n, stdout)
		}
	}
	if strings.Contains(stdout, "2.224") {
		t.Errorf("total not rounded to the cent:\n%s", stdout)
	}
	// stderr counts; it does not repeat the file's problem.
	if !strings.Contains(stderr, "ingest --check: 1 of 2 files would not import") || strings.Contains(stderr, "lots") ||
		strings.Contains(stderr, "max-bad-rows") {
		t.Errorf("stderr: %s", stderr)
	}
	out := strings.ReplaceAll(stdout, filepath.Dir(good), "$RENTAL")
	golden.Check(t, "check.txt", []byte(strings.ReplaceAll(out, dir, "$TMP")))
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// jsonLines parses every line of out as one JSON object.
func jsonLines(t *testing.T, what, out string) []map[string]any {
	t.Helper()
	var objs []map[string]any
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var o map[string]any
		if err := json.Unmarshal([]byte(l), &o); err != nil {
			t.Fatalf("%s: stdout line %q is not a JSON object: %v\n%s", what, l, err, out)
		}
		objs = append(objs, o)
	}
	return objs
}

// TestHostileJSONResults: ingest --check, ingest and report write one JSON
// object per result on stdout, nothing else; the text stays the default.
func TestHostileJSONResults(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "f.db")
	vast, runpod := rentalFile(t, "vast_invoices_legacy.json"), rentalFile(t, "runpod_billing_pods.json")
	missing := filepath.Join(dir, "missing.csv")
	checkJSONIngestCheck(t, db, vast, missing)

	// An import: one object a file; the second import of the same bytes is a duplicate.
	code, stdout, stderr := runFinops(t, "--db", db, "--log-format", "json", "ingest", runpod, runpod)
	objs := jsonLines(t, "ingest", stdout)
	if code != 0 || len(objs) != 2 || objs[0]["status"] != "imported" || objs[0]["total_cost"] != "109.52" ||
		objs[1]["status"] != "duplicate" || objs[1]["duplicate_of"] != runpod {
		t.Errorf("ingest: exit %d\n%s%s", code, stdout, stderr)
	}
	checkJSONReportFiles(t, db, filepath.Join(dir, "out"))

	// Text stays the default.
	if _, stdout, _ := runFinops(t, "--db", db, "ingest", "--check", vast); !strings.HasPrefix(stdout, vast+": OK\n") {
		t.Errorf("text --check:\n%s", stdout)
	}
}

// checkJSONIngestCheck: ingest --check, with --log-format json or --format
// json, writes one object a file and creates no database.
func checkJSONIngestCheck(t *testing.T, db, vast, missing string) {
	t.Helper()
	for _, flags := range [][]string{{"--log-format", "json", "ingest", "--check"}, {"ingest", "--check", "--format", "json"}} {
		code, stdout, _ := runFinops(t, append(append([]string{"--db", db}, flags...), vast, missing)...)
		objs := jsonLines(t, strings.Join(flags, " "), stdout)
		if code != cli.ExitFailed || len(objs) != 2 {
			t.Fatalf("%v: exit %d, %d objects:\n%s", flags, code, len(objs), stdout)
		}
		// vast: three charges, 2.224 USD by hand, to the cent.
		if o := objs[0]; o["file"] != vast || o["status"] != "ok" || o["format"] != "vast" || o["rows"] != 3.0 ||
			o["total_cost"] != "2.22" || o["skipped"] != 1.0 {
			t.Errorf("%v: %v", flags, o)
		}
		if o := objs[1]; o["file"] != missing || o["status"] != "invalid" || !strings.Contains(o["error"].(string), "missing.csv") {
			t.Errorf("%v: %v", flags, o)
		}
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("--check created the database")
	}
}

// checkJSONReportFiles: a report writes one object naming the files
// written, each on disk in out.
func checkJSONReportFiles(t *testing.T, db, out string) {
	t.Helper()
	code, stdout, stderr := runFinops(t, "--db", db, "--log-format", "json", "report", "--from", "2026-11-02", "--to", "2026-11-04", "--out", out)
	objs := jsonLines(t, "report", stdout)
	if code != 0 || len(objs) != 1 || objs[0]["command"] != "report" || objs[0]["status"] != "ok" {
		t.Fatalf("report: exit %d\n%s%s", code, stdout, stderr)
	}
	files, _ := objs[0]["files"].([]any)
	if len(files) != 3 {
		t.Errorf("report: files %v, want xlsx, html and json", objs[0]["files"])
	}
	for _, f := range files {
		if _, err := os.Stat(f.(string)); err != nil || filepath.Dir(f.(string)) != out {
			t.Errorf("report: %v: %v", f, err)
		}
	}
}

// TestHostileIngestErrorOnce: a refused file is named once, on stdout; the
// closing error on stderr counts problems and keeps exit 1. A usage problem
// (credentials in an s3:// source) stays whole on stderr with exit 2.
func TestHostileIngestErrorOnce(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "runpod_bad.json")
	writeFile(t, bad, `[{"amount": "lots", "podId": "b", "time": "2026-11-02T00:00:00Z"}]`)
	code, stdout, stderr := runFinops(t, "--db", filepath.Join(dir, "f.db"), "ingest", bad)
	if code != cli.ExitFailed || strings.Count(stdout+stderr, "lots") != 1 || !strings.Contains(stdout, bad+": FAILED: ") ||
		!strings.Contains(stderr, "ingest: 1 problem in 1 source (1 file planned), each named on standard output") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	code, stdout, stderr = runFinops(t, "--db", filepath.Join(dir, "f.db"), "ingest", "s3://AKIA:secret@bucket/cur/", bad)
	if code != cli.ExitUsage || !strings.Contains(stderr, "must not contain credentials") || strings.Contains(stdout, "credentials") {
		t.Errorf("usage: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
}
