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
	l := lexed{expr: expr, toks: toks}
	shift := step - time.Millisecond
	var b strings.Builder
	last := 0
	for i := 0; i < len(toks); i++ {
		selEnd, j, resume, err := l.selector(i)
		if err != nil {
			return "", err
		}
		if selEnd < 0 {
			i = resume
			continue
		}
		m, err := l.modifiers(j, selEnd)
		if err != nil {
			return "", err
		}
		t := toks[i]
		b.WriteString(expr[last:t.s])
		fmt.Fprintf(&b, "avg_over_time(%s[%s]%s offset %s)", expr[t.s:selEnd], model.Duration(step), m.at,
			promDuration(m.offset-shift))
		last = m.end
		i = m.next - 1
	}
	b.WriteString(expr[last:])
	return b.String(), nil
}

// lexed is an expression with its tokens, for windowed's look-ahead.
type lexed struct {
	expr string
	toks []tok
}

// next is token i, if there is one.
func (l lexed) next(i int) (tok, bool) {
	if i < len(l.toks) {
		return l.toks[i], true
	}
	return tok{}, false
}

// isPunct says whether token i is the punctuation c.
func (l lexed) isPunct(i int, c string) bool {
	t, ok := l.next(i)
	return ok && t.kind == tPunct && l.expr[t.s:t.e] == c
}

// selector finds the instant vector selector starting at token i: selEnd
// is the byte its name and matchers end at and j the token after them.
// When token i starts none (selEnd < 0), the walk goes on after token
// resume: past a label list, or past a range vector's window, which is
// the query's own.
func (l lexed) selector(i int) (selEnd, j, resume int, err error) {
	t := l.toks[i]
	switch t.kind {
	case tIdent:
		if selEnd, j, resume, err = l.namedSelector(i); selEnd < 0 || err != nil {
			return selEnd, j, resume, err
		}
	case tBraces: // a selector without a name: {__name__=~"..."}
		selEnd, j = t.e, i+1
	default:
		return -1, 0, i, nil
	}
	if n, ok := l.next(j); ok && n.kind == tBrackets {
		return -1, 0, j, nil // a range vector or a subquery: the query's own window
	}
	return selEnd, j, 0, nil
}

// namedSelector is selector for a name: a metric's, unless it is a
// keyword, a function, an aggregation or a label list's keyword.
func (l lexed) namedSelector(i int) (selEnd, j, resume int, err error) {
	t := l.toks[i]
	word := strings.ToLower(l.expr[t.s:t.e])
	if labelListKeywords[word] {
		// by (a, b), on(a), group_left(a): label names, not selectors.
		if l.isPunct(i+1, "(") {
			k, err := closeParen(l.toks, l.expr, i+1)
			return -1, 0, k, err
		}
		return -1, 0, i, nil
	}
	if word == "with" && l.isPunct(i+1, "(") {
		return -1, 0, 0, errors.New("MetricsQL WITH templates are not supported: write the query with the templates expanded")
	}
	if keywords[word] || l.isPunct(i+1, "(") {
		return -1, 0, i, nil // an operator, a modifier, a number, or a function's name
	}
	if n, ok := l.next(i + 1); ok && n.kind == tIdent {
		if w := strings.ToLower(l.expr[n.s:n.e]); w == "by" || w == "without" {
			return -1, 0, i, nil // an aggregation: sum by (a) (…)
		}
	}
	selEnd, j = t.e, i+1
	if n, ok := l.next(j); ok && n.kind == tBraces {
		selEnd, j = n.e, j+1
	}
	return selEnd, j, 0, nil
}

// selectorMods are a selector's own modifiers: its offset, its @ as
// written, the byte they end at and the token after them.
type selectorMods struct {
	offset    time.Duration
	at        string
	end, next int
}

