package config

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/watch"
)

// TestWatchCommandBypassesRefused: issue 32's commands, which loaded (and
// ran a billed id) behind the interpreter list, are refused at load with
// the key, its line and the migration to the environment — with and
// without watch.allow.resources, since {resource_id} is inside an
// argument. The chroot one has it as a whole argument: refused without an
// allowlist (and, with one, by the interpreter list's second line).
func TestWatchCommandBypassesRefused(t *testing.T) {
	const migration = `use "$FINOPS_RESOURCE_ID" through env: [sh, -c, 'runpodctl stop pod "$FINOPS_RESOURCE_ID"']`
	for _, tc := range []struct {
		name, cmd string
		arg       int
		allowed   bool // refused with watch.allow.resources: [gpu-a] too
	}{
		{"chroot … sh -c", `[chroot, /, /bin/sh, -c, "{resource_id}"]`, 4, true},
		{"chroot … sh -c, inside", `[chroot, /, /bin/sh, -c, "echo {resource_id}"]`, 4, true},
		{"sed's e flag", `[sed, -n, "1s#.*#{resource_id}#ep", /etc/hostname]`, 2, true},
		{"su -c", `[su, -c, "/usr/local/bin/stop {resource_id}", ops]`, 2, true},
		{"xargs sh -c", `[xargs, -I, Q, sh, -c, "stop {resource_id} Q"]`, 5, true},
		{"ssh's remote line", `[ssh, gpu-host, "sudo poweroff # {resource_id}"]`, 2, true},
		{"an option's value", `[aws, ec2, stop-instances, "--instance-ids={short_id}"]`, 3, true},
	} {
		for _, allow := range []string{"", "  allow:\n    resources: [gpu-a]\n"} {
			y := watchBase + "watch:\n" + allow + "  on_idle:\n    after: 2h\n    action: stop\n    command: " + tc.cmd + "\n"
			line := 11 + strings.Count(allow, "\n")
			_, err := parseWatch("finops.yaml", []byte(y))
			if !tc.allowed && allow != "" {
				continue
			}
			if err == nil {
				t.Errorf("%s (allow %q): accepted", tc.name, allow)
				continue
			}
			key := fmt.Sprintf("line %d: watch.on_idle.command[%d]:", line, tc.arg)
			hint := migration
			if strings.Contains(tc.cmd, "{short_id}") {
				hint = `use "$FINOPS_SHORT_ID" through env: [sh, -c, 'aws ec2 stop-instances --instance-ids "$FINOPS_SHORT_ID"']`
			}
			for _, want := range []string{key, hint} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%s (allow %q): error lacks %q:\n%v", tc.name, allow, want, err)
				}
			}
		}
	}
	// The same stop, through the environment, loads: with no allowlist,
	// and with $ and quotes in the operator's own script.
	y := watchBase + "watch:\n  on_idle:\n    after: 2h\n    action: stop\n    command: [sh, -c, 'runpodctl stop pod \"$FINOPS_RESOURCE_ID\"']\n"
	if _, err := parseWatch("finops.yaml", []byte(y)); err != nil {
		t.Errorf("the environment form: %v", err)
	}
}

