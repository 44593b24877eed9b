package demo

import (
	"bufio"
	"encoding/csv"
	"sort"
	"strconv"
	"time"

	"github.com/shopspring/decimal"
)

// TasksHeader is the header of tasks.csv.
var TasksHeader = []string{"task", "team", "kind", "resource", "gpus", "start", "end", "units", "unit"}

const tasksTime = "2006-01-02 15:04" // Asia/Shanghai local

// writeTasks writes tasks.csv: the weekly LoRA runs, the daily CV training and
// batch embedding jobs, and the chat API's daily traffic.
func (g *gen) writeTasks() error {
	r := newRand(g.seed, streamTasks)
	type row struct {
		start time.Time
		rec   []string
	}
	var rows []row
	add := func(task, team, kind, res string, s, e time.Time, units, unit string) {
		rows = append(rows, row{s, []string{task, team, kind, res, "",
			s.In(g.loc).Format(tasksTime), e.In(g.loc).Format(tasksTime), units, unit}})
	}
	for _, run := range g.runs {
		add("lora-qwen2.5-7b", "nlp", "fine-tune", ResA100, run.start, run.end, "1", "run")
	}
	for _, d := range g.days() {
		add("cv-detector-train", "cv", "training", Res4090, d.Add(10*time.Hour), d.Add(18*time.Hour), "12", "epoch")
		tokens := decimal.New(int64(300+r.IntN(101)), -1) // 30.0–40.0 M tokens
		add("batch-embeddings", "search", "inference", ResL40S, d.Add(8*time.Hour), d.Add(20*time.Hour), tokens.StringFixed(1), "1M tokens")
	}
	// chat-api: one row per UTC day, clipped to the history; a clipped day
	// carries its share of the day's requests.
	for d := g.hist.Start.UTC().Truncate(24 * time.Hour); d.Before(g.hist.End); d = d.Add(24 * time.Hour) {
		s, e := maxTime(d, g.hist.Start), minTime(d.Add(24*time.Hour), g.hist.End)
		perDay := 800 + r.IntN(401)
		units := perDay * int(e.Sub(s)/time.Hour) / 24
		add("chat-api", "platform", "inference", ResA10G, s, e, strconv.Itoa(units), "1k requests")
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].start.Before(rows[j].start) })

	f, err := g.create("tasks.csv")
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	w := csv.NewWriter(bw)
	_ = w.Write(TasksHeader)
	for _, r := range rows {
		_ = w.Write(r.rec)
	}
	w.Flush()
	return closeAll(f, bw, w.Error())
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
