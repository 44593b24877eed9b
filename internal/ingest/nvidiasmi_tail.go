package ingest

import (
	"bytes"
	"strings"
	"time"
)

// SMILineTime reads the time of one line of an nvidia-smi log or NVML spool
// from its timestamp field, in loc when it carries no zone: the first field
// that reads as a time, as a logger's --query-gpu list may put timestamp
// anywhere (index,timestamp,… in HPC guides); most put it first, which is
// read first. ok is false for a header or any other line. The watch uses it
// to skip the old part of a long log without parsing it.
func SMILineTime(line []byte, loc *time.Location) (t time.Time, ok bool) {
	for rest := line; len(rest) > 0; {
		var field []byte
		field, rest, _ = bytes.Cut(rest, []byte(","))
		if t, err := parseTime(strings.TrimSpace(string(field)), loc); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// SMIHeaderLine reports whether one line of a log is an nvidia-smi header
// (isNvidiaSMIHeader: timestamp and one of utilization.gpu,
// utilization.memory, uuid, index, pci.bus_id, in any order), so that the
// watch keeps the same header the parser recognises.
func SMIHeaderLine(line []byte) bool {
	return isNvidiaSMIHeader(cleanHeader(strings.Split(string(line), ",")))
}
