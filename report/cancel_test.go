package report

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"
)

// TestWriteAllCancel: writing reports stops with ctx's error within a second
// of the cancel, and leaves no file behind (not even a temporary one). The
// fleet workbook (1,000 GPUs and 200,000 billing lines from a source that
// does not look at ctx itself) takes over ten seconds whole; a cancelled ctx
// writes no HTML or JSON report.
func TestWriteAllCancel(t *testing.T) {
	r := syntheticResult(1000)
	for _, tc := range []struct {
		formats []string
		after   time.Duration // cancel after this long; 0: before WriteAllContext
	}{
		{[]string{"xlsx"}, 200 * time.Millisecond},
		{[]string{"html"}, 0},
		{[]string{"json"}, 0},
	} {
		t.Run(tc.formats[0], func(t *testing.T) {
			dir := t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.after == 0 {
				cancel()
			}
			errc := make(chan error, 1)
			go func() {
				_, err := WriteAllContext(ctx, dir, r, tc.formats, Meta{Lines: syntheticLines(200_000)})
				errc <- err
			}()
			time.Sleep(tc.after)
			cancel()
			select {
			case err := <-errc:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("err %v, want context.Canceled", err)
				}
			case <-time.After(time.Second):
				t.Fatal("still writing a second after the cancel")
			}
			if left, _ := os.ReadDir(dir); len(left) > 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
}
