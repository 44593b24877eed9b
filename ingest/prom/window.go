package prom

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/model"
)

// Staleness (issue #25). An instant vector selector such as
// DCGM_FI_DEV_GPU_UTIL, evaluated by query_range at a step t, answers the
// newest sample at or before t that is at most the lookback delta old (5
// minutes in Prometheus). After a series ends (a pod finishes, an exporter
// stops) without a staleness marker — a backfilled TSDB, remote-written or
// federated data, a Prometheus restart — its last value is repeated for five
// more minutes: busy minutes that were not, idle spells that start late,
// tasks that hold their GPUs longer. VictoriaMetrics repeats it too, over a
// window derived from the series' scrape interval.
//
// finops therefore never sends a bare selector. Every instant vector
// selector of a configured query is read as the mean of the series' own
// samples in the step it answers for:
//
//	DCGM_FI_DEV_GPU_UTIL  →  avg_over_time(DCGM_FI_DEV_GPU_UTIL[1m] offset -59s999ms)
//
// so the point at t holds the samples with timestamps in [t, t+step): the
// minute grid of docs/METRICS.md (a minute's value is the mean of its
// samples), and a step with no sample of its own has no point. Why this and
// not the alternatives:
//
//   - The `lookback_delta` request parameter exists only from Prometheus 2.43
//     (PR #12088); older servers (Debian's 2.42, the tests' server) ignore it
//     silently, VictoriaMetrics calls it `max_lookback`, and either way the
//     window would end at the step instead of starting there.
//   - `timestamp(expr)` returns the sample's own time only for a bare
//     selector; for `A * 100 or B` Prometheus returns the evaluation time.
//   - A range function with an explicit window reads only real samples on
//     both servers: Prometheus' range selectors ignore the lookback delta and
//     staleness markers, and VictoriaMetrics never widens an explicit window
//     (rollup.go: "If the user explicitly sets the lookbehind window … do not
//     adjust it"). Both answer at the same aligned instants as before, so the
//     step alignment VictoriaMetrics' cache imposes still holds.
//
// The window is `[step] offset -(step − 1 ms)`: it ends 1 ms before the next
// step, and Prometheus 3 and VictoriaMetrics open range windows on the left,
// so it holds exactly [t, t+step) at millisecond resolution. Prometheus 2
// closes them on the left: a sample exactly 1 ms before t counts in t's
// step too. Negative offsets are standard since Prometheus 2.33 and in
// MetricsQL.
//
// A selector that already has a range (`rate(m[5m])`, `avg_over_time(m[1m])`,
// a subquery `m[5m:1m]`) is left as written: its window is the query's
// author's, and so is any repetition it makes after a series ends (a 5-minute
// average still has a value for 5 minutes). A selector's own `offset` is
// folded into the new one and its `@` kept. MetricsQL's WITH templates are
// refused: expand them in the query.

// windowed rewrites expr so that each instant vector selector reads only the
// samples of its own step (see above).
func windowed(expr string, step time.Duration) (string, error) {
	toks, err := lexPromQL(expr)
	if err != nil {
		return "", err
	}
	shift := step - time.Millisecond
	var b strings.Builder
	last := 0
	next := func(i int) (tok, bool) {
		if i < len(toks) {
			return toks[i], true
		}
		return tok{}, false
	}
	isPunct := func(i int, c string) bool {
		t, ok := next(i)
		return ok && t.kind == tPunct && expr[t.s:t.e] == c
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		var selEnd, j int
		switch t.kind {
		case tIdent:
			word := strings.ToLower(expr[t.s:t.e])
			if labelListKeywords[word] {
				// by (a, b), on(a), group_left(a): label names, not selectors.
				if isPunct(i+1, "(") {
					k, err := closeParen(toks, expr, i+1)
					if err != nil {
						return "", err
					}
					i = k
				}
				continue
			}
			if word == "with" && isPunct(i+1, "(") {
				return "", errors.New("MetricsQL WITH templates are not supported: write the query with the templates expanded")
			}
			if keywords[word] || isPunct(i+1, "(") {
				continue // an operator, a modifier, a number, or a function's name
			}
			if n, ok := next(i + 1); ok && n.kind == tIdent {
				if w := strings.ToLower(expr[n.s:n.e]); w == "by" || w == "without" {
					continue // an aggregation: sum by (a) (…)
				}
			}
			selEnd, j = t.e, i+1
			if n, ok := next(j); ok && n.kind == tBraces {
				selEnd, j = n.e, j+1
			}
		case tBraces: // a selector without a name: {__name__=~"..."}
			selEnd, j = t.e, i+1
		default:
			continue
		}
		if n, ok := next(j); ok && n.kind == tBrackets {
			i = j // a range vector or a subquery: the query's own window
			continue
		}
		// The selector's own modifiers: offset [-]d and @ t, in any order.
		var offset time.Duration
		at, modEnd := "", selEnd
		for {
			n, ok := next(j)
			if !ok {
				break
			}
			if n.kind == tIdent && strings.EqualFold(expr[n.s:n.e], "offset") {
				neg := false
				k := j + 1
				if isPunct(k, "-") || isPunct(k, "+") {
					neg = isPunct(k, "-")
					k++
				}
				d, ok := next(k)
				if !ok || d.kind != tNumber {
					return "", fmt.Errorf("offset at %d: want a duration such as 5m", n.s)
				}
				offset, err = parseOffset(expr[d.s:d.e])
				if err != nil {
					return "", err
				}
				if neg {
					offset = -offset
				}
				modEnd, j = d.e, k+1
				continue
			}
			if n.kind == tPunct && expr[n.s:n.e] == "@" {
				k := j + 1
				if isPunct(k, "-") || isPunct(k, "+") {
					k++
				}
				v, ok := next(k)
				switch {
				case ok && v.kind == tNumber:
					modEnd, j = v.e, k+1
				case ok && v.kind == tIdent && isPunct(k+1, "(") && isPunct(k+2, ")"):
					modEnd, j = toks[k+2].e, k+3 // @ start(), @ end()
				default:
					return "", fmt.Errorf("@ at %d: want a time or start() or end()", n.s)
				}
				if at != "" {
					return "", fmt.Errorf("@ at %d: a selector takes one @", n.s)
				}
				at = " " + expr[n.s:modEnd]
				continue
			}
			break
		}
		b.WriteString(expr[last:t.s])
		fmt.Fprintf(&b, "avg_over_time(%s[%s]%s offset %s)", expr[t.s:selEnd], model.Duration(step), at,
			promDuration(offset-shift))
		last = modEnd
		i = j - 1
	}
	b.WriteString(expr[last:])
	return b.String(), nil
}

