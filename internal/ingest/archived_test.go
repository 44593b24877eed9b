package ingest

import (
	"os"
	"path/filepath"
	"testing"
)

func TestArchived(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name    string
		content string
		want    bool
	}{
		{"gpu.log", "timestamp, name\n", false},
		{"gpu.log.1", "\x1f\x8b\x08\x00rest", true}, // gzip without .gz
		{"gpu.log.2", "PK\x03\x04rest", true},
		{"gpu.log.3", "\x28\xb5\x2f\xfdrest", true}, // zstd
		{"gpu.log.4", "BZh91AY", true},
		{"gpu.log.5", "\xfd7zXZ\x00", true},
		{"gpu.log.gz", "not even gzip", true}, // the name decides first
		{"empty.log", "", false},
		{"short.log", "\x1f", false},
		{"PK.log", "PK is a prefix of text too", false},
	} {
		p := filepath.Join(dir, tt.name)
		if err := os.WriteFile(p, []byte(tt.content), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := Archived(p); err != nil || got != tt.want {
			t.Errorf("Archived(%s) = %v, %v; want %v", tt.name, got, err, tt.want)
		}
	}
	if _, err := Archived(filepath.Join(dir, "missing.log")); err == nil {
		t.Error("Archived of a missing file: no error")
	}
}
