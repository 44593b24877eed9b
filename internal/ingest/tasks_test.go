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

// A tasks file may call its resource column resource_id, as the config's
// resources and the rental mappings do; both names at once is one field
// twice; a header a configured mapping reads stays a bill.
func TestTasksResourceID(t *testing.T) {
	bill := ColumnMapping{Name: "mine", Currency: "USD", Columns: map[string]string{
		"resource_id": "resource_id", "start": "start", "end": "end", "cost": "cost", "task": "task"}}
	for _, c := range []struct {
		name, csv string
		mappings  []ColumnMapping
		format    string   // when it parses
		resource  string   // of the one task
		want      []string // parts of the refusal
	}{
		{
			name: "resource_id", csv: "task,resource_id,start,end,gpus\nllama-ft,i-0abc,2026-11-02T01:00:00Z,2026-11-02T05:00:00Z,GPU-a\n",
			format: FormatTasks, resource: "i-0abc",
		},
		{
			name: "Resource_ID, any case", csv: "Task,Resource_ID,Start,End\nembed,autodl-b2,2026-11-03 08:00,2026-11-03 20:00\n",
			format: FormatTasks, resource: "autodl-b2",
		},
		{
			name: "resource and resource_id", csv: "task,resource,resource_id,start,end\nt,a,b,2026-11-03 08:00,2026-11-03 20:00\n",
			want: []string{"tasks.csv:1", `columns 2 "resource" and 3 "resource_id" name the same field`},
		},
		{
			name: "a bill with a task column, read by a configured mapping", mappings: []ColumnMapping{bill},
			csv:    "resource_id,start,end,cost,task\nvm-1,2026-11-03 08:00,2026-11-03 20:00,12.00,train\n",
			format: FormatRental,
		},
		{
			name: "no resource at all", csv: "task,start,end\nt,2026-11-03 08:00,2026-11-03 20:00\n",
			want: []string{"tasks.csv:1", "unrecognised header", "task, resource or resource_id, start, end"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			sink := &recSink{}
			sum, err := Parse(t.Context(), strings.NewReader(c.csv), Options{Name: "tasks.csv", Mappings: c.mappings}, sink)
			if c.want != nil {
				wantErrParts(t, err, c.want...)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if sum.Format != c.format || sum.Rows != 1 {
				t.Fatalf("format %q rows %d, want %s and 1", sum.Format, sum.Rows, c.format)
			}
			if c.format == FormatTasks && sink.tasks[0].Resource != c.resource {
				t.Errorf("resource %q, want %q", sink.tasks[0].Resource, c.resource)
			}
		})
	}
}