// TestWatchArgvPlaceholderRules: where a whole-argument placeholder may
// stand, by hand: only a field with a list, only when the config fills it,
// never as the program.
func TestWatchArgvPlaceholderRules(t *testing.T) {
	for _, tc := range []struct {
		cmd, allow string
		ok         bool
	}{
		{`[/usr/local/bin/stop, --, "{resource_id}"]`, "resources: [gpu-a]", true},
		{`[/usr/local/bin/stop, --, "{resource_id}"]`, "teams: [nlp]", false},
		{`[aws, ec2, stop-instances, --instance-ids, "{short_id}"]`, "resources: [gpu-a]", true},
		{`[/usr/local/bin/stop, --team, "{team}"]`, "teams: [nlp]", true},
		{`[/usr/local/bin/stop, --team, "{team}"]`, "resources: [gpu-a]", false},
		{`[/usr/local/bin/stop, "{resource_name}"]`, "resources: [gpu-a]", false},
		{`[/usr/local/bin/stop, "{provider}"]`, "resources: [gpu-a]", false},
		{`[/usr/local/bin/stop, "{gpus}"]`, "resources: [gpu-a]", false},
		{`["{resource_id}", x]`, "resources: [gpu-a]", false},
		{`[/bin/sh, -c, "{resource_id}"]`, "resources: [gpu-a]", false}, // the second line
		{`[/usr/local/bin/stop]`, "", true},
		// The operator's own shell text: a group and ${…} are no placeholders.
		{`[sh, -c, '{ echo "${FINOPS_RESOURCE_ID}" "${HOME}"; } >> /tmp/l']`, "", true},
	} {
		y := watchBase + "watch:\n  allow:\n    " + tc.allow + "\n  on_idle:\n    after: 2h\n    action: stop\n    command: " + tc.cmd + "\n"
		_, err := parseWatch("finops.yaml", []byte(y))
		if (err == nil) != tc.ok {
			t.Errorf("%s with %s: err = %v, want ok %v", tc.cmd, tc.allow, err, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "through env: [sh, -c, '") {
			t.Errorf("%s with %s: no migration in %v", tc.cmd, tc.allow, err)
		}
	}
}

// marker is in every generated hostile value and in no config text, so
// that bill text in an argv is found by a substring search.
const marker = "ZQXbill"

var (
	progs      = []string{"/usr/local/bin/stop", "sh", "/bin/bash", "chroot", "sed", "su", "xargs", "ssh", "aws", "runpodctl", "python3", "env", "sudo", "kubectl"}
	argWords   = []string{"-c", "-n", "--", "-I", "Q", "/", "stop", "pod", "--instance-ids", "-e", "1s#.*#x#ep", "root", "/etc/hostname"}
	typedIDs   = []string{"gpu-a", "i-0abc123", "pod-7", "node-2.lab", "arn:aws:ec2:us-east-1:1:instance/i-0def"}
	typedTeams = []string{"nlp", "cv"}
)

func randWord(rng *rand.Rand) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=#@%+ ;|&$'\"`<>(){}*?!~\\é训"
	r := []rune(alphabet)
	var b strings.Builder
	for n := 1 + rng.Intn(8); n > 0; n-- {
		b.WriteRune(r[rng.Intn(len(r))])
	}
	return b.String()
}

// randomArgv is a random command: a known or random program, known or
// random words, and placeholders (any field, unknown ones aside) at random
// places, as whole arguments or with a random prefix and suffix.
func randomArgv(rng *rand.Rand) []string {
	ps := watch.Placeholders()
	prog := progs[rng.Intn(len(progs))]
	if rng.Intn(4) == 0 {
		prog = strings.NewReplacer("{", "(", "}", ")").Replace(randWord(rng))
		if prog == "" {
			prog = "p"
		}
	}
	argv := []string{prog}
	for n := rng.Intn(6); n >= 0; n-- {
		var a string
		switch rng.Intn(3) {
		case 0:
			a = argWords[rng.Intn(len(argWords))]
		case 1:
			a = strings.NewReplacer("{", "(", "}", ")").Replace(randWord(rng))
		default:
			p := ps[rng.Intn(len(ps))]
			a = p
			if rng.Intn(2) == 0 {
				a = strings.NewReplacer("{", "(", "}", ")").Replace(randWord(rng)) + p
			}
			if rng.Intn(2) == 0 {
				a += strings.NewReplacer("{", "(", "}", ")").Replace(randWord(rng))
			}
		}
		argv = append(argv, a)
	}
	if rng.Intn(10) == 0 { // the program itself
		argv[0] = ps[rng.Intn(len(ps))]
	}
	return argv
}

