package watch

import (
	"path"
	"strings"
)

// The guard of watch commands is not here: a value from a bill never
// reaches argv at all (argvPlaceholder, Expand), only the command's
// environment and stdin. A placeholder may stand as a whole argument for a
// value the operator typed in watch.allow; this file is the second line of
// defence on top of that: even such a typed value is refused at load as an
// interpreter's script ([/bin/sh, -c, "{resource_id}"] would run an
// allowlisted id as a command). The list of interpreters below is not,
// and cannot be, complete (chroot, su -c, xargs, sed's e flag …); nothing
// relies on it being so.

// interp describes how an interpreter takes its script.
type interp struct {
	// codeLetters are short options that carry the script: the rest of
	// the cluster or the next argument (python -c, perl -e).
	codeLetters string
	// operandCode: a code letter only says that the first operand is the
	// script (sh -c -e 'script' name args).
	operandCode bool
	// multiCode: several code options add up (perl -e a -e b).
	multiCode bool
	// valueLetters take the rest of the cluster or the next argument as a
	// value that is not code (sh -o errexit, perl -Mstrict).
	valueLetters string
	// longCode and longValue are the same for --long options (node --eval).
	longCode, longValue []string
	// anywhere: the interpreter joins and re-parses its whole command line
	// (cmd /c, powershell -Command): a placeholder in any argument is
	// refused.
	anywhere bool
}

var (
	shellInterp = interp{codeLetters: "c", operandCode: true, valueLetters: "oO",
		longCode: []string{"--command"}, longValue: []string{"--rcfile", "--init-file"}}
	interpreters = map[string]interp{
		"sh": shellInterp, "bash": shellInterp, "dash": shellInterp, "zsh": shellInterp, "ksh": shellInterp,
		"mksh": shellInterp, "ash": shellInterp, "yash": shellInterp, "rbash": shellInterp, "csh": shellInterp,
		"tcsh": shellInterp, "fish": shellInterp,
		"python": {codeLetters: "cm", valueLetters: "WX"},
		"perl":   {codeLetters: "eE", multiCode: true, valueLetters: "IMmx"},
		"ruby":   {codeLetters: "e", multiCode: true, valueLetters: "IrCEFiKxTW"},
		"node":   {codeLetters: "ep", valueLetters: "r", longCode: []string{"--eval", "--print"}, longValue: []string{"--require", "--import"}},
		"php":    {codeLetters: "rBREf", valueLetters: "cdz"},
		"lua":    {codeLetters: "e", multiCode: true, valueLetters: "l"},
		"awk":    {codeLetters: "f", valueLetters: "Fv"},
		"cmd":    {anywhere: true}, "powershell": {anywhere: true}, "pwsh": {anywhere: true},
		// su -c runs its string through the user's shell; sed's script can
		// run commands (GNU's e), so its script counts as code.
		"su":  {codeLetters: "c", valueLetters: "sgGw", longCode: []string{"--command"}, longValue: []string{"--shell", "--group", "--supp-group"}},
		"sed": {codeLetters: "ef", multiCode: true, valueLetters: "l"},
	}
	// wrappers run the command that follows their options; the letters
	// and long options listed take a value.
	wrappers = map[string]struct {
		valueLetters string
		operands     int // leading operands before the command (timeout 30s)
	}{
		"sudo": {valueLetters: "ugCDhprtTUR"}, "doas": {valueLetters: "uC"}, "nice": {valueLetters: "n"},
		"nohup": {}, "setsid": {}, "stdbuf": {valueLetters: "ioe"}, "timeout": {valueLetters: "sk", operands: 1},
		"ionice": {valueLetters: "cn"}, "time": {valueLetters: "fo"}, "command": {}, "exec": {},
		"flock": {valueLetters: "wE", operands: 1}, "chroot": {operands: 1},
		"xargs": {valueLetters: "IaEdLnPsR"},
	}
)

// interpreterName is the interpreter a program names ("python3.12" and
// "/usr/bin/python3" are python, "node.exe" is node), "" for none.
func interpreterName(prog string) string {
	base := progBase(prog)
	switch {
	case strings.HasPrefix(base, "python") || strings.HasPrefix(base, "pypy"):
		return "python"
	case base == "nodejs":
		return "node"
	case base == "gawk" || base == "mawk" || base == "nawk" || base == "busybox-awk":
		return "awk"
	case base == "perl" || strings.HasPrefix(base, "perl5"):
		return "perl"
	}
	if _, ok := interpreters[base]; ok {
		return base
	}
	return ""
}

