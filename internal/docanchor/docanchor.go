// Package docanchor is for tests only: the anchors of the repository's
// markdown headings, as GitHub slugs them, so that a registry entry's docs
// link (ingest's formats, report's outputs, publish's chat channels, the
// Prometheus dialects) is checked to name a heading that exists.
package docanchor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// Anchors returns "FILE#slug" for every heading of README.md,
// CONTRIBUTING.md and docs/*.md under root (the repository root), FILE
// relative to root with forward slashes: "docs/INGEST.md#tasks-files".
func Anchors(root string) (map[string]bool, error) {
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, fmt.Errorf("docanchor: %w", err)
	}
	files := append([]string{filepath.Join(root, "README.md"), filepath.Join(root, "CONTRIBUTING.md")}, docs...)
	out := map[string]bool{}
	for _, p := range files {
		raw, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("docanchor: %w", err)
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return nil, fmt.Errorf("docanchor: %w", err)
		}
		fence := false
		for _, l := range strings.Split(string(raw), "\n") {
			if strings.HasPrefix(l, "```") {
				fence = !fence
			}
			if fence || !strings.HasPrefix(l, "#") {
				continue
			}
			out[filepath.ToSlash(rel)+"#"+Slug(strings.TrimLeft(l, "#"))] = true
		}
	}
	return out, nil
}

// Slug is GitHub's anchor of a heading's text: lower case; letters (any
// script), digits, - and _ kept, spaces turned into -, everything else
// dropped.
func Slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
