package dcgm

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/finops-oss/finops/internal/ingest"
	"github.com/prometheus/common/model"
)

// Sample timestamps come in two units. The Prometheus text exposition writes
// them in whole milliseconds since the epoch; OpenMetrics — what
// `promtool tsdb create-blocks-from openmetrics` backfills from, and what a
// scrape saved with Accept: application/openmetrics-text holds — in seconds,
// decimals allowed, and ends with "# EOF". Read in the wrong unit a week of
// 2026 lands in January 1970 (seconds read as milliseconds) or in the year
// 58000, so the unit is decided once per file:
//
//   - a file with an OpenMetrics marker (a "# EOF" line, a "# UNIT" line, a
//     type only OpenMetrics has, an exemplar) is in seconds, and each
//     timestamp must then be a time in 2000–2100;
//   - any other file is told by magnitude: the ranges 2000–2100 in seconds
//     (9.5e8–4.1e9) and in milliseconds (9.5e11–4.1e12) do not overlap, so a
//     timestamp is in at most one; a file whose timestamps fall in different
//     ones, or one in neither, is refused, naming the line.
//
// expfmt's text parser, which reads the file after this (expfmt's own
// OpenMetrics parser runs a grammar per line, ~3 ms a line: an hour for a
// week's backfill), takes whole milliseconds, so the timestamps are rewritten
// to them, exemplars cut off and OpenMetrics-only types read as untyped.

var (
	minStamp = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).Unix() // 946684800
	maxStamp = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC).Unix() // 4102444800
)

type stampUnit int

const (
	unitNone stampUnit = iota
	unitSeconds
	unitMillis
)

func (u stampUnit) String() string {
	if u == unitSeconds {
		return "seconds"
	}
	return "milliseconds"
}

// expoLine is one line of a scrape: where its sample timestamp is, and where
// an exemplar starts (OpenMetrics' " # {…} v"), which the text parser does
// not take.
type expoLine struct {
	no      int
	text    []byte // without the line end
	sample  bool
	ts      []byte // the timestamp token, nil when none
	cut     int    // the line is read up to here (len(text) without an exemplar)
	omType  bool   // a # TYPE that only OpenMetrics has (unknown, info, stateset, gaugehistogram)
	comment string // HELP, TYPE, UNIT, EOF or "" for other comments
}

// omOnlyTypes are the metric types of OpenMetrics that the Prometheus text
// format does not know; their samples are read as untyped.
var omOnlyTypes = map[string]bool{"unknown": true, "info": true, "stateset": true, "gaugehistogram": true}

// scanLine splits one line. A line the splitter cannot make sense of (an
// unclosed label set) is left to the text parser, which says what is wrong.
func scanLine(no int, text []byte) expoLine {
	l := expoLine{no: no, text: text, cut: len(text)}
	t := bytes.TrimLeft(text, " \t")
	if len(t) == 0 {
		return l
	}
	if t[0] == '#' {
		l.comment, l.omType = commentKind(t)
		return l
	}
	l.sample = true
	nameStart := len(text) - len(t)
	i := nameStart
	// The metric name, then the label set; or a label set holding a quoted
	// name ({"name", …}).
	for i < len(text) && text[i] != '{' && text[i] != ' ' && text[i] != '\t' {
		i++
	}
	if t[0] != '{' && !model.LegacyValidation.IsValidMetricName(string(text[nameStart:i])) {
		// Not a sample line (CSV, say): the text parser says what it is.
		l.sample = false
		return l
	}
	if i < len(text) && text[i] == '{' {
		var closed bool
		if i, closed = labelSetEnd(text, i); !closed {
			return l
		}
	}
	l.ts, l.cut = sampleTail(text, i)
	return l
}

// commentKind reads a comment line (t starts with '#'): its keyword when
// HELP, TYPE, UNIT or EOF, and whether it is a TYPE only OpenMetrics has.
func commentKind(t []byte) (kw string, omType bool) {
	f := bytes.Fields(t[1:])
	if len(f) == 0 {
		return "", false
	}
	switch kw := string(f[0]); kw {
	case "HELP", "TYPE", "UNIT", "EOF":
		return kw, kw == "TYPE" && len(f) >= 3 && omOnlyTypes[string(f[2])]
	}
	return "", false
}

// labelSetEnd is the byte after the '}' closing the label set that opens
// at text[open], quoted values and their escapes skipped; closed is false
// when the line ends first.
func labelSetEnd(text []byte, open int) (end int, closed bool) {
	inQuote := false
	for i := open + 1; i < len(text); i++ {
		c := text[i]
		switch {
		case inQuote && c == '\\':
			i++ // the escaped byte
		case c == '"':
			inQuote = !inQuote
		case !inQuote && c == '}':
			return i + 1, true
		}
	}
	return len(text), false
}

// sampleTail reads what follows a sample's name and labels, from text[i]:
// value [timestamp] [# exemplar]. It returns the timestamp token (nil when
// there is none) and where the line is read up to (before an exemplar
// and the blanks before it).
func sampleTail(text []byte, i int) (ts []byte, cut int) {
	cut = len(text)
	var toks [][2]int
	for i < len(text) {
		for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
			i++
		}
		if i == len(text) {
			break
		}
		s := i
		if text[i] == '#' && len(toks) >= 1 {
			// An exemplar: the rest of the line, and the blanks before it.
			cut = len(bytes.TrimRight(text[:i], " \t"))
			break
		}
		for i < len(text) && text[i] != ' ' && text[i] != '\t' {
			i++
		}
		toks = append(toks, [2]int{s, i})
	}
	if len(toks) == 2 {
		ts = text[toks[1][0]:toks[1][1]]
	}
	return ts, cut
}

