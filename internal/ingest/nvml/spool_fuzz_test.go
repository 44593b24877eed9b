package nvml

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzSpoolRecover: OpenSpool reads back whatever a crash (or a full disk,
// or another program) left in a .part file. It must keep exactly the whole
// lines, finish the file and open the spool, whatever the bytes.
func FuzzSpoolRecover(f *testing.F) {
	ok := format("h", []Row{{Time: time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC), Name: "NVIDIA L4", UUID: "GPU-1",
		Util: new(50.0), MemUsedMiB: new(1.0), MemTotalMiB: new(2.0), PowerW: new(70.126)}})
	f.Add(append([]byte(Header+"\n"), ok...))
	f.Add([]byte(Header + "\n2026-11-23T08:00:00.000Z, h, 0, X, GPU-1, 5, 1, 2, 3.00, 0\n2026-11-23T08:01"))
	f.Add([]byte(Header))
	f.Add([]byte{})
	f.Add([]byte("\n\r\n\x00\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 16<<10 {
			return
		}
		dir := t.TempDir()
		part := filepath.Join(dir, "nvml-h-20261123T0800Z.csv.part")
		if err := os.WriteFile(part, data, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := OpenSpool(Options{Dir: dir, Host: "h"})
		if err != nil {
			t.Fatalf("OpenSpool: %v", err)
		}
		defer s.Close()
		if _, err := os.Stat(part); !os.IsNotExist(err) {
			t.Fatalf(".part file left behind: %v", err)
		}
		got, err := os.ReadFile(filepath.Join(dir, "nvml-h-20261123T0800Z.csv"))
		if err != nil {
			t.Fatal(err)
		}
		want := data[:bytes.LastIndexByte(data, '\n')+1]
		if !bytes.Equal(got, want) {
			t.Fatalf("finished file %q, want the whole lines %q", got, want)
		}
		// The recovered period is finished: the next round opens a new file
		// rather than appending to it.
		at := time.Date(2026, 11, 23, 8, 30, 0, 0, time.UTC)
		if err := s.Write(at, []Row{{Time: at, UUID: "GPU-1"}}); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "nvml-h-20261123T0800Z.csv")); !bytes.Equal(b, want) {
			t.Fatalf("a finished file was appended to: %q", b)
		}
	})
}
