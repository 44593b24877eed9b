package store

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/ingest"
	"github.com/shopspring/decimal"
)

// toyFormat is a billing format defined outside package ingest, as a new
// format's one file would define it (CONTRIBUTING.md, "Add a billing
// format"): a CSV with toy_id, toy_start, toy_end and toy_cost, under the
// supersede rule given.
func toyFormat(rule ingest.Supersede) ingest.Format {
	return ingest.Format{
		Name: "toybill", Kind: ingest.KindBilling, Describe: "a toy bill",
		Doc: "CONTRIBUTING.md#add-a-billing-format", Sample: "toy.csv",
		ConfigKeys: []string{"path", "format", "currency"}, Supersede: rule,
		Identity:   []string{"toy_id", "toy_start", "toy_end"},
		Precedence: 90,
		Detect:     func(h *ingest.Header) bool { return h.Has("toy_id", "toy_start", "toy_end", "toy_cost") },
		Rows: func(h *ingest.Header, opt ingest.Options) (ingest.RowParser, []string) {
			var miss []string
			for _, c := range []string{"toy_id", "toy_start", "toy_end", "toy_cost"} {
				if h.Col(c) < 0 {
					miss = append(miss, c)
				}
			}
			if miss != nil {
				return nil, miss
			}
			return toyRows{name: opt.Name, id: h.Col("toy_id"), start: h.Col("toy_start"), end: h.Col("toy_end"), cost: h.Col("toy_cost")}, nil
		},
	}
}

type toyRows struct {
	name                 string
	id, start, end, cost int
}

func (p toyRows) ParseRow(rec []string, line int) (*ingest.Row, *ingest.ParseError) {
	bad := func(field, msg string) *ingest.ParseError {
		return &ingest.ParseError{File: p.name, Line: line, Field: field, Msg: msg}
	}
	start, err := time.Parse(time.RFC3339, rec[p.start])
	if err != nil {
		return nil, bad("toy_start", "expected an RFC 3339 time")
	}
	end, err := time.Parse(time.RFC3339, rec[p.end])
	if err != nil {
		return nil, bad("toy_end", "expected an RFC 3339 time")
	}
	cost, err := decimal.NewFromString(rec[p.cost])
	if err != nil {
		return nil, bad("toy_cost", "expected a decimal number")
	}
	return &ingest.Row{Billing: &finops.BillingLine{Line: line, Provider: "Toy", BillingAccount: "toy-1",
		ChargeStart: start, ChargeEnd: end, ChargeCategory: finops.ChargeUsage, ResourceID: rec[p.id],
		BilledCost: &cost, EffectiveCost: &cost, Currency: "USD"}}, nil
}

// toyFile is a toy bill of the charges numbered ids, charge i an hour of
// resource r<i> on 2026-03-01 costing i.50.
func toyFile(ids []int) string {
	var b strings.Builder
	b.WriteString("toy_id,toy_start,toy_end,toy_cost\n")
	for _, i := range ids {
		at := time.Date(2026, 3, 1, i%24, 0, 0, 0, time.UTC)
		fmt.Fprintf(&b, "r%d,%s,%s,%d.50\n", i, at.Format(time.RFC3339), at.Add(time.Hour).Format(time.RFC3339), i)
	}
	return b.String()
}

// importToy runs detection → parse → store import of one toy file.
func importToy(t *testing.T, s *Store, name, body string, formats []ingest.Format) *ImportResult {
	t.Helper()
	opt := ingest.Options{Name: name, Formats: formats}
	res, err := s.Import(context.Background(), FileMeta{URI: name, SHA256: shaOf(name + body)},
		func(ctx context.Context, sink ingest.Sink) (*ingest.Summary, error) {
			return ingest.Parse(ctx, strings.NewReader(body), opt, sink)
		})
	if err != nil {
		t.Fatalf("import %s: %v", name, err)
	}
	if res.Summary != nil && res.Summary.Format != "toybill" {
		t.Fatalf("import %s: detected as %q, want toybill", name, res.Summary.Format)
	}
	return res
}

