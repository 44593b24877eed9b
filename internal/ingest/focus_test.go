package ingest

import (
	"encoding/csv"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops"
	"github.com/shopspring/decimal"
)

// focusScan is what the test itself reads from a FOCUS CSV with encoding/csv,
// independently of the parser.
type focusScan struct {
	rows             int
	effectiveSum     decimal.Decimal // Σ EffectiveCost, NULL skipped
	costSum          decimal.Decimal // Σ EffectiveCost, else BilledCost
	nullEffective    int
	gpuLines         map[int]string // line → instance type named in ChargeDescription
	orgKeyWithSpaces int            // rows whose Tags has the key " org"
}

func scanFOCUS(t *testing.T, path string, instanceTypes ...string) focusScan {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	s := focusScan{gpuLines: map[int]string{}}
	// ReadAll forgets positions: find lines by re-reading record by record.
	f2, _ := os.Open(path)
	defer f2.Close()
	r2 := csv.NewReader(f2)
	if _, err := r2.Read(); err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs[1:] {
		if _, err := r2.Read(); err != nil {
			t.Fatal(err)
		}
		line, _ := r2.FieldPos(0)
		s.rows++
		eff, billed := rec[col["EffectiveCost"]], rec[col["BilledCost"]]
		if eff == "NULL" {
			s.nullEffective++
			if billed != "NULL" {
				s.costSum = s.costSum.Add(decimal.RequireFromString(billed))
			}
		} else {
			d := decimal.RequireFromString(eff)
			s.effectiveSum = s.effectiveSum.Add(d)
			s.costSum = s.costSum.Add(d)
		}
		for _, it := range instanceTypes {
			if strings.Contains(rec[col["ChargeDescription"]], " "+it+" ") {
				s.gpuLines[line] = it
			}
		}
		if strings.Contains(rec[col["Tags"]], `" org"`) {
			s.orgKeyWithSpaces++
		}
	}
	return s
}

func TestFOCUSSample(t *testing.T) {
	want := scanFOCUS(t, testdata("focus_sample.csv"), "g5.4xlarge", "g3.4xlarge")
	if len(want.gpuLines) == 0 {
		t.Fatal("test scan found no GPU rows in the sample")
	}
	sum, sink := mustParse(t, "focus_sample.csv", Options{})

	if sum.Format != FormatFOCUS || sum.Kind != KindBilling {
		t.Errorf("format %q kind %q", sum.Format, sum.Kind)
	}
	if sum.Rows != want.rows || len(sink.lines) != want.rows {
		t.Errorf("rows: summary %d, sink %d, want %d", sum.Rows, len(sink.lines), want.rows)
	}
	var eff decimal.Decimal
	nullEff := 0
	for _, l := range sink.lines {
		if l.EffectiveCost == nil {
			nullEff++
		} else {
			eff = eff.Add(*l.EffectiveCost)
		}
	}
	if !eff.Equal(want.effectiveSum) {
		t.Errorf("Σ EffectiveCost = %s, want %s", eff, want.effectiveSum)
	}
	if nullEff != want.nullEffective {
		t.Errorf("null EffectiveCost: %d, want %d", nullEff, want.nullEffective)
	}
	if !sum.TotalCost.Equal(want.costSum) {
		t.Errorf("TotalCost = %s, want %s", sum.TotalCost, want.costSum)
	}
	if got := strings.Join(sum.Currencies, ","); got != "USD" {
		t.Errorf("currencies %q", got)
	}
	if sum.GPULines != len(want.gpuLines) {
		t.Errorf("GPULines = %d, want %d", sum.GPULines, len(want.gpuLines))
	}
	orgTrimmed := checkFOCUSSampleLines(t, sink.lines, want)
	if want.orgKeyWithSpaces == 0 || orgTrimmed < want.orgKeyWithSpaces {
		t.Errorf("rows with tag org: %d, want at least the %d rows with key \" org\"", orgTrimmed, want.orgKeyWithSpaces)
	}
	wantStart := time.Date(2024, 9, 1, 0, 0, 0, 0, time.UTC)
	if !sum.PeriodStart.Equal(wantStart) || !sum.PeriodEnd.After(sum.PeriodStart) {
		t.Errorf("period %v – %v", sum.PeriodStart, sum.PeriodEnd)
	}
}

