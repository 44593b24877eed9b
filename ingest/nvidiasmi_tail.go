package ingest

import (
	"bytes"
	"strings"
	"time"
)

// SMILineTime reads the time of one line of an nvidia-smi log or NVML spool
// from its first field (loggers put timestamp first), in loc when it carries
// no zone. ok is false for a header or any other line. The watch uses it to
// skip the old part of a long log without parsing it.
func SMILineTime(line []byte, loc *time.Location) (t time.Time, ok bool) {
	first, _, _ := bytes.Cut(line, []byte(","))
	t, err := parseTime(strings.TrimSpace(string(first)), loc)
	return t, err == nil
}
