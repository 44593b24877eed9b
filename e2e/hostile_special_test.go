package e2e

// Hostile input, issue 14 item 10: a FIFO or a device where a file is
// expected hung finops for ever (blocked in open, or hashing /dev/zero), with
// SIGTERM ignored and, under `finops run`, the run lock held. Only regular
// files are read now; the rest is refused from its stat, before any open,
// and a signal ends hashing and parsing within a second.

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/fifotest"
)

// doneWithin runs fn and fails the test when it has not returned after d
// (releasing it from opening fifo), so that a regression fails instead of
// hanging the suite.
func doneWithin(t *testing.T, d time.Duration, fifo string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	if !fifotest.Within(fifo, d, done) {
		t.Fatalf("finops took longer than %v: it opened or read a FIFO or device", d)
	}
}

// TestHostileSpecialFiles: a FIFO named on the command line, found in a
// folder, matched by a glob or listed in a manifest, and /dev/zero named
// explicitly, are refused at once (exit 1) with the path and its type named,
// and the database is left as it was. A linked file next to the FIFO is
// still imported.
func TestHostileSpecialFiles(t *testing.T) {
	db, before := hostileDB(t)
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string) (args []string, fifo string)
		want  string // the type named
	}{
		{"fifo on the command line", func(t *testing.T, dir string) ([]string, string) {
			f := fifotest.Make(t, filepath.Join(dir, "bill.csv"))
			return []string{f}, f
		}, "a named pipe (FIFO)"},
		{"gzip-named fifo in a folder", func(t *testing.T, dir string) ([]string, string) {
			return []string{dir}, fifotest.Make(t, filepath.Join(dir, "sub", "bill.csv.gz"))
		}, "a named pipe (FIFO)"},
		{"fifo in a glob", func(t *testing.T, dir string) ([]string, string) {
			return []string{filepath.Join(dir, "*.csv")}, fifotest.Make(t, filepath.Join(dir, "bill.csv"))
		}, "a named pipe (FIFO)"},
		{"folder in a glob", func(t *testing.T, dir string) ([]string, string) {
			os.Mkdir(filepath.Join(dir, "2026-11.csv"), 0o755)
			return []string{filepath.Join(dir, "*.csv")}, filepath.Join(dir, "2026-11.csv")
		}, "a folder"},
		{"fifo listed in a manifest", func(t *testing.T, dir string) ([]string, string) {
			run := filepath.Join(dir, "exports", "20260101-20260131", "r1")
			f := fifotest.Make(t, filepath.Join(run, "part_0_0001.csv"))
			os.WriteFile(filepath.Join(run, "manifest.json"), []byte(
				`{"manifestVersion":"2021-01-01","blobs":[{"blobName":"exports/20260101-20260131/r1/part_0_0001.csv","byteCount":10}]}`), 0o644)
			return []string{filepath.Join(dir, "exports")}, f
		}, "a named pipe (FIFO)"},
		{"fifo named manifest.json", func(t *testing.T, dir string) ([]string, string) {
			return []string{dir}, fifotest.Make(t, filepath.Join(dir, "manifest.json"))
		}, "a named pipe (FIFO)"},
		{"/dev/zero", func(*testing.T, string) ([]string, string) { return []string{"/dev/zero"}, "/dev/zero" }, "a character device"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args, path := tc.setup(t, t.TempDir())
			doneWithin(t, 5*time.Second, path, func() {
				refused(t, db, before, args, path+": "+tc.want, "not a regular file")
			})
		})
	}

	// A folder holding a FIFO, a link to a good file and a link to a folder:
	// the FIFO fails, the linked file is imported, the linked folder is
	// named and not followed.
	dir := t.TempDir()
	fifo := fifotest.Make(t, filepath.Join(dir, "a-pipe.csv"))
	os.Symlink(filepath.Join(repoRoot(t), "testdata", "ingest", "focus_sample.csv"), filepath.Join(dir, "focus.csv"))
	os.Symlink(t.TempDir(), filepath.Join(dir, "elsewhere"))
	doneWithin(t, 5*time.Second, fifo, func() {
		code, out, errOut := runFinops(t, "--db", db, "ingest", dir)
		if code != cli.ExitFailed || !strings.Contains(out+errOut, fifo+": a named pipe (FIFO)") ||
			!strings.Contains(out, "focus.csv: focus") ||
			!strings.Contains(out, filepath.Join(dir, "elsewhere")+": a link to a folder, not followed") {
			t.Errorf("exit %d, want %d, the FIFO refused, focus.csv imported, the linked folder named:\n%s%s",
				code, cli.ExitFailed, out, errOut)
		}
	})
	if after := counts(t, db); after["source_files"] != before["source_files"]+1 {
		t.Errorf("counts %v → %v: want focus.csv imported", before, after)
	}
}

