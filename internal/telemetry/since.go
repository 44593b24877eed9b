package telemetry

import (
	"context"
	"fmt"
	"time"

	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/ingest/prom"
	"github.com/finops-oss/finops/internal/store"
)

// reread is how much before its cursor a server is read again: a scrape
// lands in Prometheus up to a scrape interval late.
const reread = 5 * time.Minute

// FetchSince fetches what server p has since the last call (at most since
// from) up to now, stores it, and moves the server's cursor (the store's
// watch cursors) to now. It is the watch's read of a server.
func FetchSince(ctx context.Context, st *store.Store, c *config.Config, p config.Prometheus, getenv func(string) string,
	from, now time.Time) error {
	src, err := PromSource(c, p, getenv)
	if err != nil {
		return fmt.Errorf("%s: %w", ServerName(p), err)
	}
	client, err := prom.New(src)
	if err != nil {
		return fmt.Errorf("%s: %w", ServerName(p), err)
	}
	cursorKey := "prometheus://" + client.Source().Name
	cursor, err := st.WatchCursor(ctx, cursorKey)
	if err != nil {
		return err
	}
	if start := cursor.Add(-reread); start.After(from) && !cursor.After(now) {
		from = start
	}
	d, err := client.FetchRange(ctx, from, now)
	if err != nil {
		return fmt.Errorf("%s: %w", ServerName(p), err)
	}
	if d.Samples > 0 {
		if _, err := st.Import(ctx, store.FileMeta{URI: d.URI, SHA256: d.SHA256}, d.Replay); err != nil {
			return fmt.Errorf("%s: %w", ServerName(p), err)
		}
	}
	return st.SetWatchCursor(ctx, cursorKey, now)
}