// progBase is a program's name without its folder (either slash) and
// ".exe", lower-cased: what the tables above are keyed by.
func progBase(prog string) string {
	return strings.TrimSuffix(strings.ToLower(path.Base(strings.ReplaceAll(prog, `\`, "/"))), ".exe")
}

// scriptPlaceholder returns the index of an argument of argv that puts a
// placeholder into an interpreter's script (or its options before the
// script), and the interpreter; -1 when none does. It looks through
// wrappers (sudo, timeout, env, busybox …) to the program they run.
func scriptPlaceholder(argv []string) (int, string) {
	return scriptPlaceholderAt(argv, 0, 0)
}

func scriptPlaceholderAt(argv []string, start, depth int) (int, string) {
	if start >= len(argv) || depth > 8 {
		return -1, ""
	}
	prog := argv[start]
	base := progBase(prog)
	switch {
	case base == "env":
		return envPlaceholder(argv, start, depth)
	case base == "busybox":
		return scriptPlaceholderAt(argv, start+1, depth+1)
	}
	if w, ok := wrappers[base]; ok {
		if base == "flock" {
			// flock -c runs its string through sh -c.
			// flock [options] file -c command: look up to the operand after the file.
			for i, files := start+1, 0; i < len(argv) && (files < 2 || strings.HasPrefix(argv[i], "-")); i++ {
				if !strings.HasPrefix(argv[i], "-") {
					files++
					if files == 2 {
						break
					}
				}
				if (argv[i] == "-c" || argv[i] == "--command") && i+1 < len(argv) {
					if hasPlaceholder(argv[i+1]) {
						return i + 1, "flock -c (sh -c)"
					}
				}
			}
		}
		return scriptPlaceholderAt(argv, afterOptions(argv, start+1, w.valueLetters, w.operands), depth+1)
	}
	name := interpreterName(prog)
	if name == "" {
		return -1, ""
	}
	in := interpreters[name]
	script := scriptIndex(argv, start, in)
	for i := start + 1; i < len(argv); i++ {
		if hasPlaceholder(argv[i]) && (in.anywhere || i <= script) {
			return i, name
		}
	}
	return -1, ""
}

// afterOptions is the index of the command a wrapper runs: past its
// options (and the values the listed letters take), NAME=VALUE
// assignments, and n leading operands.
func afterOptions(argv []string, i int, valueLetters string, n int) int {
	for ; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "--":
			i++
			for ; n > 0 && i < len(argv); n-- {
				i++
			}
			return i
		case strings.HasPrefix(a, "--"):
			continue // a long option; with a value it is written --opt=value here
		case strings.HasPrefix(a, "-") && len(a) > 1:
			if k := strings.IndexAny(a[1:], valueLetters); valueLetters != "" && k >= 0 && k == len(a)-2 {
				i++ // the letter ends the cluster: the next argument is its value
			}
		case n > 0:
			n--
		default:
			return i
		}
	}
	return i
}

// envPlaceholder handles env: -S/--split-string splits one argument into
// words (with its own quoting and ${VAR} expansion), so a placeholder in
// it is refused; otherwise the command after the options and NAME=VALUE
// assignments is checked, the -S words first.
func envPlaceholder(argv []string, start, depth int) (int, string) {
	var split []string
	splitAt := start
	i := start + 1
	for ; i < len(argv); i++ {
		a := argv[i]
		var s string
		var ok bool
		switch {
		case a == "--":
			i++
		case a == "-S" || a == "--split-string":
			if i+1 < len(argv) {
				i++
				s, ok = argv[i], true
			}
		case strings.HasPrefix(a, "--split-string="):
			s, ok = strings.TrimPrefix(a, "--split-string="), true
		case strings.HasPrefix(a, "-S"):
			s, ok = a[2:], true
		case a == "-u" || a == "-C" || a == "--unset" || a == "--chdir":
			i++
			continue
		case strings.HasPrefix(a, "-") || strings.Contains(a, "="):
			continue
		}
		if ok {
			splitAt = i
			if hasPlaceholder(s) {
				return i, "env -S"
			}
			split = append(split, strings.Fields(s)...)
			continue
		}
		break
	}
	if i > len(argv) {
		i = len(argv)
	}
	cmd := append(split, argv[i:]...)
	if k, name := scriptPlaceholderAt(cmd, 0, depth+1); k >= 0 {
		if k < len(split) {
			return splitAt, name
		}
		return i + k - len(split), name
	}
	return -1, ""
}

// scriptIndex is the index of an interpreter's script argument: the value
// of its code option (the last one where they add up), or its first
// operand (a script file, awk's program, sh -c's string); len(argv) when
// it cannot tell, so that every argument counts as part of the script.
func scriptIndex(argv []string, start int, in interp) int {
	s := &scriptScan{argv: argv, in: in, script: -1}
	for s.i = start + 1; s.i < len(argv); s.i++ {
		a := argv[s.i]
		at, done := 0, false
		switch {
		case a == "-":
			return max(s.script, s.i) // the script comes from stdin
		case a == "--":
			return s.afterDashes()
		case strings.HasPrefix(a, "--"):
			at, done = s.long(a)
		case (strings.HasPrefix(a, "-") || in.operandCode && strings.HasPrefix(a, "+")) && len(a) > 1:
			at, done = s.short(a)
		default:
			if s.script >= 0 && !s.codeSeen {
				return s.script // an operand after the code: its arguments
			}
			return s.i // sh -c's string, or a script file
		}
		if done {
			return at
		}
	}
	if s.script >= 0 {
		return min(s.script, len(argv))
	}
	return len(argv)
}

// scriptScan is scriptIndex's walk over an interpreter's arguments: i the
// argument read, script the code option's value seen last (-1: none), and
// codeSeen whether a code letter said that the first operand is the script.
type scriptScan struct {
	argv     []string
	in       interp
	i        int
	script   int
	codeSeen bool
}

// afterDashes is the script's index at "--": the operand after it, unless a
// code option has given the script already.
func (s *scriptScan) afterDashes() int {
	if s.script < 0 || s.in.operandCode {
		if s.i+1 < len(s.argv) {
			return s.i + 1
		}
		return len(s.argv)
	}
	return s.script
}

// long reads the --option at s.i (with its value, when it takes one); done
// with the script's index when the option says where it is.
func (s *scriptScan) long(a string) (at int, done bool) {
	name, _, eq := strings.Cut(a, "=")
	switch {
	case contains(s.in.longCode, name):
		if s.in.operandCode {
			s.codeSeen = true
			if !eq && s.i+1 < len(s.argv) {
				s.i++
				return s.i, true
			}
			return 0, false
		}
		if !eq {
			s.i++
		}
		s.script = s.i
		if !s.in.multiCode {
			return min(s.script, len(s.argv)), true
		}
	case contains(s.in.longValue, name) && !eq:
		s.i++
	}
	return 0, false
}

// short reads the cluster of short options at s.i (-pe, -cCODE, -o errexit);
// done with the script's index when a code letter says where it is.
func (s *scriptScan) short(a string) (at int, done bool) {
	for k := 1; k < len(a); k++ {
		l := a[k]
		switch {
		case strings.IndexByte(s.in.codeLetters, l) >= 0 && s.in.operandCode:
			s.codeSeen = true
		case strings.IndexByte(s.in.codeLetters, l) >= 0:
			// The code is the next argument when the letter ends the
			// cluster or only code letters follow (node -pe); else it is
			// the rest of the cluster (python -cCODE).
			if rest := a[k+1:]; strings.Trim(rest, s.in.codeLetters) == "" {
				s.i++
			}
			s.script = s.i
			if !s.in.multiCode {
				return min(s.script, len(s.argv)), true
			}
			return 0, false
		case strings.IndexByte(s.in.valueLetters, l) >= 0:
			if k == len(a)-1 {
				s.i++
			}
			return 0, false
		}
	}
	return 0, false
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// hasPlaceholder reports whether s holds a field's placeholder: operator
// text such as a shell's "{ …; }" or "${HOME}" is not one.
func hasPlaceholder(s string) bool {
	for _, p := range Placeholders() {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}
