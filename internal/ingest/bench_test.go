package ingest

import (
	"bytes"
	"fmt"
	"os"
	"testing"
	"time"
)

// benchInput repeats the rows of a testdata file until it holds about size bytes.
func benchInput(b *testing.B, name string, size int) []byte {
	b.Helper()
	raw := readFileB(b, testdata(name))
	nl := bytes.IndexByte(raw, '\n')
	header, rows := raw[:nl+1], raw[nl+1:]
	var buf bytes.Buffer
	buf.Write(header)
	for buf.Len() < size {
		buf.Write(rows)
	}
	return buf.Bytes()
}

func readFileB(b *testing.B, path string) []byte {
	b.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

func BenchmarkParseFOCUS(b *testing.B) {
	in := benchInput(b, "focus_sample.csv", 16<<20)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := Parse(b.Context(), bytes.NewReader(in), Options{Name: "bench.csv"}, &countSink{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseNvidiaSMI(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString("timestamp, name, pci.bus_id, index, uuid, utilization.gpu [%], utilization.memory [%], memory.total [MiB], memory.used [MiB], power.draw [W]\n")
	t0 := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 200000; i++ {
		g := i % 8
		fmt.Fprintf(&buf, "%s, NVIDIA H100 80GB HBM3, 00000000:%02X:00.0, %d, GPU-%08d, %d %%, 11 %%, 81559 MiB, 19818 MiB, 631.95 W\n",
			t0.Add(time.Duration(i/8)*15*time.Second).Format("2006/01/02 15:04:05.000"), g, g, g, i%101)
	}
	in := buf.Bytes()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := Parse(b.Context(), bytes.NewReader(in), Options{Name: "bench.log"}, &countSink{}); err != nil {
			b.Fatal(err)
		}
	}
}
