package runjob

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/finops-oss/finops/internal/report"
)

func (j *Job) textfile() string {
	if j.o.Textfile != "" {
		return j.o.Textfile
	}
	return j.o.Config.Publish.MetricsTextfile
}

// writeTextfile writes the node-exporter textfile atomically (a temporary
// file renamed over it), so the collector never reads half a file. ok: the
// run delivered everything (exit 0).
func (j *Job) writeTextfile(path string, code int, ok bool) error {
	success := 0
	if ok {
		success = 1
	}
	num := func(t time.Time) string { return strconv.FormatInt(t.Unix(), 10) }
	var b strings.Builder
	metric := func(name, help, value string) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s gauge\n%s %s\n", name, help, name, name, value)
	}
	metric("finops_last_run_timestamp_seconds", "When the last finops run finished (Unix time).", num(j.res.FinishedAt))
	metric("finops_last_run_success", "1 if the last finops run delivered everything (exit 0), else 0.", strconv.Itoa(success))
	metric("finops_last_run_exit_code", "Exit code of the last finops run: 0 ok, 1 failed, 2 config, 3 source missing, 4 upload or email failed.", strconv.Itoa(code))
	metric("finops_last_run_duration_seconds", "How long the last finops run took.", strconv.FormatFloat(j.res.DurationSeconds, 'f', 3, 64))
	if last, err := j.o.Store.LastSuccess(context.Background()); err == nil && !last.IsZero() {
		metric("finops_last_success_timestamp_seconds", "When the last fully successful finops run finished (Unix time).", num(last))
	}
	return report.WriteFileAtomic(path, func(w io.Writer) error {
		_, err := io.WriteString(w, b.String())
		return err
	})
}
