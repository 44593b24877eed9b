package watch

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/sanitize"
)

// UnsafeReason begins the reason of an action refused because a command's
// argv could not be built without text from the bill.
const UnsafeReason = "unsafe for its command: "

// MaxValueLen bounds a value put in argv: cloud ids and ARNs are well
// under it.
const MaxValueLen = 512

// ValueShellChars are the characters a value put in argv may not hold:
// what sh, cmd or PowerShell would read as syntax, quoting, globbing or
// expansion.
const ValueShellChars = ";|&$`<>(){}*?[]!~'\"\\"

// CheckValue says why a value may not be put into a command's argv, nil
// when it may. Only operator-typed values ever are (Expand), so this is the
// second line: it refuses a listed id that a program passing its arguments
// on to a shell (ssh, su -c, a wrapper script) would split or read as an
// option. An empty value is allowed: it is an empty argument.
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
		case sanitize.UnsafeRune(r):
			return fmt.Errorf("holds a control or invisible formatting character (%s)", sanitize.RuneName(r))
		case unicode.IsSpace(r):
			return fmt.Errorf("holds whitespace")
		case strings.ContainsRune(ValueShellChars, r):
			return fmt.Errorf("holds the shell character %q", r)
		}
	}
	return nil
}

// ArgvAllow holds the operator-typed values a whole-argument placeholder
// may become: the config's watch.allow lists.
type ArgvAllow struct {
	Resources, Teams []string
}

func (a ArgvAllow) list(name string) []string {
	switch name {
	case AllowResources:
		return a.Resources
	case AllowTeams:
		return a.Teams
	}
	return nil
}

// Expand builds the argv a command runs for r. Every argument is the
// config's text unchanged, except one that is exactly the placeholder of
// a field with an allowlist ("{resource_id}", "{short_id}", "{team}"): it
// becomes the allowlist's entry that r's value equals byte for byte — the
// operator's text, not the bill's. Anything else is refused with why, and
// the action is not run: a value on no list, a placeholder inside a larger
// argument or of a field that has no list (config validation refuses both
// at load; this holds for a Policy built any other way), a listed value
// that fails CheckValue.
func Expand(argv []string, r *analysis.ResourceNow, allow ArgvAllow) ([]string, error) {
	out := make([]string, len(argv))
	for i, a := range argv {
		f, whole := FieldOf(a)
		if !whole {
			for _, g := range Fields() {
				if strings.Contains(a, g.Placeholder) {
					return nil, fmt.Errorf("%s inside the argument %q: a value from a bill is never written into a command; the command has it as $%s",
						g.Placeholder, label(a), g.Env)
				}
			}
			out[i] = a
			continue
		}
		list := allow.list(f.InArgv)
		if i == 0 || f.InArgv == "" || len(list) == 0 {
			return nil, fmt.Errorf("%s may not be an argument here: the command has it as $%s", f.Placeholder, f.Env)
		}
		v := f.Value(r)
		k := slices.Index(list, v)
		if k < 0 {
			return nil, fmt.Errorf("%s %q is not exactly one of %s, so it is not put in the command's arguments; the command has it as $%s",
				f.Placeholder, label(v), f.InArgv, f.Env)
		}
		typed := list[k]
		if err := CheckValue(typed); err != nil {
			return nil, fmt.Errorf("%s %q (listed in %s) %v", f.Placeholder, label(typed), f.InArgv, err)
		}
		out[i] = typed
	}
	return out, nil
}
