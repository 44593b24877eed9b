package ingest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
)

// benchFOCUSRow is a FOCUS row as exporters write it in Parquet: costs
// double, times text, Tags a map.
type benchFOCUSRow struct {
	BilledCost        float64           `parquet:"BilledCost"`
	EffectiveCost     float64           `parquet:"EffectiveCost"`
	ChargePeriodStart string            `parquet:"ChargePeriodStart"`
	ChargePeriodEnd   string            `parquet:"ChargePeriodEnd"`
	BillingCurrency   string            `parquet:"BillingCurrency"`
	ChargeCategory    string            `parquet:"ChargeCategory"`
	ChargeFrequency   string            `parquet:"ChargeFrequency"`
	PricingCategory   string            `parquet:"PricingCategory"`
	ResourceID        string            `parquet:"ResourceId"`
	ServiceName       string            `parquet:"ServiceName"`
	ChargeDescription string            `parquet:"ChargeDescription"`
	Tags              map[string]string `parquet:"Tags"`
}

var vmHWM = regexp.MustCompile(`VmHWM:\s+(\d+) kB`)

// TestParquetPeakRSS (FINOPS_BENCH_PARQUET=1) parses a 2,000,000-row FOCUS
// Parquet file in a child process and fails when its peak RSS is over 150 MB:
// rows are read by row group and batch, never the whole file
// (docs/BENCHMARKS.md). The file is written here with parquet-go, in row
// groups of 122,880 rows as DuckDB writes them.
func TestParquetPeakRSS(t *testing.T) {
	if path := os.Getenv("FINOPS_PARQUET_RSS_CHILD"); path != "" {
		f, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sum, err := Parse(t.Context(), f, Options{Name: path}, &countSink{})
		if err != nil {
			t.Fatal(err)
		}
		status, _ := os.ReadFile("/proc/self/status")
		fmt.Printf("rows=%d total=%s %s\n", sum.Rows, sum.TotalCost.StringFixed(2), vmHWM.FindString(string(status)))
		return
	}
	if os.Getenv("FINOPS_BENCH_PARQUET") == "" {
		t.Skip("a benchmark: run with FINOPS_BENCH_PARQUET=1")
	}
	const rows = 2_000_000
	path := filepath.Join(t.TempDir(), "focus-2m.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[benchFOCUSRow](f, parquet.MaxRowsPerRowGroup(122880), parquet.Compression(&parquet.Snappy))
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	batch := make([]benchFOCUSRow, 0, 4096)
	for i := range rows {
		s := t0.Add(time.Duration(i%720) * time.Hour)
		batch = append(batch, benchFOCUSRow{BilledCost: float64(i%1000) / 100, EffectiveCost: float64(i%1000) / 100,
			ChargePeriodStart: s.Format(time.RFC3339), ChargePeriodEnd: s.Add(time.Hour).Format(time.RFC3339),
			BillingCurrency: "USD", ChargeCategory: "Usage", ChargeFrequency: "Usage-Based", PricingCategory: "Standard",
			ResourceID: "i-" + strconv.Itoa(i%5000), ServiceName: "Amazon Elastic Compute Cloud",
			ChargeDescription: "$32.77 per On Demand Linux p4d.24xlarge Instance Hour",
			Tags:              map[string]string{"team": "team-" + strconv.Itoa(i%40), "env": "prod"}})
		if len(batch) == cap(batch) || i == rows-1 {
			if _, err := w.Write(batch); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	fi, _ := os.Stat(path)
	start := time.Now()
	cmd := exec.Command(os.Args[0], "-test.run=^TestParquetPeakRSS$", "-test.count=1")
	cmd.Env = append(os.Environ(), "FINOPS_PARQUET_RSS_CHILD="+path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`rows=(\d+) total=(\S+) VmHWM:\s+(\d+) kB`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("child said %s", out)
	}
	kb, _ := strconv.Atoi(string(m[3]))
	t.Logf("%s rows (%d MB Parquet) in %.1f s, peak RSS %d MB", m[1], fi.Size()>>20, time.Since(start).Seconds(), kb>>10)
	if string(m[1]) != strconv.Itoa(rows) {
		t.Fatalf("parsed %s rows, want %d", m[1], rows)
	}
	// By hand: cost i%1000 / 100 runs through 0.00 … 9.99, 499,500 / 100 =
	// 4,995 a cycle, 2,000 cycles in 2,000,000 rows: 9,990,000.00 exactly
	// (doubles read as their shortest decimal, summed exactly).
	if string(m[2]) != "9990000.00" {
		t.Fatalf("total %s, want 9990000.00", m[2])
	}
	if kb > 150<<10 {
		t.Fatalf("peak RSS %d MB, over 150 MB", kb>>10)
	}
}
