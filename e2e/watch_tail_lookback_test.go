package e2e

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/config"
)

// countingReaderAt counts the bytes read through it.
type countingReaderAt struct {
	r io.ReaderAt
	n *atomic.Int64
}

func (c countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

// TestWatchTailsLongLogNewToWatch: a log with 90 days of history (sparse:
// one row every 10 minutes, 12,960 rows, ~800 KB) that the watch has never
// read costs a pass the lookback, not the history. The bound is counted by
// hand from the code's reads of a file new to the watch: the header probe
// (4 KiB from the start), the search back from the end (one 64 KiB block
// suffices, its first row is a week old), the lookback's rows (2h at one row
// every 10 minutes: 12 rows of 63 bytes) and the fingerprint (1 KiB).
func TestWatchTailsLongLogNewToWatch(t *testing.T) {
	e, log, _ := newTailEnv(t)
	const r, days, every = 63, 90, 10
	var b strings.Builder
	b.WriteString(smiHeader)
	for m := -days * 24 * 60; m < 0; m += every {
		b.WriteString(smiRow(m, 95))
	}
	if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	size := b.Len()
	lookback := int(config.DefaultWatchLookback / time.Minute / every) // 12 rows: 22:00 … 23:50
	bound := int64(4<<10 + 64<<10 + lookback*r + 1<<10)
	if int64(size) < 8*bound {
		t.Fatalf("the log is %d bytes: too short to tell the lookback from the history (bound %d)", size, bound)
	}

	var read atomic.Int64
	var out, errb bytes.Buffer
	m := cli.NewMain(nil, &out, &errb)
	m.Now = func() time.Time { return watchDay }
	m.Getenv = func(k string) string { return e.env[k] }
	m.WatchTailReader = func(path string, ra io.ReaderAt) io.ReaderAt {
		if path != log {
			return ra // the spool's hour file
		}
		return countingReaderAt{ra, &read}
	}
	if code := m.Run(context.Background(), []string{"--config", e.cfg, "watch"}); code != 0 {
		t.Fatalf("watch: exit %d\n%s%s", code, out.String(), errb.String())
	}
	t.Logf("read %d of %d bytes (bound %d)", read.Load(), size, bound)
	if n := read.Load(); n > bound || n == 0 {
		t.Errorf("read %d bytes of a %d-byte log new to the watch, want at most %d", n, size, bound)
	}
	want := tailLine{lookback, size - lookback*r, size, true}
	if got := tailsOf(out.String())["gpu-a.log"]; got != want {
		t.Errorf("read %+v, want %+v\n%s", got, want, out.String())
	}
	from := watchDay.Add(-config.DefaultWatchLookback)
	if n, _ := telemetryOf(t, e.db, "gpu-a", watchDay.AddDate(0, 0, -days), from); n != 0 {
		t.Errorf("%d minutes before the lookback stored, want none", n)
	}
	if n, _ := telemetryOf(t, e.db, "gpu-a", from, watchDay); n == 0 {
		t.Errorf("no minute of the lookback stored")
	}
}
