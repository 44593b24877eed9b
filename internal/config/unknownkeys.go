package config

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// maxKeyErrors is how many unknown keys one error lists: a file of another
// program's settings would otherwise fill the screen.
const maxKeyErrors = 10

var unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()

// unknownKeys names every key under n that the Go type t has no field for,
// with its line, its full path and the nearest valid key. yaml's own
// KnownFields error says "field timezon not found in type config.Config":
// a Go type name the user never wrote, and no hint of the right spelling.
func unknownKeys(n *yaml.Node, t reflect.Type, path string) []error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		return nil // decodes itself (Duration)
	}
	var errs []error
	switch {
	case n.Kind == yaml.DocumentNode:
		for _, c := range n.Content {
			errs = append(errs, unknownKeys(c, t, path)...)
		}
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Struct:
		fields := yamlFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value == "<<" {
				continue // a merge key: its anchor is checked where it is defined
			}
			ft, ok := fields[k.Value]
			if !ok {
				errs = append(errs, unknownKey(k, path, fields))
				continue
			}
			errs = append(errs, unknownKeys(v, ft, join(path, k.Value))...)
		}
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Map:
		for i := 0; i+1 < len(n.Content); i += 2 {
			errs = append(errs, unknownKeys(n.Content[i+1], t.Elem(), join(path, n.Content[i].Value))...)
		}
	case n.Kind == yaml.SequenceNode && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array):
		for i, c := range n.Content {
			p := path + "[" + strconv.Itoa(i) + "]"
			// An empty entry (teams: [~]) decodes to nothing, or to a zero
			// entry, without a word: a team, source or lead silently
			// missing. Refused, as a key finops does not know is.
			if c.Kind == yaml.ScalarNode && c.Tag == "!!null" {
				errs = append(errs, fmt.Errorf("line %d: %s is empty (~ or null): remove the entry or fill it in", c.Line, p))
				continue
			}
			errs = append(errs, unknownKeys(c, t.Elem(), p)...)
		}
	}
	return errs
}

// unknownKey is the error for key k, which is not one of fields.
func unknownKey(k *yaml.Node, path string, fields map[string]reflect.Type) error {
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	if s := nearest(k.Value, names); s != "" {
		return fmt.Errorf("line %d: unknown key %s; did you mean %s?", k.Line, join(path, k.Value), join(path, s))
	}
	slices.Sort(names)
	where := "at the top level"
	if path != "" {
		where = "under " + path
	}
	return fmt.Errorf("line %d: unknown key %s; the keys %s are %s (see finops.example.yaml)",
		k.Line, join(path, k.Value), where, strings.Join(names, ", "))
}

// keyErrors is one error for all of errs: the first maxKeyErrors, one a
// line under a count, so that each line names its own line number.
func keyErrors(errs []error) error {
	if len(errs) == 1 {
		return errs[0]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d unknown keys:", len(errs))
	for _, e := range errs[:min(len(errs), maxKeyErrors)] {
		b.WriteString("\n  " + e.Error())
	}
	if more := len(errs) - maxKeyErrors; more > 0 {
		fmt.Fprintf(&b, "\n  … and %d more", more)
	}
	return errors.New(b.String())
}

// yamlFields maps the YAML keys of struct t to their types, following
// ",inline" fields into their own keys.
func yamlFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("yaml")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if strings.Contains(opts, "inline") && f.Type.Kind() == reflect.Struct {
			for k, v := range yamlFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name) // yaml's default key
		}
		out[name] = f.Type
	}
	return out
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
