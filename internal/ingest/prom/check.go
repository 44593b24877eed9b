package prom

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/common/model"
)

// Check runs the utilization query over the five minutes before now, once,
// without retries: the server answers, its credentials pass and the query
// parses. It returns how many series came back; none is an answer too (no
// GPU reported lately), which the caller words as it sees fit.
func (c *Client) Check(ctx context.Context, now time.Time) (series int, err error) {
	end := now.Truncate(c.src.Step)
	q := rangeQuery{expr: c.q.Util, start: end.Add(-5 * time.Minute), end: end}
	if _, err := c.answer(ctx, q, func(*model.SampleStream) { series++ }); err != nil {
		return 0, fmt.Errorf("prometheus %s: query %q: %w%s", c.src.Name, c.src.Queries.Util, err, sentAs(c.src.Queries.Util, q.expr, err))
	}
	return series, nil
}
