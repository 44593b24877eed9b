package dcgm

import (
	"context"
	"errors"
	"testing"
	"time"
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
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		_, err := Parse(ctx, commentsForever{}, Options{Name: "scrape.prom", ScrapeTime: time.Now()}, &recSink{})
		errc <- err
	}()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err %v, want context.Canceled", err)
		}
	case <-time.After(time.Second):
		t.Fatal("still reading a second after the cancel")
	}
}
