package prom

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/model"
)

// hostLabels are the labels dcgm.Identify takes a GPU's host from: an answer
// split per host is split on all of them, so every series is in exactly one
// part.
var hostLabels = []string{"Hostname", "hostname", "node", "kubernetes_node", "instance"}

// fetch runs q (retrying), splitting it while its answer is over the cap:
// first into shorter ranges, then, when one step alone is over it, per host
// (perHost false: q is already one host's part). Each series reaches each
// once per answer it is in; a range or a host is only fetched again whole,
// so a caller that keeps the first value per GPU and step takes every sample
// exactly once.
func (c *Client) fetch(ctx context.Context, q rangeQuery, perHost bool, each func(*model.SampleStream)) ([]string, error) {
	warns, err := c.retry(ctx, q, each)
	if !errors.Is(err, errTooLarge) {
		return warns, err
	}
	step := c.src.Step
	if n := int64(q.end.Sub(q.start)/step) + 1; n > 1 {
		// When even one step is over the cap, halving the range down to
		// single steps would not do: probe it before halving.
		oneStepFits := !perHost
		if perHost {
			w, err := c.retry(ctx, rangeQuery{expr: q.expr, start: q.start, end: q.start}, each)
			warns = append(warns, w...)
			if err != nil && !errors.Is(err, errTooLarge) {
				return warns, err
			}
			oneStepFits = err == nil
		}
		if oneStepFits {
			mid := q.start.Add(time.Duration(n/2) * step)
			for _, part := range []rangeQuery{{q.expr, q.start, mid.Add(-step)}, {q.expr, mid, q.end}} {
				w, err := c.fetch(ctx, part, perHost, each)
				warns = append(warns, w...)
				if err != nil {
					return warns, err
				}
			}
			return warns, nil
		}
	}
	if !perHost {
		return warns, c.tooLarge(q)
	}
	hosts, w, err := c.hosts(ctx, q)
	warns = append(warns, w...)
	if err != nil {
		return warns, err
	}
	for _, h := range hosts {
		part := rangeQuery{expr: onlyHost(q.expr, h), start: q.start, end: q.end}
		w, err := c.fetch(ctx, part, false, each)
		warns = append(warns, w...)
		if errors.Is(err, errTooLarge) {
			return warns, c.tooLarge(q)
		}
		if err != nil {
			return warns, err
		}
	}
	return warns, nil
}

// tooLarge is the error of an answer that no split brings under the cap.
func (c *Client) tooLarge(q rangeQuery) error {
	return fmt.Errorf("%w: one step of one host's series is over max_response_bytes (%d bytes) at %s: "+
		"raise utilization.prometheus[].max_response_bytes, or make the query return fewer or shorter series",
		errTooLarge, c.src.MaxResponseBytes, q.start.UTC().Format(time.RFC3339))
}

// hosts lists the host label sets of q's series over its range: one series
// per host, its labels the hostLabels it has.
func (c *Client) hosts(ctx context.Context, q rangeQuery) ([]model.Metric, []string, error) {
	span := q.end.Sub(q.start) + c.src.Step
	expr := fmt.Sprintf("group by (%s) (last_over_time((%s)[%ds:%ds]))", strings.Join(hostLabels, ", "), q.expr,
		int64(span/time.Second), int64(c.src.Step/time.Second))
	seen := map[model.Fingerprint]model.Metric{}
	warns, err := c.retry(ctx, rangeQuery{expr: expr, start: q.end, end: q.end}, func(ss *model.SampleStream) {
		seen[ss.Metric.Fingerprint()] = ss.Metric
	})
	if err != nil {
		if errors.Is(err, errTooLarge) {
			return nil, warns, c.tooLarge(q)
		}
		return nil, warns, err
	}
	out := make([]model.Metric, 0, len(seen))
	for _, m := range seen {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out, warns, nil
}

// onlyHost restricts expr to the series whose host labels are host's (a
// label host lacks must be absent): `and on(...)` with a constant vector
// carrying exactly those labels.
func onlyHost(expr string, host model.Metric) string {
	sel := "vector(1)"
	for _, l := range hostLabels {
		if v, ok := host[model.LabelName(l)]; ok && v != "" {
			// label_replace expands $1 in the replacement: $$ is a dollar.
			sel = fmt.Sprintf("label_replace(%s, %s, %s, \"\", \"\")", sel, strconv.Quote(l),
				strconv.Quote(strings.ReplaceAll(string(v), "$", "$$")))
		}
	}
	return fmt.Sprintf("(%s) and on(%s) %s", expr, strings.Join(hostLabels, ", "), sel)
}

// retry runs one request, retrying what can succeed on a second try.
func (c *Client) retry(ctx context.Context, q rangeQuery, each func(*model.SampleStream)) ([]string, error) {
	wait := c.src.Backoff
	for attempt := 0; ; attempt++ {
		warns, err := c.answer(ctx, q, each)
		if err == nil || attempt >= c.src.Retries || !retryable(err) || ctx.Err() != nil {
			return warns, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 30*time.Second)
	}
}
