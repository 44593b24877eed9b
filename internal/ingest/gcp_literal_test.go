package ingest

import (
	"fmt"
	"testing"
)

// TestGCPLiteralReaders: the three GCP readers (the CSV, a JSON record of
// the export's schema, a JSON record of another shape read generically)
// parse a credits list and refuse a broken labels list alike, through the
// one literal parser. The effective cost is worked by hand: cost 1.5 plus
// the credit -0.5 is 1.0.
func TestGCPLiteralReaders(t *testing.T) {
	const credits = `[{'name': 'SUD', 'amount': -0.5, 'type': 'SUSTAINED_USAGE_DISCOUNT'}]`
	csv := "usage_start_time,usage_end_time,cost,currency,sku.description,credits,labels\n" +
		"2026-01-01 00:00:00 UTC,2026-01-01 01:00:00 UTC,1.5,USD,Compute,\"%s\",%s\n"
	typed := `{"usage_start_time": "2026-01-01T00:00:00Z", "usage_end_time": "2026-01-01T01:00:00Z", "cost": 1.5, ` +
		`"currency": "USD", "sku": {"description": "Compute"}, "credits": "%s", "labels": "%s"}` + "\n"
	// "sku" as a string does not fit the export's schema: the generic reader.
	generic := `{"usage_start_time": "2026-01-01T00:00:00Z", "usage_end_time": "2026-01-01T01:00:00Z", "cost": 1.5, ` +
		`"currency": "USD", "sku": "Compute", "credits": "%s", "labels": "%s"}` + "\n"
	for _, c := range []struct{ name, format, file string }{
		{"csv", csv, "g.csv"},
		{"typed json", typed, "g.json"},
		{"generic json", generic, "g.json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, sink, err := parseString(fmt.Sprintf(c.format, credits, "[]"), c.file)
			if err != nil {
				t.Fatal(err)
			}
			if len(sink.lines) != 1 || sink.lines[0].EffectiveCost == nil || sink.lines[0].EffectiveCost.String() != "1" {
				t.Fatalf("lines %+v: want one with effective cost 1", sink.lines)
			}
			_, _, err = parseString(fmt.Sprintf(c.format, credits, "[{'key': 'team'"), c.file)
			wantErrParts(t, err, c.file+":", `field "labels"`, "a JSON or Python list like")
		})
	}
}
