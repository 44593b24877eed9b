package dcgm

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/ingest"
)

// The same three readings in each unit: GPU-a at 1793001600 s and 30.5 s
// later, GPU-b at 1793001600 s. `date -u -d @1793001600` prints Mon Oct 26
// 08:00:00 UTC 2026, so the samples are at 08:00:00 and 08:00:30.5 that day.
var (
	stampAt0 = time.Date(2026, 10, 26, 8, 0, 0, 0, time.UTC)
	stampAt1 = time.Date(2026, 10, 26, 8, 0, 30, 500_000_000, time.UTC)
)

func stampedScrape(ts0, ts1, eof string) string {
	return "# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n" +
		`DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-a",modelName="Tesla T4",Hostname="h"} 91 ` + ts0 + "\n" +
		`DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-a",modelName="Tesla T4",Hostname="h"} 40 ` + ts1 + "\n" +
		`DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-b",modelName="Tesla T4",Hostname="h"} 7 ` + ts0 + "\n" + eof
}

// TestParseTimestampUnits: OpenMetrics (promtool's backfill input, ending in
// # EOF) is read in seconds, Prometheus text in milliseconds, a file without
// markers by magnitude; each gives the same three samples at the same times,
// one per GPU and timestamp (not one per GPU).
func TestParseTimestampUnits(t *testing.T) {
	for _, c := range []struct{ name, in string }{
		{"OpenMetrics, seconds with decimals", stampedScrape("1793001600", "1793001630.5", "# EOF\n")},
		{"OpenMetrics, CRLF and no final newline", strings.ReplaceAll(stampedScrape("1793001600", "1793001630.500", "# EOF"), "\n", "\r\n")},
		{"Prometheus text, milliseconds", stampedScrape("1793001600000", "1793001630500", "")},
		{"no marker, seconds by magnitude", stampedScrape("1793001600", "1793001630.5", "")},
		{"OpenMetrics, exponent", stampedScrape("1.7930016e9", "1.7930016305e9", "# EOF\n")},
		{"UTF-8 BOM", "\ufeff" + stampedScrape("1793001600", "1793001630.5", "# EOF\n")},
	} {
		t.Run(c.name, func(t *testing.T) {
			sink := &recSink{}
			sum, err := Parse(t.Context(), strings.NewReader(c.in), Options{Name: "b.om", Interval: 30 * time.Second}, sink)
			if err != nil {
				t.Fatal(err)
			}
			want := []struct {
				uuid string
				at   time.Time
				util float64
			}{{"GPU-a", stampAt0, 91}, {"GPU-b", stampAt0, 7}, {"GPU-a", stampAt1, 40}}
			if len(sink.samples) != len(want) || sum.Rows != 3 || !sum.PeriodStart.Equal(stampAt0) || !sum.PeriodEnd.Equal(stampAt1) {
				t.Fatalf("%d samples, summary %+v; want 3 from %v to %v", len(sink.samples), sum, stampAt0, stampAt1)
			}
			for i, w := range want {
				s := sink.samples[i]
				if s.UUID != w.uuid || !s.Time.Equal(w.at) || s.Util == nil || *s.Util != w.util || s.Model != "T4" {
					t.Errorf("sample %d: %+v util %v; want %s at %v util %v", i, *s, deref(s.Util), w.uuid, w.at, w.util)
				}
			}
			// GPU-a's two readings are 30.5 s apart, the only spacing.
			if sum.SampleInterval != 30500*time.Millisecond {
				t.Errorf("interval %v, want 30.5s", sum.SampleInterval)
			}
		})
	}
}

// OpenMetrics-only syntax (a # UNIT line, an unknown type, a counter's
// _total with an exemplar) is read, its samples at their times in seconds.
func TestParseOpenMetricsSyntax(t *testing.T) {
	in := "# TYPE DCGM_FI_DEV_XID_ERRORS unknown\n" +
		`DCGM_FI_DEV_XID_ERRORS{gpu="0",UUID="GPU-a",Hostname="h"} 0 1793001600` + "\n" +
		"# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n# UNIT DCGM_FI_DEV_POWER_USAGE watts\n" +
		`DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-a",Hostname="h"} 68.244000 1793001600` + "\n" +
		"# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n" +
		`DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION_total{gpu="0",UUID="GPU-a",Hostname="h"} 1e6 1793001600 # {trace_id="x y}"} 1 1793001600` + "\n" +
		"# EOF\n"
	sink := &recSink{}
	if _, err := Parse(t.Context(), strings.NewReader(in), Options{Name: "b.om"}, sink); err != nil {
		t.Fatal(err)
	}
	if len(sink.samples) != 1 || !sink.samples[0].Time.Equal(stampAt0) || deref(sink.samples[0].PowerWatt) != 68.244 {
		t.Fatalf("samples %+v, want one at %v with 68.244 W", sink.samples, stampAt0)
	}
}