// mustRefuse is the rule, computed from the argv and the lists alone: a
// placeholder anywhere but as a whole argument after the program, of a
// field with a list the config fills, is refused.
func mustRefuse(argv []string, ids, teams []string) bool {
	for i, a := range argv {
		for _, p := range watch.Placeholders() {
			if !strings.Contains(a, p) {
				continue
			}
			switch {
			case i == 0 || a != p:
				return true
			case (p == "{resource_id}" || p == "{short_id}") && len(ids) == 0:
				return true
			case p == "{team}" && len(teams) == 0:
				return true
			case p != "{resource_id}" && p != "{short_id}" && p != "{team}":
				return true
			}
		}
	}
	return false
}

// TestWatchArgvGenerated is the invariant checked on 3,000 random commands
// and allowlists (seeded): every config whose placeholder is not a whole
// argument, or whose field has no filled list, is refused at load (with
// the migration); every config that loads, run for a random resource —
// hostile text, an allowlisted id exactly, its case variant, it with a
// hostile suffix, or an ARN ending in it — gives an argv where each
// argument is the config's text or, in a placeholder's place, an entry of
// the config's list that the resource's value equals byte for byte; bill
// text (the marker) is never in it; and the argv is refused exactly when
// such a value is on no list.
func TestWatchArgvGenerated(t *testing.T) {
	rng := rand.New(rand.NewSource(3232))
	refused, accepted, substituted := 0, 0, 0
	for n := 0; n < 3000; n++ {
		argv := randomArgv(rng)
		ids, teams := randomArgvAllow(rng)
		c, err := parseWatch("finops.yaml", []byte(argvConfigYAML(argv, ids, teams)))
		if mustRefuse(argv, ids, teams) {
			if err == nil {
				t.Fatalf("%q with resources %q teams %q: accepted", argv, ids, teams)
			}
			if !strings.Contains(err.Error(), "through env: [sh, -c, '") {
				t.Fatalf("%q: refused without the migration: %v", argv, err)
			}
			refused++
			continue
		}
		if err != nil {
			// Allowed by the rule, refused by something else: the
			// interpreter list (second line) or an unrelated check.
			if !strings.Contains(err.Error(), "into the script") && !strings.Contains(err.Error(), "holds spaces") {
				t.Fatalf("%q with resources %q teams %q: %v", argv, ids, teams, err)
			}
			continue
		}
		accepted++
		for k := 0; k < 5; k++ {
			if checkExpandedArgv(t, rng, c, argv, ids, teams) {
				substituted++
			}
		}
	}
	// The generator must reach every branch, or the test proves little.
	if refused < 500 || accepted < 300 || substituted < 50 {
		t.Errorf("refused %d, accepted %d, substituted %d: the generator misses cases", refused, accepted, substituted)
	}
}

// randomArgvAllow draws the allowlists: each typed resource id with
// probability 1/3, each typed team with probability 1/2.
func randomArgvAllow(rng *rand.Rand) (ids, teams []string) {
	for _, id := range typedIDs {
		if rng.Intn(3) == 0 {
			ids = append(ids, id)
		}
	}
	for _, tm := range typedTeams {
		if rng.Intn(2) == 0 {
			teams = append(teams, tm)
		}
	}
	return ids, teams
}

// argvConfigYAML is a config of the typed teams and resources whose watch
// allows ids and teams and stops an idle resource with argv.
func argvConfigYAML(argv, ids, teams []string) string {
	var y strings.Builder
	y.WriteString("teams:\n  - name: nlp\n  - name: cv\nresources:\n")
	for _, id := range typedIDs {
		fmt.Fprintf(&y, "  - id: %q\n", id)
	}
	y.WriteString("watch:\n  allow:\n")
	q, _ := json.Marshal(ids)
	fmt.Fprintf(&y, "    resources: %s\n", q)
	q, _ = json.Marshal(teams)
	fmt.Fprintf(&y, "    teams: %s\n", q)
	q, _ = json.Marshal(argv)
	fmt.Fprintf(&y, "  on_idle:\n    after: 2h\n    action: stop\n    command: %s\n", q)
	return y.String()
}

