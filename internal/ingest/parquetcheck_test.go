package ingest

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"runtime"
	"strings"
	"testing"
)

// TestParquetFooterClaims: a Parquet file whose trailer claims a footer of
// 4 GiB (found by FuzzParseParquet: the decoder allocated the claimed size
// before reading, 4 GB for a 7 KB file, and the fuzzing process died) is
// refused by its stated sizes, allocating nothing like them.
func TestParquetFooterClaims(t *testing.T) {
	whole, err := os.ReadFile(testdata("parquet/focus_double.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	claim := func(n uint32) []byte {
		b := bytes.Clone(whole)
		binary.LittleEndian.PutUint32(b[len(b)-8:], n)
		return b
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"4 GiB footer", claim(0xFF00_0000), "footer claims 4278190080 bytes"},
		{"footer longer than the file", claim(uint32(len(whole))), "footer claims"},
		{"no trailing magic", append(bytes.Clone(whole[:len(whole)-4]), "PAR2"...), "does not end in PAR1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			_, err := Parse(context.Background(), bytes.NewReader(tc.data), Options{Name: "x.parquet"}, &recSink{})
			runtime.ReadMemStats(&m1)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "x.parquet") {
				t.Errorf("err = %v, want a refusal naming x.parquet and %q", err, tc.want)
			}
			if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > 16<<20 {
				t.Errorf("allocated %d MB refusing it", alloc>>20)
			}
		})
	}
}
