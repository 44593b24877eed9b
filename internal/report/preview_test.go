package report

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
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

// TestWriteEmailPreviewNotOverAPipe: the preview goes through
// WriteFileAtomic as every file finops writes: a pipe where the text file
// would go is refused and left a pipe, not written into.
func TestWriteEmailPreviewNotOverAPipe(t *testing.T) {
	res := csvResult(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, BaseName(res, Meta{})+".email.txt")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	// A reader holds the pipe open, so that a plain write would not block
	// but go into it.
	hold, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Close()
	if _, err := WriteEmailPreview(dir, res); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a pipe at the preview's path: %v, want refused as not a regular file", err)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe is now %v, %v", fi, err)
	}
}
