package demo

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/config"
	"github.com/shopspring/decimal"
)

// now: Monday 2026-11-30 11:00 in Shanghai.
var testNow = time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)

func generate(t *testing.T, seed uint64) (*Fleet, string) {
	t.Helper()
	dir := t.TempDir()
	f, err := Generate(dir, testNow, seed)
	if err != nil {
		t.Fatal(err)
	}
	return f, dir
}

// shared is one generated fleet that the read-only tests share.
var shared struct {
	once  sync.Once
	fleet *Fleet
	dir   string
	err   error
}

func sharedFleet(t *testing.T) (*Fleet, string) {
	t.Helper()
	shared.once.Do(func() {
		shared.dir, shared.err = os.MkdirTemp("", "finops-demo-test-")
		if shared.err == nil {
			shared.fleet, shared.err = Generate(shared.dir, testNow, 7)
		}
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.fleet, shared.dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

func mustLoc(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Skipf("no zone database: %v", err)
	}
	return loc
}

func TestLastCompleteISOWeek(t *testing.T) {
	sh := mustLoc(t, "Asia/Shanghai")
	// Hand computation: 2026-01-01 is a Thursday, so ISO week 1 of 2026 starts
	// Monday 2025-12-29 and 2026 has 53 ISO weeks. 2026-11-23 is day 327 of
	// the year: 3 + 326 = 329 days after 2025-12-29 = 47 weeks exactly, so it
	// is the Monday of week 48. 2026-12-28 is 3 + 361 = 364 = 52 × 7 days after
	// it: the Monday of week 53.
	tests := []struct {
		name       string
		now        time.Time
		loc        *time.Location
		start, end time.Time
		label      string
	}{
		{"Monday 11:00 Shanghai", time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC), sh,
			time.Date(2026, 11, 23, 0, 0, 0, 0, sh), time.Date(2026, 11, 30, 0, 0, 0, 0, sh), "2026-W48"},
		{"Sunday 23:59 Shanghai: W48 not over yet", time.Date(2026, 11, 29, 15, 59, 0, 0, time.UTC), sh,
			time.Date(2026, 11, 16, 0, 0, 0, 0, sh), time.Date(2026, 11, 23, 0, 0, 0, 0, sh), "2026-W47"},
		{"Monday 00:00 Shanghai exactly: W48 just ended", time.Date(2026, 11, 29, 16, 0, 0, 0, time.UTC), sh,
			time.Date(2026, 11, 23, 0, 0, 0, 0, sh), time.Date(2026, 11, 30, 0, 0, 0, 0, sh), "2026-W48"},
		{"UTC zone: Sunday 20:00 UTC is still in W48 (Monday 04:00 in Shanghai)", time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC), time.UTC,
			time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC), "2026-W47"},
		{"year boundary: W53 of 2026", time.Date(2027, 1, 5, 10, 0, 0, 0, sh), sh,
			time.Date(2026, 12, 28, 0, 0, 0, 0, sh), time.Date(2027, 1, 4, 0, 0, 0, 0, sh), "2026-W53"},
		{"Wednesday mid-week", time.Date(2026, 11, 18, 12, 0, 0, 0, sh), sh,
			time.Date(2026, 11, 9, 0, 0, 0, 0, sh), time.Date(2026, 11, 16, 0, 0, 0, 0, sh), "2026-W46"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := LastCompleteISOWeek(tt.now, tt.loc)
			if !w.Start.Equal(tt.start) || !w.End.Equal(tt.end) || w.Label != tt.label {
				t.Errorf("got [%s, %s) %s, want [%s, %s) %s", w.Start, w.End, w.Label, tt.start, tt.end, tt.label)
			}
			if y, wk := w.Start.ISOWeek(); strconv.Itoa(y)+"-W"+twoDigits(wk) != tt.label {
				t.Errorf("time.ISOWeek says %d-W%d, want %s", y, wk, tt.label)
			}
			if w.Start.In(tt.loc).Weekday() != time.Monday {
				t.Errorf("week starts on %s", w.Start.Weekday())
			}
		})
	}
}

