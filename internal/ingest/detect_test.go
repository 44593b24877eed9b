package ingest

import (
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

func TestDetectFormat(t *testing.T) {
	custom := ColumnMapping{Name: "lab", Columns: map[string]string{
		"resource_id": "Instance", "start": "From", "end": "To", "cost": "Paid"}}
	cases := []struct {
		header  string
		format  string
		mapping string
	}{
		{"BilledCost,ChargePeriodStart,ChargePeriodEnd", FormatFOCUS, ""},
		{"\ufeffbilledcost, chargeperiodstart", FormatFOCUS, ""},
		{"timestamp, name, uuid, utilization.gpu [%]", FormatNvidiaSMI, ""},
		{"timestamp, index, uuid", FormatNvidiaSMI, ""},
		{"Task,Resource,Start,End", FormatTasks, ""},
		{"实例ID,实例名称,GPU型号,计费方式,开始时间,结束时间,应付金额,原价", FormatRental, "autodl"},
		{" instance , from,to,PAID,extra", FormatRental, "lab"},
		{"timestamp, name", "", ""},
		{"ChargePeriodStart,Cost", "", ""},
	}
	mappings := append([]ColumnMapping{custom}, BuiltinMappings()...)
	for _, c := range cases {
		format, m, err := DetectFormat(strings.Split(c.header, ","), mappings)
		name := ""
		if m != nil {
			name = m.Name
		}
		if format != c.format || name != c.mapping || (err == nil) != (c.format != "") {
			t.Errorf("DetectFormat(%q) = %q, %q, %v; want %q, %q", c.header, format, name, err, c.format, c.mapping)
		}
	}
}

func TestMappingValidate(t *testing.T) {
	// The China-site bills are in China time; the Tencent bill's zone is not
	// documented, so its times are read in --tz (nil).
	zones := map[string]string{"autodl": "Asia/Shanghai", "alibaba": "Asia/Shanghai", "tencent": ""}
	for _, m := range BuiltinMappings() {
		if err := m.Validate(); err != nil {
			t.Errorf("builtin %s: %v", m.Name, err)
		}
		want, ok := zones[m.Name]
		if !ok {
			t.Errorf("builtin %s: no expected zone here", m.Name)
			continue
		}
		got := ""
		if m.Location != nil {
			got = m.Location.String()
		}
		if got != want {
			t.Errorf("builtin %s: location %q, want %q", m.Name, got, want)
		}
	}
	bad := ColumnMapping{Name: "x", Columns: map[string]string{"resource_id": "id", "colour": "c"},
		Modes: map[string]string{"按季": "quarterly"}}
	err := bad.Validate()
	for _, want := range []string{`mapping "x"`, "start is required", `unknown field "colour"`, `mode "quarterly"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate: %v; want it to mention %q", err, want)
		}
	}
}

// TestUnrecognisedHeaderNamesEveryFormat: invariant — the refusal of a
// header no format recognises names every format of the registry that
// detects a header (its description and its telltale columns), so a user
// learns what finops reads, and a format added to the registry is named
// without another edit. Headers are generated from words no format reads.
func TestUnrecognisedHeaderNamesEveryFormat(t *testing.T) {
	rng := rand.New(rand.NewSource(35))
	words := []string{"alpha", "beta", "gamma", "delta", "Amount", "When", "host", "gpu_util", "price", "Region"}
	for n := 0; n < 300; n++ {
		h := make([]string, 1+rng.Intn(9))
		for i := range h {
			h[i] = words[rng.Intn(len(words))] + strconv.Itoa(rng.Intn(100))
		}
		_, _, err := DetectFormat(h, nil)
		if err == nil {
			t.Fatalf("%v: recognised", h)
		}
		detecting := 0
		for _, f := range builtinFormats() {
			if f.Detect == nil && f.Fallback == nil {
				continue
			}
			detecting++
			if !strings.Contains(err.Error(), f.Describe+" ("+f.Columns+")") || f.Columns == "" {
				t.Fatalf("%v: the refusal does not name %s with its columns %q:\n%v", h, f.Name, f.Columns, err)
			}
		}
		if detecting < 8 {
			t.Fatalf("only %d formats detect a header: the registry lost some", detecting)
		}
	}
}
