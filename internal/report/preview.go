package report

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/finops-oss/finops/internal/analysis"
)

// WriteEmailPreview writes the all-teams email a report of res would send,
// to look at without a mail client (finops demo): dir/finops-<period>.email.txt
// (subject line, blank line, plain-text body) and .email.html. It returns
// the paths written.
func WriteEmailPreview(dir string, res *analysis.Result) ([]string, error) {
	base := BaseName(res, Meta{})
	subject, text, html, err := EmailBody(res, EmailOptions{Attachment: base + ".xlsx"})
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, f := range []struct{ name, body string }{
		{base + ".email.txt", "Subject: " + subject + "\n\n" + text},
		{base + ".email.html", html},
	} {
		path := filepath.Join(dir, f.name)
		body := f.body
		// As every file finops writes: whole or not at all, never over a
		// device or pipe.
		if err := WriteFileAtomic(path, func(w io.Writer) error {
			_, err := io.WriteString(w, body)
			return err
		}); err != nil {
			return paths, fmt.Errorf("report: email preview: %w", err)
		}
		paths = append(paths, path)
	}
	return paths, nil
}
