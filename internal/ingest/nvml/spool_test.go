package nvml

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A crash leaves a .part file with half a line: the next start cuts the line
// and finishes the file; a restart within the same hour starts a new file.
func TestSpoolRecoversAfterCrash(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2026, 11, 23, 8, 30, 0, 0, time.UTC)
	part := filepath.Join(dir, "nvml-h-20261123T0800Z.csv.part")
	if err := os.WriteFile(part, []byte(Header+"\n2026-11-23T08:00:00.000Z, h, 0, X, GPU-1, 5, 1, 2, 3.00, 0\n2026-11-23T08:01"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(dir, "nvml-h-20261001T0000Z.csv")
	if err := os.WriteFile(old, []byte(Header+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(old, at.AddDate(0, 0, -60), at.AddDate(0, 0, -60))
	s, err := OpenSpool(Options{Dir: dir, Host: "h", Keep: 35 * 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(strings.TrimSuffix(part, ".part"))
	if !strings.HasSuffix(string(b), "3.00, 0\n") {
		t.Errorf("recovered file ends %q", b[len(b)-20:])
	}
	rows := []Row{{Time: at, Index: 0, Name: "NVIDIA L4, rev 2", UUID: "GPU-1", Util: new(50.0), PowerW: new(70.126)}}
	if err := s.Write(at, rows); err != nil {
		t.Fatal(err)
	}
	rows[0].Time = at.Add(time.Hour)
	if err := s.Write(at.Add(time.Hour), rows); err != nil { // rotates, prunes the 60-day-old file
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	want := "nvml-h-20261123T0800Z-1795422600.csv nvml-h-20261123T0800Z.csv nvml-h-20261123T0900Z.csv"
	if strings.Join(names, " ") != want {
		t.Errorf("files %v, want %s", names, want)
	}
	b, _ = os.ReadFile(filepath.Join(dir, "nvml-h-20261123T0900Z.csv"))
	if want := Header + "\n2026-11-23T09:30:00.000Z, h, 0, NVIDIA L4  rev 2, GPU-1, 50, [N/A], [N/A], 70.13, [N/A]\n"; string(b) != want {
		t.Errorf("file:\n%q\nwant\n%q", b, want)
	}
}

// TestFinishPartLongTail: the partial last line is longer than the block
// finishPart reads backwards (64 KiB), so the last newline is two blocks from
// the end; and a file with no newline at all is emptied.
func TestFinishPartLongTail(t *testing.T) {
	dir := t.TempDir()
	complete := strings.Repeat("2026/11/30 03:00:00.000, 0, GPU-a, 50 %\n", 2000) // 82,000 bytes
	for _, tt := range []struct{ name, body, want string }{
		{"long", complete + strings.Repeat("x", 100<<10), complete},
		{"none", strings.Repeat("y", 70<<10), ""},
		{"clean", complete, complete},
		{"empty", "", ""},
	} {
		p := filepath.Join(dir, tt.name+".csv.part")
		if err := os.WriteFile(p, []byte(tt.body), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := finishPart(p); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(strings.TrimSuffix(p, ".part"))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tt.want {
			t.Errorf("%s: %d bytes left, want %d", tt.name, len(got), len(tt.want))
		}
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s: the .part file is still there (%v)", tt.name, err)
		}
	}
}
