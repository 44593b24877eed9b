package profile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestStart: both profiles are written, in pprof's gzipped format, once
// stop runs; none asked for, nothing is written; a file that cannot be
// created names its flag.
func TestStart(t *testing.T) {
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "mem.pprof")
	stop, err := Start(cpu, mem)
	if err != nil {
		t.Fatal(err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{cpu, mem} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b { // gzip's magic
			t.Errorf("%s: not a gzipped profile (%d bytes)", p, len(b))
		}
	}
	stop, err = Start("", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := Start(filepath.Join(dir, "no", "such", "cpu.pprof"), ""); err == nil {
		t.Error("a CPU profile in a missing folder: no error")
	}
}
