package dcgm

import (
	"context"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/canceltest"
)

// commentsForever is a scrape that never ends: comment lines, which make no
// sample, read as fast as a regular file's bytes.
type commentsForever struct{}

func (commentsForever) Read(p []byte) (int, error) {
	const line = "# a comment\n"
	for i := range p {
		p[i] = line[i%len(line)]
	}
	return len(p), nil
}

// TestParseCancel: a scrape being read stops within a second of ctx's
// cancellation, with ctx's error (the exposition parser reads the whole
// input before it returns anything, so only the reader can notice).
func TestParseCancel(t *testing.T) {
	canceltest.Stops(t, 50*time.Millisecond, func(ctx context.Context) error {
		_, err := Parse(ctx, commentsForever{}, Options{Name: "scrape.prom", ScrapeTime: time.Now()}, &recSink{})
		return err
	})
}
