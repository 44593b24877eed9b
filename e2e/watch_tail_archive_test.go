package e2e

import (
	"bytes"
	"compress/gzip"
	"os"
	"strings"
	"testing"
)

// TestWatchTailSkipsArchives: a log source given as a glob also matches the
// rotated logs beside the live one; one that logrotate compressed without a
// .gz suffix (gpu-a.log.1) is told by its first bytes (ingest.Archived) and
// skipped, history rather than the tail, instead of being read as CSV.
func TestWatchTailSkipsArchives(t *testing.T) {
	e, log, _ := newTailEnv(t)
	cfg, err := os.ReadFile(e.cfg)
	if err != nil {
		t.Fatal(err)
	}
	globbed := strings.Replace(string(cfg), "path: "+log+",", "path: "+log+"*,", 1)
	if globbed == string(cfg) {
		t.Fatalf("the config names no %s to glob:\n%s", log, cfg)
	}
	if err := os.WriteFile(e.cfg, []byte(globbed), 0o644); err != nil {
		t.Fatal(err)
	}
	// The log before, rotated into a gzip archive (stored, not deflated, so
	// its rows stand in it as text behind the gzip header: read as a log,
	// it would fail the pass or store its rows).
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.NoCompression)
	zw.Write([]byte(smiHeader + smiRows(0, 600, 95)))
	zw.Close()
	if bytes.Count(gz.Bytes(), []byte("\n")) < 2 {
		t.Fatalf("the archive's %d bytes hold fewer than two newlines: nothing would be read from it either way", gz.Len())
	}
	if err := os.WriteFile(log+".1", gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	appendFile(t, log, smiHeader+smiRows(0, 20, 95))
	_, out := e.pass(t, watchAt(0, 20), 0)
	tails := tailsOf(out)
	if _, ok := tails["gpu-a.log.1"]; ok || strings.Contains(out, "gpu-a.log.1") {
		t.Errorf("the compressed gpu-a.log.1 was read or named:\n%s", out)
	}
	// The live log is read whole: 20 rows, header and rows as counted in
	// TestWatchTailsLog (50 + 20 × 63 bytes).
	checkTailStep(t, e, "the live log beside its archive", out, "gpu-a", "gpu-a.log", &tailLine{20, 0, 50 + 20*63, true}, 20)
}
