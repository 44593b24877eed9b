package ingest

import (
	"strings"
	"time"

	"github.com/finops-oss/finops"
)

const taskTimeExample = "a time like 2026-11-02T09:00:00Z or 2026-11-02 09:00"

// tasksParser reads the finops tasks file:
// task,team,kind,resource,gpus,start,end,units,unit in any order
// (resource_id for resource).
type tasksParser struct {
	file string
	hdr  []string
	loc  *time.Location
	in   *interner

	task, team, kind, resource, gpus, start, end, units, unit int

	ambiguous int // runs read with a first-pass guess at a DST fall-back (resolveSpan)
}

func (p *tasksParser) finishSummary(s *Summary) { warnAmbiguous(s, p.file, p.ambiguous, p.loc, "runs") }

// newTasksParser returns the parser and the required columns the header lacks.
func newTasksParser(idx *columns, opt Options) (*tasksParser, []string) {
	hdr := idx.hdr
	if miss := missingTaskColumns(idx); len(miss) > 0 {
		return nil, miss
	}
	return &tasksParser{
		file: opt.Name, hdr: hdr, loc: opt.Location, in: newInterner(),
		task: idx.col("task"), team: idx.col("team"), kind: idx.col("kind"),
		resource: taskResourceColumn(idx), gpus: idx.col("gpus"), start: idx.col("start"),
		end: idx.col("end"), units: idx.col("units"), unit: idx.col("unit"),
	}, nil
}

// missingTaskColumns lists the required columns of a tasks file the header
// lacks: task, resource (or resource_id), start and end.
func missingTaskColumns(idx *columns) []string {
	miss := missing(idx, "task")
	if idx.col("resource", "resource_id") < 0 {
		miss = append(miss, "resource")
	}
	return append(miss, missing(idx, "start", "end")...)
}

// taskResourceColumn is the resource column: resource, or resource_id as
// the resources of the config and the billing lines call it. A header with
// both names one field twice and is refused (columns.duplicate).
func taskResourceColumn(idx *columns) int {
	i, j := idx.col("resource"), idx.col("resource_id")
	switch {
	case i < 0:
		return j
	case j >= 0:
		idx.noteDuplicate(min(i, j), max(i, j))
	}
	return i
}

func (p *tasksParser) err(line, col int, expected, value string) *ParseError {
	return fieldErr(p.file, line, columnName(p.hdr, col), expected, value)
}

func (p *tasksParser) parse(rec []string, line int) (parsed, *ParseError) {
	t := &finops.TaskRun{Line: line}
	if t.Task = cell(rec, p.task); t.Task == "" {
		return parsed{}, p.err(line, p.task, "a task name", "")
	}
	if t.Resource = cell(rec, p.resource); t.Resource == "" {
		return parsed{}, p.err(line, p.resource, "the billed resource id or name the task ran on", "")
	}
	t.Task, t.Resource = p.in.get(t.Task), p.in.get(t.Resource)
	t.Team = p.in.get(cell(rec, p.team))
	t.Kind = p.in.get(cell(rec, p.kind))
	t.Unit = p.in.get(cell(rec, p.unit))
	for _, g := range strings.FieldsFunc(cell(rec, p.gpus), func(r rune) bool {
		return r == ' ' || r == ';' || r == ',' || r == '\t'
	}) {
		t.GPUs = append(t.GPUs, p.in.get(g))
	}
	v := cell(rec, p.start)
	start, startLocal, err := parseTimeIn(v, p.loc)
	if err != nil {
		return parsed{}, p.err(line, p.start, timeExpect(err, taskTimeExample, p.loc), v)
	}
	v = cell(rec, p.end)
	end, endLocal, err := parseTimeIn(v, p.loc)
	if err != nil {
		return parsed{}, p.err(line, p.end, timeExpect(err, taskTimeExample, p.loc), v)
	}
	var ambiguous bool
	if t.Start, t.End, ambiguous = resolveSpan(start, end, startLocal, endLocal, p.loc); ambiguous {
		p.ambiguous++
	}
	if !t.End.After(t.Start) {
		return parsed{}, p.err(line, p.end, "an end after the start "+t.Start.Format(time.RFC3339), v)
	}
	if v := cell(rec, p.units); !isNullNumber(v) {
		// Zero or negative units would make a unit cost of 0 or below:
		// a task that produced nothing leaves the cell empty.
		d, err := parseDecimal(v)
		if err != nil || !d.IsPositive() {
			return parsed{}, p.err(line, p.units, "a positive number of units like 12 or 3.5 (or empty when the task produced none)", v)
		}
		t.Units = &d
	}
	return parsed{task: t}, nil
}
