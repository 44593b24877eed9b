package templates

import (
	"strings"
	"testing"
)

func TestReviewParses(t *testing.T) {
	tpl := Review()
	for _, name := range []string{"review.html.tmpl", "report.css"} {
		if tpl.Lookup(name) == nil {
			t.Errorf("template %q missing", name)
		}
	}
	if Review() == tpl {
		t.Error("Review returned a shared template")
	}
	// The page loads nothing: no scripts, no external references.
	b, err := pages.ReadFile("review.html.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"<script", "http://", "https://", "@import", "url("} {
		if strings.Contains(strings.ToLower(string(b)), bad) {
			t.Errorf("review.html.tmpl contains %q", bad)
		}
	}
}
