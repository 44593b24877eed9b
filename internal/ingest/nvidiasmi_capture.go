package ingest

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// CaptureSection is one `nvidia-smi --query-gpu=… --format=csv` section of a
// GPU capture file as nvidia_gpu_exporter records them (internal/captures/*.txt):
// a report that also holds `-q`, dmon, pmon and help output. Only the
// --query-gpu sections are what a logging cron job writes, so they are what
// finops reads; SplitCapture cuts them out and Parse reads each one as an
// ordinary nvidia-smi log.
type CaptureSection struct {
	Name string // the capture's own label, e.g. "idle" or "load"
	Line int    // line of the section's CSV header in the capture, 1-based
	CSV  []byte // header and rows, as in the capture
}

// SplitCapture returns the --query-gpu CSV sections of a capture file. A
// section starts after a banner naming "query-gpu (csv" and the command line,
// and ends at the first blank or banner line.
func SplitCapture(r io.Reader) ([]CaptureSection, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20) // the 212-field header is long
	var out []CaptureSection
	var cur *CaptureSection
	pending, banner := "", false
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if cur != nil {
			if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "####") {
				out = append(out, *cur)
				cur = nil
			} else {
				cur.CSV = append(cur.CSV, text...)
				cur.CSV = append(cur.CSV, '\n')
				continue
			}
		}
		switch {
		case strings.HasPrefix(text, "# ") && strings.Contains(text, ":: query-gpu (csv"):
			pending = strings.TrimSpace(strings.TrimPrefix(text[:strings.Index(text, "::")], "# "))
			banner = false
		case pending != "" && strings.HasPrefix(text, "# $ ") && !strings.Contains(text, "--query-gpu="):
			pending = "" // a different command under the same banner
		case pending != "" && strings.HasPrefix(text, "####"):
			banner = true
		case pending != "" && banner && strings.HasPrefix(text, "timestamp"):
			cur = &CaptureSection{Name: pending, Line: line, CSV: append([]byte(text), '\n')}
			pending, banner = "", false
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read capture: %w", err)
	}
	if cur != nil {
		out = append(out, *cur)
	}
	return out, nil
}
