package ingest

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/docanchor"
)

// formatFacts lists the facts a registry entry lacks or gets wrong, each
// as a phrase naming the fact; empty when the entry is complete. The
// checks that need files (the doc anchor exists, the sample is detected)
// are made by TestFormatRegistryFacts itself.
func formatFacts(f Format) []string {
	var miss []string
	add := func(bad bool, fact string) {
		if bad {
			miss = append(miss, fact)
		}
	}
	add(f.Name == "", "name")
	add(!slices.Contains([]string{KindBilling, KindUtilization, KindTasks}, f.Kind), "kind")
	add(f.Describe == "", "describe")
	add(!regexp.MustCompile(`^docs/[A-Z]+\.md#[a-z0-9-]+$`).MatchString(f.Doc), "doc anchor")
	add(f.Sample == "", "sample")
	add(f.Supersede == supersedeUnset, "supersede rule")
	add(f.setup == nil && f.Rows == nil && f.records == nil, "parser")
	add(f.Detect == nil && f.Fallback == nil && f.record == nil, "detection")
	add((f.records == nil) != (f.record == nil), "JSON record detection and parser together")
	if f.Kind == KindBilling {
		add(!f.Supersede.ComparesCharges(), "a billing format's supersede rule compares charges")
		add(len(f.Identity) == 0, "charge identity")
		add(!slices.Contains(f.ConfigKeys, "path") || !slices.Contains(f.ConfigKeys, "format"), "config keys")
	} else {
		add(f.Supersede != SupersedeNever, "a format without charges is never compared")
		add(len(f.Identity) > 0, "no charge identity without charges")
		add(f.ConfigKeys != nil, "no billing-source config keys")
	}
	return miss
}

// TestFormatRegistryFacts: every registered format has every fact — a
// supersede rule, a parser, a detection, a docs anchor that exists, a sample
// that detection recognises and that parses as the format with every
// identity column present, and a period of its own only under
// SupersedeByPeriod.
func TestFormatRegistryFacts(t *testing.T) {
	anchors := docAnchors(t)
	seen := map[string]bool{}
	precedence := map[int]string{}
	for _, f := range builtinFormats() {
		t.Run(f.Name, func(t *testing.T) {
			if miss := formatFacts(f); len(miss) > 0 {
				t.Fatalf("format %q lacks: %s", f.Name, strings.Join(miss, ", "))
			}
			if seen[f.Name] {
				t.Errorf("format %q registered twice", f.Name)
			}
			seen[f.Name] = true
			if f.Detect != nil {
				if other, dup := precedence[f.Precedence]; dup {
					t.Errorf("formats %q and %q share precedence %d: detection order would be the table's by accident", f.Name, other, f.Precedence)
				}
				precedence[f.Precedence] = f.Name
			}
			if !anchors[f.Doc] {
				t.Errorf("format %q: its docs anchor %s names no heading in docs/", f.Name, f.Doc)
			}
			sum, _ := mustParse(t, f.Sample, Options{})
			if sum.Format != f.Name || sum.Kind != f.Kind {
				t.Errorf("sample %s read as %s (%s), want %s (%s)", f.Sample, sum.Format, sum.Kind, f.Name, f.Kind)
			}
			if got := SupersedeOf(sum); got != f.Supersede {
				t.Errorf("sample %s: the store would apply %v, the entry says %v", f.Sample, got, f.Supersede)
			}
			if (sum.Period != "") != (f.Supersede == SupersedeByPeriod) {
				t.Errorf("sample %s: period %q from the data under rule %v: a parser that names its period must say SupersedeByPeriod, and only it",
					f.Sample, sum.Period, f.Supersede)
			}
			checkIdentity(t, f)
		})
	}
	if got, want := Formats(), registry(builtinFormats()).names(""); !slices.Equal(got, want) {
		t.Errorf("Formats() = %v, want the registry's %v", got, want)
	}
}