// TestHostileSpecialFileRun: `finops run` with a FIFO among its billing
// files reports it as a failed source (exit 3) instead of hanging with the
// run lock held; the next run is not refused as busy.
func TestHostileSpecialFileRun(t *testing.T) {
	dir := t.TempDir()
	bills := filepath.Join(dir, "bills")
	fifo := fifotest.Make(t, filepath.Join(bills, "pipe.csv"))
	writeWeekBill(t, bills)
	cfg := filepath.Join(dir, "finops.yaml")
	os.WriteFile(cfg, []byte("database: "+filepath.Join(dir, "f.db")+"\nout: "+filepath.Join(dir, "out")+
		"\nformats: [json]\nbilling:\n  - path: "+filepath.Join(bills, "*.csv")+"\n    mapping: autodl\n"), 0o644)
	for i := range 2 {
		doneWithin(t, 10*time.Second, fifo, func() {
			code, out, errOut := runFinops(t, "--config", cfg, "run", "--week", "2026-W48")
			if code != cli.ExitPartial || !strings.Contains(out+errOut, fifo+": a named pipe (FIFO)") {
				t.Errorf("run %d: exit %d, want %d naming the FIFO:\n%s%s", i+1, code, cli.ExitPartial, out, errOut)
			}
		})
	}
}

// TestHostileSignal: SIGTERM (and SIGHUP) ends `finops ingest` within a second while it
// hashes a 64 GiB file (sparse: no disk) and while it parses and imports a
// bill of 4 million rows; each takes a minute or more whole. The database is
// left as it was.
func TestHostileSignal(t *testing.T) {
	dir := t.TempDir()
	db, before := hostileDB(t)
	huge := filepath.Join(dir, "huge.csv")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(64 << 30); err != nil {
		t.Skipf("no sparse files here: %v", err)
	}
	f.Close()
	// A bill of millions of rows, small on disk: gzip members concatenate,
	// so the header's member is followed by one member of 1 MiB of rows
	// repeated 400 times (4 million rows; a minute of parsing).
	row := "gpu-a,训练机,A100-SXM4-80GB * 2,包周,2026-11-23 08:00:00,2026-11-30 08:00:00,¥806.40,¥806.40\n"
	gz := func(b []byte) []byte {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		zw.Write(b)
		zw.Close()
		return buf.Bytes()
	}
	big := gz([]byte("实例ID,实例名称,GPU型号,计费方式,开始时间,结束时间,应付金额,原价\n"))
	big = append(big, bytes.Repeat(gz(bytes.Repeat([]byte(row), (1<<20)/len(row))), 400)...)
	bill := filepath.Join(dir, "autodl.csv.gz")
	os.WriteFile(bill, big, 0o644)

	for _, tc := range []struct {
		name, file string
		sig        syscall.Signal
	}{{"hash", huge, syscall.SIGTERM}, {"parse", bill, syscall.SIGTERM}, {"parse SIGHUP", bill, syscall.SIGHUP}} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			cmd := exec.Command(os.Args[0], "--db", db, "ingest", tc.file)
			cmd.Env = append(os.Environ(), "FINOPS_TEST_MAIN=1")
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan struct{})
			go func() { cmd.Wait(); close(exited) }()
			t.Cleanup(func() { cmd.Process.Kill(); <-exited })
			// Long enough to be inside the stage (start-up takes tens of ms),
			// far shorter than the stage.
			select {
			case <-exited:
				t.Fatalf("ended before the signal: %v\n%s%s", cmd.ProcessState, stdout.String(), stderr.String())
			case <-time.After(700 * time.Millisecond):
			}
			signalled := time.Now()
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			select {
			case <-exited:
			case <-time.After(5 * time.Second):
				t.Fatalf("still running 5 s after %v", tc.sig)
			}
			if took := time.Since(signalled); took > time.Second {
				t.Errorf("exited %v after %v, want under a second", took, tc.sig)
			}
			if code := cmd.ProcessState.ExitCode(); code != cli.ExitFailed || !strings.Contains(stderr.String(), "context canceled") {
				t.Errorf("exit %d, want %d naming the cancellation:\n%s%s", code, cli.ExitFailed, stdout.String(), stderr.String())
			}
		})
	}
	if after := counts(t, db); !equalCounts(before, after) {
		t.Errorf("database changed: %v → %v", before, after)
	}
}