// expectedArg is argument a of the config's argv for a resource (id, its
// short id, team): the config's text or the resource's value in a
// placeholder's place, and whether that value is on no list (or not a
// safe value), so the argv must be refused.
func expectedArg(a, id, short, team string, ids, teams []string) (want string, refuse bool) {
	want = a
	switch a {
	case "{resource_id}":
		want = id
	case "{short_id}":
		want = short
	case "{team}":
		want = team
	}
	list := ids
	if a == "{team}" {
		list = teams
	}
	return want, want != a && (!slices.Contains(list, want) || watch.CheckValue(want) != nil)
}

// checkExpandedArgv expands the loaded config's command for a random
// resource and checks it against expectedArg, argument by argument, with
// no bill text in it; it reports whether a placeholder was substituted.
func checkExpandedArgv(t *testing.T, rng *rand.Rand, c *Config, argv, ids, teams []string) bool {
	t.Helper()
	id, team, short := resourceFor(rng, ids)
	r := &analysis.ResourceNow{ID: id, Team: team, Name: marker + " name", Provider: marker, Model: marker, Mode: marker, GPUs: 8}
	allow := watch.ArgvAllow{Resources: c.Watch.Allow.Resources, Teams: c.Watch.Allow.Teams}
	out, err := watch.Expand(c.Watch.OnIdle.Command.Args, r, allow)
	wantErr := false
	for i, a := range argv {
		want, refuse := expectedArg(a, id, short, team, ids, teams)
		if refuse {
			wantErr = true
		}
		if err == nil && out[i] != want {
			t.Fatalf("%q for %q: argument %d is %q, want %q", argv, id, i, out[i], want)
		}
	}
	if (err != nil) != wantErr {
		t.Fatalf("%q for id %q team %q (resources %q teams %q): err = %v, want an error %v", argv, id, team, ids, teams, err, wantErr)
	}
	if err == nil && strings.Contains(strings.Join(out, "\x00"), marker) {
		t.Fatalf("%q for %q: bill text in the argv %q", argv, id, out)
	}
	return err == nil && !slices.Equal(out, argv)
}

// resourceFor is a random billed resource: its id, team and the id's last
// path segment (by hand: the ARN shape below is the only path-like one).
func resourceFor(rng *rand.Rand, ids []string) (id, team, short string) {
	hostile := []string{marker + "; reboot", marker + "$(reboot)", "reboot" + marker, marker + "\nreboot", "-" + marker, marker + "`id`"}
	team = hostile[rng.Intn(len(hostile))]
	if rng.Intn(2) == 0 {
		team = typedTeams[rng.Intn(len(typedTeams))]
	}
	id = hostile[rng.Intn(len(hostile))]
	pick := typedIDs[rng.Intn(len(typedIDs))]
	if len(ids) > 0 && rng.Intn(2) == 0 {
		pick = ids[rng.Intn(len(ids))]
	}
	switch rng.Intn(5) {
	case 0:
		return id, team, id
	case 1:
		return pick, team, lastSegment(pick)
	case 2:
		return strings.ToUpper(pick), team, lastSegment(strings.ToUpper(pick))
	case 3:
		return pick + id, team, lastSegment(pick + id)
	}
	return "arn:aws:ec2:us-east-1:1:instance/" + pick, team, lastSegment(pick)
}

// lastSegment: the text after an ARN's last "/" (only typedIDs' ARN and
// the one resourceFor builds are paths; everything else is its own short id).
func lastSegment(s string) string {
	if !strings.HasPrefix(s, "arn:") && !strings.HasPrefix(s, "ARN:") {
		return s
	}
	if strings.HasPrefix(s, "ARN:") {
		return s // not a path to ShortResourceID: "arn:" is lower case
	}
	return s[strings.LastIndexByte(s, '/')+1:]
}