// checkIdentity: each identity column of a format is in its sample (a CSV
// header column, by the format's normalisation; a JSON key) or, for rental
// CSVs, a mapping field.
func checkIdentity(t *testing.T, f Format) {
	t.Helper()
	if f.Name == FormatRental {
		for _, c := range f.Identity {
			if !slices.Contains(knownMappingFields(), c) {
				t.Errorf("rental identity field %q is no mapping field", c)
			}
		}
		return
	}
	raw := readSample(t, f.Sample)
	if f.records != nil {
		for _, k := range f.Identity {
			if !bytes.Contains(raw, []byte(`"`+k+`"`)) {
				t.Errorf("format %q: identity key %q is not in its sample %s", f.Name, k, f.Sample)
			}
		}
		return
	}
	hdr, err := csv.NewReader(bytes.NewReader(raw)).Read()
	if err != nil {
		t.Fatalf("sample %s: header: %v", f.Sample, err)
	}
	norm := f.Norm
	if norm == nil {
		norm = strings.ToLower
	}
	cols := newColumns(cleanHeader(hdr), norm)
	for _, c := range f.Identity {
		if cols.col(c) < 0 {
			t.Errorf("format %q: identity column %q is not in its sample's header", f.Name, c)
		}
	}
}

func readSample(t *testing.T, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(testdata(name))
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if raw, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	return raw
}

