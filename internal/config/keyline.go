package config

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// withLines prefixes the line of its key to each keyError in err (the
// watch's checks): "line 42: watch.on_idle.command: …". Validate works on
// the decoded struct, which has no lines; the file is parsed again only
// when it is refused.
func withLines(b []byte, err error) error {
	var doc yaml.Node
	if yaml.Unmarshal(b, &doc) != nil {
		return err
	}
	var list []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		list = j.Unwrap()
	} else {
		list = []error{err}
	}
	out := make([]error, len(list))
	changed := false
	for i, e := range list {
		out[i] = e
		var ke *keyError
		if errors.As(e, &ke) {
			if line := keyLine(&doc, ke.key); line > 0 {
				out[i], changed = fmt.Errorf("line %d: %w", line, e), true
			}
		}
	}
	if !changed {
		return err
	}
	return errors.Join(out...)
}

// keyLine finds the line of a key path such as watch.channels[1].url_env
// (0 when the file does not hold it: a default, or a key left out).
func keyLine(doc *yaml.Node, path string) int {
	n := doc
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	line := 0
	for _, part := range strings.Split(path, ".") {
		name, idx := part, -1
		if i := strings.IndexByte(part, '['); i >= 0 && strings.HasSuffix(part, "]") {
			k, err := strconv.Atoi(part[i+1 : len(part)-1])
			if err != nil {
				return line
			}
			name, idx = part[:i], k
		}
		found := false
		for j := 0; n.Kind == yaml.MappingNode && j+1 < len(n.Content); j += 2 {
			if n.Content[j].Value == name {
				line, n, found = n.Content[j].Line, n.Content[j+1], true
				break
			}
		}
		if !found {
			return line
		}
		if idx >= 0 {
			if n.Kind != yaml.SequenceNode || idx >= len(n.Content) {
				return line
			}
			n = n.Content[idx]
			line = n.Line
		}
	}
	return line
}
