package plan

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Problem is one thing wrong in a scenario file: where it is and what to do.
type Problem struct {
	Line  int    // 0 when unknown
	Where string // `scenario "chat-bot"`, `prices[2] (AutoDL A100-80GB)`, `defaults`, …
	Field string
	Msg   string
}

func (p Problem) String() string {
	var b strings.Builder
	if p.Where != "" {
		b.WriteString(p.Where + ": ")
	}
	if p.Field != "" {
		b.WriteString("field " + p.Field + ": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// FileError lists every problem found in a scenario file, so one run shows
// them all instead of one per attempt.
type FileError struct {
	File     string
	Problems []Problem
}

func (e *FileError) Error() string {
	at := func(p Problem) string {
		if p.Line > 0 {
			return fmt.Sprintf("%s:%d: %s", e.File, p.Line, p)
		}
		return fmt.Sprintf("%s: %s", e.File, p)
	}
	if len(e.Problems) == 1 {
		return "plan: " + at(e.Problems[0])
	}
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = "  " + at(p)
	}
	return fmt.Sprintf("plan: %d problems in %s:\n%s", len(e.Problems), e.File, strings.Join(lines, "\n"))
}

// locator maps lines of the scenario file to the entry and field they belong
// to, so that errors yaml reports by line, and errors found after decoding by
// list index, can both name the scenario and the field.
type locator struct {
	top *yaml.Node // the document's top mapping; nil for a file built in code
}

func newLocator(root *yaml.Node) locator {
	if root == nil || root.Kind != yaml.DocumentNode || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return locator{}
	}
	return locator{top: root.Content[0]}
}

// section returns the value node of a top-level key.
func (l locator) section(key string) *yaml.Node {
	if l.top == nil {
		return nil
	}
	for i := 0; i+1 < len(l.top.Content); i += 2 {
		if l.top.Content[i].Value == key {
			return l.top.Content[i+1]
		}
	}
	return nil
}

// entry returns the mapping node of item i of a top-level list.
func (l locator) entry(section string, i int) *yaml.Node {
	s := l.section(section)
	if s == nil || s.Kind != yaml.SequenceNode || i < 0 || i >= len(s.Content) {
		return nil
	}
	return s.Content[i]
}

// line returns the line of key inside item i of section (or of the item
// itself when the key is absent or empty), 0 when unknown.
func (l locator) line(section string, i int, key string) int {
	var n *yaml.Node
	if i < 0 {
		n = l.section(section)
	} else {
		n = l.entry(section, i)
	}
	if n == nil {
		return 0
	}
	if n.Kind == yaml.MappingNode && key != "" {
		for j := 0; j+1 < len(n.Content); j += 2 {
			if n.Content[j].Value == key {
				return n.Content[j].Line
			}
		}
	}
	return n.Line
}

// problemAt describes the place of a line: the top-level section, the list
// entry (by name where it has one) and the field.
func (l locator) problemAt(line int) Problem {
	p := Problem{Line: line}
	if l.top == nil {
		return p
	}
	c := l.top.Content
	for i := 0; i+1 < len(c); i += 2 {
		end := int(^uint(0) >> 1)
		if i+2 < len(c) {
			end = c[i+2].Line
		}
		if line < c[i].Line || line >= end {
			continue
		}
		key, val := c[i].Value, c[i+1]
		switch val.Kind {
		case yaml.SequenceNode:
			for j, item := range val.Content {
				next := end
				if j+1 < len(val.Content) {
					next = val.Content[j+1].Line
				}
				if line >= item.Line && line < next {
					p.Where = entryName(key, j, item)
					p.Field = fieldAt(item, line)
					return p
				}
			}
			p.Field = key
		case yaml.MappingNode:
			p.Where = key
			p.Field = fieldAt(val, line)
		default:
			p.Field = key
		}
		return p
	}
	return p
}

// fieldAt returns the key of a mapping whose entry covers line.
func fieldAt(m *yaml.Node, line int) string {
	if m.Kind != yaml.MappingNode {
		return ""
	}
	field := ""
	for j := 0; j+1 < len(m.Content); j += 2 {
		if m.Content[j].Line <= line {
			field = m.Content[j].Value
		}
	}
	return field
}

// entryName names list item i of a section the way errors should: scenarios
// and models by name, GPUs by model, prices by provider and GPU.
func entryName(section string, i int, item *yaml.Node) string {
	get := func(key string) string {
		if item.Kind != yaml.MappingNode {
			return ""
		}
		for j := 0; j+1 < len(item.Content); j += 2 {
			if item.Content[j].Value == key && item.Content[j+1].Kind == yaml.ScalarNode {
				return item.Content[j+1].Value
			}
		}
		return ""
	}
	return describeEntry(section, i, get)
}

// describeEntry is entryName for any source of field values.
func describeEntry(section string, i int, get func(string) string) string {
	switch section {
	case "scenarios":
		if n := get("name"); n != "" {
			return fmt.Sprintf("scenario %q", n)
		}
		return fmt.Sprintf("scenario #%d (scenarios[%d], no name)", i+1, i)
	case "models":
		if n := get("name"); n != "" {
			return fmt.Sprintf("models[%d] (%s)", i, n)
		}
	case "gpus":
		if n := get("model"); n != "" {
			return fmt.Sprintf("gpus[%d] (%s)", i, n)
		}
	case "prices":
		if n := strings.TrimSpace(get("provider") + " " + get("gpu_model")); n != "" {
			return fmt.Sprintf("prices[%d] (%s)", i, n)
		}
	}
	return fmt.Sprintf("%s[%d]", section, i)
}
