package ingest

import (
	"fmt"
	"strings"
)

// An nvidia-smi log is read by its header's fields, whatever their order,
// and a log finops cannot tie to a GPU is refused naming the fix. This file
// holds what a header decides besides the columns: a log with no column that
// tells the GPUs apart (one GPU, when the host is given), and the header
// written again before every sample by a logger that runs nvidia-smi once per
// sample without noheader.

// smiNoIDFix is what a refusal of a log without identity column says to do.
const smiNoIDFix = "add index or uuid to the logger's --query-gpu list " +
	"(e.g. --query-gpu=timestamp,index,uuid,name,utilization.gpu,memory.used,power.draw), " +
	"or, for a log of one GPU, pass --host (host: in the config) to read it as that host's GPU 0"

// oneGPU decides how a log whose header names none of uuid, index and
// pci.bus_id is read: as the one GPU of the host given (index 0), or not at
// all. Nothing else in such a log tells two GPUs apart, so reading it without
// a host would file its samples under "unknown".
func (p *smiParser) oneGPU(opt Options, fileErr func(string) *ParseError) *ParseError {
	if p.uuid >= 0 || p.index >= 0 || p.bus >= 0 {
		return nil
	}
	if strings.TrimSpace(opt.Host) == "" {
		return fileErr("the header names no index, uuid or pci.bus_id column, so nothing tells its GPUs apart: " + smiNoIDFix)
	}
	p.single = true
	return nil
}

// noteHeader warns, once, that a log without identity column is read as one GPU.
func (p *smiParser) noteHeader(s *Summary, line int) {
	if p.single {
		s.Warn(&ParseError{File: p.file, Line: line, Msg: fmt.Sprintf("no index/uuid/pci.bus_id column: read as one GPU, %s/0; "+
			"a row at the same time as the one before it is refused, as it would be a second GPU", p.host)})
	}
}

// repeatsHeader reports a row that is the file's header again (cells equal
// once trimmed of spaces, a CR and a BOM, trailing empty cells allowed, as
// checkWidth allows them on rows). Only a log read with a header has one.
func (p *smiParser) repeatsHeader(rec []string) bool {
	h := p.header
	if len(h) == 0 || len(rec) < len(h) || cleanCell(rec[0]) != h[0] {
		return false
	}
	for i, c := range rec {
		want := ""
		if i < len(h) {
			want = h[i]
		}
		if cleanCell(c) != want {
			return false
		}
	}
	return true
}

// finishSummary says, once, how many lines repeated the header and were
// skipped: they are no rows, so they are neither samples nor bad rows.
func (p *smiParser) finishSummary(s *Summary) {
	if p.repeats == 0 {
		return
	}
	s.HeaderRepeats = p.repeats
	lines := "lines repeat"
	if p.repeats == 1 {
		lines = "line repeats"
	}
	s.Warn(&ParseError{File: p.file, Line: p.firstRepeat, Msg: fmt.Sprintf("%d %s the header (a logger that runs nvidia-smi once per sample "+
		"without noheader): skipped, not read as rows", p.repeats, lines)})
}
