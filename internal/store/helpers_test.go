package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/ingest"
	"github.com/shopspring/decimal"
)

// openTest opens a fresh database file in t.TempDir and closes it at the end
// of the test.
func openTest(tb testing.TB) *Store {
	tb.Helper()
	s, err := Open(context.Background(), filepath.Join(tb.TempDir(), "finops.db"))
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// dec parses a decimal literal; the pointer is fresh each call.
func dec(s string) *decimal.Decimal {
	d := decimal.RequireFromString(s)
	return &d
}

// utc is a shorthand for a UTC instant.
func utc(y int, mo time.Month, d, h, mi, s int) time.Time {
	return time.Date(y, mo, d, h, mi, s, 0, time.UTC)
}

// shaOf is the hex sha256 of a name: distinct names give distinct "files".
func shaOf(name string) string {
	h := sha256.Sum256([]byte(name))
	return hex.EncodeToString(h[:])
}

func counts(tb testing.TB, s *Store) map[string]int {
	tb.Helper()
	c, err := s.Counts(context.Background())
	if err != nil {
		tb.Fatalf("Counts: %v", err)
	}
	return c
}

// wantCounts builds a full Counts map: every table zero unless named.
func wantCounts(nonZero map[string]int) map[string]int {
	m := map[string]int{"source_files": 0, "rejected_rows": 0, "source_warnings": 0, "billing_lines": 0, "gpus": 0,
		"gpu_minutes": 0, "gpu_days": 0, "tasks": 0, "task_runs": 0, "teams": 0}
	maps.Copy(m, nonZero)
	return m
}

func assertCounts(tb testing.TB, s *Store, want map[string]int) {
	tb.Helper()
	if got := counts(tb, s); !maps.Equal(got, want) {
		tb.Fatalf("Counts() = %v, want %v", got, want)
	}
}

// feed is a ParseFunc that delivers the given records in order (billing lines,
// then samples, then task runs) and returns sum.
func feed(sum *ingest.Summary, lines []*finops.BillingLine, samples []*finops.GPUSample, runs []*finops.TaskRun) ParseFunc {
	return func(ctx context.Context, sink ingest.Sink) (*ingest.Summary, error) {
		for _, l := range lines {
			if err := sink.Billing(l); err != nil {
				return nil, err
			}
		}
		for _, x := range samples {
			if err := sink.Sample(x); err != nil {
				return nil, err
			}
		}
		for _, r := range runs {
			if err := sink.TaskRun(r); err != nil {
				return nil, err
			}
		}
		return sum, nil
	}
}

// mustImport imports a file that must not be a duplicate.
func mustImport(tb testing.TB, s *Store, uri string, parse ParseFunc) *ImportResult {
	tb.Helper()
	res, err := s.Import(context.Background(), FileMeta{URI: uri, SHA256: shaOf(uri)}, parse)
	if err != nil {
		tb.Fatalf("Import(%s): %v", uri, err)
	}
	if res.Duplicate {
		tb.Fatalf("Import(%s): unexpected duplicate of %s", uri, res.DuplicateOf)
	}
	return res
}

// usageLine is a minimal valid billing line over [start, end).
func usageLine(line int, id string, start, end time.Time, cost string) *finops.BillingLine {
	return &finops.BillingLine{Line: line, ResourceID: id, ChargeStart: start, ChargeEnd: end,
		ChargeCategory: finops.ChargeUsage, BilledCost: dec(cost), Currency: "USD"}
}

// decEq compares two optional decimals: both nil, or both set and Equal.
func decEq(a, b *decimal.Decimal) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Equal(*b)
}

// series builds a series' minutes in order, as Store.GPUSeries does.
func series(g finops.GPUSeries, ms []finops.MinuteUtil) finops.GPUSeries {
	for _, m := range ms {
		g.Add(m.Minute, m.Util)
	}
	return g
}

// checkOutlines: GPUOutlines over [from, to) lists the GPUs of want (what
// GPUSeries returned for the same range, checked by hand by the caller), each
// spanning want's first to last minute, and LoadSeries of each gives want's.
func checkOutlines(t *testing.T, s *Store, from, to time.Time, want []finops.GPUSeries) {
	t.Helper()
	ctx := context.Background()
	outlines, err := s.GPUOutlines(ctx, from, to)
	if err != nil {
		t.Fatal(err)
	}
	if len(outlines) != len(want) {
		t.Fatalf("GPUOutlines: %d GPUs, want %d", len(outlines), len(want))
	}
	for i := range want {
		o, w := &outlines[i], &want[i]
		ms := w.Minutes()
		first, last, ok := o.Span()
		if o.Key != w.Key || o.Interval != w.Interval || o.Len() != 0 || !ok ||
			first != ms[0].Minute || last != ms[len(ms)-1].Minute {
			t.Errorf("outline %s (interval %v, %d minutes held) spans %d–%d (%v), want %s (%v) %d–%d",
				o.Key, o.Interval, o.Len(), first, last, ok, w.Key, w.Interval, ms[0].Minute, ms[len(ms)-1].Minute)
		}
		got, err := s.LoadSeries(ctx, o, from, to)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, *w) {
			t.Errorf("LoadSeries(%s) =\n%+v\nwant\n%+v", o.Key, got, *w)
		}
	}
}

// damagePage overwrites page n (counted from 1; 0: the page in the middle)
// of the SQLite file at path with 0xA5 bytes, whatever its page size (bytes
// 16–17 of the file header).
func damagePage(tb testing.TB, path string, n int) {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	page := int(b[16])<<8 | int(b[17])
	if page == 1 {
		page = 65536
	}
	pages := len(b) / page
	if n == 0 {
		n = pages/2 + 1
	}
	if n < 2 || n > pages {
		tb.Fatalf("%s: page %d of %d (%d bytes each) cannot be damaged", path, n, pages, page)
	}
	copy(b[(n-1)*page:n*page], bytes.Repeat([]byte{0xA5}, page))
	if err := os.WriteFile(path, b, 0o644); err != nil {
		tb.Fatal(err)
	}
}
