package ingest

import (
	"bytes"
	"fmt"
	"io"
	"testing"
)

// BenchmarkCSVReader reads a FOCUS export (every line quoted, seven in ten
// with "" in their tags) and an nvidia-smi log (no quote) with csvReader,
// and with encoding/csv alone (refCSVReader) for scale: the reader's own
// cost, without the parsing behind it.
func BenchmarkCSVReader(b *testing.B) {
	var smi bytes.Buffer
	smi.WriteString("timestamp, name, pci.bus_id, index, uuid, utilization.gpu [%], utilization.memory [%], memory.total [MiB], memory.used [MiB], power.draw [W]\n")
	for i := 0; smi.Len() < 16<<20; i++ {
		fmt.Fprintf(&smi, "2026/11/02 %02d:%02d:%02d.000, NVIDIA H100 80GB HBM3, 00000000:%02X:00.0, %d, GPU-%08d, %d %%, 11 %%, 81559 MiB, 19818 MiB, 631.95 W\n",
			i/3600%24, i/60%60, i%60, i%8, i%8, i%8, i%101)
	}
	inputs := []struct {
		name string
		in   []byte
	}{
		{"focus", benchInput(b, "focus_sample.csv", 16<<20)},
		{"nvidia-smi", smi.Bytes()},
	}
	readers := []struct {
		name string
		open func(io.Reader) func([]string) ([]string, int, *ParseError, error)
	}{
		{"csvReader", func(r io.Reader) func([]string) ([]string, int, *ParseError, error) {
			return newCSVReader(r, "bench.csv").next
		}},
		{"encoding-csv", func(r io.Reader) func([]string) ([]string, int, *ParseError, error) {
			return newRefCSVReader(r, "bench.csv").next
		}},
	}
	for _, in := range inputs {
		for _, rd := range readers {
			b.Run(in.name+"/"+rd.name, func(b *testing.B) {
				b.SetBytes(int64(len(in.in)))
				for b.Loop() {
					next := rd.open(bytes.NewReader(in.in))
					for {
						_, _, rowErr, err := next(nil)
						if err == io.EOF {
							break
						}
						if err != nil || rowErr != nil {
							b.Fatal(err, rowErr)
						}
					}
				}
			})
		}
	}
}