// checkFOCUSSampleLines checks each line against the test's own scan: the
// GPU rows' instance, model and count, no GPU on other rows, charge
// frequencies lower-cased and tag keys trimmed; it returns how many lines
// carry the trimmed tag org.
func checkFOCUSSampleLines(t *testing.T, lines []*finops.BillingLine, want focusScan) int {
	t.Helper()
	wantModel := map[string]string{"g5.4xlarge": "A10G", "g3.4xlarge": "M60"}
	orgTrimmed := 0
	for _, l := range lines {
		it, isGPU := want.gpuLines[l.Line]
		switch {
		case isGPU && (l.InstanceType != it || l.GPUModel != wantModel[it] || l.GPUCount != 1 || !l.IsGPUUsage()):
			t.Errorf("line %d: instance %q model %q count %d usage %v; want %s, %s × 1",
				l.Line, l.InstanceType, l.GPUModel, l.GPUCount, l.IsGPUUsage(), it, wantModel[it])
		case !isGPU && l.GPUModel != "":
			t.Errorf("line %d: GPU model %q on a non-GPU row", l.Line, l.GPUModel)
		}
		if l.ChargeFrequency != "" && l.ChargeFrequency != strings.ToLower(l.ChargeFrequency) {
			t.Errorf("line %d: ChargeFrequency %q not normalised", l.Line, l.ChargeFrequency)
		}
		if _, ok := l.Tags[" org"]; ok {
			t.Errorf("line %d: tag key with spaces kept", l.Line)
		}
		if _, ok := l.Tags["org"]; ok {
			orgTrimmed++
		}
	}
	return orgTrimmed
}

// focus_features.csv is hand-written to exercise FOCUS 1.3 names, offsets,
// scientific notation, custom columns and the pricing-mode rules.
func TestFOCUSFeatures(t *testing.T) {
	sum, sink := mustParse(t, "focus_features.csv", Options{})
	if len(sink.lines) != 4 {
		t.Fatalf("%d lines, want 4", len(sink.lines))
	}
	// 1500.00 + 12 (1.2E+1 billed, 12.000 effective) + (-5.00 billed, effective NULL) + 0.25 = 1507.25
	if want := decimal.RequireFromString("1507.25"); !sum.TotalCost.Equal(want) {
		t.Errorf("TotalCost %s, want %s", sum.TotalCost, want)
	}
	// GPU lines are GPU usage lines (IsGPUUsage, as the report counts them):
	// the p5 and g6e usage; the credit and the unused commitment are not.
	if sum.GPULines != 2 {
		t.Errorf("GPULines %d, want 2", sum.GPULines)
	}
	if got := strings.Join(sum.Currencies, ","); got != "USD" {
		t.Errorf("currencies %q, want USD (upper-cased)", got)
	}
	type want struct {
		line                      int
		provider                  string
		start, end                time.Time
		category, frequency, mode string
		status, instance, model   string
		count                     int
		tags                      map[string]string
		billed, effective         string // "" = nil
	}
	day := func(d, h int) time.Time { return time.Date(2026, 11, d, h, 0, 0, 0, time.UTC) }
	half := 500 * time.Millisecond
	cases := []want{
		{2, "Lambda", day(1, 0), time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), "usage", "recurring", finops.ModeMonthly, "",
			"p5.48xlarge", "H100", 8, map[string]string{"team": "ml", "x_InstanceType": "p5.48xlarge", "x_Team": "ml"}, "1500.00", "1500.00"},
		// 10:00:00.5+02:00 is 08:00:00.5 UTC.
		{3, "AWS", day(2, 8).Add(half), day(2, 9).Add(half), "usage", "usage-based", finops.ModeSpot, "",
			"g6e.12xlarge", "L40S", 4, map[string]string{"team": "ml", "cost_center": "42"}, "12", "12"},
		{4, "AWS", day(3, 0), day(4, 0), "credit", "one-time", "", "", "", "", 0, nil, "-5", ""},
		{5, "Microsoft", day(4, 0), day(4, 1), "usage", "usage-based", finops.ModeCommitted, "unused",
			"Standard_ND96isr_H100_v5", "H100", 8, nil, "0.25", "0.25"},
	}
	for i, w := range cases {
		l := sink.lines[i]
		if l.Line != w.line || l.Provider != w.provider || !l.ChargeStart.Equal(w.start) || !l.ChargeEnd.Equal(w.end) ||
			l.ChargeCategory != w.category || l.ChargeFrequency != w.frequency || l.PricingMode != w.mode ||
			l.CommitmentStatus != w.status || l.InstanceType != w.instance || l.GPUModel != w.model || l.GPUCount != w.count {
			t.Errorf("row %d: got %+v\nwant %+v", i, *l, w)
		}
		if l.ChargeStart.Location() != time.UTC {
			t.Errorf("row %d: start not in UTC", i)
		}
		if len(l.Tags) != len(w.tags) {
			t.Errorf("row %d: tags %q, want %q", i, l.Tags, w.tags)
		}
		for k, v := range w.tags {
			if l.Tags[k] != v {
				t.Errorf("row %d: tag %q = %q, want %q", i, k, l.Tags[k], v)
			}
		}
		checkDec(t, "BilledCost", l.BilledCost, w.billed)
		checkDec(t, "EffectiveCost", l.EffectiveCost, w.effective)
	}
}

