package watch

import (
	"strconv"

	"github.com/finops-oss/finops/internal/analysis"
)

// The invariant of watch commands (docs/WATCH.md "Commands"): no value that
// came from a bill reaches a program as text it could interpret. A command
// gets the resource's fields in its environment (one FINOPS_* variable per
// field) and the whole decision as JSON on its stdin; its argv is the
// config's own text, where a placeholder may stand only as a whole
// argument, and only for a field whose value is checked against a list the
// operator typed (watch.allow.resources, watch.allow.teams): it becomes
// that typed value, never the bill's text around it.

// The lists of operator-typed values an argv placeholder is matched against.
const (
	AllowResources = "watch.allow.resources"
	AllowTeams     = "watch.allow.teams"
)

// Field is one value of a resource that a command is given.
type Field struct {
	Placeholder string // as written in a command: "{resource_id}"
	Env         string // the environment variable that carries it
	// InArgv is the list of operator-typed values the placeholder, as a
	// whole argument, must equal exactly to be put in argv; "" when the
	// field reaches a command only through its environment and stdin.
	InArgv string
	value  func(r *analysis.ResourceNow) string
}

// Value is the field's value for r.
func (f Field) Value(r *analysis.ResourceNow) string { return f.value(r) }

// Fields lists every field, in the order the documentation gives them.
// {short_id} is matched against the resources list too: an entry "i-0abc"
// names the bill's "arn:…:instance/i-0abc" by its last segment.
func Fields() []Field {
	return []Field{
		{"{resource_id}", "FINOPS_RESOURCE_ID", AllowResources, func(r *analysis.ResourceNow) string { return r.ID }},
		{"{short_id}", "FINOPS_SHORT_ID", AllowResources, func(r *analysis.ResourceNow) string { return analysis.ShortResourceID(r.ID) }},
		{"{team}", "FINOPS_TEAM", AllowTeams, func(r *analysis.ResourceNow) string { return r.Team }},
		{"{resource_name}", "FINOPS_RESOURCE_NAME", "", func(r *analysis.ResourceNow) string { return r.Name }},
		{"{provider}", "FINOPS_PROVIDER", "", func(r *analysis.ResourceNow) string { return r.Provider }},
		{"{model}", "FINOPS_MODEL", "", func(r *analysis.ResourceNow) string { return r.Model }},
		{"{mode}", "FINOPS_MODE", "", func(r *analysis.ResourceNow) string { return r.Mode }},
		{"{gpus}", "FINOPS_GPUS", "", func(r *analysis.ResourceNow) string { return strconv.Itoa(r.GPUs) }},
	}
}

// Placeholders are the fields' placeholders.
func Placeholders() []string {
	fs := Fields()
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Placeholder
	}
	return out
}

// FieldOf is the field whose placeholder is exactly s.
func FieldOf(s string) (Field, bool) {
	for _, f := range Fields() {
		if f.Placeholder == s {
			return f, true
		}
	}
	return Field{}, false
}

// Env is the command's environment for r: NAME=value for every field.
// Environment variables are data to the program: a shell expands
// "$FINOPS_RESOURCE_ID" to one word and never parses what it holds.
func Env(r *analysis.ResourceNow) []string {
	fs := Fields()
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Env + "=" + f.Value(r)
	}
	return out
}

// EnvHint is the way out shown when a config puts f into argv where it may
// not go: the same command through the environment.
func EnvHint(f Field) string {
	example := `/usr/local/bin/gpu-stop -- "$` + f.Env + `"`
	switch f.Placeholder {
	case "{resource_id}":
		example = `runpodctl stop pod "$FINOPS_RESOURCE_ID"`
	case "{short_id}":
		example = `aws ec2 stop-instances --instance-ids "$FINOPS_SHORT_ID"`
	case "{team}":
		example = `/usr/local/bin/gpu-stop --team "$FINOPS_TEAM"`
	}
	return `use "$` + f.Env + `" through env: [sh, -c, '` + example + `'] (every field is in the command's environment ` +
		`as FINOPS_*, and the whole decision is JSON on its stdin; docs/WATCH.md "Commands")`
}
