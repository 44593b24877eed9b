package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteEmailPreview: the text file is the subject line, a blank line
// and the body EmailBody gives; the HTML file is its HTML body; both are
// named after the report's files.
func TestWriteEmailPreview(t *testing.T) {
	res := csvResult(t)
	dir := t.TempDir()
	paths, err := WriteEmailPreview(dir, res)
	if err != nil {
		t.Fatal(err)
	}
	base := BaseName(res, Meta{})
	want := []string{filepath.Join(dir, base+".email.txt"), filepath.Join(dir, base+".email.html")}
	if strings.Join(paths, " ") != strings.Join(want, " ") {
		t.Fatalf("paths %q, want %q", paths, want)
	}
	subject, text, html, err := EmailBody(res, EmailOptions{Attachment: base + ".xlsx"})
	if err != nil {
		t.Fatal(err)
	}
	for i, body := range []string{"Subject: " + subject + "\n\n" + text, html} {
		got, err := os.ReadFile(paths[i])
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != body {
			t.Errorf("%s differs from EmailBody's", paths[i])
		}
	}
	if _, err := WriteEmailPreview(filepath.Join(dir, "missing"), res); err == nil {
		t.Error("a missing folder: no error")
	}
}