// modifiers reads the offset [-]d and @ t that follow a selector ending at
// byte selEnd, token j, in any order.
func (l lexed) modifiers(j, selEnd int) (selectorMods, error) {
	m := selectorMods{end: selEnd, next: j}
	for {
		n, ok := l.next(m.next)
		switch {
		case !ok:
			return m, nil
		case n.kind == tIdent && strings.EqualFold(l.expr[n.s:n.e], "offset"):
			if err := l.offset(&m); err != nil {
				return m, err
			}
		case n.kind == tPunct && l.expr[n.s:n.e] == "@":
			if err := l.at(&m); err != nil {
				return m, err
			}
		default:
			return m, nil
		}
	}
}

// offset reads the offset modifier at token m.next.
func (l lexed) offset(m *selectorMods) error {
	n := l.toks[m.next]
	neg := false
	k := m.next + 1
	if l.isPunct(k, "-") || l.isPunct(k, "+") {
		neg = l.isPunct(k, "-")
		k++
	}
	d, ok := l.next(k)
	if !ok || d.kind != tNumber {
		return fmt.Errorf("offset at %d: want a duration such as 5m", n.s)
	}
	off, err := parseOffset(l.expr[d.s:d.e])
	if err != nil {
		return err
	}
	if neg {
		off = -off
	}
	m.offset, m.end, m.next = off, d.e, k+1
	return nil
}

// at reads the @ modifier at token m.next: a time, start() or end().
func (l lexed) at(m *selectorMods) error {
	n := l.toks[m.next]
	k := m.next + 1
	if l.isPunct(k, "-") || l.isPunct(k, "+") {
		k++
	}
	v, ok := l.next(k)
	var end, next int
	switch {
	case ok && v.kind == tNumber:
		end, next = v.e, k+1
	case ok && v.kind == tIdent && l.isPunct(k+1, "(") && l.isPunct(k+2, ")"):
		end, next = l.toks[k+2].e, k+3 // @ start(), @ end()
	default:
		return fmt.Errorf("@ at %d: want a time or start() or end()", n.s)
	}
	if m.at != "" {
		return fmt.Errorf("@ at %d: a selector takes one @", n.s)
	}
	m.at = " " + l.expr[n.s:end]
	m.end, m.next = end, next
	return nil
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
			continue
		case c == '#':
			for i < len(expr) && expr[i] != '\n' {
				i++
			}
			continue
		}
		t, err := lexToken(expr, i)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
		i = t.e
	}
	return out, nil
}

// lexToken reads the token starting at expr[i], which is not a space or
// a comment.
func lexToken(expr string, i int) (tok, error) {
	c := expr[i]
	switch {
	case c == '"' || c == '\'' || c == '`':
		e, err := skipString(expr, i)
		return tok{tString, i, e}, err
	case c == '{' || c == '[':
		return lexGroup(expr, i)
	case isNameStart(c):
		e := i + 1
		for e < len(expr) && (isNameStart(expr[e]) || isDigit(expr[e])) {
			e++
		}
		return tok{tIdent, i, e}, nil
	case isDigit(c) || c == '.' && i+1 < len(expr) && isDigit(expr[i+1]):
		return tok{tNumber, i, numberEnd(expr, i)}, nil
	default:
		return tok{tPunct, i, i + 1}, nil
	}
}

// lexGroup reads a whole {…} or […] group starting at expr[i], skipping
// the strings inside it (a "}" in a label value does not close it).
func lexGroup(expr string, i int) (tok, error) {
	closing := byte('}')
	kind := tBraces
	if expr[i] == '[' {
		closing, kind = ']', tBrackets
	}
	e := i + 1
	for e < len(expr) && expr[e] != closing {
		if q := expr[e]; q == '"' || q == '\'' || q == '`' {
			var err error
			if e, err = skipString(expr, e); err != nil {
				return tok{}, err
			}
			continue
		}
		e++
	}
	if e >= len(expr) {
		return tok{}, fmt.Errorf("%q at %d is not closed", expr[i], i)
	}
	return tok{kind, i, e + 1}, nil
}

// numberEnd is the end of the number or duration starting at expr[i]:
// digits, letters (units, hex), dots, underscores and an exponent's sign.
func numberEnd(expr string, i int) int {
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
	return e
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
