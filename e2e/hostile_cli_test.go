package e2e

// Issue 14, item 14: the smaller edges of the command line — flag values,
// standard input, empty archives, runaway records and UTF-16 files.

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/store"
)

// TestHostileFlagValues: a value an enum-valued flag does not take is a
// usage error (exit 2) naming the flag, before anything is read or written.
func TestHostileFlagValues(t *testing.T) {
	db, before := hostileDB(t)
	sample := filepath.Join(repoRoot(t), "testdata", "ingest", "autodl_sample.csv")
	scenarios := filepath.Join(repoRoot(t), "scenarios.example.yaml")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"ingest", "--format", "exe", sample}, `--format "exe"`},
		{[]string{"ingest", "--check", "--format", "FOCUS", sample}, `--format "FOCUS"`},
		{[]string{"--log-format", "yaml", "ingest", sample}, `--log-format "yaml"`},
		{[]string{"report", "--format", "pdf"}, `--format "pdf"`},
		{[]string{"plan", scenarios, "--format", "pdf"}, `--format "pdf"`},
		{[]string{"ingest", "prometheus", "--url", "http://127.0.0.1:1", "--exporter", "node", "--since", "1d"}, `exporter: "node"`},
	} {
		code, stdout, stderr := runFinops(t, append([]string{"--db", db}, tc.args...)...)
		if code != cli.ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, want %d naming %s\n%s%s", tc.args, code, cli.ExitUsage, tc.want, stdout, stderr)
		}
	}
	if after := counts(t, db); !equalCounts(before, after) {
		t.Errorf("database changed: %v → %v", before, after)
	}
}

// sourceURIs lists the source files a database records.
func sourceURIs(t *testing.T, db string) []string {
	t.Helper()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	srcs, err := st.Sources(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, s := range srcs {
		uris = append(uris, s.URI)
	}
	return uris
}

// TestHostileStdin: `ingest -` and `ingest /dev/stdin` read standard input,
// recorded as stdin; an empty one is an empty file; named twice, a usage error.
func TestHostileStdin(t *testing.T) {
	autodl, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata", "ingest", "autodl_sample.csv"))
	if err != nil {
		t.Fatal(err)
	}
	focus, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata", "ingest", "focus_sample.csv"))
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "f.db")
	// The AutoDL sample is 5 lines (docs/INGEST.md adds them up by hand).
	code, stdout, stderr := finopsStdin(t, autodl, "--db", db, "ingest", "-")
	if code != 0 || !strings.Contains(stdout, "stdin: rental (mapping autodl), 5 rows") {
		t.Fatalf("ingest -: exit %d\n%s%s", code, stdout, stderr)
	}
	if c := counts(t, db); c["billing_lines"] != 5 {
		t.Errorf("stored %d lines, want 5", c["billing_lines"])
	}
	// Another format through /dev/stdin; the same bytes again are a no-op.
	if code, stdout, stderr := finopsStdin(t, focus, "--db", db, "ingest", "/dev/stdin"); code != 0 || !strings.Contains(stdout, "stdin: focus") {
		t.Errorf("ingest /dev/stdin: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, _ := finopsStdin(t, autodl, "--db", db, "ingest", "-"); code != 0 || !strings.Contains(stdout, "already imported (same bytes as stdin)") {
		t.Errorf("the same input again: exit %d\n%s", code, stdout)
	}
	if uris := sourceURIs(t, db); strings.Join(uris, ",") != "stdin,stdin" {
		t.Errorf("recorded sources %q, want stdin twice", uris)
	}
	before := counts(t, db)
	if code, stdout, _ := finopsStdin(t, nil, "--db", db, "ingest", "-"); code != cli.ExitFailed || !strings.Contains(stdout, "stdin: FAILED: stdin: the file is empty") {
		t.Errorf("empty standard input: exit %d\n%s", code, stdout)
	}
	if code, stdout, _ := finopsStdin(t, []byte("a,b\n1,2\n"), "--db", db, "ingest", "--check", "-"); code != cli.ExitFailed || !strings.Contains(stdout, "stdin: INVALID: stdin:1: unrecognised header") {
		t.Errorf("--check -: exit %d\n%s", code, stdout)
	}
	if code, _, stderr := finopsStdin(t, autodl, "--db", db, "ingest", "-", "/dev/stdin"); code != cli.ExitUsage || !strings.Contains(stderr, "named twice") {
		t.Errorf("stdin twice: exit %d\n%s", code, stderr)
	}
	if after := counts(t, db); !equalCounts(before, after) {
		t.Errorf("database changed: %v → %v", before, after)
	}
}

// TestHostileFileShapes: files whose trouble is their shape, not a value.
// Each is refused naming its real cause, with nothing stored.
func TestHostileFileShapes(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var emptyZip, folderZip bytes.Buffer
	zip.NewWriter(&emptyZip).Close()
	zw := zip.NewWriter(&folderZip)
	zw.Create("bills/")
	zw.Close()
	newlines := func(w io.Writer) error { return repeatBytes(w, '\n', 9<<20) }
	nlCSV, nlGz := filepath.Join(dir, "newlines.csv"), filepath.Join(dir, "newlines.csv.gz")
	writeGenerated(t, nlCSV, newlines)
	writeGenerated(t, nlGz, newlines) // 9 MiB of newlines in 9 KiB: a small bomb
	// UTF-16 by hand: each ASCII byte beside a NUL (little endian after the
	// BOM FF FE; big endian, without one, for the JSON).
	le := []byte{0xff, 0xfe}
	for _, c := range []byte("ChargePeriodStart,BilledCost\n2026-11-01,1\n") {
		le = append(le, c, 0)
	}
	var be []byte
	for _, c := range []byte(`[{"amount": 1, "podId": "p", "time": "2026-11-02T00:00:00Z"}]`) {
		be = append(be, 0, c)
	}
	db, before := hostileDB(t)
	for _, tc := range []struct {
		name          string
		args          []string
		want, notWant []string
	}{
		{"empty zip", []string{write("empty.zip", emptyZip.Bytes())}, []string{"empty.zip: empty zip archive"}, []string{"PK", "header"}},
		{"zip of a folder", []string{"--check", write("folder.zip", folderZip.Bytes())}, []string{"folder.zip: empty zip archive"}, nil},
		{"newlines", []string{nlCSV}, []string{"newlines.csv:1", "empty lines"}, []string{"quote"}},
		{"gzip of newlines", []string{nlGz}, []string{"newlines.csv.gz:1", "empty lines"}, []string{"quote"}},
		{"UTF-16LE CSV", []string{write("excel-unicode.csv", le)}, []string{"excel-unicode.csv:1", "UTF-16LE", "re-export it as UTF-8"}, []string{"GBK"}},
		{"UTF-16BE JSON, --check", []string{"--check", write("runpod.json", be)}, []string{"runpod.json:1", "UTF-16BE"}, []string{"GBK"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := refused(t, db, before, tc.args, tc.want...)
			for _, w := range tc.notWant {
				if strings.Contains(msg, w) {
					t.Errorf("the message says %q, which is not the cause:\n%s", w, msg)
				}
			}
		})
	}
}
