package e2e

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/finops-oss/finops/internal/cli"
)

var (
	// readmeRow is a row of the README's command table: its first cell,
	// where `\|` is a pipe inside a code span, not a cell's end.
	readmeRow = regexp.MustCompile(`^\| ((?:\\\||[^|])+)\|`)
	codeSpan  = regexp.MustCompile("`([^`]+)`")
	longFlag  = regexp.MustCompile(`--[a-z][a-z-]*`)
	// commandWord is a word of a command's path; "done|dismiss" is two.
	commandWord = regexp.MustCompile(`^[a-z]+(\|[a-z]+)*$`)
)

// TestReadmeCommands: every command line in the first column of the
// README's "### Commands" table names a command finops has, with flags that
// command takes; and every command a user can run has its row. A flag
// renamed or a command added without its row fails here, not in a reader's
// shell.
func TestReadmeCommands(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(b), "\n### Commands\n")
	if !ok {
		t.Fatal("README.md has no ### Commands section")
	}
	table, _, _ = strings.Cut(table, "\n#")
	root := cli.NewMain(nil, io.Discard, io.Discard).RootCommand()
	root.InitDefaultHelpFlag()
	root.InitDefaultVersionFlag()

	named := map[*cobra.Command]bool{}
	rows := 0
	for _, line := range strings.Split(table, "\n") {
		m := readmeRow.FindStringSubmatch(line)
		if m == nil || strings.HasPrefix(m[1], "command") || strings.HasPrefix(m[1], "---") {
			continue
		}
		rows++
		for _, span := range codeSpan.FindAllStringSubmatch(m[1], -1) {
			text := strings.ReplaceAll(span[1], `\|`, "|")
			words := strings.Fields(text)
			if len(words) == 0 || words[0] != "finops" {
				t.Errorf("README command table: %q does not start with finops", text)
				continue
			}
			for _, p := range readmeCommandPaths(words[1:]) {
				cmd, rest, err := root.Find(p)
				if err != nil || len(rest) > 0 {
					t.Errorf("README command table: %q names no command finops has (%v, left %q)", text, err, rest)
					continue
				}
				named[cmd] = true
				for _, f := range longFlag.FindAllString(text, -1) {
					if cmd.Flag(strings.TrimPrefix(f, "--")) == nil {
						t.Errorf("README command table: %q: finops %s has no flag %s", text, strings.Join(p, " "), f)
					}
				}
			}
		}
	}
	if rows == 0 {
		t.Fatal("README.md's command table has no rows")
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "help" || sub.Name() == "completion" {
				continue
			}
			if sub.Runnable() && !named[sub] {
				t.Errorf("README.md's command table has no row for %q", sub.CommandPath())
			}
			walk(sub)
		}
	}
	walk(root)
}

// readmeCommandPaths is the command paths a README command line names: its
// leading command words, each "a|b" alternative expanded, up to the first
// word that is not a command word (a flag or an argument).
func readmeCommandPaths(words []string) [][]string {
	paths := [][]string{nil}
	for _, w := range words {
		if !commandWord.MatchString(w) {
			break
		}
		var next [][]string
		for _, alt := range strings.Split(w, "|") {
			for _, p := range paths {
				next = append(next, append(append([]string(nil), p...), alt))
			}
		}
		paths = next
	}
	return paths
}
