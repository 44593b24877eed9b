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

	"github.com/finops-oss/finops/config"
	"github.com/finops-oss/finops/ingest/prom"
	"github.com/finops-oss/finops/sanitize"
	"github.com/finops-oss/finops/store"
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
		res := Result{Server: ServerName(p)}
		fail := func(err error) {
			res.Failed++
			if res.Err == nil {
				res.Err = err
			}
		}
		src, err := PromSource(o.Config, p, o.Getenv)
		var client *prom.Client
		if err == nil {
			client, err = prom.New(src)
		}
		if err != nil {
			res.Days = 1
			fail(err)
			out = append(out, res)
			continue
		}
		var ok, skipped, empty int
		var warnings []string
		// Days already stored complete are not asked again; the others are
		// fetched a few at a time (concurrent_days) and stored in day order.
		var todo []time.Time
		for day := from.UTC().Truncate(24 * time.Hour); day.Before(to) && day.Before(now); day = day.Add(24 * time.Hour) {
			if !day.Add(24 * time.Hour).After(now) {
				if done, err := st.HasSource(ctx, client.DayURI(day)); err != nil {
					fail(err)
					break
				} else if done {
					skipped++
					continue
				}
			}
			todo = append(todo, day)
		}
		var progress Progress = noProgress{}
		if o.Progress != nil {
			progress = o.Progress(res.Server, skipped+len(todo))
		}
		progress.Add(skipped)
		perDay := progress.Above(o.PerDay)
		err = client.FetchDays(ctx, todo, now, func(d *prom.Day) error {
			defer progress.Add(1)
			res.Days++
			if d.Samples == 0 {
				// Nothing for that day (no exporter yet, or a query that
				// matches nothing): not stored, so it is asked again.
				empty++
				res.Days--
				return nil
			}
			if len(d.Warnings) > 0 {
				warnings = append(warnings, d.Warnings...)
				res.Partial = true
			}
			r, err := st.Import(ctx, store.FileMeta{URI: d.URI, SHA256: d.SHA256, CompactBefore: o.CompactBefore}, d.Replay)
			if err != nil {
				fail(err)
				return nil
			}
			ok++
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
			fmt.Fprintf(perDay, "%s %s: %s\n", res.Server, d.Start.Format("2006-01-02"), what)
			return nil
		})
		// The server is down or refusing after its retries: FetchDays stops
		// at the first day it did not answer, since the days after it are
		// missing too; do not hammer it with each.
		if fe := (*prom.FetchError)(nil); errors.As(err, &fe) {
			fmt.Fprintf(perDay, "%s %s: FAILED: %v\n", res.Server, fe.Day.Format("2006-01-02"), err)
			res.Days++
			fail(err)
		} else if err != nil && ctx.Err() == nil {
			fail(err)
		}
		switch {
		case res.Err != nil && (ok > 0 || skipped > 0):
			res.Partial = true
		case res.Err == nil && len(warnings) > 0:
			res.Err = fmt.Errorf("%s answered with warnings (partial data): %s", res.Server, strings.Join(dedupe(warnings), "; "))
		case res.Err == nil && ok == 0 && skipped == 0:
			res.Err = fmt.Errorf("%s returned no GPU series for %s .. %s: check the queries and that the exporter is scraped",
				res.Server, from.Format("2006-01-02"), to.Format("2006-01-02"))
			res.Days = max(res.Days, 1)
			res.Failed = res.Days
		}
		progress.Done()
		res.Detail = fmt.Sprintf("%d days fetched, %d already stored, %d empty", ok, skipped, empty)
		fmt.Fprintf(perDay, "%s: %s\n", res.Server, res.Detail)
		out = append(out, res)
	}
	return out
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
