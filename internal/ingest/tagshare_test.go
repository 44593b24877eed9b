package ingest

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"unsafe"
)

// TestSharedTagsStayLineOwn holds the invariant that lets parsers share a
// decoded tag set between the lines of one cell (BillingLine.Tags): every
// line's tags are what a parse of that line alone gives, whatever the lines
// before and after it add (FOCUS x_ columns, Azure's resource group, an
// unrecognised GPU). Generated files draw each line's tag cell from a few,
// so that most lines share a map, and the extra tags at random.
func TestSharedTagsStayLineOwn(t *testing.T) {
	cells := []string{``, `{}`, `"{""team"": ""ml""}"`, `"{""team"": ""ml"", ""env"": ""prod""}"`,
		`"""env"": ""dev"""`, `"{""resource_group"": ""given""}"`}
	pick := func(r *rand.Rand, of ...string) string { return of[r.IntN(len(of))] }
	for _, c := range []struct {
		name, header string
		row          func(r *rand.Rand, i int) string
	}{
		{"focus", "BilledCost,ChargePeriodStart,ChargePeriodEnd,Tags,x_Team,x_Env", func(r *rand.Rand, i int) string {
			return fmt.Sprintf("%d,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,%s,%s,%s", i, pick(r, cells...),
				pick(r, "", "", "", "infra"), pick(r, "", "", "staging"))
		}},
		{"azure", "Date,MeterCategory,MeterName,CostInBillingCurrency,BillingCurrency,Tags,ResourceGroup", func(r *rand.Rand, i int) string {
			meter := pick(r, "Virtual Machines,NC24ads A100 v4", "Virtual Machines,NCC40ads H100 v5", "Storage,P30")
			return fmt.Sprintf("01/02/2026,%s,%d,USD,%s,%s", meter, i, pick(r, cells...), pick(r, "", "", "rg-train", "rg-serve"))
		}},
	} {
		for seed := range uint64(20) {
			t.Run(fmt.Sprintf("%s/%d", c.name, seed), func(t *testing.T) {
				r := rand.New(rand.NewPCG(seed, 35))
				rows := make([]string, 1+r.IntN(60))
				for i := range rows {
					rows[i] = c.row(r, i+1)
				}
				all := parseTagLines(t, c.header, rows...)
				if len(all) != len(rows) {
					t.Fatalf("%d lines from %d rows", len(all), len(rows))
				}
				shared := map[unsafe.Pointer]int{}
				for i, row := range rows {
					alone := parseTagLines(t, c.header, row)
					if !reflect.DeepEqual(all[i], alone[0]) {
						t.Errorf("line %d (%s): tags %v in the file, %v alone", i+2, row, all[i], alone[0])
					}
					if all[i] != nil {
						shared[reflect.ValueOf(all[i]).UnsafePointer()]++
					}
				}
				// The lines must share maps, or the test proves nothing.
				if len(rows) >= 20 && len(shared) >= tagged(all) {
					t.Errorf("%d maps for %d tagged lines: no line shares its tags", len(shared), tagged(all))
				}
			})
		}
	}
}

// parseTagLines parses a CSV of the header and rows (parseRows) and
// returns each line's tags, nil for none.
func parseTagLines(t *testing.T, header string, rows ...string) []map[string]string {
	t.Helper()
	lines := parseRows(t, Options{Name: "tags.csv", Currency: "USD"}, header, rows...)
	out := make([]map[string]string, len(lines))
	for i, l := range lines {
		if len(l.Tags) > 0 {
			out[i] = l.Tags
		}
	}
	return out
}

func tagged(ms []map[string]string) int {
	n := 0
	for _, m := range ms {
		if len(m) > 0 {
			n++
		}
	}
	return n
}