func twoDigits(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// hashes maps each file's path relative to dir to its sha256; finops.yaml has
// the (differing) absolute dir replaced first.
func hashes(t *testing.T, dir string, files []string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || strings.HasPrefix(rel, "..") {
			t.Fatalf("%s is not under %s", p, dir)
		}
		if rel == "finops.yaml" {
			b = bytes.ReplaceAll(b, []byte(dir), []byte("$DIR"))
		}
		out[rel] = sha256.Sum256(b)
	}
	return out
}

func TestDeterministic(t *testing.T) {
	f1, d1 := generate(t, 42)
	f2, d2 := generate(t, 42)
	h1, h2 := hashes(t, d1, f1.Files), hashes(t, d2, f2.Files)
	if len(h1) < 100 || !reflect.DeepEqual(h1, h2) {
		t.Fatalf("same seed, different files (%d vs %d files)", len(h1), len(h2))
	}
	f3, d3 := generate(t, 43)
	h3 := hashes(t, d3, f3.Files)
	if reflect.DeepEqual(h1, h3) {
		t.Error("seeds 42 and 43 gave identical files")
	}
	// Every file on disk is listed, and nothing else is there.
	var onDisk []string
	filepath.WalkDir(d1, func(p string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			onDisk = append(onDisk, p)
		}
		return err
	})
	if len(onDisk) != len(f1.Files) {
		t.Errorf("%d files on disk, %d listed", len(onDisk), len(f1.Files))
	}
}

func TestRegenerateReplacesOldLogs(t *testing.T) {
	dir := t.TempDir()
	if _, err := Generate(dir, testNow, 1); err != nil {
		t.Fatal(err)
	}
	f, err := Generate(dir, testNow.AddDate(0, 0, 7), 1)
	if err != nil {
		t.Fatal(err)
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "telemetry", HostA100, "*.csv"))
	if len(logs) != HistoryDays {
		t.Errorf("%d A100 log files after regenerating, want %d", len(logs), HistoryDays)
	}
	if f.Week.Label != "2026-W49" {
		t.Errorf("week %s", f.Week.Label)
	}
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	r := csv.NewReader(fh)
	r.TrimLeadingSpace = true
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return recs
}

func TestA100RentalCoversHistoryOnce(t *testing.T) {
	f, dir := sharedFleet(t)
	loc := mustLoc(t, Zone)
	recs := readCSV(t, filepath.Join(dir, "billing", "autodl.csv"))
	if !reflect.DeepEqual(recs[0], AutoDLHeader) {
		t.Fatalf("header %q", recs[0])
	}
	hs, he := f.History.Start, f.History.End
	if he.Sub(hs) != HistoryDays*24*time.Hour || !he.Equal(f.Week.End) {
		t.Fatalf("history [%s, %s)", hs, he)
	}
	minutes := int(he.Sub(hs) / time.Minute)
	cover := make([]int, minutes)
	rows := 0
	for _, rec := range recs[1:] {
		if rec[0] != ResA100 {
			continue
		}
		rows++
		if rec[2] != "A100-SXM4-80GB * 2" || rec[3] != "包月" || rec[6] != "14000.00" || rec[7] != "17500.00" {
			t.Errorf("row %q", rec)
		}
		s, err1 := time.ParseInLocation(autodlTime, rec[4], loc)
		e, err2 := time.ParseInLocation(autodlTime, rec[5], loc)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if e.Sub(s) != 30*24*time.Hour {
			t.Errorf("period [%s, %s) is not 30 days", s, e)
		}
		for m := range minutes {
			at := hs.Add(time.Duration(m) * time.Minute)
			if !at.Before(s) && at.Before(e) {
				cover[m]++
			}
		}
	}
	if rows < 2 {
		t.Errorf("%d rental rows, want the history to span at least two", rows)
	}
	for m, n := range cover {
		if n != 1 {
			t.Fatalf("minute %s covered %d times", hs.Add(time.Duration(m)*time.Minute), n)
		}
	}
}

