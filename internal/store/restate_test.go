package store

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/ingest"
	"github.com/shopspring/decimal"
)

// Restatement: a billing period delivered again replaces its earlier
// delivery in one transaction, never adds to it.

// deliveryFile is one data file of a delivery: its "bytes" (the sha input)
// and the costs of its lines.
type deliveryFile struct {
	name  string
	costs []string
}

func importDelivery(t *testing.T, s *Store, period, delivery string, files ...deliveryFile) []*ImportResult {
	t.Helper()
	var out []*ImportResult
	for _, f := range files {
		var lines []*finops.BillingLine
		total := decimal.Zero
		for i, c := range f.costs {
			lines = append(lines, usageLine(i+2, "i-"+f.name, utc(2026, 1, 10, i, 0, 0), utc(2026, 1, 10, i+1, 0, 0), c))
			total = total.Add(decimal.RequireFromString(c))
		}
		sum := &ingest.Summary{Format: ingest.FormatCUR, Kind: ingest.KindBilling, Rows: len(lines), TotalCost: total}
		res, err := s.Import(context.Background(), FileMeta{URI: f.name, SHA256: shaOf(f.name), Period: period, Delivery: delivery},
			feed(sum, lines, nil, nil))
		if err != nil {
			t.Fatalf("import %s: %v", f.name, err)
		}
		out = append(out, res)
	}
	return out
}

// periodState lists the stored sources of a period with their deliveries,
// and the total cost of all billing lines.
func periodState(t *testing.T, s *Store, period string) (sources []string, total decimal.Decimal) {
	t.Helper()
	rows, err := s.DB().Query(`SELECT uri || '@' || coalesce(delivery, '') FROM source_files WHERE period_key = ? ORDER BY uri`, period)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var u string
		if err := rows.Scan(&u); err != nil {
			t.Fatal(err)
		}
		sources = append(sources, u)
	}
	rows.Close()
	lines, err := s.Lines(context.Background(), utc(2026, 1, 1, 0, 0, 0), utc(2026, 2, 1, 0, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		c, _ := l.Cost()
		total = total.Add(c)
	}
	return sources, total
}

func TestImportRestatementReplaces(t *testing.T) {
	s := openTest(t)
	const p = "aws-cur:111122223333:2026-01"
	importDelivery(t, s, p, "asm-1", deliveryFile{"a1", []string{"10", "5"}}, deliveryFile{"a2", []string{"1"}})
	if src, total := periodState(t, s, p); !slices.Equal(src, []string{"a1@asm-1", "a2@asm-1"}) || total.String() != "16" {
		t.Fatalf("first delivery: %v, total %s", src, total)
	}
	res := importDelivery(t, s, p, "asm-2", deliveryFile{"b1", []string{"12", "5"}}, deliveryFile{"b2", []string{"2"}})
	if src, total := periodState(t, s, p); !slices.Equal(src, []string{"b1@asm-2", "b2@asm-2"}) || total.String() != "19" {
		t.Errorf("after the restatement: %v, total %s (want only asm-2, 19)", src, total)
	}
	if r := res[0].Replaced; len(r) != 2 || r[0].URI != "a1" || r[0].Rows != 2 || r[1].Delivery != "asm-1" || len(res[1].Replaced) != 0 {
		t.Errorf("replaced: %+v, %+v", res[0].Replaced, res[1].Replaced)
	}
	assertCounts(t, s, wantCounts(map[string]int{"source_files": 2, "billing_lines": 3}))
	assertNoOrphanLines(t, s)

	// The same delivery again changes nothing.
	for _, r := range importDelivery(t, s, p, "asm-2", deliveryFile{"b1", []string{"12", "5"}}, deliveryFile{"b2", []string{"2"}}) {
		if !r.Duplicate || len(r.Replaced) > 0 {
			t.Errorf("re-import: %+v", r)
		}
	}
	assertCounts(t, s, wantCounts(map[string]int{"source_files": 2, "billing_lines": 3}))

	// The replaced delivery does not come back, file by file or whole.
	for _, r := range importDelivery(t, s, p, "asm-1", deliveryFile{"a1", []string{"10", "5"}}, deliveryFile{"a-new", []string{"1"}}) {
		if !r.Superseded || !r.Duplicate || r.Delivery != "asm-2" {
			t.Errorf("re-import of the replaced delivery: %+v", r)
		}
	}
	assertCounts(t, s, wantCounts(map[string]int{"source_files": 2, "billing_lines": 3}))

	// Another period and files without a key are untouched.
	importDelivery(t, s, "aws-cur:111122223333:2026-02", "asm-9", deliveryFile{"feb", []string{"7"}})
	importDelivery(t, s, "", "", deliveryFile{"loose", []string{"3"}})
	importDelivery(t, s, p, "asm-3", deliveryFile{"c1", []string{"20"}})
	if src, _ := periodState(t, s, p); !slices.Equal(src, []string{"c1@asm-3"}) {
		t.Errorf("January: %v", src)
	}
	assertCounts(t, s, wantCounts(map[string]int{"source_files": 3, "billing_lines": 3}))
	assertNoOrphanLines(t, s)
}

