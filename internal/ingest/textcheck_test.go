package ingest

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// firstRow is a testdata CSV cut to its header and first row, through edit.
func firstRow(t *testing.T, name string, edit func(hdr, row []string) ([]string, []string)) string {
	t.Helper()
	b, err := os.ReadFile(testdata(name))
	if err != nil {
		t.Fatal(err)
	}
	cr := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))))
	cr.TrimLeadingSpace, cr.FieldsPerRecord = true, -1
	hdr, err := cr.Read()
	if err != nil {
		t.Fatal(err)
	}
	row, err := cr.Read()
	if err != nil {
		t.Fatal(err)
	}
	for len(row) < len(hdr) { // CUR leaves empty trailing cells out
		row = append(row, "")
	}
	hdr, row = edit(slices.Clone(hdr), slices.Clone(row))
	var out bytes.Buffer
	w := csv.NewWriter(&out)
	w.Write(hdr)
	w.Write(row)
	w.Flush()
	return out.String()
}

// index is the column of name in hdr, found by hand-written equality.
func index(t *testing.T, hdr []string, name string) int {
	t.Helper()
	for i, h := range hdr {
		if h == name {
			return i
		}
	}
	t.Fatalf("no column %q in %q", name, hdr)
	return -1
}

func parseString(in, name string) (*Summary, *recSink, error) {
	sink := &recSink{}
	sum, err := Parse(context.Background(), strings.NewReader(in), Options{Name: name}, sink)
	return sum, sink, err
}

// csvReaders names, for each CSV reader, a file and a column it reads.
var csvReaders = []struct{ file, column string }{
	{"focus_sample.csv", "BilledCost"},
	{"aws/test_cur.csv", "lineItem/UnblendedCost"},
	{"azure/EA_ActualCost_Small.csv", "Cost"},
	{"gcp/2022-08-01_5.csv", "cost"},
	{"autodl_sample.csv", "应付金额"},
	{"tasks_sample.csv", "Task"},
	{"derived_query-gpu_subset.csv", "utilization.gpu [%]"},
}

// TestDuplicateColumn: a column a reader reads, repeated at the end of the
// header (with its value repeated in the row), refuses the file naming the
// column and both positions, for every CSV reader. Unchanged, each file's
// first row reads.
func TestDuplicateColumn(t *testing.T) {
	for _, c := range csvReaders {
		t.Run(c.file, func(t *testing.T) {
			var first, second int
			in := firstRow(t, c.file, func(hdr, row []string) ([]string, []string) {
				first, second = index(t, hdr, c.column)+1, len(hdr)+1
				return append(hdr, c.column), append(row, row[first-1])
			})
			_, _, err := parseString(in, "dup.csv")
			wantErrParts(t, err, "dup.csv:1", fmt.Sprintf("%q", c.column),
				fmt.Sprintf("appears twice (columns %d and %d)", first, second), "remove or rename one")
			ok := firstRow(t, c.file, func(hdr, row []string) ([]string, []string) { return hdr, row })
			if sum, _, err := parseString(ok, "ok.csv"); err != nil || sum.Rows != 1 {
				t.Errorf("the file without the duplicate: %v", err)
			}
		})
	}
}

// TestDuplicateColumnSpellings: two spellings of one column are one column
// twice; a repeated column no reader reads, and tags that differ in case,
// are accepted.
func TestDuplicateColumnSpellings(t *testing.T) {
	_, _, err := parseString(firstRow(t, "aws/test_cur.csv", func(hdr, row []string) ([]string, []string) {
		return append(hdr, "line_item_unblended_cost"), append(row, "0")
	}), "cur.csv")
	wantErrParts(t, err, "cur.csv:1", `"lineItem/UnblendedCost"`, `"line_item_unblended_cost" name the same field`)
	_, _, err = parseString(firstRow(t, "focus_sample.csv", func(hdr, row []string) ([]string, []string) {
		return append(hdr, "x_Team", "x_Team"), append(row, "a", "b")
	}), "x.csv")
	wantErrParts(t, err, "x.csv:1", `"x_Team" appears twice`)

	sum, sink, err := parseString(firstRow(t, "aws/test_cur.csv", func(hdr, row []string) ([]string, []string) {
		return append(hdr, "unused", "unused", "resourceTags/user:Team", "resourceTags/user:team"), append(row, "1", "2", "A", "b")
	}), "tags.csv")
	if err != nil || sum.Rows != 1 {
		t.Fatalf("repeated unread column, case-different tags: %v", err)
	}
	if tags := sink.lines[0].Tags; tags["Team"] != "A" || tags["team"] != "b" {
		t.Errorf("tags %v", tags)
	}
}