// TestHostileSignalStuck: where nothing looks at the context — finops blocked
// opening a FIFO given as `plan`'s scenario file (the config and secret
// files are refused from their stat now: TestHostileConfigNotRegular) —
// SIGTERM still ends it: after cli.SignalGrace with exit 1 and a message, or at
// once on a second signal.
func TestHostileSignalStuck(t *testing.T) {
	scenarios := fifotest.Make(t, filepath.Join(t.TempDir(), "scenarios.yaml"))
	for _, signals := range []int{1, 2} {
		t.Run(fmt.Sprintf("%d signals", signals), func(t *testing.T) {
			var stderr bytes.Buffer
			cmd := exec.Command(os.Args[0], "plan", scenarios)
			cmd.Env = append(os.Environ(), "FINOPS_TEST_MAIN=1")
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan struct{})
			go func() { cmd.Wait(); close(exited) }()
			t.Cleanup(func() { cmd.Process.Kill(); <-exited })
			waitBlockedInFIFO(t, cmd.Process.Pid)
			for range signals {
				cmd.Process.Signal(syscall.SIGTERM)
				time.Sleep(50 * time.Millisecond)
			}
			select {
			case <-exited:
			case <-time.After(cli.SignalGrace + time.Second):
				t.Fatalf("still running %v after SIGTERM", cli.SignalGrace+time.Second)
			}
			ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
			switch {
			case signals == 1 && (ws.ExitStatus() != cli.ExitFailed || !strings.Contains(stderr.String(), "after the signal")):
				t.Errorf("one SIGTERM: %v, want exit %d saying why:\n%s", cmd.ProcessState, cli.ExitFailed, stderr.String())
			case signals == 2 && ws.Signal() != syscall.SIGTERM:
				t.Errorf("two SIGTERMs: %v, want killed by the second", cmd.ProcessState)
			}
		})
	}
}

// waitBlockedInFIFO waits until a thread of process pid sleeps in the
// kernel's FIFO open (wchan wait_for_partner), so the signal arrives while
// finops is blocked opening the config, not before it set up its signal
// handling (a fixed sleep did not hold on a loaded machine). Where /proc
// says nothing (not Linux, wchan hidden), it falls back to a generous wait.
func waitBlockedInFIFO(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		m, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/wchan", pid))
		if len(m) == 0 {
			time.Sleep(2 * time.Second)
			return
		}
		for _, w := range m {
			if b, err := os.ReadFile(w); err == nil && strings.Contains(string(b), "wait_for_partner") {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("process %d never blocked opening the FIFO", pid)
}