// TestImportRestatementKeepsUnchangedFile: a newer delivery that carries a
// file byte for byte adopts the stored copy instead of losing it.
func TestImportRestatementKeepsUnchangedFile(t *testing.T) {
	s := openTest(t)
	const p = "azure:exports/gpu:2026-01"
	importDelivery(t, s, p, "run-1", deliveryFile{"same", []string{"4"}}, deliveryFile{"old", []string{"9"}})
	res := importDelivery(t, s, p, "run-2", deliveryFile{"same", []string{"4"}}, deliveryFile{"new", []string{"6"}})
	if !res[0].Duplicate || len(res[0].Replaced) != 1 || res[0].Replaced[0].URI != "old" || res[0].Delivery != "run-2" {
		t.Errorf("adopting the unchanged file: %+v", res[0])
	}
	if src, total := periodState(t, s, p); !slices.Equal(src, []string{"new@run-2", "same@run-2"}) || total.String() != "10" {
		t.Errorf("after run-2: %v, total %s", src, total)
	}
	// A file imported without a key, then found in a delivery, joins it.
	importDelivery(t, s, "", "", deliveryFile{"loose", []string{"1"}})
	res = importDelivery(t, s, p, "run-3", deliveryFile{"loose", []string{"1"}})
	if src, total := periodState(t, s, p); !res[0].Duplicate || !slices.Equal(src, []string{"loose@run-3"}) || total.String() != "1" {
		t.Errorf("after run-3: %v, total %s", src, total)
	}
	assertNoOrphanLines(t, s)
}

// TestImportRestatementRollsBack: a bad file of the newer delivery leaves the
// older delivery in place, in full.
func TestImportRestatementRollsBack(t *testing.T) {
	s := openTest(t)
	const p = "aws-cur:1:2026-01"
	importDelivery(t, s, p, "asm-1", deliveryFile{"a1", []string{"10"}})
	before := counts(t, s)
	boom := errors.New("bad.csv:3: field \"lineItem/UnblendedCost\": expected a decimal")
	_, err := s.Import(context.Background(), FileMeta{URI: "bad.csv", SHA256: shaOf("bad.csv"), Period: p, Delivery: "asm-2"},
		func(ctx context.Context, sink ingest.Sink) (*ingest.Summary, error) {
			if err := sink.Billing(usageLine(2, "i-x", utc(2026, 1, 10, 0, 0, 0), utc(2026, 1, 10, 1, 0, 0), "1")); err != nil {
				return nil, err
			}
			return nil, boom
		})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	assertCounts(t, s, before)
	if src, _ := periodState(t, s, p); !slices.Equal(src, []string{"a1@asm-1"}) {
		t.Errorf("after the failed import: %v", src)
	}
}

// TestImportSummaryPeriod: a key the parser derives from the data (Azure
// actual vs amortized exports of a month) replaces across deliveries and
// keeps files of the same delivery side by side.
func TestImportSummaryPeriod(t *testing.T) {
	s := openTest(t)
	imp := func(name, delivery, cost string) *ImportResult {
		l := usageLine(2, "vm-"+name, utc(2026, 1, 3, 0, 0, 0), utc(2026, 1, 4, 0, 0, 0), cost)
		sum := &ingest.Summary{Format: ingest.FormatAzure, Kind: ingest.KindBilling, Rows: 1, TotalCost: decimal.RequireFromString(cost),
			Period: "azure:acct:2026-01", Delivery: delivery}
		res, err := s.Import(context.Background(), FileMeta{URI: name, SHA256: shaOf(name)}, feed(sum, []*finops.BillingLine{l}, nil, nil))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	imp("sub1-actual", "actual", "10")
	imp("sub2-actual", "actual", "20")
	res := imp("all-amortized", "amortized", "33")
	if len(res.Replaced) != 2 || res.Period != "azure:acct:2026-01" || res.Delivery != "amortized" {
		t.Errorf("amortized after actual: %+v", res)
	}
	if src, total := periodState(t, s, "azure:acct:2026-01"); !slices.Equal(src, []string{"all-amortized@amortized"}) || total.String() != "33" {
		t.Errorf("stored %v, total %s", src, total)
	}
	// The replaced actual export stays replaced: a folder holding both
	// settles instead of flipping at every run.
	if r := imp("sub1-actual", "actual", "10"); !r.Superseded || r.Delivery != "amortized" {
		t.Errorf("re-import of a replaced export: %+v", r)
	}
	if src, _ := periodState(t, s, "azure:acct:2026-01"); !slices.Equal(src, []string{"all-amortized@amortized"}) {
		t.Errorf("stored %v", src)
	}
	// A new actual export of the month (other bytes) replaces the amortized one.
	if r := imp("sub1-actual-v2", "actual", "11"); r.Superseded || len(r.Replaced) != 1 {
		t.Errorf("a new actual export: %+v", r)
	}
	assertNoOrphanLines(t, s)
	// A manifest's key wins over the parser's.
	l := usageLine(2, "vm", utc(2026, 1, 3, 0, 0, 0), utc(2026, 1, 4, 0, 0, 0), "5")
	sum := &ingest.Summary{Kind: ingest.KindBilling, Rows: 1, Period: "azure:acct:2026-01", Delivery: "actual"}
	r, err := s.Import(context.Background(), FileMeta{URI: "m", SHA256: shaOf("m"), Period: "azure:exports/x:2026-01", Delivery: "run-1"},
		feed(sum, []*finops.BillingLine{l}, nil, nil))
	if err != nil || r.Period != "azure:exports/x:2026-01" || len(r.Replaced) != 0 {
		t.Errorf("manifest key: %+v, %v", r, err)
	}
}