// parseOffset reads an offset's duration: 1h30m, or seconds (90, 1.5).
func parseOffset(s string) (time.Duration, error) {
	if v, err := model.ParseDuration(s); err == nil {
		return time.Duration(v), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f > 1e9 {
		return 0, fmt.Errorf("offset %q: want a duration such as 5m", s)
	}
	return time.Duration(f * float64(time.Second)).Round(time.Millisecond), nil
}

// promDuration writes d as PromQL does, with a sign when negative.
func promDuration(d time.Duration) string {
	if d < 0 {
		return "-" + model.Duration(-d).String()
	}
	return model.Duration(d).String()
}

// labelListKeywords take a parenthesised list of label names.
var labelListKeywords = map[string]bool{"by": true, "without": true, "on": true, "ignoring": true,
	"group_left": true, "group_right": true}

// keywords are the words that are never a metric's name: PromQL's binary
// operators and modifiers, its number words, and MetricsQL's.
var keywords = map[string]bool{"and": true, "or": true, "unless": true, "atan2": true, "bool": true,
	"offset": true, "inf": true, "nan": true,
	"default": true, "if": true, "ifnot": true, "keep_metric_names": true, "limit": true}

type tokKind int

const (
	tIdent    tokKind = iota // a name: metric, function, keyword, label
	tNumber                  // a number or a duration
	tString                  // "…", '…' or `…`
	tBraces                  // {…}, whole
	tBrackets                // […], whole
	tPunct                   // one byte of anything else
)

// tok is a token of expr: its kind and byte range [s, e).
type tok struct {
	kind tokKind
	s, e int
}

// lexPromQL cuts expr into the tokens windowed needs: names, numbers,
// strings, whole {…} and […] groups, and single bytes of the rest.
// Comments and spaces are dropped.
func lexPromQL(expr string) ([]tok, error) {
	var out []tok
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '#':
			for i < len(expr) && expr[i] != '\n' {
				i++
			}
		case c == '"' || c == '\'' || c == '`':
			e, err := skipString(expr, i)
			if err != nil {
				return nil, err
			}
			out = append(out, tok{tString, i, e})
			i = e
		case c == '{' || c == '[':
			closing := byte('}')
			kind := tBraces
			if c == '[' {
				closing, kind = ']', tBrackets
			}
			e := i + 1
			for e < len(expr) && expr[e] != closing {
				if q := expr[e]; q == '"' || q == '\'' || q == '`' {
					var err error
					if e, err = skipString(expr, e); err != nil {
						return nil, err
					}
					continue
				}
				e++
			}
			if e >= len(expr) {
				return nil, fmt.Errorf("%q at %d is not closed", c, i)
			}
			out = append(out, tok{kind, i, e + 1})
			i = e + 1
		case isNameStart(c):
			e := i + 1
			for e < len(expr) && (isNameStart(expr[e]) || isDigit(expr[e])) {
				e++
			}
			out = append(out, tok{tIdent, i, e})
			i = e
		case isDigit(c) || c == '.' && i+1 < len(expr) && isDigit(expr[i+1]):
			hex := strings.HasPrefix(strings.ToLower(expr[i:]), "0x")
			e := i + 1
			for e < len(expr) {
				d := expr[e]
				if isDigit(d) || d == '.' || d == '_' || d >= 'a' && d <= 'z' || d >= 'A' && d <= 'Z' {
					e++
					continue
				}
				if (d == '-' || d == '+') && !hex && (expr[e-1] == 'e' || expr[e-1] == 'E') {
					e++ // 1e-3
					continue
				}
				break
			}
			out = append(out, tok{tNumber, i, e})
			i = e
		default:
			out = append(out, tok{tPunct, i, i + 1})
			i++
		}
	}
	return out, nil
}

// closeParen returns the index of the ")" that closes the "(" at toks[open].
func closeParen(toks []tok, expr string, open int) (int, error) {
	depth := 0
	for k := open; k < len(toks); k++ {
		if toks[k].kind != tPunct {
			continue
		}
		switch expr[toks[k].s] {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return k, nil
			}
		}
	}
	return 0, fmt.Errorf("( at %d is not closed", toks[open].s)
}

// skipString returns the end of the string literal starting at expr[i].
func skipString(expr string, i int) (int, error) {
	q := expr[i]
	for e := i + 1; e < len(expr); e++ {
		switch expr[e] {
		case '\\':
			if q != '`' {
				e++
			}
		case q:
			return e + 1, nil
		}
	}
	return 0, fmt.Errorf("string at %d is not closed", i)
}

func isNameStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == ':'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
