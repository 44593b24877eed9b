package report

import (
	"html/template"
	"strings"
)

// idBreaks are the characters after which an identifier may wrap: the
// separators of instance ids, ARNs, paths and host names.
const idBreaks = "-_./:@"

// breakableID escapes id for HTML and puts a <wbr> after each separator, so
// that a narrow table cell wraps "i-0a10g…" after "i-" rather than anywhere
// in the hex; CSS (.id: overflow-wrap: break-word) breaks inside a segment
// only when the segment alone is wider than the cell.
func breakableID(id string) template.HTML {
	var b strings.Builder
	for len(id) > 0 {
		i := strings.IndexAny(id, idBreaks)
		if i < 0 || i == len(id)-1 {
			b.WriteString(template.HTMLEscapeString(id))
			break
		}
		b.WriteString(template.HTMLEscapeString(id[:i+1]))
		b.WriteString("<wbr>")
		id = id[i+1:]
	}
	return template.HTML(b.String())
}
