package report

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/finops-oss/finops/internal/amount"
	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/sanitize"
	"github.com/finops-oss/finops/internal/termcol"
)

// The quarterly rent-or-buy review (`finops review`): its own JSON, workbook
// and HTML page, named finops-review-<quarter>.{xlsx,html,json}.

// WriteReviewAll writes the review as xlsx, html and json into dir and returns
// the paths written. Like WriteAll, the label is reduced to [A-Za-z0-9_.-] and
// the three files are written as one fileSet: all of them or none.
func WriteReviewAll(dir string, rv *analysis.Review, meta Meta) ([]string, error) {
	if rv == nil {
		return nil, fmt.Errorf("report: nil review")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	base := "finops-review-" + sanitize.FileLabel(rv.Quarter.Label, "report")
	return writeFiles(dir, base, []string{".xlsx", ".html", ".json"}, "review", nil, func(f string, w io.Writer) error {
		switch f {
		case ".xlsx":
			return WriteReviewXLSX(w, rv, meta)
		case ".html":
			return WriteReviewHTML(w, rv, meta)
		}
		return WriteReviewJSON(w, rv)
	})
}

// WriteReviewJSON writes the review's tagged fields, indented, at full
// precision; empty lists are [] rather than null.
func WriteReviewJSON(w io.Writer, rv *analysis.Review) error {
	if rv == nil {
		return fmt.Errorf("report: nil review")
	}
	n := *rv
	n.Warnings = nonNil(n.Warnings)
	n.Models = make([]analysis.ModelReview, len(rv.Models))
	for i, m := range rv.Models {
		m.Resources = nonNil(m.Resources)
		m.Sensitivity = roundSensitivity(rv.Currency, nonNil(m.Sensitivity))
		roundReviewMoney(rv.Currency, &m)
		n.Models[i] = m
	}
	enc := json.NewEncoder(sanitize.NewJSONWriter(w)) // no control or invisible character raw
	enc.SetIndent("", "  ")
	if err := enc.Encode(&n); err != nil {
		return fmt.Errorf("report: write review json: %w", err)
	}
	return nil
}

// WriteReviewSummary prints one line per GPU model and the warnings: the
// verdict and the figures it rests on.
func WriteReviewSummary(w io.Writer, rv *analysis.Review) error {
	if rv == nil {
		return fmt.Errorf("report: nil review")
	}
	cur := rv.Currency
	fmt.Fprintf(w, "Rent-or-buy review %s\n", sanitize.Terminal(rv.Quarter.Label, 20))
	if len(rv.Models) == 0 {
		fmt.Fprintln(w, "  No GPU model was billed in this quarter.")
	} else {
		tw := termcol.NewWriter(w)
		fmt.Fprintln(tw, "  GPU MODEL\tGPUS\tOBSERVED\tBREAKEVEN\tOWN/MO\tRENT/MO\tVERDICT\tCONFIDENCE\t")
		for _, m := range rv.Models {
			be, own, rent := "", "", ""
			if m.BreakevenUtilization != 0 {
				be = percent(m.BreakevenUtilization / 100)
				rent = money(cur, m.RentMonthlyPerGPU)
			}
			if m.OwnedMonthlyPerGPU != 0 {
				own = money(cur, m.OwnedMonthlyPerGPU)
			}
			// "≥ 19.1%" where telemetry had gaps: the reason line says how much.
			obs := percent(m.ObservedUtilization / 100)
			if m.ObservedText != "" {
				obs, _ = analysis.UtilizationReading(m.ObservedUtilization, m.MonitoredShare)
			}
			fmt.Fprintf(tw, "  %s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", sanitize.Terminal(m.GPUModel, 24), m.GPUs,
				obs, be, own, rent, verdictText(m.Verdict), sanitize.Terminal(m.Confidence, 8))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, m := range rv.Models {
			fmt.Fprintf(w, "  %s: %s\n", sanitize.Terminal(m.GPUModel, 24), sanitize.Terminal(m.Reason, 400))
		}
	}
	for _, s := range rv.Warnings {
		fmt.Fprintf(w, "  ! %s\n", sanitize.Terminal(s, 300))
	}
	return nil
}

// verdictText is the human wording of a review verdict.
func verdictText(v string) string {
	switch v {
	case analysis.VerdictBuy:
		return "Buy"
	case analysis.VerdictKeepRenting:
		return "Keep renting"
	case analysis.VerdictInsufficientData:
		return "Not enough data"
	case analysis.VerdictNoPrice:
		return "No rental price"
	case analysis.VerdictNoAssumptions:
		return "No purchase assumptions"
	}
	return strings.ReplaceAll(sanitize.Control(v), "_", " ")
}

// roundReviewMoney rounds the review's amounts of money to the currency's
// minor unit, as the report's JSON does (amount.RoundMinor); prices per hour
// or per month (0.9 per GPU-hour) keep their digits, as the catalog gives
// them, and so do fractions and hours.
func roundReviewMoney(cur string, m *analysis.ModelReview) {
	for _, v := range []*float64{&m.RentCost, &m.CurrentMonthlyCost, &m.RentMonthlyPerGPU, &m.OwnedMonthlyPerGPU,
		&m.MonthlySavingsPerGPU, &m.MonthlySavings, &m.PurchaseCost, &m.Owned.CapexPerGPU, &m.Owned.Depreciation,
		&m.Owned.Power, &m.Owned.Hosting, &m.Owned.Ops, &m.Owned.Total} {
		*v = amount.RoundMinor(cur, *v)
	}
}

// roundSensitivity is roundReviewMoney for the sensitivity rows (a copy:
// the caller's review is not changed).
func roundSensitivity(cur string, in []analysis.Sensitivity) []analysis.Sensitivity {
	out := slices.Clone(in)
	for i := range out {
		out[i].CapexPerGPU = amount.RoundMinor(cur, out[i].CapexPerGPU)
		out[i].OwnedMonthlyPerGPU = amount.RoundMinor(cur, out[i].OwnedMonthlyPerGPU)
	}
	return out
}