// A file whose timestamps cannot be told apart, or are in the wrong unit for
// its format, is refused naming the file, the line and the field, and saying
// what to do — never read as 1970 or the year 58000.
func TestParseTimestampRefusals(t *testing.T) {
	for _, c := range []struct {
		name, in string
		line     int
		want     []string
	}{
		// Line 6 is the # EOF; line 3 the first sample in milliseconds.
		{"OpenMetrics with milliseconds", stampedScrape("1793001600000", "1793001630500", "# EOF\n"), 3,
			[]string{"milliseconds, it seems", "# EOF on line 6", "write seconds"}},
		{"units mixed", stampedScrape("1793001600", "1793001630500", ""), 4,
			[]string{"reads as milliseconds", "line 3's 1793001600 reads as seconds", "one unit"}},
		// 1000 ms is 1970-01-01T00:00:01Z, 1000 s 00:16:40 that day.
		{"1970", stampedScrape("1000", "1030", ""), 3, []string{"neither", "2000–2100"}},
		{"text after # EOF", stampedScrape("1793001600", "1793001630", "# EOF\nDCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-c\"} 1 1793001600\n"), 7,
			[]string{"after the # EOF of line 6"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(t.Context(), strings.NewReader(c.in), Options{Name: "b.om", ScrapeTime: stampAt0}, &recSink{})
			var pe *ingest.ParseError
			if !errors.As(err, &pe) || pe.File != "b.om" || pe.Line != c.line {
				t.Fatalf("error %v, want a ParseError at b.om:%d", err, c.line)
			}
			if c.name != "text after # EOF" && pe.Field != "timestamp" {
				t.Errorf("field %q, want timestamp", pe.Field)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %v lacks %q", err, w)
				}
			}
		})
	}
}

// TestParseErrorLineAcrossChunks: the text parser reads a long file a few
// MiB at a time; its error still names the line in the file.
func TestParseErrorLineAcrossChunks(t *testing.T) {
	line := `DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-a",Hostname="h"} 40 1793001600000` + "\n"
	n := chunkBytes/len(line) + 100 // the bad line is in the second chunk
	in := strings.Repeat(line, n) + "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\" 40\n"
	_, err := Parse(t.Context(), strings.NewReader(in), Options{Name: "big.prom"}, &recSink{})
	var pe *ingest.ParseError
	if !errors.As(err, &pe) || pe.Line != n+1 {
		t.Fatalf("error %v, want one at line %d", err, n+1)
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestPromtoolDumpIsSeconds: a real `promtool tsdb dump-openmetrics` file
// (Prometheus' own test data, testdata/README) is read in seconds — its
// first sample at 1700215884.373 s, 2023-11-17 10:11:24.373 UTC, not a
// moment of 1970-01-20 — and each timestamp is rewritten to the
// milliseconds the text parser takes.
func TestPromtoolDumpIsSeconds(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "telemetry", "promtool-dump-openmetrics-roundtrip.prom"))
	if err != nil {
		t.Fatal(err)
	}
	info, err := decideUnit("dump.prom", data)
	if err != nil || info.unit != unitSeconds {
		t.Fatalf("unit %v, %v; want seconds", info.unit, err)
	}
	var first []byte
	eachLine(data, func(l expoLine) error {
		if first == nil && l.ts != nil {
			first = appendLine(nil, l, info.unit)
		}
		return nil
	})
	if want := "1700215884373"; !strings.HasSuffix(strings.TrimSpace(string(first)), " "+want) {
		t.Errorf("first sample rewritten as %q, want it to end in %s ms", first, want)
	}
	if got := time.UnixMilli(1700215884373).UTC().Format(time.RFC3339Nano); got != "2023-11-17T10:11:24.373Z" {
		t.Errorf("the expected instant is %s", got)
	}
}