// eachLine calls fn for every line of data, numbered from 1, without its
// line end (\n or \r\n).
func eachLine(data []byte, fn func(l expoLine) error) error {
	no := 0
	for len(data) > 0 {
		no++
		line, rest, _ := bytes.Cut(data, []byte("\n"))
		data = rest
		if err := fn(scanLine(no, bytes.TrimSuffix(line, []byte("\r")))); err != nil {
			return err
		}
	}
	return nil
}

// stampFloat reads a timestamp token as a number.
func stampFloat(tok []byte) (float64, bool) {
	f, err := strconv.ParseFloat(string(tok), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// unitsOf reports in which units a timestamp is a time in 2000–2100.
func unitsOf(f float64) (asSeconds, asMillis bool) {
	asSeconds = f >= float64(minStamp) && f < float64(maxStamp)
	asMillis = f >= float64(minStamp)*1000 && f < float64(maxStamp)*1000
	return asSeconds, asMillis
}

// stampInfo is what the first pass over a scrape found.
type stampInfo struct {
	unit       stampUnit
	openMetric int // line of the first OpenMetrics marker, 0 when none
	marker     string
}

// decideUnit reads every line once and decides the file's timestamp unit, or
// refuses the file naming the line and the field.
func decideUnit(name string, data []byte) (stampInfo, error) {
	var info stampInfo
	// The markers first: "# EOF" ends an OpenMetrics file, so its unit is
	// known only at the end.
	eofAt := 0
	err := eachLine(data, func(l expoLine) error {
		switch {
		case eofAt > 0 && len(bytes.TrimSpace(l.text)) > 0:
			return &ingest.ParseError{File: name, Line: l.no, Msg: fmt.Sprintf("text after the # EOF of line %d: an OpenMetrics file "+
				"ends there; save one scrape or backfill file per file", eofAt)}
		case l.comment == "EOF":
			eofAt = l.no
			info.noteOM(l.no, "# EOF")
		case l.comment == "UNIT":
			info.noteOM(l.no, "# UNIT")
		case l.omType:
			info.noteOM(l.no, "an OpenMetrics-only # TYPE")
		case l.sample && l.cut < len(l.text):
			info.noteOM(l.no, "an exemplar")
		}
		return nil
	})
	if err != nil {
		return info, err
	}
	firstAt := 0
	var first []byte
	err = eachLine(data, func(l expoLine) error {
		if l.ts == nil {
			return nil
		}
		f, ok := stampFloat(l.ts)
		if !ok {
			return nil // the text parser refuses the line
		}
		s, ms := unitsOf(f)
		if info.openMetric > 0 {
			if !s {
				why := "not a time in 2000–2100"
				if ms {
					why = "milliseconds, it seems"
				}
				return &ingest.ParseError{File: name, Line: l.no, Field: "timestamp", Msg: fmt.Sprintf("%s is %s, but the file is OpenMetrics "+
					"(%s on line %d), whose timestamps are seconds since 1970: write seconds, or drop the OpenMetrics "+
					"lines to save it as Prometheus text (milliseconds)", l.ts, why, info.marker, info.openMetric)}
			}
			info.unit = unitSeconds
			return nil
		}
		u := unitSeconds
		switch {
		case ms:
			u = unitMillis
		case !s:
			return &ingest.ParseError{File: name, Line: l.no, Field: "timestamp", Msg: fmt.Sprintf("%s is a time in 2000–2100 neither "+
				"in seconds (OpenMetrics) nor in milliseconds (Prometheus text) since 1970: fix the exporter's clock, or the "+
				"file's timestamps", l.ts)}
		}
		if info.unit == unitNone {
			info.unit, firstAt, first = u, l.no, l.ts
			return nil
		}
		if u != info.unit {
			return &ingest.ParseError{File: name, Line: l.no, Field: "timestamp", Msg: fmt.Sprintf("%s reads as %s since 1970, but "+
				"line %d's %s reads as %s: a file holds one unit; end an OpenMetrics file (seconds) with # EOF, or write "+
				"every timestamp in milliseconds", l.ts, u, firstAt, first, info.unit)}
		}
		return nil
	})
	return info, err
}

func (info *stampInfo) noteOM(line int, marker string) {
	if info.openMetric == 0 {
		info.openMetric, info.marker = line, marker
	}
}

// appendLine appends the line as the text parser reads it: the timestamp in
// whole milliseconds, no exemplar, OpenMetrics-only types untyped, ending
// in \n.
func appendLine(dst []byte, l expoLine, unit stampUnit) []byte {
	switch {
	case l.omType:
		f := bytes.Fields(bytes.TrimLeft(l.text, " \t")[1:]) // TYPE, name, type (scanLine checked)
		dst = append(dst, "# TYPE "...)
		dst = append(dst, f[1]...)
		dst = append(dst, " untyped"...)
	case l.comment == "EOF":
		// The text parser takes it as a comment; keep the line count.
	case l.ts != nil:
		f, ok := stampFloat(l.ts)
		if !ok { // the text parser refuses the line
			dst = append(dst, l.text...)
			break
		}
		if unit == unitSeconds {
			f *= 1000
		}
		// The timestamp is the last token before the cut.
		start := bytes.LastIndex(l.text[:l.cut], l.ts)
		dst = append(dst, l.text[:start]...)
		dst = strconv.AppendInt(dst, int64(math.Round(f)), 10)
	default:
		dst = append(dst, l.text[:l.cut]...)
	}
	return append(dst, '\n')
}
