package ingest

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// TestCURCoveredEmptyEffective is issue 34's covered line without its
// effective cost, on koku's 2023-06-01.csv: three SavingsPlanCoveredUsage
// hours of an m5.large, unblended 10 NOK and savingsPlan/SavingsPlanEffectiveCost
// 0.1 NOK each. Line 3's effective cost is emptied, and line 4 is made a
// DiscountedUsage line (reservation/EffectiveCost is empty in the file).
// Both lines are kept at their unblended cost, and the file warns once per
// kind with the count and the amount: by hand, effective total
// 0.1 + 10 + 10 = 20.1 NOK, billed 30 NOK; 1 line of 10 NOK each.
func TestCURCoveredEmptyEffective(t *testing.T) {
	hdr, rows := csvTable(t, "aws/2023-06-01.csv")
	rows = [][]string{slices.Clone(rows[0]), slices.Clone(rows[1]), slices.Clone(rows[2])}
	rows[1][index(t, hdr, "savingsPlan/SavingsPlanEffectiveCost")] = ""
	rows[2][index(t, hdr, "lineItem/LineItemType")] = "DiscountedUsage"
	sum, sink, err := parseCUR(writeCSV(t, append([][]string{hdr}, rows...)...), "covered.csv", 0)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Rows != 3 || len(sink.lines) != 3 {
		t.Fatalf("%d rows read, want 3", sum.Rows)
	}
	want := []string{"0.1", "10", "10"}
	for i, l := range sink.lines {
		if l.EffectiveCost == nil || !l.EffectiveCost.Equal(decimal.RequireFromString(want[i])) {
			t.Errorf("line %d: effective %v, want %s", l.Line, l.EffectiveCost, want[i])
		}
	}
	if !sum.TotalCost.Equal(decimal.RequireFromString("20.1")) {
		t.Errorf("total %s, want 20.1", sum.TotalCost)
	}
	if sum.WarningCount != 2 || len(sum.Warnings) != 2 {
		t.Fatalf("warnings %v, want one for each kind of covered line", sum.Warnings)
	}
	wantErrParts(t, sum.Warnings[0], "covered.csv:3", `"savingsPlan/SavingsPlanEffectiveCost"`,
		"1 SavingsPlanCoveredUsage line (this one) has no", "10 NOK in all", "overstates the effective cost by up to")
	wantErrParts(t, sum.Warnings[1], "covered.csv:4", `"reservation/EffectiveCost"`, "1 DiscountedUsage line (this one) has no", "10 NOK in all")

	// Every covered line filled: no warning.
	_, rows = csvTable(t, "aws/2023-06-01.csv")
	sum, _, err = parseCUR(writeCSV(t, append([][]string{hdr}, rows...)...), "full.csv", 0)
	if err != nil || sum.WarningCount != 0 {
		t.Fatalf("a file with every effective cost: %v, warnings %v", err, sum.Warnings)
	}
}

// TestCURFallbackGenerated: over generated files of covered and plain
// lines, some covered ones without their effective cost, the warning's count
// and amount equal those computed from the rows the test wrote, and the
// effective total is the sum of each row's effective cost or, where empty,
// its unblended cost.
func TestCURFallbackGenerated(t *testing.T) {
	hdr := []string{"lineItem/LineItemType", "lineItem/UsageStartDate", "lineItem/UsageEndDate", "lineItem/UnblendedCost",
		"lineItem/CurrencyCode", "savingsPlan/SavingsPlanEffectiveCost", "reservation/EffectiveCost"}
	rng := rand.New(rand.NewPCG(34, 2))
	for c := range 200 {
		recs := [][]string{hdr}
		var missing int
		var missingAmt, total decimal.Decimal
		for range 1 + rng.IntN(20) {
			cost := decimal.New(int64(rng.IntN(100000)), -3)
			eff := decimal.New(int64(rng.IntN(100000)), -3)
			typ := []string{"Usage", "SavingsPlanCoveredUsage"}[rng.IntN(2)]
			spCell := ""
			switch {
			case typ == "Usage":
				total = total.Add(cost)
			case rng.IntN(3) == 0: // covered, effective cost left empty
				missing++
				missingAmt = missingAmt.Add(cost)
				total = total.Add(cost)
			default:
				spCell = eff.String()
				total = total.Add(eff)
			}
			recs = append(recs, []string{typ, "2026-11-01T00:00:00Z", "2026-11-01T01:00:00Z", cost.String(), "USD", spCell, ""})
		}
		sum, _, err := parseCUR(writeCSV(t, recs...), "gen.csv", 0)
		if err != nil {
			t.Fatalf("case %d: %v", c, err)
		}
		if !sum.TotalCost.Equal(total) {
			t.Errorf("case %d: total %s, want %s", c, sum.TotalCost, total)
		}
		if missing == 0 {
			if sum.WarningCount != 0 {
				t.Errorf("case %d: warnings %v, want none", c, sum.Warnings)
			}
			continue
		}
		count := strconv.Itoa(missing) + " SavingsPlanCoveredUsage lines (the first on this line) have no"
		if missing == 1 {
			count = "1 SavingsPlanCoveredUsage line (this one) has no"
		}
		if sum.WarningCount != 1 || !strings.Contains(sum.Warnings[0].Msg, missingAmt.String()+" USD in all") ||
			!strings.HasPrefix(sum.Warnings[0].Msg, count) {
			t.Errorf("case %d: warnings %v, want %d lines, %s USD", c, sum.Warnings, missing, missingAmt)
		}
	}
}
