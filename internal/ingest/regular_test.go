package ingest

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/canceltest"
	"github.com/finops-oss/finops/internal/fifotest"
)

// returnsWithin runs fn and returns its error, or fails the test when fn
// has not returned after d (releasing it from opening fifo).
func returnsWithin(t *testing.T, d time.Duration, fifo string, fn func() error) error {
	t.Helper()
	var err error
	done := make(chan struct{})
	go func() { defer close(done); err = fn() }()
	if !fifotest.Within(fifo, d, done) {
		t.Fatalf("still running after %v", d)
	}
	return err
}

// TestCheckRegular: every kind of file but a regular one (or a link to
// one) is refused from its stat, with its path and its type named.
func TestCheckRegular(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "bill.csv")
	writeFile(t, file, "a,b\n")
	fifo := fifotest.Make(t, filepath.Join(dir, "pipe.csv"))
	os.Symlink(file, filepath.Join(dir, "link.csv"))
	os.Symlink(fifo, filepath.Join(dir, "link-to-pipe.csv"))
	sock := filepath.Join(dir, "s.sock")
	if l, err := net.Listen("unix", sock); err == nil {
		defer l.Close()
	} else {
		sock = ""
	}
	for _, tc := range []struct {
		path string
		want string // "" = accepted
	}{
		{file, ""},
		{filepath.Join(dir, "link.csv"), ""},
		{fifo, "a named pipe (FIFO)"},
		{filepath.Join(dir, "link-to-pipe.csv"), "a named pipe (FIFO)"},
		{"/dev/zero", "a character device"},
		{"/dev/null", "a character device"},
		{dir, "a folder"},
		{sock, "a socket"},
	} {
		if tc.path == "" {
			continue
		}
		err := CheckRegular(tc.path)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.path, err)
			}
			continue
		}
		var nr *NotRegularError
		if !errors.As(err, &nr) {
			t.Errorf("%s: %v, want a NotRegularError", tc.path, err)
			continue
		}
		wantErrParts(t, err, tc.path+": "+tc.want, "not a regular file")
	}
	if err := CheckRegular(filepath.Join(dir, "missing.csv")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// TestOpenRefusesSpecialFiles: Open, HashFile and a manifest refuse a FIFO
// and /dev/zero at once, instead of blocking in open or reading forever.
func TestOpenRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := fifotest.Make(t, filepath.Join(dir, "pipe.csv.gz"))
	for _, path := range []string{fifo, "/dev/zero"} {
		err := returnsWithin(t, 2*time.Second, fifo, func() error {
			rc, err := Open(path)
			if err == nil {
				rc.Close()
			}
			return err
		})
		wantErrParts(t, err, path, "not a regular file")
		err = returnsWithin(t, 2*time.Second, fifo, func() error {
			_, _, err := HashFile(context.Background(), path)
			return err
		})
		wantErrParts(t, err, path, "not a regular file")
	}

	// A manifest that is a FIFO, and a manifest listing one.
	mfifo := fifotest.Make(t, filepath.Join(dir, "manifest.json"))
	err := returnsWithin(t, 2*time.Second, mfifo, func() error {
		_, err := ReadManifest(mfifo)
		return err
	})
	wantErrParts(t, err, mfifo, "a named pipe (FIFO)")
	run := filepath.Join(dir, "exports", "20260101-20260131", "r1")
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	blob := fifotest.Make(t, filepath.Join(run, "part_0_0001.csv"))
	writeFile(t, filepath.Join(run, "manifest.json"),
		`{"manifestVersion":"2021-01-01","blobs":[{"blobName":"exports/20260101-20260131/r1/part_0_0001.csv","byteCount":10}]}`)
	var plan *DeliveryPlan
	returnsWithin(t, 2*time.Second, blob, func() error {
		plan = PlanDeliveries([]string{filepath.Join(run, "manifest.json"), blob})
		return nil
	})
	if len(plan.Files) != 0 || len(plan.Errs) != 1 {
		t.Fatalf("plan of a delivery listing a FIFO: %+v", plan)
	}
	wantErrParts(t, plan.Errs[0], "manifest.json: lists exports/20260101-20260131/r1/part_0_0001.csv", blob+": a named pipe (FIFO)")
}

// endless is an input that never ends: head, then fill over and over. Read
// returns at once, as a regular file's does.
type endless struct {
	head, fill []byte
	off        int // into fill
}

func (e *endless) Read(p []byte) (int, error) {
	n := copy(p, e.head)
	e.head = e.head[n:]
	for n < len(p) {
		c := copy(p[n:], e.fill[e.off:])
		n += c
		e.off = (e.off + c) % len(e.fill)
	}
	return n, nil
}

// TestCancelEndlessInput: parsing rows that never end, each valid but
// carrying a 2 MiB note (under the 8 MiB record bound), stops within a
// second of ctx's cancellation, as does hashing input that never ends.
// Before, the parsers looked at ctx every 4,096 rows, which here is 8 GiB
// of input (measured: 4 ms a row as CSV, 60 ms as JSON), and hashing never.
func TestCancelEndlessInput(t *testing.T) {
	note := strings.Repeat("x", 2<<20)
	focus := strings.SplitN(string(readFile(t, testdata("focus_sample.csv"))), "\n", 3)
	runpod := `{"amount":1,"gpuTypeId":"NVIDIA H100 80GB HBM3","podId":"p","time":"2026-11-02T00:00:00Z",` +
		`"timeBilledMs":3600000,"note":"` + note + `"}`
	for _, tc := range []struct {
		name string
		run  func(ctx context.Context) error
	}{
		{"focus csv", func(ctx context.Context) error {
			in := &endless{head: []byte(focus[0] + ",x_note\n"), fill: []byte(focus[1] + "," + note + "\n")}
			_, err := Parse(ctx, in, Options{Name: "focus.csv"}, &countSink{})
			return err
		}},
		{"runpod json", func(ctx context.Context) error {
			in := &endless{head: []byte("[" + runpod), fill: []byte("," + runpod)}
			_, err := Parse(ctx, in, Options{Name: "runpod.json"}, &countSink{})
			return err
		}},
		{"hash", func(ctx context.Context) error {
			_, err := io.Copy(io.Discard, ContextReader(ctx, &endless{fill: []byte{0}}))
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { canceltest.Stops(t, 100*time.Millisecond, tc.run) })
	}
}

// TestHashFileCancel: hashing a 64 GiB (sparse) regular file stops within
// a second of the cancel; reading it whole takes minutes.
func TestHashFileCancel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.csv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(64 << 30); err != nil {
		t.Skipf("no sparse file here: %v", err)
	}
	f.Close()
	canceltest.Stops(t, 50*time.Millisecond, func(ctx context.Context) error {
		_, _, err := HashFile(ctx, path)
		if err != nil && !strings.Contains(err.Error(), path) {
			t.Errorf("%v does not name the file", err)
		}
		return err
	})
	// Not cancelled, the hash is the file's sha256 (computed with sha256sum)
	// and the size its four bytes.
	small := filepath.Join(t.TempDir(), "small.csv")
	writeFile(t, small, "a,b\n")
	const want = "5be08c9684a1d25efcee09318204824278b08bbfb4aef973ffefd0b9d7478313"
	if got, size, err := HashFile(context.Background(), small); err != nil || got != want || size != 4 {
		t.Errorf("HashFile = %q, %d, %v; want %s, 4", got, size, err, want)
	}
}