// TestToyFormatNeedsOneFile: a billing format defined in one place (an
// ingest.Format entry appended to the built-in ones) is detected from its
// header, parsed and imported, and the store de-duplicates its files by the
// rule its entry gives: under SupersedeByCharge a second file holding a
// subset of the first's charges adds none and one holding a superset
// replaces it; under SupersedeNever the store compares nothing. Files are
// generated; the expected line counts come from set arithmetic on the
// charge numbers.
func TestToyFormatNeedsOneFile(t *testing.T) {
	rng := rand.New(rand.NewSource(36))
	for n := 0; n < 12; n++ {
		first := rng.Perm(20)[:1+rng.Intn(6)]
		var second []int
		superset := rng.Intn(2) == 0
		if superset {
			second = append(append([]int(nil), first...), 20+rng.Intn(4)) // one charge more
		} else {
			second = first[:1+rng.Intn(len(first))] // some of the first's charges
		}
		for _, rule := range []ingest.Supersede{ingest.SupersedeByCharge, ingest.SupersedeNever} {
			t.Run(fmt.Sprintf("%d/%v", n, rule), func(t *testing.T) {
				s := openTest(t)
				formats := append(ingest.BuiltinFormats(), toyFormat(rule))
				importToy(t, s, "a.csv", toyFile(first), formats)
				importToy(t, s, "b.csv", toyFile(second), formats)
				want := len(first) + len(second) // nothing compared
				if rule == ingest.SupersedeByCharge {
					want = max(len(first), len(second)) // each charge once: the union, which is the larger file
				}
				if got := counts(t, s)["billing_lines"]; got != want {
					t.Errorf("first %v, second %v under %v: %d billing lines stored, want %d", first, second, rule, got, want)
				}
			})
		}
	}
}

// TestToyFormatDetectedOnlyWhenRegistered: the built-in registry does not
// read a toy bill; the one given in Options does.
func TestToyFormatDetectedOnlyWhenRegistered(t *testing.T) {
	body := toyFile([]int{1, 2})
	var sink countSink
	if _, err := ingest.Parse(context.Background(), strings.NewReader(body), ingest.Options{Name: "toy.csv"}, &sink); err == nil ||
		!strings.Contains(err.Error(), "unrecognised header") {
		t.Errorf("built-in formats read a toy bill: err %v", err)
	}
	opt := ingest.Options{Name: "toy.csv", Formats: append(ingest.BuiltinFormats(), toyFormat(ingest.SupersedeByCharge))}
	sum, err := ingest.Parse(context.Background(), strings.NewReader(body), opt, &sink)
	if err != nil || sum.Format != "toybill" || sum.Rows != 2 || ingest.SupersedeOf(sum) != ingest.SupersedeByCharge {
		t.Fatalf("with the toy format registered: %+v, %v", sum, err)
	}
	// The refusal of a header nothing reads names the registered formats,
	// the toy among them, and only those.
	other := "when,amount\n2026-01-01,3\n"
	for _, formats := range [][]ingest.Format{nil, opt.Formats} {
		_, err := ingest.Parse(context.Background(), strings.NewReader(other), ingest.Options{Name: "other.csv", Formats: formats}, &sink)
		named := err != nil && strings.Contains(err.Error(), "a toy bill")
		if err == nil || named != (formats != nil) {
			t.Errorf("registered %v: the refusal names the toy bill: %v (%v)", formats != nil, named, err)
		}
	}
}

type countSink struct{ n int }

func (s *countSink) Billing(*finops.BillingLine) error { s.n++; return nil }
func (s *countSink) Sample(*finops.GPUSample) error    { s.n++; return nil }
func (s *countSink) TaskRun(*finops.TaskRun) error     { s.n++; return nil }
