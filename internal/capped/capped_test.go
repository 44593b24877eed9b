package capped

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, n int) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Repeat("x", n)), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// The limit itself is allowed; one byte more is not.
	for _, tc := range []struct {
		name    string
		size    int
		tooBig  bool
		message string // hand-written: 1025 bytes over a 1 KiB limit
	}{
		{"empty", 0, false, ""},
		{"at", 1024, false, ""},
		{"over", 1025, true, "over.yaml is 1025 bytes, over the 1 KiB limit"},
	} {
		p := write(tc.name+".yaml", tc.size)
		b, err := ReadFile(p, 1024)
		var tl *TooLargeError
		if tc.tooBig {
			if !errors.As(err, &tl) || tl.Size != int64(tc.size) || !strings.Contains(err.Error(), tc.message) {
				t.Errorf("%s: err = %v, want a TooLargeError saying %q", tc.name, err, tc.message)
			}
			continue
		}
		if err != nil || len(b) != tc.size {
			t.Errorf("%s: %d bytes, %v", tc.name, len(b), err)
		}
	}
	if _, err := ReadFile(filepath.Join(dir, "missing"), 10); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err = %v, want one that is os.ErrNotExist", err)
	}
}

// A device that never ends and reports size 0 is read up to the limit only.
func TestReadFileEndless(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	_, err := ReadFile("/dev/zero", 1<<20)
	var tl *TooLargeError
	if !errors.As(err, &tl) || !strings.Contains(err.Error(), "/dev/zero is more than 1 MiB, over the 1 MiB limit") {
		t.Errorf("err = %v", err)
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{900: "900 bytes", 4 << 20: "4 MiB", 50 << 20: "50 MiB", 5<<20 + 1<<19: "5.5 MiB", 2048: "2 KiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
