package doctor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/ingest"
	"github.com/finops-oss/finops/internal/source"
	"github.com/finops-oss/finops/internal/store"
)

// TestRun: each check is one finding, handed on as it is made: the
// database (none yet, not a file, a good one), a source whose first file
// parses, one whose path matches nothing, and S3 and SMTP not configured.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	bill := filepath.Join(dir, "autodl.csv")
	if err := os.WriteFile(bill, []byte("实例ID,实例名称,GPU型号,计费方式,开始时间,结束时间,应付金额,原价\n"+
		"gpu-a,训练机,A100-SXM4-80GB * 2,包周,2026-11-23 08:00:00,2026-11-30 08:00:00,¥806.40,¥806.40\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "f.db")
	st, err := store.Open(context.Background(), good)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	c, err := config.Parse("finops.yaml", []byte("currency: CNY\n"))
	if err != nil {
		t.Fatal(err)
	}
	mappings, err := source.ColumnMappings(c)
	if err != nil {
		t.Fatal(err)
	}
	specs := []source.Spec{
		{Name: bill, Kind: ingest.KindBilling, Format: ingest.FormatRental, Location: time.UTC, Mappings: mappings},
		{Name: filepath.Join(dir, "missing", "*.csv"), Kind: ingest.KindTasks},
	}
	for _, tc := range []struct {
		db, verdict, detail string
	}{
		{filepath.Join(dir, "none.db"), Skip, "no database at"},
		{dir, Fail, "is not a regular file"},
		{good, OK, "quick_check ok, schema"},
	} {
		var seen []Finding
		fs := Run(context.Background(), Options{Config: c, Specs: specs, Sources: source.Planner{Config: c, Getenv: os.Getenv},
			Database: tc.db, Now: time.Now, Getenv: func(string) string { return "" }}, func(f Finding) { seen = append(seen, f) })
		if len(fs) != 5 || len(seen) != len(fs) {
			t.Fatalf("%d findings (%d handed on): %+v", len(fs), len(seen), fs)
		}
		want := []struct{ verdict, check, detail string }{
			{tc.verdict, "database", tc.detail},
			{OK, "billing", "1 files; the first"},
			{Fail, "tasks", "no files match: fix its path in the config"},
			{Skip, "s3", "publish.s3.bucket is not set"},
			{Skip, "smtp", "publish.smtp.host is not set"},
		}
		for i, w := range want {
			if fs[i].Verdict != w.verdict || fs[i].Check != w.check || !strings.Contains(fs[i].Detail, w.detail) {
				t.Errorf("db %s, finding %d: %+v, want %s %s …%s…", tc.db, i, fs[i], w.verdict, w.check, w.detail)
			}
		}
		if n := Failed(fs); n != 1+map[bool]int{true: 1}[tc.verdict == Fail] {
			t.Errorf("db %s: %d failed", tc.db, n)
		}
	}
}

// TestNewFinding: a finding is one line without its secrets or a URL's
// password.
func TestNewFinding(t *testing.T) {
	f := NewFinding(Fail, "smtp", "dial smtp://u:hunter2@mail:587\nauth failed for s3cr3tpass", "s3cr3tpass")
	if strings.Contains(f.Detail, "hunter2") || strings.Contains(f.Detail, "s3cr3tpass") || strings.Contains(f.Detail, "\n") {
		t.Errorf("%q", f.Detail)
	}
}
