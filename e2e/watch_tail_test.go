package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/cli"
)

// smiRow is GPU 0 of gpu-a at minute m after 00:00 UTC on the watch's day,
// util % busy, as nvidia-smi logs it: 63 bytes (23 of timestamp, 21 of name, 7 of uuid, separators) with the newline for util
// 10–99, so byte offsets can be counted by hand.
func smiRow(m, util int) string {
	return fmt.Sprintf("%s, 0, NVIDIA A100-SXM4-80GB, GPU-a-0, %d\n", watchAt(0, m).Format("2006/01/02 15:04:05.000"), util)
}

const nvmlHeader = "timestamp, hostname, index, name, uuid, utilization.gpu [%]\n"

// nvmlRow is gpu-b's GPU 0 at minute m, 95 % busy, as the NVML spool writes it (UTC).
func nvmlRow(m int) string {
	return fmt.Sprintf("%s, gpu-b, 0, NVIDIA A100-SXM4-80GB, GPU-b-0, 95\n", watchAt(0, m).Format("2006-01-02T15:04:05.000Z"))
}

const smiHeader = "timestamp, index, name, uuid, utilization.gpu [%]\n"

// smiRows is the rows of minutes [from, to) at util.
func smiRows(from, to, util int) string {
	var b strings.Builder
	for m := from; m < to; m++ {
		b.WriteString(smiRow(m, util))
	}
	return b.String()
}

