// Package telemetry fetches GPU utilization from the configured Prometheus
// servers (through ingest/prom) and imports it into the store: a period day
// by day for `finops ingest prometheus` and `finops run`, and the minutes
// since the last pass for `finops watch`.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/ingest/prom"
	"github.com/finops-oss/finops/internal/sanitize"
	"github.com/finops-oss/finops/internal/store"
)

// ServerName is a server's name in messages, the data-quality box and the
// run ledger: its URL without credentials when it has no name.
func ServerName(p config.Prometheus) string {
	if p.Name != "" {
		return "prometheus " + p.Name
	}
	return "prometheus " + sanitize.URL(p.URL)
}

// Progress shows one server's days as they are stored; a caller without a
// progress display passes nil to Fetch.
type Progress interface {
	Add(n int)
	Done()
	// Above is w for lines printed while the progress is drawn.
	Above(w io.Writer) io.Writer
}

// Options is what Fetch works with.
type Options struct {
	Config  *config.Config
	Servers []config.Prometheus
	Getenv  func(string) string
	Now     func() time.Time
	// PerDay gets one line per day and per server (io.Discard when quiet).
	PerDay io.Writer
	// Progress, when set, begins the progress display of a server's days.
	Progress func(server string, days int) Progress
	// CompactBefore is where telemetry stops being kept per minute
	// (store.FileMeta.CompactBefore).
	CompactBefore time.Time
}

// Result is what fetching one server did.
type Result struct {
	Server  string // ServerName
	Days    int    // days asked for and stored, or failed
	Failed  int    // days that failed
	Err     error  // the first failure, or why the server gave nothing
	Partial bool   // some of its data came (warnings, or some days failed)
	Detail  string // what came: days fetched, already stored, empty
}

// Fetch fetches and stores every UTC day overlapping [from, to) from each
// server, one transaction per day. A day already stored complete is not
// fetched again; a day that is not over, or came with warnings, is stored
// as partial and fetched again next time. A server that fails is reported
// (missing when nothing came, partial when some days did) and the others go
// on.
func Fetch(ctx context.Context, st *store.Store, o Options, from, to time.Time) []Result {
	now := o.Now().UTC()
	var out []Result
	for _, p := range o.Servers {
		out = append(out, fetchServer(ctx, st, o, p, from, to, now))
	}
	return out
}

// serverFetch is one server's fetch as it goes: its result and the days
// stored, skipped (already stored complete) and empty, and its warnings.
type serverFetch struct {
	res                Result
	ok, skipped, empty int
	warnings           []string
}

// fail counts a failed day, keeping the first error.
func (f *serverFetch) fail(err error) {
	f.res.Failed++
	if f.res.Err == nil {
		f.res.Err = err
	}
}

// fetchServer fetches and stores [from, to) from one server (see Fetch).
func fetchServer(ctx context.Context, st *store.Store, o Options, p config.Prometheus, from, to, now time.Time) Result {
	f := &serverFetch{res: Result{Server: ServerName(p)}}
	src, err := PromSource(o.Config, p, o.Getenv)
	var client *prom.Client
	if err == nil {
		client, err = prom.New(src)
	}
	if err != nil {
		f.res.Days = 1
		f.fail(err)
		return f.res
	}
	todo := f.daysToFetch(ctx, st, client, from, to, now)
	var progress Progress = noProgress{}
	if o.Progress != nil {
		progress = o.Progress(f.res.Server, f.skipped+len(todo))
	}
	progress.Add(f.skipped)
	perDay := progress.Above(o.PerDay)
	err = client.FetchDays(ctx, todo, now, func(d *prom.Day) error {
		defer progress.Add(1)
		f.store(ctx, st, o, d, perDay)
		return nil
	})
	// The server is down or refusing after its retries: FetchDays stops
	// at the first day it did not answer, since the days after it are
	// missing too; do not hammer it with each.
	if fe := (*prom.FetchError)(nil); errors.As(err, &fe) {
		fmt.Fprintf(perDay, "%s %s: FAILED: %v\n", f.res.Server, fe.Day.Format("2006-01-02"), err)
		f.res.Days++
		f.fail(err)
	} else if err != nil && ctx.Err() == nil {
		f.fail(err)
	}
	f.judge(from, to)
	progress.Done()
	f.res.Detail = fmt.Sprintf("%d days fetched, %d already stored, %d empty", f.ok, f.skipped, f.empty)
	fmt.Fprintf(perDay, "%s: %s\n", f.res.Server, f.res.Detail)
	return f.res
}

// daysToFetch lists the UTC days of [from, to) before now that are not
// already stored complete (those are counted as skipped): they are
// fetched a few at a time (concurrent_days) and stored in day order.
func (f *serverFetch) daysToFetch(ctx context.Context, st *store.Store, client *prom.Client, from, to, now time.Time) []time.Time {
	var todo []time.Time
	for day := from.UTC().Truncate(24 * time.Hour); day.Before(to) && day.Before(now); day = day.Add(24 * time.Hour) {
		if !day.Add(24 * time.Hour).After(now) {
			if done, err := st.HasSource(ctx, client.DayURI(day)); err != nil {
				f.fail(err)
				break
			} else if done {
				f.skipped++
				continue
			}
		}
		todo = append(todo, day)
	}
	return todo
}

// store imports one fetched day in its own transaction and says what it
// held; an empty day is not stored, so it is asked again.
func (f *serverFetch) store(ctx context.Context, st *store.Store, o Options, d *prom.Day, perDay io.Writer) {
	f.res.Days++
	if d.Samples == 0 {
		// Nothing for that day (no exporter yet, or a query that
		// matches nothing): not stored, so it is asked again.
		f.empty++
		f.res.Days--
		return
	}
	if len(d.Warnings) > 0 {
		f.warnings = append(f.warnings, d.Warnings...)
		f.res.Partial = true
	}
	r, err := st.Import(ctx, store.FileMeta{URI: d.URI, SHA256: d.SHA256, CompactBefore: o.CompactBefore}, d.Replay)
	if err != nil {
		f.fail(err)
		return
	}
	f.ok++
	what := fmt.Sprintf("%d samples, %d task runs", d.Samples, d.Runs)
	if d.Dropped > 0 {
		what += fmt.Sprintf(", %d samples dropped (utilization outside 0–100 %%)", d.Dropped)
	}
	if r.Duplicate {
		what = "unchanged since the last fetch"
	}
	if !d.Complete {
		what += " (partial: fetched again next time)"
	}
	fmt.Fprintf(perDay, "%s %s: %s\n", f.res.Server, d.Start.Format("2006-01-02"), what)
}

// judge decides the server's outcome: partial when some days came despite
// an error, an error when it answered only with warnings or no GPU series
// at all.
func (f *serverFetch) judge(from, to time.Time) {
	res := &f.res
	switch {
	case res.Err != nil && (f.ok > 0 || f.skipped > 0):
		res.Partial = true
	case res.Err == nil && len(f.warnings) > 0:
		res.Err = fmt.Errorf("%s answered with warnings (partial data): %s", res.Server, strings.Join(dedupe(f.warnings), "; "))
	case res.Err == nil && f.ok == 0 && f.skipped == 0:
		res.Err = fmt.Errorf("%s returned no GPU series for %s .. %s: check the queries and that the exporter is scraped",
			res.Server, from.Format("2006-01-02"), to.Format("2006-01-02"))
		res.Days = max(res.Days, 1)
		res.Failed = res.Days
	}
}

type noProgress struct{}

func (noProgress) Add(int)                     {}
func (noProgress) Done()                       {}
func (noProgress) Above(w io.Writer) io.Writer { return w }

func dedupe(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