// TestDuplicateJSONKey: a key twice in one object of a record, or in two
// cases (encoding/json reads both into one field), refuses the record in
// RunPod, Vast.ai and GCP JSON, naming the key's path.
func TestDuplicateJSONKey(t *testing.T) {
	runpod := `{"amount": %s, "gpuTypeId": "NVIDIA H100 80GB HBM3", "podId": "p1", "time": "2026-11-02T00:00:00Z", "timeBilledMs": 3600000}`
	vast := `{"results": [{"type": "instance", "source": "instance-1", "amount": 1, "start": 1791504000, "end": 1791590400, ` +
		`"items": [{"type": "gpu", "amount": 1, %s}]}]}`
	gcp, err := os.ReadFile(testdata("gcp/gpu_billing.json"))
	if err != nil {
		t.Fatal(err)
	}
	gcpFirst, _, _ := strings.Cut(string(gcp), "\n")
	cases := []struct{ in, want string }{
		{"[" + fmt.Sprintf(runpod, `1, "amount": 2`) + "]", `"[0].amount": the key "amount" appears twice`},
		{"[\n" + fmt.Sprintf(runpod, `1, "Amount": 1000`) + "]", `:2: field "[0].Amount": the key "Amount" appears twice`},
		{fmt.Sprintf(vast, `"description": "a", "description": "b"`), `"results[0].items[0].description"`},
		{strings.Replace(gcpFirst, `"cost": `, `"cost": 1, "cost": `, 1), `"record 1.cost"`},
		{strings.Replace(gcpFirst, `"usage": {`, `"usage": {"unit": "x", `, 1), `"record 1.usage.unit"`},
	}
	for _, c := range cases {
		_, _, err := parseString(c.in, "dup.json")
		wantErrParts(t, err, "dup.json:", c.want)
	}
}

// TestControlCharacters: a NUL or another control character in a field
// refuses the row naming file, line and field, for every reader, CSV or
// JSON; TAB, LF and CR in free text stay accepted.
func TestControlCharacters(t *testing.T) {
	for _, c := range []struct{ file, column string }{
		{"focus_sample.csv", "ResourceId"},
		{"aws/test_cur.csv", "lineItem/ResourceId"},
		{"azure/EA_ActualCost_Small.csv", "ResourceId"},
		{"gcp/2022-08-01_5.csv", "project.id"},
		{"autodl_sample.csv", "实例ID"},
		{"tasks_sample.csv", "Task"},
		{"derived_query-gpu_subset.csv", "uuid"},
	} {
		for _, ctl := range []string{"\x00", "\x1b[2J", "\x7f"} {
			in := firstRow(t, c.file, func(hdr, row []string) ([]string, []string) {
				i := index(t, hdr, c.column)
				row[i] = "id" + ctl + "x"
				return hdr, row
			})
			_, _, err := parseString(in, "ctl.csv")
			wantErrParts(t, err, "ctl.csv:2", fmt.Sprintf("field %q", c.column), "control character")
		}
	}
	runpod := `[{"amount": 1, "gpuTypeId": "NVIDIA H100 80GB HBM3", "podId": %s, "time": "2026-11-02T00:00:00Z", "timeBilledMs": 3600000}]`
	for _, id := range []string{`"p\u0000"`, `"p\u001b]0;x\u0007"`, `"p\b"`, "\"p\x7f\""} {
		_, _, err := parseString(fmt.Sprintf(runpod, id), "ctl.json")
		wantErrParts(t, err, "ctl.json:1", `"[0].podId"`, "control character")
	}
	gcp, _ := os.ReadFile(testdata("gcp/gpu_billing.json"))
	gcpFirst, _, _ := strings.Cut(string(gcp), "\n")
	_, _, err := parseString(strings.Replace(gcpFirst, `"project": {"id": "`, `"project": {"id": "\u0000`, 1), "ctl.json")
	wantErrParts(t, err, "ctl.json:1", `"record 1.project.id"`, "NUL (U+0000)")

	// Free text keeps its TABs and line breaks.
	sum, sink, err := parseString(firstRow(t, "focus_sample.csv", func(hdr, row []string) ([]string, []string) {
		row[index(t, hdr, "ResourceName")] = "a\tb\nc"
		return hdr, row
	}), "text.csv")
	if err != nil || sum.Rows != 1 || sink.lines[0].ResourceName != "a\tb\nc" {
		t.Errorf("TAB and LF in a name: %v, %+v", err, sink.lines)
	}
	// …but an id is one line: a TAB in a pod id (the resource id) is refused.
	_, _, err = parseString(fmt.Sprintf(runpod, `"p\t1"`), "tab.json")
	wantErrParts(t, err, "tab.json:1", `"[0].ResourceId"`, "U+0009")
}