func TestHourlyAutoDLRows(t *testing.T) {
	_, dir := sharedFleet(t)
	recs := readCSV(t, filepath.Join(dir, "billing", "autodl.csv"))
	n := map[string]int{}
	for _, rec := range recs[1:] {
		n[rec[0]]++
		switch rec[0] {
		case Res4090:
			if !strings.HasSuffix(rec[4], " 09:00:00") || !strings.HasSuffix(rec[5], " 19:00:00") || rec[6] != "20.00" || rec[3] != "按量" {
				t.Errorf("row %q", rec)
			}
		case ResL40S:
			if !strings.HasSuffix(rec[4], " 08:00:00") || !strings.HasSuffix(rec[5], " 20:00:00") || rec[6] != "54.00" {
				t.Errorf("row %q", rec)
			}
		}
	}
	if n[Res4090] != HistoryDays || n[ResL40S] != HistoryDays {
		t.Errorf("rows per resource: %v", n)
	}
}

func TestReportWeekendIdle(t *testing.T) {
	f, dir := sharedFleet(t)
	loc := mustLoc(t, Zone)
	from := f.Week.Start.AddDate(0, 0, 4).Add(21 * time.Hour) // Friday 21:00
	to := f.Week.End                                          // Monday 00:00
	if from.Weekday() != time.Friday {
		t.Fatalf("%s is not a Friday", from)
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "telemetry", HostA100, "nvidia-smi-*.csv"))
	if len(logs) != HistoryDays {
		t.Fatalf("%d log files, want %d", len(logs), HistoryDays)
	}
	var weekend, busy int
	for _, p := range logs {
		recs := readCSV(t, p)
		if strings.Join(recs[0], ", ") != NvidiaSMIHeader {
			t.Fatalf("%s: header %q", p, recs[0])
		}
		for _, rec := range recs[1:] {
			ts, err := time.ParseInLocation("2006/01/02 15:04:05.000", rec[0], loc)
			if err != nil {
				t.Fatal(err)
			}
			u, err := strconv.Atoi(strings.TrimSuffix(rec[5], " %"))
			if err != nil {
				t.Fatalf("%s: %q", p, rec[5])
			}
			if !ts.Before(from) && ts.Before(to) {
				weekend++
				if u >= 10 {
					t.Errorf("%s GPU %s at %s: utilization %d%% on the idle weekend", p, rec[3], rec[0], u)
				}
			}
			// The report week's run: Wednesday 09:00 to Friday 21:00.
			if ts.After(f.Week.Start.AddDate(0, 0, 2).Add(10*time.Hour)) && ts.Before(from) && u >= 85 {
				busy++
			}
		}
	}
	if want := 51 * 60 * 2; weekend != want {
		t.Errorf("%d weekend samples, want %d (51 h × 60 × 2 GPUs)", weekend, want)
	}
	if busy < 2*59*60*8/10 {
		t.Errorf("only %d busy samples during the report week's run", busy)
	}
}

func TestSampleRows(t *testing.T) {
	_, dir := sharedFleet(t)
	day := "20261119" // a Thursday inside the history
	for _, h := range []struct {
		host  string
		rows  int
		first string
	}{
		{HostA100, 2 * 1440, "2026/11/19 00:00:1"},
		{Host4090, 600, "2026/11/19 09:00:4"},
		{HostL40S, 720, "2026/11/19 08:00:2"},
		{HostA10G, 1440, "2026/11/19 00:00:0"},
	} {
		recs := readCSV(t, filepath.Join(dir, "telemetry", h.host, "nvidia-smi-"+day+".csv"))
		if len(recs)-1 != h.rows {
			t.Errorf("%s: %d rows, want %d", h.host, len(recs)-1, h.rows)
		}
		if !strings.HasPrefix(recs[1][0], h.first) {
			t.Errorf("%s: first timestamp %q, want prefix %q", h.host, recs[1][0], h.first)
		}
		for _, rec := range recs[1:] {
			if len(rec) != 10 || !strings.HasSuffix(rec[7], " MiB") || !strings.HasSuffix(rec[9], " W") {
				t.Fatalf("%s: row %q", h.host, rec)
			}
		}
	}
}

