package ingest

import (
	"bufio"
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// loggerFields is the common logger line's --query-gpu list (issue 13 item 2):
// nvidia-smi --query-gpu=<this> --format=csv,noheader[,nounits] -l 30.
const loggerFields = "timestamp,name,pci.bus_id,index,uuid,utilization.gpu,memory.total,memory.used,power.draw"

// noUnits is what --format=csv,noheader,nounits writes for a log written
// with units: nvidia-smi drops the space and the unit after each number.
func noUnits(s string) string {
	return regexp.MustCompile(`(?m)(\d) (%|MiB|W|MHz)(,|$)`).ReplaceAllString(s, "$1$3")
}

// smiWant is one expected sample, typed from the row of the test file.
type smiWant struct {
	row         int // 0-based in the file
	uuid        string
	index       int
	util        float64
	used, total float64
	power       float64
	at          string
}

func checkSMISamples(t *testing.T, sink *recSink, n int, want ...smiWant) {
	t.Helper()
	if len(sink.samples) != n {
		t.Fatalf("%d samples, want %d", len(sink.samples), n)
	}
	for _, w := range want {
		s := sink.samples[w.row]
		at, _ := time.Parse("2006/01/02 15:04:05.000", w.at)
		if s.UUID != w.uuid || s.Index != w.index || s.Model != "H100" || !s.Time.Equal(at) ||
			s.Util == nil || *s.Util != w.util || s.MemUsed == nil || *s.MemUsed != w.used ||
			s.MemTotal == nil || *s.MemTotal != w.total || s.PowerWatt == nil || *s.PowerWatt != w.power {
			t.Errorf("row %d: %+v util %v used %v total %v power %v; want %+v", w.row, *s, deref(s.Util), deref(s.MemUsed),
				deref(s.MemTotal), deref(s.PowerWatt), w)
		}
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// The logger line's 9 fields, with and without units, read by the list given
// (--fields) and by detection from the values. The expectations are the
// first and fourth rows of smi_logger_h100x2.csv, typed from the file.
func TestSMIFieldsLoggerLine(t *testing.T) {
	units := string(readFile(t, testdata("smi_logger_h100x2.csv")))
	fields, err := ParseSMIFields(loggerFields)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		log    string
		fields []string
		format string
	}{
		{"units, --fields", units, fields, ""},
		{"nounits, --fields", noUnits(units), fields, ""},
		{"units, detected", units, nil, FormatNvidiaSMI},
		{"nounits, detected", noUnits(units), nil, FormatNvidiaSMI},
	} {
		t.Run(c.name, func(t *testing.T) {
			sink := &recSink{}
			sum, err := Parse(t.Context(), strings.NewReader(c.log), Options{Name: "gpu-a.log", Format: c.format, SMIFields: c.fields}, sink)
			if err != nil {
				t.Fatal(err)
			}
			if sum.Format != FormatNvidiaSMI || len(sum.Rejected) != 0 {
				t.Fatalf("format %q, rejected %v", sum.Format, sum.Rejected)
			}
			checkSMISamples(t, sink, 6,
				smiWant{0, "GPU-6d3f8a2e-0000-0000-0000-000000000000", 0, 0, 0, 81559, 69.85, "2026/07/14 08:12:38.696"},
				smiWant{3, "GPU-9b1c47d0-0000-0000-0000-000000000000", 1, 37, 11125, 81559, 433.78, "2026/07/14 08:13:08.701"})
			if sink.samples[3].Line != 4 {
				t.Errorf("line %d, want 4", sink.samples[3].Line)
			}
		})
	}
}

// extraRows is the logger line with temperature.gpu and clocks.sm, which
// finops does not read, between the fields it does, named by aliases.
const extraFields = "timestamp,gpu_name,gpu_bus_id,index,gpu_uuid,temperature.gpu,utilization.gpu,clocks.sm,memory.total,memory.used,power.draw"

const extraRows = `2026/07/14 08:12:38.696, NVIDIA H100 80GB HBM3, 00000000:00:09.0, 0, GPU-6d3f8a2e-0000-0000-0000-000000000000, 31, 0 %, 345 MHz, 81559 MiB, 0 MiB, 69.85 W
2026/07/14 08:12:38.696, NVIDIA H100 80GB HBM3, 00000000:00:0A.0, 1, GPU-9b1c47d0-0000-0000-0000-000000000000, 33, 0 %, 345 MHz, 81559 MiB, 59 MiB, 71.15 W
2026/07/14 08:13:08.701, NVIDIA H100 80GB HBM3, 00000000:00:09.0, 0, GPU-6d3f8a2e-0000-0000-0000-000000000000, 58, 100 %, 1980 MHz, 81559 MiB, 19818 MiB, 631.95 W
2026/07/14 08:13:08.701, NVIDIA H100 80GB HBM3, 00000000:00:0A.0, 1, GPU-9b1c47d0-0000-0000-0000-000000000000, 47, 37 %, 1755 MHz, 81559 MiB, 11125 MiB, 433.78 W
`

// Fields finops does not read (temperature.gpu, clocks.sm) are skipped by
// the list; the values of the fields it reads are those of the rows above.
// Detection refuses the same rows: temperature is whole numbers it cannot
// place, and without units clocks.sm could be memory.used.
func TestSMIFieldsExtraIgnored(t *testing.T) {
	fields, err := ParseSMIFields(extraFields)
	if err != nil {
		t.Fatal(err)
	}
	if fields[1] != "name" || fields[4] != "uuid" || fields[7] != "clocks.current.sm" {
		t.Errorf("aliases not canonical: %v", fields)
	}
	for _, c := range []struct{ log, why string }{
		{extraRows, "column 6 holds whole numbers (31–58)"},                 // temperature: index, utilization?
		{noUnits(extraRows), "columns 8 and 10 both look like memory.used"}, // clocks.sm in MHz, memory.used in MiB
	} {
		log := c.log
		sink := &recSink{}
		if _, err := Parse(t.Context(), strings.NewReader(log), Options{Name: "gpu-a.log", SMIFields: fields}, sink); err != nil {
			t.Fatal(err)
		}
		checkSMISamples(t, sink, 4,
			smiWant{2, "GPU-6d3f8a2e-0000-0000-0000-000000000000", 0, 100, 19818, 81559, 631.95, "2026/07/14 08:13:08.701"},
			smiWant{3, "GPU-9b1c47d0-0000-0000-0000-000000000000", 1, 37, 11125, 81559, 433.78, "2026/07/14 08:13:08.701"})
		_, err := Parse(t.Context(), strings.NewReader(log), Options{Name: "gpu-a.log", Format: FormatNvidiaSMI}, &countSink{})
		wantErrParts(t, err, "gpu-a.log:1", c.why, "--fields", "fields:")
	}
}

// Detection names the fields it reads from the values alone (columns it does
// not read get no name); each shape's list is what nvidia-smi was asked for,
// written out by hand.
func TestSMIFieldsDetect(t *testing.T) {
	logger := string(readFile(t, testdata("smi_logger_h100x2.csv")))
	def := string(readFile(t, testdata("smi_noheader.csv")))
	cases := []struct {
		name, log string
		want      []string
	}{
		{"logger line with units", logger, []string{"timestamp", "name", "pci.bus_id", "index", "uuid", "utilization.gpu", "memory.total", "memory.used", "power.draw"}},
		{"logger line nounits", noUnits(logger), []string{"timestamp", "name", "pci.bus_id", "index", "uuid", "utilization.gpu", "memory.total", "memory.used", "power.draw"}},
		{"finops order nounits", def, defaultSMIColumns()},
		{"uuid, used before total, units",
			"2026/07/14 08:12:38.696, GPU-6d3f8a2e, 0 %, 0 MiB, 81559 MiB, 69.85 W\n2026/07/14 08:13:08.701, GPU-6d3f8a2e, 100 %, 19818 MiB, 81559 MiB, 631.95 W\n",
			[]string{"timestamp", "uuid", "utilization.gpu", "memory.used", "memory.total", "power.draw"}},
		{"MIG uuid, power and utilization only, nounits, driver version skipped",
			"2026/07/14 09:00:27.792, 590.48.01, MIG-4f0c2d8e, 12, 71.15\n2026/07/14 09:00:44.579, 590.48.01, MIG-4f0c2d8e, 88, 433.78\n",
			[]string{"timestamp", "", "uuid", "utilization.gpu", "power.draw"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, why := detectSMIFields(records(t, c.log))
			if why != "" || strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Errorf("got %q (%s), want %q", got, why, c.want)
			}
		})
	}
}

func records(t *testing.T, log string) [][]string {
	t.Helper()
	var out [][]string
	sc := bufio.NewScanner(strings.NewReader(log))
	for sc.Scan() {
		rec := strings.Split(sc.Text(), ",")
		for i := range rec {
			rec[i] = strings.TrimSpace(rec[i])
		}
		out = append(out, rec)
	}
	return out
}

// Shapes whose values two fields could hold are refused, naming the columns
// and the fix; the file is not read.
func TestSMIFieldsAmbiguous(t *testing.T) {
	cases := []struct{ name, log, why string }{
		// utilization.gpu and utilization.memory in 6 fields, not the finops 10.
		{"two percentages", "2026/07/14 08:13:08.701, GPU-6d3f8a2e, 100 %, 11 %, 19818 MiB, 631.95 W\n", "columns 3 and 4 both look like utilization.gpu"},
		// memory.used alone: used or total?
		{"one MiB column", "2026/07/14 08:13:08.701, GPU-6d3f8a2e, 100 %, 19818 MiB\n", "1 columns hold MiB"},
		// nounits, idle: index 0, utilization 0, memory.used 0 are alike.
		{"idle nounits", "2026/07/14 08:12:38.696, 0, GPU-6d3f8a2e, 0, 81559, 0, 69.85\n2026/07/14 08:13:08.701, 0, GPU-6d3f8a2e, 0, 81559, 0, 69.90\n", "both look like index"},
		// nounits memory.total and memory.free: both one value per GPU above 1024.
		{"two totals nounits", "2026/07/14 08:12:38.696, GPU-6d3f8a2e, 81559, 81000, 69.85\n", "columns 3 and 4 both look like memory.total"},
		// power.draw and power.limit nounits.
		{"two decimals", "2026/07/14 08:12:38.696, GPU-6d3f8a2e, 69.85, 700.00\n", "columns 3 and 4 both look like power.draw"},
		{"no timestamp", "NVIDIA H100 80GB HBM3, GPU-6d3f8a2e, 12 %\n", "no column holds a timestamp"},
		{"no uuid and no index", "2026/07/14 08:12:38.696, NVIDIA H100 80GB HBM3, 12 %\n", "no column holds a GPU uuid"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sink := &recSink{}
			_, err := Parse(t.Context(), strings.NewReader(c.log), Options{Name: "gpu-a.log", Format: FormatNvidiaSMI}, sink)
			wantErrParts(t, err, "gpu-a.log:1", c.why, "--fields timestamp,", "fields: in utilization.nvidia_smi[]")
			if len(sink.samples) != 0 {
				t.Errorf("%d samples delivered", len(sink.samples))
			}
		})
	}
}

