package watch

import (
	"strconv"
	"strings"

	"github.com/finops-oss/finops/analysis"
)

// Placeholders are the fields a command may name, each replaced by the
// resource's value inside the argument it appears in. The value stays one
// argument whatever it holds (spaces, quotes, ";"): the command is run as an
// argv, never through a shell.
func Placeholders() []string {
	return []string{"{resource_id}", "{resource_name}", "{short_id}", "{team}", "{provider}", "{model}", "{mode}", "{gpus}"}
}

// Expand substitutes the resource's fields into the command's arguments.
func Expand(argv []string, r *analysis.ResourceNow) []string {
	rep := strings.NewReplacer(
		"{resource_id}", r.ID,
		"{resource_name}", r.Name,
		"{short_id}", analysis.ShortResourceID(r.ID),
		"{team}", r.Team,
		"{provider}", r.Provider,
		"{model}", r.Model,
		"{mode}", r.Mode,
		"{gpus}", strconv.Itoa(r.GPUs),
	)
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = rep.Replace(a)
	}
	return out
}
