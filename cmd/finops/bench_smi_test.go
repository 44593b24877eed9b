package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
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
	reps := 3
	if n, err := strconv.Atoi(os.Getenv("BENCH_RUNS")); err == nil && n > 0 {
		reps = n
	}
	type run struct {
		rows          int
		size          int64
		finops, sqlit measure
	}
	var runs []run
	for _, rows := range []int{100_000, 1_000_000} {
		log := filepath.Join(dir, fmt.Sprintf("smi-%d.csv", rows))
		r := run{rows: rows, size: writeSMILog(t, log, rows)}
		var fs, ss []measure
		for i := 0; i < reps; i++ {
			// sqlite3 .import: the same bytes into a table of text columns.
			db := filepath.Join(dir, fmt.Sprintf("raw-%d-%d.db", rows, i))
			ss = append(ss, timeChild(t, exec.Command(sqlite, db, ".mode csv", ".import "+log+" raw")))
			// finops ingest, in this test binary as a child process.
			cmd := exec.Command(os.Args[0], "-test.run=^TestIngestSMIChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), "FINOPS_BENCH_CHILD=--db\t"+filepath.Join(dir, fmt.Sprintf("f-%d-%d.db", rows, i))+
				"\tingest\t--host\tbench\t"+log)
			fs = append(fs, timeChild(t, cmd))
		}
		r.finops, r.sqlit = median(fs), median(ss)
		runs = append(runs, r)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| nvidia-smi samples | file | finops ingest | CPU | peak RSS | sqlite3 .import | CPU | peak RSS | finops / sqlite3 |\n")
	fmt.Fprintf(&b, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range runs {
		fmt.Fprintf(&b, "| %d | %.0f MB | %.2f s | %.2f s | %.0f MB | %.2f s | %.2f s | %.0f MB | %.2f |\n", r.rows, float64(r.size)/1e6,
			r.finops.wall.Seconds(), r.finops.cpu.Seconds(), float64(r.finops.rss)/1024,
			r.sqlit.wall.Seconds(), r.sqlit.cpu.Seconds(), float64(r.sqlit.rss)/1024, r.finops.wall.Seconds()/r.sqlit.wall.Seconds())
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(&b, "\nMedian of %d runs each; load average at the end: %s", reps, strings.Join(strings.Fields(string(load))[:min(3, len(strings.Fields(string(load))))], " "))
	t.Log("\n" + b.String())
	if os.Getenv("BENCH_NO_WRITE") == "" {
		writeBenchTable(t, filepath.Join(repoRoot(t), "docs", "BENCHMARKS.md"), "telemetry", b.String())
	}
	big, small := runs[1], runs[0]
	if big.finops.wall >= big.sqlit.wall {
		t.Errorf("1,000,000 samples: finops %v, sqlite3 .import %v: want faster", big.finops.wall, big.sqlit.wall)
	}
	if float64(big.finops.rss) > 1.3*float64(small.finops.rss) {
		t.Errorf("peak RSS %d KiB for 1,000,000 samples vs %d KiB for 100,000: want under 1.3×", big.finops.rss, small.finops.rss)
	}
}

// measure is one child process: wall time, CPU (user + system), peak RSS (KiB).
type measure struct {
	wall, cpu time.Duration
	rss       int64
}

func median(ms []measure) measure {
	sort.Slice(ms, func(i, j int) bool { return ms[i].wall < ms[j].wall })
	return ms[len(ms)/2]
}

// writeBenchTable replaces what is between <!-- bench:NAME --> and
// <!-- /bench:NAME --> in path; it does nothing when the markers are missing.
func writeBenchTable(t *testing.T, path, name, table string) {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Logf("not writing %s: %v", path, err)
		return
	}
	open, end := "<!-- bench:"+name+" -->\n", "<!-- /bench:"+name+" -->"
	i, j := strings.Index(string(b), open), strings.Index(string(b), end)
	if i < 0 || j < i {
		t.Logf("not writing %s: no %s markers", path, name)
		return
	}
	out := string(b[:i+len(open)]) + table + "\n" + string(b[j:])
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Errorf("write %s: %v", path, err)
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

// timeChild runs cmd and measures it.
func timeChild(t *testing.T, cmd *exec.Cmd) measure {
	t.Helper()
	cmd.Stderr = os.Stderr
	start := time.Now()
	if out, err := cmd.Output(); err != nil {
		t.Fatalf("%v: %v\n%s", cmd.Args, err, out)
	}
	m := measure{wall: time.Since(start), cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		m.rss = ru.Maxrss
	}
	return m
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