// newTailEnv is the watch's fleet with gpu-a's telemetry in an nvidia-smi
// log (UTC) and an NVML spool folder instead of Prometheus.
func newTailEnv(t *testing.T) (e *watchEnv, log, spool string) {
	t.Helper()
	dir := t.TempDir()
	log, spool = filepath.Join(dir, "gpu-a.log"), filepath.Join(dir, "spool")
	if err := os.Mkdir(spool, 0o755); err != nil {
		t.Fatal(err)
	}
	// The spool holds the hour being written: an empty one is refused.
	if err := os.WriteFile(filepath.Join(spool, "nvml-gpu-b-20261130T00Z.csv.part"), []byte(nvmlHeader+nvmlRow(0)), 0o644); err != nil {
		t.Fatal(err)
	}
	e = &watchEnv{dir: dir, db: filepath.Join(dir, "f.db"), cfg: filepath.Join(dir, "finops.yaml"), rec: &recorder{}}
	yaml := fmt.Sprintf(`database: %s
timezone: Asia/Shanghai
billing:
  - path: %s
    mapping: autodl
utilization:
  nvidia_smi:
    - {path: %s, host: gpu-a, timezone: UTC}
  nvml_spool:
    - path: %s
resources:
  - {id: gpu-a, team: nlp}
  - {id: gpu-b, team: cv}
teams:
  - {name: nlp, leads: [lead@example.com]}
  - {name: cv, leads: [cv@example.com]}
`, e.db, writeWatchBill(t, dir), log, spool)
	if err := os.WriteFile(e.cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := e.run(t, now, "ingest", filepath.Join(dir, "autodl.csv")); code != 0 {
		t.Fatalf("ingest: exit %d\n%s%s", code, out, errs)
	}
	return e, log, spool
}

// tailLine is what a pass printed for one file: its lines and byte range.
type tailLine struct {
	lines, start, end int
	anew              bool
}

var tailRE = regexp.MustCompile(`watch: (\S+): (\d+) new lines, bytes (\d+)-(\d+)( \(read anew)?`)

func tailsOf(out string) map[string]tailLine {
	got := map[string]tailLine{}
	for _, m := range tailRE.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[2])
		a, _ := strconv.Atoi(m[3])
		b, _ := strconv.Atoi(m[4])
		got[filepath.Base(m[1])] = tailLine{n, a, b, m[5] != ""}
	}
	return got
}

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// TestWatchTailsLog follows one nvidia-smi log through the passes of an
// hour. Each step changes the file, runs a pass at its time and checks which
// bytes the pass read (counted by hand from smiRow's 63 bytes and the
// header's 50) and the minutes stored for gpu-a so far (each minute once).
func TestWatchTailsLog(t *testing.T) {
	e, log, _ := newTailEnv(t)
	const h, r = len(smiHeader), 63
	if len(smiHeader) != 50 || len(smiRow(0, 95)) != r {
		t.Fatalf("header %d, row %d bytes: the offsets below are counted for 50 and 63", len(smiHeader), len(smiRow(0, 95)))
	}
	var killed bool
	for _, step := range []struct {
		name    string
		change  func()
		at      int // minute of the pass
		code    int
		want    *tailLine // nil: nothing new read
		minutes int       // gpu-a's minutes stored after the pass
	}{
		{"new log: read whole (all within the lookback)", func() { appendFile(t, log, smiHeader+smiRows(0, 20, 95)) },
			20, 0, &tailLine{20, 0, h + 20*r, true}, 20},
		{"appended: only the new rows; an old row made unreadable is not read again", func() {
			// Row 18 lies past the fingerprint's first 1,024 bytes: the
			// file is the same one, changed where it was read already.
			b, _ := os.ReadFile(log)
			copy(b[h+18*r:], strings.Replace(smiRow(18, 95), "95\n", "x5\n", 1)) // same length, refused if re-read
			os.WriteFile(log, b, 0o644)
			appendFile(t, log, smiRows(20, 25, 95))
		}, 25, 0, &tailLine{5, h + 20*r, h + 25*r, false}, 25},
		{"a partial last line waits", func() { appendFile(t, log, smiRow(25, 95)[:20]) }, 26, 0, nil, 25},
		{"completed by the next pass", func() { appendFile(t, log, smiRow(25, 95)[20:]) },
			27, 0, &tailLine{1, h + 25*r, h + 26*r, false}, 26},
		{"killed after storing, before the ledger: read again next pass", func() {
			appendFile(t, log, smiRows(26, 28, 95))
			killed = true
		}, 28, cli.ExitFailed, &tailLine{2, h + 26*r, h + 28*r, false}, 28},
		{"the re-read: the same bytes and one more row, each minute once", func() { appendFile(t, log, smiRows(28, 29, 95)) },
			29, 0, &tailLine{3, h + 26*r, h + 29*r, false}, 29},
		{"rotated: replaced by a shorter log, read from its start", func() {
			os.WriteFile(log, []byte(smiHeader+smiRows(29, 31, 95)), 0o644)
		}, 31, 0, &tailLine{2, 0, h + 2*r, true}, 31},
		{"truncated in place (copytruncate) and written again", func() {
			os.Truncate(log, 0)
			appendFile(t, log, smiHeader+smiRows(31, 32, 95))
		}, 32, 0, &tailLine{1, 0, h + r, true}, 32},
	} {
		step.change()
		e.rec.take()
		var out string
		if killed {
			var code int
			var errs string
			code, out, errs = e.runHooked(t, watchAt(0, step.at), func() error { return errors.New("killed") }, "watch")
			if code != step.code {
				t.Fatalf("%s: exit %d, want %d\n%s%s", step.name, code, step.code, out, errs)
			}
			killed = false
		} else {
			_, out = e.pass(t, watchAt(0, step.at), step.code)
		}
		checkTailStep(t, e, step.name, out, "gpu-a", "gpu-a.log", step.want, step.minutes)
	}
}

// checkTailStep checks one pass of a tail test: what it says it read of file
// (want nil: nothing) and that host has that many minutes stored, each at
// 95 %, in watchDay's first hour.
func checkTailStep(t *testing.T, e *watchEnv, name, out, host, file string, want *tailLine, minutes int) {
	t.Helper()
	got, ok := tailsOf(out)[file]
	switch {
	case want == nil && ok:
		t.Errorf("%s: read %+v, want nothing\n%s", name, got, out)
	case want != nil && got != *want:
		t.Errorf("%s: read %+v, want %+v\n%s", name, got, *want, out)
	}
	if m, sum := telemetryOf(t, e.db, host, watchDay, watchAt(1, 0)); m != minutes || sum != int64(95*m) {
		t.Errorf("%s: %d minutes (sum %d) stored, want %d (sum %d)", name, m, sum, minutes, 95*minutes)
	}
}

// runHooked runs finops at at with the hook between a pass's telemetry and
// its ledger.
func (e *watchEnv) runHooked(t *testing.T, at time.Time, hook func() error, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	m := cli.NewMain(nil, &out, &errb)
	m.Now = func() time.Time { return at }
	m.Getenv = func(k string) string { return e.env[k] }
	m.WatchBeforeLedger = hook
	code := m.Run(context.Background(), append([]string{"--config", e.cfg}, args...))
	return code, out.String(), errb.String()
}
