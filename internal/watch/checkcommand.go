package watch

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/finops-oss/finops/internal/sanitize"
)

// placeholder is what looks like a placeholder, known or not ("{hostname}"
// is a typo to refuse); "${name}" is a shell's expansion, and "{ cmd; }"
// a shell's group, in the operator's own script.
var placeholder = regexp.MustCompile(`\$?\{[a-z][a-z0-9_]*\}`)

// CheckCommand reports, through refuse, each argument of an on_idle
// command's argv that may not stand as written: an unknown placeholder, a
// placeholder where a bill's value could reach argv (argvPlaceholder), or
// one put into an interpreter's script (script.go), even of a value listed
// in allowResources or allowTeams (the config's watch.allow). It takes
// plain values so that config, which imports nothing of the watch, runs it
// at load (config.CommandCheck).
func CheckCommand(argv, allowResources, allowTeams []string, refuse func(arg int, msg string)) {
	allow := ArgvAllow{Resources: allowResources, Teams: allowTeams}
	for i, a := range argv {
		for _, p := range placeholder.FindAllString(a, -1) {
			if !strings.HasPrefix(p, "$") && !slices.Contains(Placeholders(), p) {
				refuse(i, fmt.Sprintf("unknown placeholder %s; want one of %s", showValue(p), strings.Join(Placeholders(), ", ")))
			}
		}
		if msg := argvPlaceholder(i, a, allow); msg != "" {
			refuse(i, msg)
		}
	}
	// The second line: even an allowlisted value is not handed to an
	// interpreter as its script (script.go).
	if i, name := scriptPlaceholder(argv); i > 0 && argvPlaceholder(i, argv[i], allow) == "" {
		f, _ := FieldOf(argv[i])
		refuse(i, fmt.Sprintf("%q puts a placeholder into the script %s runs: even a value listed in watch.allow is not given to an interpreter as code; %s",
			showValue(argv[i]), name, EnvHint(f)))
	}
}

// argvPlaceholder says why argument i of a command may not hold what it
// holds ("" when it may): a known placeholder may be a whole argument other
// than the program, of a field that has an allowlist the config fills —
// then only a value the operator typed there is ever put in its place. A
// placeholder inside a larger argument would splice bill text into what
// the program parses (a script, a sed expression, a remote shell line).
func argvPlaceholder(i int, a string, allow ArgvAllow) string {
	for _, f := range Fields() {
		if !strings.Contains(a, f.Placeholder) {
			continue
		}
		switch {
		case i == 0:
			return fmt.Sprintf("%q: the program to run cannot come from a bill; name it, and %s", showValue(a), EnvHint(f))
		case a != f.Placeholder:
			return fmt.Sprintf("%q puts %s inside an argument: a value from a bill is never written into a command's text, "+
				"where a shell, sed, su -c or ssh could read it as code; %s", showValue(a), f.Placeholder, EnvHint(f))
		case f.InArgv == "":
			return fmt.Sprintf("%s comes only from the bill, which no config list vouches for: %s", f.Placeholder, EnvHint(f))
		case len(allow.list(f.InArgv)) == 0:
			return fmt.Sprintf("%s as an argument needs %s: only a value typed there is ever put in argv, as this whole argument; "+
				"list the %s there, or %s", f.Placeholder, f.InArgv, strings.TrimPrefix(f.InArgv, "watch.allow."), EnvHint(f))
		}
	}
	return ""
}

// showValue shortens a value from the config to at most 200 characters,
// cut between characters (sanitize.Truncate) so a refusal stays valid UTF-8.
func showValue(s string) string { return sanitize.Truncate(s, 200) }
