package e2e

// Hostile fields (issue 14, items 3, 7, 8a, 9): line ends finops did not
// know, columns and JSON keys given twice, control characters in ids, and
// amounts past what a report can print. Each refused file leaves the
// database as it was.

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileCRLineEnds: a FOCUS export and a tasks file whose lines end in
// a lone CR (Excel for Mac) import every row, not a header and 0 rows; the
// same file gzipped too.
func TestHostileCRLineEnds(t *testing.T) {
	db, before := hostileDB(t)
	dir := t.TempDir()
	focus, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata", "ingest", "focus_sample.csv"))
	if err != nil {
		t.Fatal(err)
	}
	cr := bytes.ReplaceAll(focus, []byte("\n"), []byte("\r")) // the file has LF line ends
	mac := filepath.Join(dir, "focus-mac.csv")
	if err := os.WriteFile(mac, cr, 0o644); err != nil {
		t.Fatal(err)
	}
	gz := filepath.Join(dir, "focus-mac2.csv.gz")
	writeGenerated(t, gz, func(w io.Writer) error {
		_, err := w.Write(bytes.Replace(cr, []byte("\r"), []byte("\r\r"), 1)) // another sha256, same rows
		return err
	})
	code, out, errOut := runFinops(t, "--db", db, "ingest", mac, gz)
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	// 1,000 data lines (1,001 lines with the header), read from both files
	// and stored once: the gzip holds the same charges (issue #24).
	if got, want := counts(t, db)["billing_lines"]-before["billing_lines"], 1000; got != want {
		t.Errorf("%d billing lines stored, want %d", got, want)
	}
	if !strings.Contains(out, "focus-mac2.csv.gz: already imported (the same charges as "+mac) {
		t.Errorf("the gzip's 1,000 rows were not read as the same charges:\n%s", out)
	}
}

// TestHostileFieldsRefused: each hostile file is refused with exit 1, a
// message naming file, line and field, and the database unchanged.
func TestHostileFieldsRefused(t *testing.T) {
	db, before := hostileDB(t)
	dir := t.TempDir()
	focusHdr := "ChargePeriodStart,ChargePeriodEnd,BilledCost,BillingCurrency,ResourceId"
	runpod := `[{"amount": %s, "gpuTypeId": "NVIDIA H100 80GB HBM3", "podId": %s, "time": "2026-11-02T00:00:00Z", "timeBilledMs": 3600000}]`
	for _, c := range []struct {
		name, body string
		want       []string
	}{
		{"hidden.csv", focusHdr + ",\"Tags\n2026-11-02T00:00:00Z,2026-11-02T01:00:00Z,1.50,USD,i-1,{}\"\n",
			[]string{"hidden.csv:2", "0 rows"}},
		{"dup.csv", focusHdr + ",BilledCost\n2026-11-02T00:00:00Z,2026-11-02T01:00:00Z,1.50,USD,i-1,999\n",
			[]string{"dup.csv:1", `"BilledCost"`, "appears twice (columns 3 and 6)"}},
		{"dup.json", strings.Replace(strings.Replace(runpod, "%s", `1.5, "amount": 999`, 1), "%s", `"p1"`, 1),
			[]string{"dup.json:1", `"[0].amount"`, "twice"}},
		{"nul.csv", focusHdr + "\n2026-11-02T00:00:00Z,2026-11-02T01:00:00Z,1.50,USD,i-1\x00\n",
			[]string{"nul.csv:2", `"ResourceId"`, "NUL"}},
		{"nul.json", strings.Replace(strings.Replace(runpod, "%s", "1.5", 1), "%s", `"p\u0000"`, 1),
			[]string{"nul.json:1", `"[0].podId"`, "NUL"}},
		{"big.csv", focusHdr + "\n2026-11-02T00:00:00Z,2026-11-02T01:00:00Z,1" + strings.Repeat("0", 29) + ",USD,i-1\n",
			[]string{"big.csv:2", `"BilledCost"`, "1e15"}},
		{"big.json", strings.Replace(strings.Replace(runpod, "%s", "1"+strings.Repeat("0", 29), 1), "%s", `"p1"`, 1),
			[]string{"big.json:1", `"[0].amount"`, "1e15"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name)
			if err := os.WriteFile(path, []byte(c.body), 0o644); err != nil {
				t.Fatal(err)
			}
			refused(t, db, before, []string{path}, c.want...)
		})
	}
}
