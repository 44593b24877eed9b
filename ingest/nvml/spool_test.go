package nvml

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func f64(v float64) *float64 { return &v }

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
	rows := []Row{{Time: at, Index: 0, Name: "NVIDIA L4, rev 2", UUID: "GPU-1", Util: f64(50), PowerW: f64(70.126)}}
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
