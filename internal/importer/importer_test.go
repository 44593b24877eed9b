package importer

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/ingest"
	"github.com/finops-oss/finops/internal/source"
	"github.com/finops-oss/finops/internal/store"
)

// autodlBill is one AutoDL line: two A100s for a week, ¥806.40.
const autodlBill = "实例ID,实例名称,GPU型号,计费方式,开始时间,结束时间,应付金额,原价\n" +
	"gpu-a,训练机,A100-SXM4-80GB * 2,包周,2026-11-23 08:00:00,2026-11-30 08:00:00,¥806.40,¥806.40\n"

type fixture struct {
	c     *config.Config
	st    *store.Store
	dir   string
	specs []source.Spec
}

// newFixture is a new store and two sources: a folder holding the AutoDL
// bill, and a file that is no bill at all.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	c, err := config.Parse("finops.yaml", []byte("currency: CNY\n"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	st, err := store.Open(context.Background(), filepath.Join(dir, "f.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	mappings, err := source.ColumnMappings(c)
	if err != nil {
		t.Fatal(err)
	}
	bills := filepath.Join(dir, "bills")
	for name, body := range map[string]string{filepath.Join(bills, "autodl.csv"): autodlBill, filepath.Join(dir, "junk.csv"): "a,b\n1,2\n"} {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec := func(name string) source.Spec {
		return source.Spec{Name: name, Kind: ingest.KindBilling, Format: ingest.FormatRental, Location: time.UTC, Mappings: mappings}
	}
	return &fixture{c: c, st: st, dir: dir, specs: []source.Spec{spec(bills), spec(filepath.Join(dir, "junk.csv"))}}
}

func (f *fixture) options(out io.Writer, asJSON bool) Options {
	now := func() time.Time { return time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC) }
	return Options{Config: f.c, Store: f.st, Sources: source.Planner{Config: f.c, Getenv: func(string) string { return "" }},
		Now: now, Getenv: func(string) string { return "" }, Out: out, Stderr: io.Discard, JSON: asJSON}
}

// TestRun: the good file imports in its own transaction while the bad one
// fails alone; the error counts the problems and each is on the output;
// the same bytes again change nothing and say so.
func TestRun(t *testing.T) {
	f := newFixture(t)
	var out strings.Builder
	rs, err := Run(context.Background(), f.options(&out, false), f.specs)
	var reported ReportedError
	if !errors.As(err, &reported) || !strings.Contains(err.Error(), "1 problem in 2 sources (2 files planned)") {
		t.Fatalf("err %v, want the count of one problem", err)
	}
	if len(rs) != 2 || rs[0].Files != 1 || rs[0].Failed != 0 || rs[0].Err != nil || rs[1].Files != 1 || rs[1].Failed != 1 || rs[1].Err == nil {
		t.Errorf("results %+v", rs)
	}
	bill := filepath.Join(f.dir, "bills", "autodl.csv")
	// One line of ¥806.40: the total is 806.40 CNY.
	for _, want := range []string{bill + ": rental", "1 rows", "total 806.40 CNY effective (billed 806.40), 1 GPU lines", "junk.csv: FAILED:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in\n%s", want, out.String())
		}
	}
	srcs, err := f.st.Sources(context.Background())
	if err != nil || len(srcs) != 1 || srcs[0].URI != bill || srcs[0].Rows != 1 {
		t.Fatalf("stored sources %+v, %v: want the bill alone", srcs, err)
	}
	out.Reset()
	if _, err := Run(context.Background(), f.options(&out, true), f.specs[:1]); err != nil {
		t.Fatal(err)
	}
	var r fileResult
	if err := json.Unmarshal([]byte(out.String()), &r); err != nil || r.Status != "duplicate" || r.DuplicateOf != bill {
		t.Errorf("again, as JSON: %q (%v)", out.String(), err)
	}
}

// TestCheck: a check prints each file's verdict and stores nothing.
func TestCheck(t *testing.T) {
	f := newFixture(t)
	var out strings.Builder
	err := Check(context.Background(), f.options(&out, false), f.specs)
	if !errors.As(err, new(ReportedError)) || !strings.Contains(err.Error(), "1 of 2 files would not import") {
		t.Fatalf("err %v", err)
	}
	for _, want := range []string{"autodl.csv: OK", "total cost: 806.40 CNY", "GPU lines:  1 of 1", "junk.csv: INVALID"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in\n%s", want, out.String())
		}
	}
	if srcs, err := f.st.Sources(context.Background()); err != nil || len(srcs) != 0 {
		t.Errorf("a check stored %+v (%v)", srcs, err)
	}
}

// TestDeliveryUnits: the files of one delivery are neighbours in one unit;
// lone files (key "\x00") never group.
func TestDeliveryUnits(t *testing.T) {
	keys := []string{"\x00", "\x00", "m\x00d1", "m\x00d1", "m\x00d2", "\x00"}
	units := deliveryUnits(keys, func(k string) string { return k })
	var sizes []int
	for _, u := range units {
		sizes = append(sizes, len(u))
	}
	want := []int{1, 1, 2, 1, 1}
	if !slices.Equal(sizes, want) {
		t.Errorf("units %v, want sizes %v", sizes, want)
	}
}
