package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestIngestSMIBenchmark (make bench; FINOPS_BENCH_SMI=1) times `finops ingest`
// of 1,000,000 nvidia-smi samples against `sqlite3 DB ".mode csv" ".import
// FILE raw"` of the same file (which only copies text), and compares finops'
// peak RSS for 100,000 and 1,000,000 samples: the target is faster than
// sqlite3, and peak RSS for 10× the rows under 1.3× (docs/BENCHMARKS.md).
// Each ingest runs in a child process so its peak RSS is its own.
func TestIngestSMIBenchmark(t *testing.T) {
	if os.Getenv("FINOPS_BENCH_SMI") == "" {
		t.Skip("a benchmark: run with FINOPS_BENCH_SMI=1 (make bench)")
	}
	sqlite, err := exec.LookPath("sqlite3")
	if err != nil {
		t.Skip("sqlite3 not found: apt-get install -y sqlite3")
	}
	dir := t.TempDir()
	type run struct {
		rows          int
		size          int64
		finops, sqlit time.Duration
		rss, sqlRSS   int64 // KiB
	}
	var runs []run
	for _, rows := range []int{100_000, 1_000_000} {
		log := filepath.Join(dir, fmt.Sprintf("smi-%d.csv", rows))
		size := writeSMILog(t, log, rows)
		r := run{rows: rows, size: size}
		// sqlite3 .import: the same bytes into a table of text columns.
		db := filepath.Join(dir, fmt.Sprintf("raw-%d.db", rows))
		r.sqlit, r.sqlRSS = timeChild(t, exec.Command(sqlite, db, ".mode csv", ".import "+log+" raw"))
		// finops ingest, in this test binary as a child process.
		cmd := exec.Command(os.Args[0], "-test.run=^TestIngestSMIChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), "FINOPS_BENCH_CHILD=--db\t"+filepath.Join(dir, fmt.Sprintf("f-%d.db", rows))+
			"\tingest\t--host\tbench\t"+log)
		r.finops, r.rss = timeChild(t, cmd)
		runs = append(runs, r)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| nvidia-smi samples | file | finops ingest | peak RSS | sqlite3 .import | peak RSS | finops / sqlite3 |\n|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range runs {
		fmt.Fprintf(&b, "| %d | %.0f MB | %.2f s | %.0f MB | %.2f s | %.0f MB | %.2f |\n", r.rows, float64(r.size)/1e6,
			r.finops.Seconds(), float64(r.rss)/1024, r.sqlit.Seconds(), float64(r.sqlRSS)/1024, r.finops.Seconds()/r.sqlit.Seconds())
	}
	t.Log("\n" + b.String())
	big, small := runs[1], runs[0]
	if big.finops >= big.sqlit {
		t.Errorf("1,000,000 samples: finops %v, sqlite3 .import %v: want faster", big.finops, big.sqlit)
	}
	if float64(big.rss) > 1.3*float64(small.rss) {
		t.Errorf("peak RSS %d KiB for 1,000,000 samples vs %d KiB for 100,000: want under 1.3×", big.rss, small.rss)
	}
}

// TestIngestSMIChild is the child process of the benchmark.
func TestIngestSMIChild(t *testing.T) {
	args := os.Getenv("FINOPS_BENCH_CHILD")
	if args == "" {
		t.Skip("child of TestIngestSMIBenchmark")
	}
	m := NewMain(nil, &strings.Builder{}, os.Stderr)
	if code := m.Run(context.Background(), strings.Split(args, "\t")); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// timeChild runs cmd and returns its wall time and peak RSS (KiB).
func timeChild(t *testing.T, cmd *exec.Cmd) (time.Duration, int64) {
	t.Helper()
	cmd.Stderr = os.Stderr
	start := time.Now()
	if out, err := cmd.Output(); err != nil {
		t.Fatalf("%v: %v\n%s", cmd.Args, err, out)
	}
	d := time.Since(start)
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if ru == nil {
		return d, 0
	}
	return d, ru.Maxrss
}

// writeSMILog writes rows samples as nvidia-smi logs them with units: eight
// GPUs sampled every 15 s.
func writeSMILog(t *testing.T, path string, rows int) int64 {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString("timestamp, name, pci.bus_id, index, uuid, utilization.gpu [%], utilization.memory [%], memory.total [MiB], memory.used [MiB], power.draw [W]\n")
	t0 := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	for i := 0; i < rows; i++ {
		g := i % 8
		fmt.Fprintf(w, "%s, NVIDIA H100 80GB HBM3, 00000000:%02X:00.0, %d, GPU-00000000-0000-0000-0000-00000000000%d, %d %%, 11 %%, 81559 MiB, 19818 MiB, 631.95 W\n",
			t0.Add(time.Duration(i/8)*15*time.Second).Format("2006/01/02 15:04:05.000"), g, g, g, (i*7)%101)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	f.Close()
	return fi.Size()
}
