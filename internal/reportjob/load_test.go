package reportjob

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/ingest"
	"github.com/finops-oss/finops/internal/store"
	"github.com/shopspring/decimal"
)

// billStore is a real store holding one bill per currency, each one line of
// a day of the week of 2026-11-23 costing 10.
func billStore(t *testing.T, currencies ...string) (*store.Store, analysis.Window) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "finops.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	start := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	for i, cur := range currencies {
		uri := "bill-" + cur + ".csv"
		cost := decimal.NewFromInt(10)
		l := &finops.BillingLine{Line: 2, Provider: "autodl", ChargeStart: start.AddDate(0, 0, i), ChargeEnd: start.AddDate(0, 0, i+1),
			ChargeCategory: finops.ChargeUsage, ResourceID: "box-" + cur, BilledCost: &cost, EffectiveCost: &cost, Currency: cur}
		sum := &ingest.Summary{Format: "focus", Kind: ingest.KindBilling, Rows: 1, PeriodStart: l.ChargeStart, PeriodEnd: l.ChargeEnd,
			Currencies: []string{cur}, TotalCost: cost}
		h := sha256.Sum256([]byte(uri))
		if _, err := st.Import(ctx, store.FileMeta{URI: uri, SHA256: hex.EncodeToString(h[:])},
			func(ctx context.Context, sink ingest.Sink) (*ingest.Summary, error) { return sum, sink.Billing(l) }); err != nil {
			t.Fatal(err)
		}
	}
	return st, analysis.Window{Start: start, End: start.AddDate(0, 0, 7), Label: "2026-W48"}
}

// TestLoadCurrenciesAndLines: lines in a currency the config has no rate
// for are a ConfigError naming the currency and its file; with the rate,
// the range's two lines are held up to HoldLines 2 and streamed below it.
func TestLoadCurrenciesAndLines(t *testing.T) {
	st, win := billStore(t, "USD", "CNY")
	for _, tc := range []struct {
		name       string
		yaml       string
		hold       int
		wantErr    string // a part of the ConfigError; "" for none
		wantHeld   int
		wantStream bool
	}{
		{"no rate", "currency: USD\n", 2, "no exchange rate from CNY to USD for the lines in bill-CNY.csv", 0, false},
		{"held", "currency: USD\nfx:\n  CNY: \"0.14\"\n", 2, "", 2, false},
		{"streamed", "currency: USD\nfx:\n  CNY: \"0.14\"\n", 1, "", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := config.Parse("finops.yaml", []byte(tc.yaml))
			if err != nil {
				t.Fatal(err)
			}
			in, err := Load(context.Background(), st, c, win, Options{Outlines: true, HoldLines: tc.hold})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.As(err, new(ConfigError)) {
					t.Fatalf("Load: %v, want a ConfigError saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(in.Lines) != tc.wantHeld || (in.LineStream != nil) != tc.wantStream {
				t.Errorf("%d lines held, streamed %v; want %d held, streamed %v", len(in.Lines), in.LineStream != nil, tc.wantHeld, tc.wantStream)
			}
			if in.LoadSeries == nil || !in.SkipTrends {
				t.Errorf("outlines without trends: LoadSeries %v, SkipTrends %v", in.LoadSeries != nil, in.SkipTrends)
			}
		})
	}
}

// TestReportAdviceAndFailedImports: Report adds the advice decisions and
// the failed imports to what Load reads, a failed import being missing.
func TestReportAdviceAndFailedImports(t *testing.T) {
	ctx := context.Background()
	st, win := billStore(t, "USD")
	decided := win.Start.Add(48 * time.Hour)
	if err := st.RecordAdviceDecision(ctx, store.AdviceDecision{ID: "a1b2c3", Decision: analysis.AdviceDone, DecidedAt: decided,
		ResourceID: "box-USD", Action: analysis.ActionRelease, Currency: "USD"}); err != nil {
		t.Fatal(err)
	}
	// A bill of the week that failed to import, the day after the week began.
	const failedURI = "bills/bill-2.csv"
	if err := st.RecordFailedImport(ctx, store.FailedImport{URI: failedURI, Error: "overlaps bill-USD.csv", At: win.Start.Add(24 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	c, err := config.Parse("finops.yaml", []byte("currency: USD\n"))
	if err != nil {
		t.Fatal(err)
	}
	in, missing, err := Report(ctx, st, c, win, HoldLines, []Source{{Name: "bills/", Kind: "billing", Files: 1}})
	if err != nil {
		t.Fatal(err)
	}
	// The done advice's resource: its one line (2026-11-23), which is within
	// 4 weeks before the decision.
	if len(in.Advice.Decisions) != 1 || in.Advice.Decisions[0].ID != "a1b2c3" || len(in.Advice.Lines) != 1 {
		t.Errorf("advice: %d decisions, %d lines; want 1 and 1", len(in.Advice.Decisions), len(in.Advice.Lines))
	}
	// The run's own source, then the failed import read from the store:
	// only the failed import is missing.
	if !slices.Equal(missing, []string{failedURI}) || len(in.Sources) != 2 || in.Sources[0].Name != "bills/" || in.Sources[0].Status != "ok" ||
		in.Sources[1].Name != failedURI || in.Sources[1].Status != "failed" {
		t.Errorf("sources %+v, missing %q; want the run's one source ok and %s failed and missing", in.Sources, missing, failedURI)
	}
	if in.SkipTrends {
		t.Error("a report's input skips its trends")
	}
}
