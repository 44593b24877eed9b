package config

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// withLines prefixes the line of its key to each refusal in err that
// starts with a key path the file holds: "line 42: watch.on_idle.command: …".
// config's own checks (keyErr) and those other packages hand to Load write
// their refusals so. Validate works on
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
		key := leadingKey(e.Error())
		if line := keyLine(&doc, key); key != "" && line > 0 {
			out[i], changed = fmt.Errorf("line %d: %w", line, e), true
		}
	}
	if !changed {
		return err
	}
	return errors.Join(out...)
}

// leadingKey is the key path a refusal starts with ("billing[2].format" of
// "billing[2].format: \"x\" is not one of …", "purchase[0]" of
// "purchase[0] (A100): …"), or "" when it starts with none: the one way a
// refusal says its key, for config's own checks and the ones other
// packages (source, telemetry) hand to Load alike.
func leadingKey(msg string) string {
	end := strings.IndexAny(msg, ": ")
	if end <= 0 {
		return ""
	}
	key := msg[:end]
	for _, part := range strings.Split(key, ".") {
		name, idx, indexed := strings.Cut(part, "[")
		if name == "" || strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
			return ""
		}
		if indexed {
			n, ok := strings.CutSuffix(idx, "]")
			if _, err := strconv.Atoi(n); !ok || err != nil {
				return ""
			}
		}
	}
	return key
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