func TestParseSMIFields(t *testing.T) {
	got, err := ParseSMIFields(" timestamp, gpu_name ,GPU_UUID,utilization.gpu,clocks.sm,enforced.power.limit ")
	if err != nil || strings.Join(got, ",") != "timestamp,name,uuid,utilization.gpu,clocks.current.sm,enforced.power.limit" {
		t.Errorf("got %v, %v", got, err)
	}
	for _, c := range []struct{ list, want string }{
		{"timestamp,uuid,gpu_util", `"gpu_util" is not an nvidia-smi --query-gpu field`}, // --query-accounted-apps has it, --query-gpu not
		{"timestamp,uuid,utilisation.gpu", `"utilisation.gpu" is not an nvidia-smi`},
		{"timestamp,uuid,,power.draw", "an empty field"},
		{"timestamp,uuid,gpu_uuid", `field "gpu_uuid" is given twice`},
		{"name,uuid,utilization.gpu", "has no timestamp"},
		{"timestamp,name,utilization.gpu", "neither uuid, index nor pci.bus_id"},
	} {
		if _, err := ParseSMIFields(c.list); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.list, err, c.want)
		}
	}
}

// A header says its own fields: a list given as well must match it.
func TestSMIFieldsWithHeader(t *testing.T) {
	head := "timestamp, name, pci.bus_id, index, uuid, utilization.gpu [%], memory.total [MiB], memory.used [MiB], power.draw [W]\n"
	rows := string(readFile(t, testdata("smi_logger_h100x2.csv")))
	same, _ := ParseSMIFields(strings.ReplaceAll(loggerFields, "uuid", "gpu_uuid"))
	sink := &recSink{}
	if _, err := Parse(t.Context(), strings.NewReader(head+rows), Options{Name: "gpu-a.log", SMIFields: same}, sink); err != nil || len(sink.samples) != 6 {
		t.Fatalf("matching list: %v, %d samples", err, len(sink.samples))
	}
	other, _ := ParseSMIFields("timestamp,uuid,utilization.gpu")
	_, err := Parse(t.Context(), strings.NewReader(head+rows), Options{Name: "gpu-a.log", SMIFields: other}, &countSink{})
	wantErrParts(t, err, "gpu-a.log:1", "the header lists timestamp,name,pci.bus_id", "the fields given are timestamp,uuid,utilization.gpu", "drop --fields")
}

