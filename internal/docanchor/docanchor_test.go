package docanchor

import "testing"

// TestSlug: headings as GitHub anchors them (worked by hand from the
// links in README.md and docs/).
func TestSlug(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{" Tasks files", "tasks-files"},
		{" Vast.ai billing JSON", "vastai-billing-json"},
		{" Rental-platform CSVs: column mappings", "rental-platform-csvs-column-mappings"},
		{" `aws-cur2`", "aws-cur2"},
		{" WeCom (企业微信)", "wecom-企业微信"},
	} {
		if got := Slug(c.in); got != c.want {
			t.Errorf("Slug(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
