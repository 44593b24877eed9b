package ingest

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// parseLiteral reads the nested values GCP billing exports put in CSV cells:
// JSON, or the Python repr koku writes ([{'name': 'x', 'amount': -5e-06,
// 'full_name': None}]). Objects become map[string]any, arrays []any, strings
// string, numbers pyNumber (their text, for exact decimals), true/false bool
// and null/None nil.
func parseLiteral(s string) (any, error) {
	p := literalParser{s: s}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.s) {
		return nil, errLiteral
	}
	return v, nil
}

// pyNumber is a number as written, read later as an exact decimal.
type pyNumber string

var errLiteral = errors.New("not a JSON or Python literal")

// maxLiteralDepth bounds nesting, so hostile input cannot exhaust the stack.
const maxLiteralDepth = 32

type literalParser struct {
	s string
	i int
}

func (p *literalParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *literalParser) value(depth int) (any, error) {
	if depth > maxLiteralDepth {
		return nil, errLiteral
	}
	p.space()
	if p.i >= len(p.s) {
		return nil, errLiteral
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '\'' || c == '"':
		return p.str()
	case c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9':
		j := p.i + 1
		for j < len(p.s) && strings.IndexByte("0123456789.eE+-", p.s[j]) >= 0 {
			j++
		}
		n := p.s[p.i:j]
		p.i = j
		return pyNumber(n), nil
	default:
		j := p.i
		for j < len(p.s) && (p.s[j] >= 'a' && p.s[j] <= 'z' || p.s[j] >= 'A' && p.s[j] <= 'Z') {
			j++
		}
		word := p.s[p.i:j]
		p.i = j
		switch word {
		case "None", "null":
			return nil, nil
		case "True", "true":
			return true, nil
		case "False", "false":
			return false, nil
		}
	}
	return nil, errLiteral
}

func (p *literalParser) object(depth int) (any, error) {
	p.i++ // {
	m := map[string]any{}
	p.space()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return m, nil
	}
	for {
		p.space()
		k, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		key, ok := k.(string)
		if !ok {
			return nil, errLiteral
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, errLiteral
		}
		p.i++
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		m[key] = v
		done, err := p.next('}')
		if err != nil {
			return nil, err
		}
		if done {
			return m, nil
		}
	}
}

// next reads what follows an element: a comma (another element follows) or
// the closing bracket (done).
func (p *literalParser) next(closing byte) (done bool, err error) {
	p.space()
	if p.i >= len(p.s) {
		return false, errLiteral
	}
	switch p.s[p.i] {
	case ',':
		p.i++
		return false, nil
	case closing:
		p.i++
		return true, nil
	}
	return false, errLiteral
}

func (p *literalParser) array(depth int) (any, error) {
	p.i++ // [
	var out []any
	for {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return out, nil
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		done, err := p.next(']')
		if err != nil {
			return nil, err
		}
		if done {
			return out, nil
		}
	}
}

// str reads a quoted string with JSON or Python escapes.
func (p *literalParser) str() (any, error) {
	q := p.s[p.i]
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return b.String(), nil
		case c == '\\':
			if p.i+1 >= len(p.s) {
				return nil, errLiteral
			}
			e := p.s[p.i+1]
			p.i += 2
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'u', 'x':
				n := 4
				if e == 'x' {
					n = 2
				}
				if p.i+n > len(p.s) {
					return nil, errLiteral
				}
				r, err := strconv.ParseUint(p.s[p.i:p.i+n], 16, 32)
				if err != nil {
					return nil, errLiteral
				}
				p.i += n
				b.WriteRune(rune(r))
			default:
				b.WriteByte(e)
			}
		default:
			_, size := utf8.DecodeRuneInString(p.s[p.i:])
			b.WriteString(p.s[p.i : p.i+size])
			p.i += size
		}
	}
	return nil, errLiteral
}