// docAnchors lists the anchors of the repository's headings.
func docAnchors(t *testing.T) map[string]bool {
	t.Helper()
	a, err := docanchor.Anchors(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestFormatFactsRefuseEachMissingFact: taking any one fact away from any
// registered format makes formatFacts name it, so the registry test fails
// for an entry that forgets it (the supersede rule above all: forgetting it
// would change de-duplication with no compile error).
func TestFormatFactsRefuseEachMissingFact(t *testing.T) {
	drops := map[string]func(*Format){
		"name":           func(f *Format) { f.Name = "" },
		"kind":           func(f *Format) { f.Kind = "" },
		"describe":       func(f *Format) { f.Describe = "" },
		"doc anchor":     func(f *Format) { f.Doc = "" },
		"sample":         func(f *Format) { f.Sample = "" },
		"supersede rule": func(f *Format) { f.Supersede = supersedeUnset },
		"parser":         func(f *Format) { f.setup, f.Rows, f.records = nil, nil, nil },
		"detection":      func(f *Format) { f.Detect, f.Fallback, f.record = nil, nil, nil },
	}
	billingOnly := map[string]func(*Format){
		"charge identity": func(f *Format) { f.Identity = nil },
		"config keys":     func(f *Format) { f.ConfigKeys = nil },
	}
	for _, base := range builtinFormats() {
		if miss := formatFacts(base); len(miss) > 0 {
			t.Fatalf("%s: %v", base.Name, miss)
		}
		all := drops
		if base.Kind == KindBilling {
			all = map[string]func(*Format){}
			for k, v := range drops {
				all[k] = v
			}
			for k, v := range billingOnly {
				all[k] = v
			}
		}
		for fact, drop := range all {
			f := base
			drop(&f)
			if miss := formatFacts(f); !slices.ContainsFunc(miss, func(m string) bool { return strings.HasPrefix(m, fact) }) {
				t.Errorf("%s without its %s: formatFacts says %v, naming no %s", base.Name, fact, miss, fact)
			}
		}
	}
}

// oldDetectFormat is DetectFormat as it was before the registry (a switch
// over the formats), kept as the independent oracle of
// TestDetectionSameAsBeforeRegistry.
func oldDetectFormat(header []string, mappings []ColumnMapping) string {
	h := cleanHeader(header)
	idx := headerIndex(h)
	switch {
	case idx.col("BilledCost") >= 0 && idx.col("ChargePeriodStart") >= 0:
		return FormatFOCUS
	case isNvidiaSMIHeader(h):
		return FormatNvidiaSMI
	case len(missing(idx, "task", "resource", "start", "end")) == 0:
		return FormatTasks
	case isCURHeader(idx) && isCUR2Header(idx):
		return FormatCUR2
	case isCURHeader(idx):
		return FormatCUR
	case isGCPHeader(h):
		return FormatGCP
	case isAzureHeader(h):
		return FormatAzure
	}
	for i := range mappings {
		if len(mappings[i].missingColumns(idx)) == 0 {
			return FormatRental + ":" + mappings[i].Name
		}
	}
	if len(missingTaskColumns(idx)) == 0 {
		return FormatTasks
	}
	return ""
}

// TestDetectionSameAsBeforeRegistry: for any header, detection through
// the registry names the format (and mapping) the former switch named.
// Headers are generated from the columns every detection looks at, so
// that several formats' signatures meet in one header.
func TestDetectionSameAsBeforeRegistry(t *testing.T) {
	vocab := []string{
		"BilledCost", "ChargePeriodStart", "timestamp", "utilization.gpu", "index", "uuid", "pci.bus_id",
		"task", "resource", "resource_id", "start", "end", "lineItem/UnblendedCost", "lineItem/LineItemType",
		"line_item_unblended_cost", "line_item_line_item_type", "resource_tags", "product", "bill_payer_account_name",
		"cost", "usage_start_time", "usage_end_time", "sku.description", "service.description", "billing_account_id",
		"Date", "CostInBillingCurrency", "MeterCategory", "MeterId", "Cost", "UsageDateTime",
		"实例ID", "开始时间", "结束时间", "应付金额", "name", "Tags", "x_custom",
	}
	mappings := append([]ColumnMapping{{Name: "mine", Columns: map[string]string{
		"resource_id": "resource_id", "start": "start", "end": "end", "cost": "cost"}}}, BuiltinMappings()...)
	rng := rand.New(rand.NewSource(36))
	for i := 0; i < 20000; i++ {
		n := 1 + rng.Intn(8)
		hdr := make([]string, n)
		for j := range hdr {
			hdr[j] = vocab[rng.Intn(len(vocab))]
			if rng.Intn(5) == 0 {
				hdr[j] = strings.ToUpper(hdr[j])
			}
		}
		ms := mappings
		if rng.Intn(2) == 0 {
			ms = BuiltinMappings()
		}
		want := oldDetectFormat(hdr, ms)
		f, m, err := DetectFormat(hdr, ms)
		got := f
		if m != nil {
			got += ":" + m.Name
		}
		if got != want || (err != nil) != (want == "") {
			t.Fatalf("header %q: registry detects %q (err %v), the former switch %q", hdr, got, err, want)
		}
	}
}

// oldDetectJSONRecord is detectJSONRecord as it was before the registry,
// the oracle of TestJSONDetectionSameAsBeforeRegistry.
func oldDetectJSONRecord(keys map[string]bool) string {
	switch {
	case keys["timeBilledMs"] || keys["gpuTypeId"] || keys["podId"] || keys["endpointId"] || keys["networkVolumeId"]:
		return FormatRunPod
	case keys["amount"] || keys["amount_cents"]:
		if keys["source"] || keys["items"] || keys["timestamp"] || keys["when"] || keys["instance_id"] || keys["start"] {
			return FormatVast
		}
	}
	return ""
}

// TestJSONDetectionSameAsBeforeRegistry: for any JSON record, detection
// through the registry's record detectors names the format the former
// switch named. Records are generated from the keys either platform uses.
func TestJSONDetectionSameAsBeforeRegistry(t *testing.T) {
	vocab := []string{"timeBilledMs", "gpuTypeId", "podId", "endpointId", "networkVolumeId", "amount", "amount_cents",
		"source", "items", "timestamp", "when", "instance_id", "start", "end", "type", "description", "time"}
	rng := rand.New(rand.NewSource(36))
	for i := 0; i < 20000; i++ {
		keys := map[string]bool{}
		var b strings.Builder
		b.WriteString("{")
		for j, n := 0, rng.Intn(6); j < n; j++ {
			k := vocab[rng.Intn(len(vocab))]
			if keys[k] {
				continue
			}
			if len(keys) > 0 {
				b.WriteString(",")
			}
			keys[k] = true
			b.WriteString(`"` + k + `": 1`)
		}
		b.WriteString("}")
		if got, want := detectJSONRecord(builtinFormats(), []byte(b.String())), oldDetectJSONRecord(keys); got != want {
			t.Fatalf("record %s: registry detects %q, the former switch %q", b.String(), got, want)
		}
	}
}

// TestForcedJSONFormatOfOptionsFormats: --format naming a JSON format of
// Options.Formats (here RunPod's entry under another name) reads the file
// through that entry, as it does a built-in one: the "JSON but reads CSV"
// refusal asks the registry Parse uses, not the built-in one.
func TestForcedJSONFormatOfOptionsFormats(t *testing.T) {
	formats := BuiltinFormats()
	own, ok := LookupFormat(FormatRunPod)
	if !ok {
		t.Fatal("no runpod entry")
	}
	own.Name = "runpod-own"
	formats = append(formats, own)
	want, _ := mustParse(t, own.Sample, Options{})
	got, _ := mustParse(t, own.Sample, Options{Formats: formats, Format: own.Name})
	if got.Format != own.Name || got.Rows != want.Rows || got.Rows == 0 {
		t.Errorf("forced %s: format %q, %d rows; detected runpod: %d rows", own.Name, got.Format, got.Rows, want.Rows)
	}
}