// Every field and alias of --help-query-gpu in the three captures is known
// under the name the capture lists first, and every known name is in one.
func TestSMIFieldsMatchCaptures(t *testing.T) {
	line := regexp.MustCompile(`^"([A-Za-z0-9_.]+)"((?: or "[A-Za-z0-9_.]+")*)$`)
	alias := regexp.MustCompile(`"([A-Za-z0-9_.]+)"`)
	seen := map[string]bool{}
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "telemetry", "linux-*.txt"))
	if len(files) != 3 {
		t.Fatalf("%d captures", len(files))
	}
	for _, f := range files {
		_, help, _ := bytes.Cut(readFile(t, f), []byte("# $ nvidia-smi --help-query-gpu\n"))
		help, _, _ = bytes.Cut(help, []byte("# $ nvidia-smi --help-query-compute-apps"))
		for l := range strings.Lines(string(help)) {
			m := line.FindStringSubmatch(strings.TrimSpace(l))
			if m == nil {
				continue
			}
			for _, a := range alias.FindAllStringSubmatch(m[0], -1) {
				seen[strings.ToLower(a[1])] = true
				if got := canonicalSMIField(a[1]); got != m[1] {
					t.Errorf("%s: %q reads as %q, want %q", filepath.Base(f), a[1], got, m[1])
				}
			}
		}
	}
	for l := range strings.Lines(smiQueryFields) {
		for _, n := range strings.Fields(l) {
			if !seen[strings.ToLower(n)] {
				t.Errorf("%q is in smiQueryFields but in no capture's --help-query-gpu", n)
			}
		}
	}
}
