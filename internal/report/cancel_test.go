package report

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/finops-oss/finops/internal/canceltest"
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
			canceltest.Stops(t, tc.after, func(ctx context.Context) error {
				_, err := WriteAllContext(ctx, dir, r, tc.formats, Meta{Lines: syntheticLines(200_000)})
				return err
			})
			if left, _ := os.ReadDir(dir); len(left) > 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
}
