package ingest

import (
	"strings"
	"testing"
	"time"
)

// busLoggerFields is the logger line keyed by PCI bus: no index, no uuid
// (smi_logger_h100x2_busid.csv, the H100 logger log with those two columns
// dropped).
const busLoggerFields = "timestamp,name,pci.bus_id,utilization.gpu,memory.total,memory.used,power.draw"

// TestSMIKeyedByBusID: a log with neither uuid nor index keys each GPU by
// its host and PCI bus id — read by the list given (--fields), by detection
// from the values, with and without units. The expected values are rows 1
// and 4 of smi_logger_h100x2_busid.csv, typed from the file.
func TestSMIKeyedByBusID(t *testing.T) {
	units := string(readFile(t, testdata("smi_logger_h100x2_busid.csv")))
	fields, err := ParseSMIFields(busLoggerFields)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		log    string
		fields []string
	}{
		{"units, --fields", units, fields},
		{"nounits, --fields", noUnits(units), fields},
		{"units, detected", units, nil},
		{"nounits, detected", noUnits(units), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			sink := &recSink{}
			sum, err := Parse(t.Context(), strings.NewReader(c.log), Options{Name: "gpu-a.log", Host: "gpu-a", Format: FormatNvidiaSMI, SMIFields: c.fields}, sink)
			if err != nil {
				t.Fatal(err)
			}
			if len(sink.samples) != 6 || len(sum.Rejected) != 0 {
				t.Fatalf("%d samples, rejected %v; want 6", len(sink.samples), sum.Rejected)
			}
			for _, w := range []struct {
				row                      int
				key                      string
				util, used, total, power float64
				at                       string
			}{
				{0, "gpu-a/00000000:00:09.0", 0, 0, 81559, 69.85, "2026/07/14 08:12:38.696"},
				{3, "gpu-a/00000000:00:0A.0", 37, 11125, 81559, 433.78, "2026/07/14 08:13:08.701"},
			} {
				s := sink.samples[w.row]
				at, _ := time.Parse("2006/01/02 15:04:05.000", w.at)
				if s.GPUKey() != w.key || s.UUID != "" || s.Index != -1 || s.Model != "H100" || !s.Time.Equal(at) ||
					deref(s.Util) != w.util || deref(s.MemUsed) != w.used || deref(s.MemTotal) != w.total || deref(s.PowerWatt) != w.power {
					t.Errorf("row %d: %+v key %s util %v used %v total %v power %v; want %+v", w.row, *s, s.GPUKey(),
						deref(s.Util), deref(s.MemUsed), deref(s.MemTotal), deref(s.PowerWatt), w)
				}
			}
			// Two GPUs, three samples each.
			keys := map[string]int{}
			for _, s := range sink.samples {
				keys[s.GPUKey()]++
			}
			if len(keys) != 2 || keys["gpu-a/00000000:00:09.0"] != 3 {
				t.Errorf("GPU keys %v; want two GPUs of three samples", keys)
			}
		})
	}
}

// A row without uuid, index or bus id names the field to log.
func TestSMIBusIDMissing(t *testing.T) {
	fields, _ := ParseSMIFields(busLoggerFields)
	log := "2026/07/14 08:12:38.696, NVIDIA H100 80GB HBM3, [N/A], 0 %, 81559 MiB, 0 MiB, 69.85 W\n"
	_, err := Parse(t.Context(), strings.NewReader(log), Options{Name: "gpu-a.log", SMIFields: fields}, &countSink{})
	wantErrParts(t, err, "gpu-a.log:1", `"pci.bus_id"`, "uuid, index or pci.bus_id", "log uuid")
}

// TestSMIPowerColumns reads the real captures' rows with power.draw,
// power.draw.average and power.draw.instant (derived_query-gpu_power.csv:
// the --query-gpu rows of all ten captures, those columns projected; no
// uuid, no index, so the GPUs are keyed by bus id). Power is the average
// where the driver has one, else the instant reading: rows typed from the
// file.
func TestSMIPowerColumns(t *testing.T) {
	sink := &recSink{}
	sum, err := Parse(t.Context(), strings.NewReader(string(readFile(t, testdata("derived_query-gpu_power.csv")))),
		Options{Name: "power.csv", Host: "lab"}, sink)
	if err != nil {
		t.Fatal(err)
	}
	if len(sink.samples) != 20 || len(sum.Rejected) != 0 {
		t.Fatalf("%d samples, rejected %v; want 20", len(sink.samples), sum.Rejected)
	}
	for _, w := range []struct {
		row   int // 0-based data row
		power float64
		why   string
	}{
		{0, 39.32, "RTX 2080 SUPER: average [N/A], instant 39.32"},
		{6, 69.85, "H100 idle: average 69.85, not instant 69.62"},
		{7, 631.95, "H100 load: average 631.95, not instant 625.68"},
		{14, 144.97, "L40S: average 144.97, not instant 127.67"},
		{15, 110.23, "L40S: average 110.23, not instant 112.38"},
	} {
		if got := deref(sink.samples[w.row].PowerWatt); got != w.power {
			t.Errorf("row %d: power %v, want %v (%s)", w.row, got, w.power, w.why)
		}
	}
	if k := sink.samples[6].GPUKey(); k != "lab/00000000:00:09.0" {
		t.Errorf("H100 key %q", k)
	}
	// The order of preference does not follow the columns' order: instant
	// first in the header, then power.draw, then the average; and a row
	// with neither average nor instant takes power.draw.
	head := "timestamp, uuid, power.draw.instant [W], power.draw [W], power.draw.average [W]\n"
	rows := "2026/07/14 08:12:53.353, GPU-a, 625.68 W, 631.00 W, 631.95 W\n" +
		"2026/07/14 08:13:08.701, GPU-a, [N/A], 400.00 W, [N/A]\n" +
		"2026/07/14 08:13:38.705, GPU-a, 120.50 W, 119.00 W, [N/A]\n"
	sink = &recSink{}
	if _, err := Parse(t.Context(), strings.NewReader(head+rows), Options{Name: "p.csv", Format: FormatNvidiaSMI}, sink); err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{631.95, 400, 120.5} {
		if got := deref(sink.samples[i].PowerWatt); got != want {
			t.Errorf("row %d: power %v, want %v", i+1, got, want)
		}
	}
}
