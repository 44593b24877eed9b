package templates

import "html/template"

// Review parses and returns the rent-or-buy review page template, with the
// report's stylesheet available to it as "report.css". Like Report, it returns a
// fresh template on every call and panics on a parse error (a build defect
// that a test catches).
func Review() *template.Template {
	return template.Must(template.New("review.html.tmpl").ParseFS(pages, "review.html.tmpl", "report.css"))
}
