package ingest

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/finops-oss/finops"
)

const badFOCUSHeader = "ChargePeriodStart,ChargePeriodEnd,BilledCost,EffectiveCost,BillingCurrency,ChargeCategory,ChargeDescription,Tags\n"

func TestBadInputs(t *testing.T) {
	cases := []struct {
		file   string
		format string
		parts  []string // the error must mention each (file:line, field, found value, advice)
	}{
		{"empty.csv", "", []string{"empty.csv", "empty"}},
		{"smi_as_focus.csv", FormatFOCUS, []string{"smi_as_focus.csv:1", "ChargePeriodStart", "BilledCost", "nvidia-smi"}},
		{"bad_number.csv", "", []string{"bad_number.csv:3", `"BilledCost"`, `"1;50"`, "decimal"}},
		// The row before spans lines 2–3 (a quoted newline); the bad date is on physical line 4.
		{"bad_date.csv", "", []string{"bad_date.csv:4", `"ChargePeriodStart"`, "2026-11-31", "timestamp"}},
		{"not_utf8.csv", "", []string{"not_utf8.csv:2", `"ChargeDescription"`, "not UTF-8", "convert"}},
		// bad/not_utf8_header.csv is a GBK AutoDL header, which the built-in
		// mapping now reads (TestRentalGBK); this GBK header matches no mapping.
		{"../rental/gbk_no_mapping.csv", "", []string{"gbk_no_mapping.csv:1", "not UTF-8", "GBK"}},
		{"bad_tags.csv", "", []string{"bad_tags.csv:2", `"Tags"`, "JSON object"}},
		{"bare_quote.csv", "", []string{"bare_quote.csv:3", `"ChargeDescription"`, "quote"}},
		{"short_row.csv", "", []string{"short_row.csv:2", `"BillingCurrency"`, "expected 8 fields"}},
		{"nan_cost.csv", "", []string{"nan_cost.csv:2", `"BilledCost"`, `"NaN"`}},
		{"truncated.csv.gz", "", []string{"truncated.csv.gz:", "gzip", "truncated"}},
		{"smi_as_focus.csv", FormatTasks, []string{"smi_as_focus.csv:1", "task", "nvidia-smi"}},
		{"bad_number.csv", FormatNvidiaSMI, []string{"bad_number.csv:1", "FOCUS"}},
		{"bad_number.csv", FormatRental, []string{"bad_number.csv:1", "mapping"}},
		{"bad_number.csv", "parquet", []string{"bad_number.csv", "unknown format"}},
	}
	for _, c := range cases {
		t.Run(c.file+"/"+c.format, func(t *testing.T) {
			_, _, err := parseFile(t, filepath.Join("bad", c.file), Options{Format: c.format})
			t.Log(err)
			wantErrParts(t, err, c.parts...)
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Errorf("%T is not a *ParseError", err)
			}
		})
	}
}

func TestHeaderOnly(t *testing.T) {
	sum, sink := mustParse(t, "bad/header_only.csv", Options{})
	if sum.Rows != 0 || len(sink.lines) != 0 || sum.Format != FormatFOCUS || !sum.TotalCost.IsZero() {
		t.Errorf("header only: %+v", sum)
	}
}

func TestMaxBadRows(t *testing.T) {
	sum, sink, err := parseFile(t, "bad/bad_number.csv", Options{MaxBadRows: 1})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Rows != 2 || len(sink.lines) != 2 || len(sum.Rejected) != 1 || sum.Rejected[0].Line != 3 {
		t.Errorf("rows %d rejected %v", sum.Rows, sum.Rejected)
	}
	// 1.00 + 2.00; the bad row counts nowhere but in Rejected.
	if sum.TotalCost.String() != "3" {
		t.Errorf("TotalCost %s", sum.TotalCost)
	}
	// A bare quote is a CSV syntax error; it too is only one bad row.
	sum, _, err = parseFile(t, "bad/bare_quote.csv", Options{MaxBadRows: 1})
	if err != nil || sum.Rows != 1 || len(sum.Rejected) != 1 {
		t.Errorf("bare quote with one bad row allowed: %v, %+v", err, sum)
	}
}

