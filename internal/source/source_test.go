package source

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/ingest"
	"github.com/finops-oss/finops/internal/store"
)

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestStdinName: standard input is recorded under the name the store
// compares imports by.
func TestStdinName(t *testing.T) {
	if StdinName != store.StdinURI {
		t.Errorf("StdinName %q, store.StdinURI %q", StdinName, store.StdinURI)
	}
}

// TestFromConfigAndAgain: the config's billing sources keep their format,
// mapping and currency; ingest --replace of a path a configured glob
// matches reads it as that source does, the command line's format and
// currency winning; a path no source names stays as given.
func TestFromConfigAndAgain(t *testing.T) {
	c, err := config.Parse("finops.yaml", []byte(`
billing:
  - path: bills/lab-*.csv
    mapping: lab
    currency: cny
  - path: bills/focus.csv
tasks:
  - path: tasks.csv
mappings:
  lab:
    provider: lab
    columns: {start: 开始时间, end: 结束时间, cost: 金额, resource_id: 实例ID, gpu_model: GPU型号, gpu_count: GPU数量}
`))
	if err != nil {
		t.Fatal(err)
	}
	specs, err := FromConfig(c)
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) != 3 || specs[0].Kind != ingest.KindBilling || specs[0].Format != ingest.FormatRental || specs[0].Currency != "CNY" ||
		len(specs[0].Mappings) != 1 || specs[2].Kind != ingest.KindTasks {
		t.Fatalf("specs %+v", specs)
	}
	for _, tc := range []struct {
		in                       Spec
		format, currency, mapped string
	}{
		{Spec{Name: "bills/lab-11.csv", Replace: true}, ingest.FormatRental, "CNY", "lab"},
		{Spec{Name: "bills/lab-11.csv", Format: ingest.FormatFOCUS, Currency: "USD", Replace: true}, ingest.FormatFOCUS, "USD", "lab"},
		{Spec{Name: "elsewhere.csv", Replace: true}, "", "", ""},
	} {
		got, err := Again(c, tc.in)
		if err != nil {
			t.Fatal(err)
		}
		mapped := ""
		if len(got.Mappings) == 1 {
			mapped = got.Mappings[0].Name
		}
		if got.Name != tc.in.Name || !got.Replace || got.Format != tc.format || got.Currency != tc.currency || mapped != tc.mapped {
			t.Errorf("Again(%+v) = %+v", tc.in, got)
		}
	}
}

// TestExpand: a folder is walked (hidden names left out, sorted), a glob
// matched (hidden names included), a FIFO refused by name without being opened, a link to a folder
// inside a folder noted and not followed; nothing at all is an error.
func TestExpand(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "b.csv"), "x")
	write(t, filepath.Join(dir, "a.csv"), "x")
	write(t, filepath.Join(dir, ".hidden.csv"), "x")
	write(t, filepath.Join(dir, "sub", "c.csv"), "x")
	write(t, filepath.Join(t.TempDir(), "other", "d.csv"), "x")
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.csv"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "sub"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	x, err := Expand(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv"), filepath.Join(dir, "sub", "c.csv")}
	if strings.Join(x.Files, " ") != strings.Join(want, " ") {
		t.Errorf("files %q, want %q", x.Files, want)
	}
	if len(x.Refused) != 1 || !strings.Contains(x.Refused[0].Error(), "pipe.csv") {
		t.Errorf("refused %v, want the FIFO", x.Refused)
	}
	if len(x.Notes) != 1 || !strings.Contains(x.Notes[0], "a link to a folder") {
		t.Errorf("notes %q", x.Notes)
	}
	// A glob names what it matches, hidden names too (filepath.Glob): 3
	// files and the FIFO.
	if x, err = Expand(filepath.Join(dir, "*.csv")); err != nil || len(x.Files) != 3 || len(x.Refused) != 1 {
		t.Errorf("glob: %+v, %v", x, err)
	}
	if _, err := Expand(filepath.Join(dir, "*.parquet")); err == nil || !strings.Contains(err.Error(), "no files match") {
		t.Errorf("a glob matching nothing: %v", err)
	}
	for pattern, root := range map[string]string{filepath.Join(dir, "*.csv"): dir, dir: dir, filepath.Join(dir, "a.csv"): ""} {
		if got := Root(pattern); got != root {
			t.Errorf("Root(%s) = %q, want %q", pattern, got, root)
		}
	}
}

// TestPlanStdin: standard input is copied to a file called stdin, read
// once, and removed with the plan; an address that can never work is a
// ConfigError.
func TestPlanStdin(t *testing.T) {
	pl := Planner{Config: &config.Config{}, Getenv: func(string) string { return "" }, Stdin: strings.NewReader("a,b\n1,2\n")}
	p, err := pl.Plan(context.Background(), "-")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Files) != 1 || p.URI(p.Files[0].Path) != StdinName {
		t.Fatalf("files %+v", p.Files)
	}
	b, err := os.ReadFile(p.Files[0].Path)
	if err != nil || string(b) != "a,b\n1,2\n" {
		t.Errorf("copy %q, %v", b, err)
	}
	p.Close()
	if _, err := os.Stat(p.Files[0].Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after Close: %v", err)
	}
	if _, err := pl.Plan(context.Background(), "s3://"); !errors.As(err, new(ConfigError)) {
		t.Errorf("s3:// without a bucket: %v, want a ConfigError", err)
	}
}

// TestRedactErr: secrets and URL passwords leave the message; the error
// still unwraps to the original.
func TestRedactErr(t *testing.T) {
	base := errors.New("GET https://user:hunter2@example.com/x with key AKIAEXAMPLE1")
	err := RedactErr(base, "AKIAEXAMPLE1", "", "ab")
	if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "AKIAEXAMPLE1") || !errors.Is(err, base) {
		t.Errorf("%v", err)
	}
	if RedactErr(nil) != nil {
		t.Error("RedactErr(nil) != nil")
	}
}
