package ingest

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// toCR rewrites a file's LF and CRLF line ends as lone CRs, as Excel for
// Mac's "CSV (Macintosh)" writes them.
func toCR(b []byte) []byte {
	b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
	return bytes.ReplaceAll(b, []byte("\n"), []byte("\r"))
}

// dataLines counts a text's lines after the first, blank ones aside: the
// rows a reader must deliver, counted without any CSV reader (the files
// below have no quoted line breaks).
func dataLines(b []byte) int {
	n := 0
	for _, l := range strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")[1:] {
		if strings.TrimSpace(l) != "" {
			n++
		}
	}
	return n
}

// TestCRLineEnds: a file whose lines end in a lone CR gives the rows and
// total of the same file with LF line ends, for every CSV reader, plain and
// gzipped. Without crReader each read as a header and 0 rows.
func TestCRLineEnds(t *testing.T) {
	for _, name := range []string{
		"focus_sample.csv", "aws/test_cur.csv", "derived_query-gpu_subset.csv", "tasks_sample.csv", "autodl_sample.csv",
	} {
		lf, err := os.ReadFile(testdata(name))
		if err != nil {
			t.Fatal(err)
		}
		want := dataLines(lf)
		ref, _ := mustParse(t, name, Options{})
		if ref.Rows != want {
			t.Fatalf("%s: the LF file gives %d rows, want %d", name, ref.Rows, want)
		}
		for _, gz := range []bool{false, true} {
			t.Run(filepath.Base(name)+map[bool]string{false: "", true: ".gz"}[gz], func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "mac.csv")
				b := toCR(lf)
				if gz {
					var buf bytes.Buffer
					w := gzip.NewWriter(&buf)
					w.Write(b)
					w.Close()
					b = buf.Bytes()
				}
				if err := os.WriteFile(path, b, 0o644); err != nil {
					t.Fatal(err)
				}
				f, err := Open(path)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				sum, err := Parse(context.Background(), f, Options{Name: path}, &recSink{})
				if err != nil {
					t.Fatal(err)
				}
				if sum.Rows != want || len(sum.Rejected) != 0 || !sum.TotalCost.Equal(ref.TotalCost) || sum.Format != ref.Format {
					t.Errorf("CR file: %s %d rows (%d rejected), total %s; want %s %d rows, total %s",
						sum.Format, sum.Rows, len(sum.Rejected), sum.TotalCost, ref.Format, want, ref.TotalCost)
				}
			})
		}
	}
}

// TestCRInsideQuotes: in a lone-CR file a CR inside a quoted field stays
// data; only the CRs between records end lines.
func TestCRInsideQuotes(t *testing.T) {
	in := "ChargePeriodStart,ChargePeriodEnd,BilledCost,BillingCurrency,ResourceId,ResourceName\r" +
		"2026-11-02T00:00:00Z,2026-11-02T01:00:00Z,1.50,USD,i-1,\"two\rlines\"\r" +
		"2026-11-02T01:00:00Z,2026-11-02T02:00:00Z,2.25,USD,i-2,plain\r"
	sink := &recSink{}
	sum, err := Parse(context.Background(), strings.NewReader(in), Options{Name: "mac.csv"}, sink)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Rows != 2 || sum.TotalCost.String() != "3.75" { // 1.50 + 2.25
		t.Fatalf("rows %d total %s", sum.Rows, sum.TotalCost)
	}
	if got := sink.lines[0].ResourceName; got != "two\rlines" {
		t.Errorf("quoted CR: ResourceName %q", got)
	}
	if got := sink.lines[1].Line; got != 3 {
		t.Errorf("second row on line %d, want 3", got)
	}
}

// TestNoRowsFromText: whatever hid the rows, a file with text after its
// header that gives no row, and no rejected row, is refused rather than
// imported as 0 rows. Here a quote opened in the header's last name and
// closed at the end of the file swallows the rows (CSV and nvidia-smi).
func TestNoRowsFromText(t *testing.T) {
	for _, in := range []string{
		"ChargePeriodStart,ChargePeriodEnd,BilledCost,\"Tags\n2026-11-02T00:00:00Z,2026-11-02T01:00:00Z,1.50,{}\"\n",
		"timestamp, uuid, utilization.gpu [%], \"memory.used [MiB]\n2026/11/02 10:00:00.000, GPU-1, 50 %, 10 MiB\"\r\n",
	} {
		_, err := Parse(context.Background(), strings.NewReader(in), Options{Name: "hidden.csv"}, &recSink{})
		wantErrParts(t, err, "hidden.csv:2", "not one row", "0 rows")
	}
	// A header alone, or followed by blank lines, is still a file of 0 rows.
	for _, in := range []string{"ChargePeriodStart,ChargePeriodEnd,BilledCost\n", "ChargePeriodStart,ChargePeriodEnd,BilledCost\r\r\n,,\n  \n"} {
		if sum, err := Parse(context.Background(), strings.NewReader(in), Options{Name: "empty.csv"}, &recSink{}); err != nil || sum.Rows != 0 {
			t.Errorf("%q: %v, %+v", in, err, sum)
		}
	}
}
