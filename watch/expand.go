package watch

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/finops-oss/finops/analysis"
)

// Placeholders are the fields a command may name, each replaced by the
// resource's value inside the argument it appears in. The value stays one
// argument whatever it holds: the command is run as an argv, never through
// a shell. Values are still checked (CheckValue) before they are put in,
// since the program named may pass them on to a shell (ssh, a wrapper
// script) or read them as options.
func Placeholders() []string {
	return []string{"{resource_id}", "{resource_name}", "{short_id}", "{team}", "{provider}", "{model}", "{mode}", "{gpus}"}
}

// UnsafeReason begins the reason of an action refused because a value
// from the bill failed CheckValue.
const UnsafeReason = "unsafe for its command: "

// MaxValueLen bounds a placeholder's value: cloud ids and ARNs are well
// under it, and a bill naming a resource with kilobytes is not one to act on.
const MaxValueLen = 512

// ValueShellChars are the characters a placeholder's value may not hold:
// what sh, cmd or PowerShell would read as syntax, quoting, globbing or
// expansion. With whitespace (split into words) and a leading "-" (read as
// an option), they are refused rather than escaped, because finops cannot
// know how the program quotes what it passes on.
const ValueShellChars = ";|&$`<>(){}*?[]!~'\"\\"

// CheckValue says why a value from a bill may not be substituted into a
// command, nil when it may. An empty value is allowed: it is an empty
// argument, not a word a shell would split.
func CheckValue(v string) error {
	switch {
	case len(v) > MaxValueLen:
		return fmt.Errorf("is %d bytes long, over %d", len(v), MaxValueLen)
	case !utf8.ValidString(v):
		return fmt.Errorf("is not valid UTF-8")
	case strings.HasPrefix(v, "-"):
		return fmt.Errorf("starts with \"-\": the program would read it as an option")
	}
	for _, r := range v {
		switch {
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			return fmt.Errorf("holds a control or invisible formatting character (%U)", r)
		case unicode.IsSpace(r):
			return fmt.Errorf("holds whitespace")
		case strings.ContainsRune(ValueShellChars, r):
			return fmt.Errorf("holds the shell character %q", r)
		}
	}
	return nil
}

// Expand substitutes the resource's fields into the command's arguments.
// It refuses (an error naming the placeholder, and why) when a field the
// command uses fails CheckValue; fields the command does not name are not
// checked, so a resource name with spaces only matters to a command that
// uses {resource_name}.
func Expand(argv []string, r *analysis.ResourceNow) ([]string, error) {
	values := []string{
		"{resource_id}", r.ID,
		"{resource_name}", r.Name,
		"{short_id}", analysis.ShortResourceID(r.ID),
		"{team}", r.Team,
		"{provider}", r.Provider,
		"{model}", r.Model,
		"{mode}", r.Mode,
		"{gpus}", strconv.Itoa(r.GPUs),
	}
	for i := 0; i < len(values); i += 2 {
		name, v := values[i], values[i+1]
		used := false
		for _, a := range argv {
			used = used || strings.Contains(a, name)
		}
		if !used {
			continue
		}
		if err := CheckValue(v); err != nil {
			return nil, fmt.Errorf("%s %q %v", name, label(v), err)
		}
	}
	rep := strings.NewReplacer(values...)
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = rep.Replace(a)
	}
	return out, nil
}