func checkDec(t *testing.T, what string, got *decimal.Decimal, want string) {
	t.Helper()
	switch {
	case want == "" && got != nil:
		t.Errorf("%s = %s, want NULL", what, got)
	case want != "" && got == nil:
		t.Errorf("%s = NULL, want %s", what, want)
	case want != "" && !got.Equal(decimal.RequireFromString(want)):
		t.Errorf("%s = %s, want %s", what, got, want)
	}
}

// The FOCUS specification's own worked examples: blank lines, CRLF, lower-case
// null, and one file with an impossible hour (T30:00:00Z) that must be refused.
func TestFOCUSSpecExamples(t *testing.T) {
	dir := testdata("focus-spec-examples")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < 10 {
		t.Fatalf("only %d spec examples", len(entries))
	}
	for _, e := range entries {
		name := "focus-spec-examples/" + e.Name()
		t.Run(e.Name(), func(t *testing.T) {
			want := scanFOCUSLoose(t, testdata(name))
			// The spec's examples have no BillingCurrency column: --currency says it.
			sum, sink, err := parseFile(t, name, Options{Currency: "USD"})
			if line, bad := impossibleHour(t, testdata(name)); line > 0 {
				wantErrParts(t, err, fmt.Sprintf("%s:%d", e.Name(), line), bad)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if sum.Rows != want.rows || len(sink.lines) != want.rows {
				t.Errorf("rows %d, want %d", sum.Rows, want.rows)
			}
			if !sum.TotalCost.Equal(want.costSum) {
				t.Errorf("TotalCost %s, want %s", sum.TotalCost, want.costSum)
			}
			for _, l := range sink.lines {
				if l.CommitmentStatus != "" && l.CommitmentStatus != "used" && l.CommitmentStatus != "unused" {
					t.Errorf("line %d: status %q", l.Line, l.CommitmentStatus)
				}
			}
		})
	}
}

// impossibleHour finds the first line with an hour of 24 or more.
func impossibleHour(t *testing.T, path string) (line int, value string) {
	re := regexp.MustCompile(`\d{4}-\d\d-\d\dT(2[4-9]|[3-9]\d):\d\d:\d\dZ`)
	for i, l := range strings.Split(string(readFile(t, path)), "\n") {
		if m := re.FindString(l); m != "" {
			return i + 1, m
		}
	}
	return 0, ""
}

// scanFOCUSLoose sums a small FOCUS file whose nulls are spelled "null".
func scanFOCUSLoose(t *testing.T, path string) focusScan {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	var s focusScan
	for _, rec := range recs[1:] {
		s.rows++
		v := rec[col["EffectiveCost"]]
		if i, ok := col["EffectiveCost"]; !ok || strings.EqualFold(rec[i], "null") {
			v = rec[col["BilledCost"]]
		}
		if !strings.EqualFold(v, "null") {
			s.costSum = s.costSum.Add(decimal.RequireFromString(v))
		}
	}
	return s
}

func TestFOCUSInline(t *testing.T) {
	head := "BilledCost,ChargePeriodStart,ChargePeriodEnd,SkuPriceDetails,Tags\n"
	in := head +
		`1,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,"{""x_InstanceType"": ""g6.xlarge"", ""vCPU"": 4}","""env"": ""prod"", ""team"": ""ml"""` + "\n" +
		`2,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,NULL,{}` + "\n"
	sink := &recSink{}
	sum, err := Parse(t.Context(), strings.NewReader(in), Options{Name: "f12.csv", Currency: "USD"}, sink)
	if err != nil {
		t.Fatal(err)
	}
	l := sink.lines[0]
	if l.InstanceType != "g6.xlarge" || l.GPUModel != "L4" || l.GPUCount != 1 {
		t.Errorf("SkuPriceDetails instance: %q %q %d", l.InstanceType, l.GPUModel, l.GPUCount)
	}
	// Azure's legacy tag format lacks the braces.
	if l.Tags["env"] != "prod" || l.Tags["team"] != "ml" || len(sink.lines[1].Tags) != 0 {
		t.Errorf("tags %q / %q", l.Tags, sink.lines[1].Tags)
	}
	// No ChargeCategory or ChargeFrequency column: no mode, no GPU usage.
	if l.PricingMode != "" || l.IsGPUUsage() || sum.GPULines != 0 {
		t.Errorf("mode %q usage %v lines %d", l.PricingMode, l.IsGPUUsage(), sum.GPULines)
	}
	for _, bad := range []string{`"""just a string"""`, `"{""a"": 1"`, "42"} {
		_, err := Parse(t.Context(), strings.NewReader(head+"1,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,NULL,"+bad+"\n"),
			Options{Name: "f12.csv"}, &countSink{})
		wantErrParts(t, err, "f12.csv:2", `"Tags"`, "JSON object")
	}
	_, err = Parse(t.Context(), strings.NewReader("ChargePeriodStart,BilledCost\n"), Options{Name: "f.csv"}, &countSink{})
	wantErrParts(t, err, "f.csv:1", "ChargePeriodEnd")
}