// TestScanText checks the word-at-a-time scan against a byte-by-byte one
// (isControl and utf8.RuneSelf, written out here): every interesting byte at
// every position around the eight-byte words, in ASCII text and after a
// multi-byte character.
func TestScanText(t *testing.T) {
	naive := func(s string) (int, bool) {
		ctl, high := -1, false
		for i := 0; i < len(s); i++ {
			c := s[i]
			if ctl < 0 && (c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f) {
				ctl = i
			}
			high = high || c >= 0x80
		}
		return ctl, high
	}
	var cases []string
	for _, b := range []byte{0x00, '\t', '\n', '\r', 0x1b, 0x1f, ' ', '~', 0x7f, 0x80, 0x9f, 0xc3, 0xff} {
		for _, prefix := range []string{"", "é"} {
			for pos := 0; pos < 19; pos++ {
				s := []byte(prefix + strings.Repeat("x", 20))
				s[len(prefix)+pos] = b
				cases = append(cases, string(s), string(s[:len(prefix)+pos+1]))
			}
		}
	}
	cases = append(cases, "", "a\x00\x7f", "\t\n\r", strings.Repeat("\x1f", 9), "abcdefgh\x7fijklmnop\x01")
	for _, s := range cases {
		wantCtl, wantHigh := naive(s)
		if ctl, high := scanText(s); ctl != wantCtl || high != wantHigh {
			t.Errorf("scanText(%q) = %d, %v; want %d, %v", s, ctl, high, wantCtl, wantHigh)
		}
	}
}

// TestCheckText: one pass gives the errors the two passes gave, checkUTF8
// then checkControl: bad UTF-8 anywhere before a control character anywhere.
func TestCheckText(t *testing.T) {
	header := []string{"a", "b", "c"}
	for _, rec := range [][]string{
		{"x", "y", "z"},
		{"x\x00", "y", "z\xff"},
		{"x", "y\x1b[31m", "z"},
		{"é\x7f", "\xc3", "z"},
		{"ok\ttab", "日本\r\n", "z"},
		{"x", "y", "éé\x01"},
	} {
		want := checkUTF8("f.csv", 3, header, rec)
		if want == nil {
			want = checkControl("f.csv", 3, header, rec)
		}
		got := checkText("f.csv", 3, header, rec)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("checkText(%q) = %v, want %v", rec, got, want)
		}
	}
}

// TestTagsJSONControlCharacters: the control characters a CSV field may not
// hold are refused in a Tags JSON string too, where they arrive escaped
// ("\u0000", "\u001b", "\r\n"), naming the tag; an ordinary tag passes.
func TestTagsJSONControlCharacters(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "ingest", "focus_sample.csv"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	tagCol := slices.Index(recs[0], "Tags")
	for _, tc := range []struct{ tags, want string }{
		{`{"team": "nlp"}`, ""},
		{`{"team": "nl\u0000p"}`, `f.csv:2: field "Tags": tag "team": a control character NUL (U+0000)`},
		// The message quotes the key: the escape is shown, never sent raw.
		{`{"te\u001b[2Jam": "nlp"}`, `f.csv:2: field "Tags": tag "te\x1b[2Jam": a control character U+001B`},
		{`{"owner": "a\r\nBcc: x@y"}`, `f.csv:2: field "Tags": tag "owner" holds a line break or tab (U+000D)`},
	} {
		row := slices.Clone(recs[1])
		row[tagCol] = tc.tags
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		w.Write(recs[0])
		w.Write(row)
		w.Flush()
		_, _, err := parseString(buf.String(), "f.csv")
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.tags, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: err = %v, want %q", tc.tags, err, tc.want)
		}
	}
}
