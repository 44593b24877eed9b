package ingest

import (
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func TestTasks(t *testing.T) {
	sh, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	sum, sink := mustParse(t, "tasks_sample.csv", Options{Location: sh})
	if sum.Format != FormatTasks || sum.Kind != KindTasks || sum.Rows != 2 {
		t.Fatalf("format %q kind %q rows %d", sum.Format, sum.Kind, sum.Rows)
	}
	a, b := sink.tasks[0], sink.tasks[1]
	if a.Line != 2 || a.Task != "llama-ft" || a.Team != "ml" || a.Kind != "fine-tune" || a.Resource != "i-0abc" ||
		strings.Join(a.GPUs, "|") != "GPU-aaaa|GPU-bbbb" || a.Unit != "run" || !a.Units.Equal(decimal.NewFromInt(1)) ||
		!a.Start.Equal(time.Date(2026, 11, 2, 1, 0, 0, 0, time.UTC)) || !a.End.Equal(time.Date(2026, 11, 2, 5, 0, 0, 0, time.UTC)) {
		t.Errorf("row 1: %+v", *a)
	}
	// No zone in the file: Shanghai time, 08:00 → 00:00 UTC, 20:00:30 → 12:00:30 UTC.
	if b.Line != 3 || len(b.GPUs) != 0 || b.Unit != "1k requests" || !b.Units.Equal(decimal.NewFromInt(1200)) ||
		!b.Start.Equal(time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)) || !b.End.Equal(time.Date(2026, 11, 3, 12, 0, 30, 0, time.UTC)) {
		t.Errorf("row 2: %+v", *b)
	}
	if !sum.PeriodStart.Equal(a.Start) || !sum.PeriodEnd.Equal(b.End) {
		t.Errorf("period %v – %v", sum.PeriodStart, sum.PeriodEnd)
	}
}

func TestTasksRowErrors(t *testing.T) {
	head := "resource,task,start,end,units\n"
	cases := []struct{ name, row, field, found string }{
		{"end before start", "r1,t1,2026-11-02 10:00,2026-11-02 09:00,1", "end", "2026-11-02 09:00"},
		{"bad units", "r1,t1,2026-11-02 09:00,2026-11-02 10:00,many", "units", "many"},
		// Units of 0 or below would show a unit cost of 0 (or negative).
		{"zero units", "r1,t1,2026-11-02 09:00,2026-11-02 10:00,0", "units", `"0"`},
		{"negative units", "r1,t1,2026-11-02 09:00,2026-11-02 10:00,-3.5", "units", "-3.5"},
		{"no task", "r1,,2026-11-02 09:00,2026-11-02 10:00,", "task", `""`},
		{"bad start", "r1,t1,yesterday,2026-11-02 10:00,", "start", "yesterday"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(t.Context(), strings.NewReader(head+c.row+"\n"), Options{Name: "tasks.csv"}, &countSink{})
			wantErrParts(t, err, "tasks.csv:2", c.field, c.found)
		})
	}
}