// A 1 MB field is accepted; an unclosed quote that swallows the rest of a big
// file is refused without buffering all of it.
func TestHugeFields(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	in := badFOCUSHeader + "2026-11-01 00:00:00,2026-11-01 01:00:00,1,1,USD,Usage," + big + ",NULL\n"
	sink := &recSink{}
	sum, err := Parse(t.Context(), strings.NewReader(in), Options{Name: "big.csv"}, sink)
	if err != nil || sum.Rows != 1 {
		t.Fatalf("1 MB field: %v", err)
	}
	if len(sink.lines[0].Tags) != 0 {
		t.Error("unexpected tags")
	}

	var buf bytes.Buffer
	buf.WriteString(badFOCUSHeader)
	buf.WriteString("2026-11-01 00:00:00,2026-11-01 01:00:00,1,1,USD,Usage,\"unclosed,NULL\n")
	row := "2026-11-01 00:00:00,2026-11-01 01:00:00,1,1,USD,Usage,a row,NULL\n"
	for buf.Len() < 3*maxRecordBytes {
		buf.WriteString(row)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err = Parse(t.Context(), &buf, Options{Name: "unclosed.csv"}, &countSink{})
	runtime.ReadMemStats(&after)
	wantErrParts(t, err, "unclosed.csv:2", "MiB", "quote")
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 8*maxRecordBytes {
		t.Errorf("allocated %d MiB for an unclosed quote", grew>>20)
	}
}

func TestParseContextAndSink(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f, err := Open(testdata("focus_sample.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := Parse(ctx, f, Options{}, &countSink{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}

	boom := errors.New("disk full")
	in := badFOCUSHeader + "2026-11-01 00:00:00,2026-11-01 01:00:00,1,1,USD,Usage,x,NULL\n"
	_, err = Parse(t.Context(), strings.NewReader(in), Options{Name: "s.csv"}, failSink{boom})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "s.csv:2") {
		t.Errorf("sink error: %v", err)
	}
}

type failSink struct{ err error }

func (s failSink) Billing(*finops.BillingLine) error { return s.err }
func (s failSink) Sample(*finops.GPUSample) error    { return s.err }
func (s failSink) TaskRun(*finops.TaskRun) error     { return s.err }

func TestUnrecognisedHeader(t *testing.T) {
	cases := map[string][]string{
		"a,b,c\n1,2,3\n": {"x.csv:1", "unrecognised header", "--format", "mapping"},
		"identity/LineItemId,lineItem/UnblendedCost\n": {"AWS Cost and Usage Report", "FOCUS"},
		"实例ID,开始时间,结束时间\n":                             {`mapping "autodl" lacks`, "应付金额"},
		"   \n\nfoo,bar\n":                             {"x.csv:3", "unrecognised header (foo, bar)"},
	}
	for in, parts := range cases {
		_, err := Parse(t.Context(), strings.NewReader(in), Options{Name: "x.csv"}, &countSink{})
		t.Log(err)
		wantErrParts(t, err, parts...)
	}
}

func TestCRLFAndBOM(t *testing.T) {
	plain := readFile(t, testdata("focus_features.csv"))
	crlf := append([]byte("\xef\xbb\xbf"), bytes.ReplaceAll(plain, []byte("\n"), []byte("\r\n"))...)
	path := filepath.Join(t.TempDir(), "crlf.csv")
	if err := os.WriteFile(path, crlf, 0o644); err != nil {
		t.Fatal(err)
	}
	a, _ := mustParse(t, "focus_features.csv", Options{})
	sink := &recSink{}
	b, err := Parse(t.Context(), bytes.NewReader(crlf), Options{Name: path}, sink)
	if err != nil || a.Rows != b.Rows || !a.TotalCost.Equal(b.TotalCost) || sink.lines[3].Line != 5 {
		t.Errorf("CRLF+BOM: %v %+v vs %+v", err, b, a)
	}
}

// TestRecordTooLongCause: a runaway record is refused naming its real cause:
// blank lines (a file, or a gzip bomb, of newlines), one endless line, or
// an unclosed quote swallowing the lines after it.
func TestRecordTooLongCause(t *testing.T) {
	n := maxRecordBytes + 1<<20
	for _, tc := range []struct {
		name, in, format string
		want, notWant    []string
	}{
		{"newlines", strings.Repeat("\n", n), "", []string{"nl.csv:1", "empty lines", "padding"}, []string{"quote"}},
		{"newlines after a header", badFOCUSHeader + strings.Repeat("\r\n", n/2), "", []string{"nl.csv:2", "empty lines"}, []string{"quote"}},
		{"one line", strings.Repeat("a", n), "", []string{"nl.csv:1", "without a line break"}, []string{"quote"}},
		{"unclosed quote", badFOCUSHeader + "2026-11-01,2026-11-02,1,1,USD,Usage,\"open\n" + strings.Repeat("a,b,c\n", n/6), "",
			[]string{"nl.csv:2", "never closed"}, nil},
		{"JSON, blank lines", "[" + strings.Repeat("\n", n), FormatRunPod, []string{"blank lines", "padding"}, []string{"record longer"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(t.Context(), strings.NewReader(tc.in), Options{Name: "nl.csv", Format: tc.format}, &countSink{})
			wantErrParts(t, err, tc.want...)
			for _, w := range tc.notWant {
				if err != nil && strings.Contains(err.Error(), w) {
					t.Errorf("%v: says %q, which is not the cause", err, w)
				}
			}
		})
	}
}

// TestUTF16Refused: a UTF-16 file, with or without a byte-order mark, CSV or
// JSON, is named as UTF-16 with the way out, not taken for GBK. The bytes
// are encoded here by hand from the ASCII text (each byte beside a NUL).
func TestUTF16Refused(t *testing.T) {
	utf16 := func(s string, big bool) []byte {
		var b []byte
		for _, c := range []byte(s) {
			if big {
				b = append(b, 0, c)
			} else {
				b = append(b, c, 0)
			}
		}
		return b
	}
	csv := badFOCUSHeader + "2026-11-01 00:00:00,2026-11-01 01:00:00,1,1,USD,Usage,x,NULL\n"
	jsonText := `[{"amount": 1, "gpuTypeId": "H100", "podId": "p", "time": "2026-11-02T00:00:00Z", "timeBilledMs": 1}]`
	for _, tc := range []struct {
		name string
		in   []byte
		want string
	}{
		{"LE with BOM", append([]byte{0xff, 0xfe}, utf16(csv, false)...), "UTF-16LE"},
		{"BE with BOM", append([]byte{0xfe, 0xff}, utf16(csv, true)...), "UTF-16BE"},
		{"LE without BOM", utf16(csv, false), "UTF-16LE"},
		{"JSON, BE without BOM", utf16(jsonText, true), "UTF-16BE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(t.Context(), bytes.NewReader(tc.in), Options{Name: "u16.csv"}, &countSink{})
			wantErrParts(t, err, "u16.csv:1", tc.want, "re-export it as UTF-8")
			if err != nil && strings.Contains(err.Error(), "GBK") {
				t.Errorf("%v: suggests GBK", err)
			}
		})
	}
	// A GBK file has no NUL: still the GBK hint, not UTF-16.
	gbk := []byte("\xca\xb5\xc0\xfdID,x\n1,2\n") // 实例ID in GBK
	_, err := Parse(t.Context(), bytes.NewReader(gbk), Options{Name: "gbk.csv"}, &countSink{})
	wantErrParts(t, err, "gbk.csv:1", "GBK")
}