func TestFOCUS(t *testing.T) {
	f, dir := sharedFleet(t)
	recs := readCSV(t, filepath.Join(dir, "billing", "aws-focus.csv"))
	if !reflect.DeepEqual(recs[0], FOCUSHeader) || len(recs[0]) != 45 {
		t.Fatalf("header %q", recs[0])
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	var gpuRows int
	cats := map[string]int{}
	total := decimal.Zero
	for _, rec := range recs[1:] {
		if len(rec) != len(FOCUSHeader) {
			t.Fatalf("row has %d columns", len(rec))
		}
		cats[rec[col["ChargeCategory"]]]++
		c := decimal.RequireFromString(rec[col["EffectiveCost"]])
		total = total.Add(c)
		s, err := time.Parse(focusTime, rec[col["ChargePeriodStart"]])
		if err != nil {
			t.Fatal(err)
		}
		if s.Before(f.History.Start) || !s.Before(f.History.End) {
			t.Errorf("charge starts %s outside the history", s)
		}
		if rec[col["x_InstanceType"]] == "g5.xlarge" {
			gpuRows++
			if rec[col["ResourceId"]] != ResA10G || !c.Equal(g5Hourly) || rec[col["Tags"]] != awsTags {
				t.Errorf("GPU row %q", rec)
			}
		}
	}
	if gpuRows != HistoryDays*24 || cats["Tax"] != 1 || cats["Credit"] != 1 {
		t.Errorf("%d GPU rows, categories %v", gpuRows, cats)
	}
	// 672 GPU hours × 1.006 = 676.03, S3 ≈ 27 × 0.80 = 21.6, EBS 27 × 0.5333 = 14.4,
	// tax 12.35, credit −4.00: about 720.
	if total.LessThan(decimal.NewFromInt(700)) || total.GreaterThan(decimal.NewFromInt(740)) {
		t.Errorf("total %s USD", total)
	}
	// The file's NULLs are bare, as in the FOCUS sample data.
	b, _ := os.ReadFile(filepath.Join(dir, "billing", "aws-focus.csv"))
	if bytes.Contains(b, []byte(`"NULL"`)) || !bytes.Contains(b, []byte(",NULL,")) {
		t.Error("NULL cells must be bare")
	}
}

func TestTasks(t *testing.T) {
	f, dir := sharedFleet(t)
	recs := readCSV(t, filepath.Join(dir, "tasks.csv"))
	if !reflect.DeepEqual(recs[0], TasksHeader) {
		t.Fatalf("header %q", recs[0])
	}
	n := map[string]int{}
	for _, rec := range recs[1:] {
		n[rec[0]]++
		if rec[4] != "" {
			t.Errorf("gpus %q", rec[4])
		}
	}
	if n["lora-qwen2.5-7b"] != 4 || n["cv-detector-train"] != 28 || n["batch-embeddings"] != 28 || n["chat-api"] != 29 {
		t.Errorf("rows per task %v", n)
	}
	want := []string{"lora-qwen2.5-7b", "nlp", "fine-tune", ResA100, "",
		f.Week.Start.AddDate(0, 0, 2).Format("2006-01-02") + " 09:00",
		f.Week.Start.AddDate(0, 0, 4).Format("2006-01-02") + " 21:00", "1", "run"}
	found := false
	for _, rec := range recs[1:] {
		found = found || reflect.DeepEqual(rec, want)
	}
	if !found {
		t.Errorf("no report-week LoRA row %q", want)
	}
}

func TestConfigYAMLRoundTrip(t *testing.T) {
	f, dir := sharedFleet(t)
	p := filepath.Join(dir, "finops.yaml")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	c, err := config.Parse(p, b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c, f.Config) {
		t.Errorf("finops.yaml parses to\n%+v\nwant\n%+v", c, f.Config)
	}
	if err := f.Config.Validate(); err != nil {
		t.Error(err)
	}
	for _, s := range f.Config.Telemetry.NvidiaSMI {
		if m, _ := filepath.Glob(s.Path); len(m) < HistoryDays {
			t.Errorf("%s matches %d files", s.Path, len(m))
		}
	}
}
