package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/store"
)

// killIngestGPUs × killIngestMinutes samples, one a minute: a log whose
// import takes long enough (a second or more here) to be killed in the
// middle, and whose minutes fill the WAL well before the end.
const (
	killIngestGPUs    = 8
	killIngestMinutes = 21 * 1440
)

// killLogStart is the log's first sample: three weeks ending before the
// tests' clock. The test's config keeps 400 days hot, so the import writes a
// minute row per line and fills the WAL long before it commits; with the
// default, days this old go straight into GPU-days, a few hundred KB that
// stay in SQLite's cache until the commit, and nothing could be caught
// mid-file.
var killLogStart = time.Date(2026, 11, 2, 0, 0, 12, 345e6, time.UTC)

// writeKillLog writes an nvidia-smi log of distinct GPU-minutes and returns
// the sum of its utilization values, computed while writing.
func writeKillLog(t *testing.T, path string) (utilSum int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString("timestamp, name, pci.bus_id, index, uuid, utilization.gpu [%], utilization.memory [%], memory.total [MiB], memory.used [MiB], power.draw [W]\n")
	for m := range killIngestMinutes {
		ts := killLogStart.Add(time.Duration(m) * time.Minute).Format("2006/01/02 15:04:05.000")
		for g := range killIngestGPUs {
			util := (m*7 + g*13) % 101
			utilSum += int64(util)
			fmt.Fprintf(w, "%s, NVIDIA H100 80GB HBM3, 00000000:%02X:00.0, %d, GPU-k%07d-0000-0000-0000-000000000000, %d %%, 3 %%, 81559 MiB, 20000 MiB, 300.00 W\n",
				ts, g+1, g, g, util)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return utilSum
}

// telemetryOf is what the reports read of host's GPUs in [from, to)
// (per-minute rows or compacted days alike): the minutes with a value and
// the sum of their utilization.
func telemetryOf(t *testing.T, db, host string, from, to time.Time) (minutes int, utilSum int64) {
	t.Helper()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	series, err := st.GPUSeries(context.Background(), from, to)
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, s := range series {
		if s.Host != host {
			continue
		}
		for _, m := range s.Minutes() {
			minutes++
			sum += m.Util
		}
	}
	return minutes, int64(sum + 0.5)
}

// TestFaultKilledMidIngest: `finops ingest` of a large nvidia-smi log, run as
// its own process, is killed with SIGKILL once the import is demonstrably
// under way (its uncommitted pages are spilling into the WAL). The database
// must pass SQLite's integrity check and hold exactly what it held before:
// the file is not recorded as imported and none of its minutes are there.
// Ingesting the file again imports it whole: one minute row and one sample
// per line, and the utilization sum computed while writing the file.
func TestFaultKilledMidIngest(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "finops.db")
	// Something to keep: a bill imported before.
	if code, out, errs := runFinops(t, "--db", db, "ingest", filepath.Join(repoRoot(t), "testdata", "ingest", "autodl_sample.csv")); code != 0 {
		t.Fatalf("ingest the bill: exit %d\n%s%s", code, out, errs)
	}
	log := filepath.Join(dir, "gpu-k.csv")
	wantUtil := writeKillLog(t, log)
	conf := filepath.Join(dir, "finops.yaml")
	if err := os.WriteFile(conf, []byte("utilization:\n  hot_days: 400\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const wantRows = killIngestGPUs * killIngestMinutes
	before := counts(t, db)
	if before["billing_lines"] == 0 {
		t.Fatal("the bill stored no lines")
	}

	var stdout, stderr bytes.Buffer
	cmd := exec.Command(os.Args[0], "--config", conf, "--db", db, "ingest", "--host", "gpu-k", "--tz", "UTC", log)
	cmd.Env = append(os.Environ(), "FINOPS_TEST_MAIN=1")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	began := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-exited })

	// Mid-import: the WAL holds more than a MiB of the file's pages (the
	// bill's few pages were checkpointed when its import closed the database).
	wal := db + "-wal"
	deadline := time.After(60 * time.Second)
	for grown := false; !grown; {
		select {
		case <-exited:
			t.Fatalf("the ingest ended (exit %d, after %v) before it could be killed mid-file; make the log larger\n%s%s",
				cmd.ProcessState.ExitCode(), time.Since(began), stdout.String(), stderr.String())
		case <-deadline:
			t.Fatal("the WAL never grew during the ingest")
		case <-time.After(2 * time.Millisecond):
			fi, err := os.Stat(wal)
			grown = err == nil && fi.Size() > 1<<20
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-exited
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL || stdout.Len() > 0 {
		// Output means the import had committed: the kill came too late to test anything.
		t.Fatalf("the ingest was not killed mid-file: %v\n%s%s", cmd.ProcessState, stdout.String(), stderr.String())
	}

	checkKilledIngestLeftNothing(t, db, before)

	code, out, errs := runFinops(t, "--config", conf, "--db", db, "ingest", "--host", "gpu-k", "--tz", "UTC", log)
	if code != 0 {
		t.Fatalf("ingest again: exit %d\n%s%s", code, out, errs)
	}
	minutes, util := telemetryOf(t, db, "gpu-k", killLogStart.Add(-time.Hour), killLogStart.Add(killIngestMinutes*time.Minute+time.Hour))
	if minutes != wantRows || util != wantUtil {
		t.Errorf("after ingesting again: %d GPU-minutes, Σ util %d; the file has %d lines (one GPU-minute each), Σ util %d",
			minutes, util, wantRows, wantUtil)
	}
	after := counts(t, db)
	if after["source_files"] != before["source_files"]+1 || after["gpus"] != before["gpus"]+killIngestGPUs ||
		after["billing_lines"] != before["billing_lines"] {
		t.Errorf("counts %v → %v: want one more source, %d more GPUs, the same bill", before, after, killIngestGPUs)
	}
}

// checkKilledIngestLeftNothing: after the kill the database opens, passes
// SQLite's integrity check, does not record the killed file as imported
// and holds exactly the rows it held before.
func checkKilledIngestLeftNothing(t *testing.T, db string, before map[string]int) {
	t.Helper()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatalf("open after kill -9: %v", err)
	}
	var check string
	if err := st.DB().QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check after kill -9: %q, %v", check, err)
	}
	sources, err := st.Sources(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sources {
		if strings.Contains(s.URI, "gpu-k.csv") {
			t.Errorf("the killed file is recorded as imported: %+v", s)
		}
	}
	st.Close()
	if after := counts(t, db); !equalCounts(before, after) {
		t.Errorf("the killed ingest left rows behind: %v → %v", before, after)
	}
}
