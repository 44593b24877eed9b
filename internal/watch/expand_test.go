package watch

import (
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/sanitize"
)

// TestExpandRefusesUnsafeValues: the second line. Even a value the
// operator listed in watch.allow.resources is not put in argv when a shell
// would split or interpret it, or a program read it as an option; the
// error names the placeholder and why.
func TestExpandRefusesUnsafeValues(t *testing.T) {
	argv := []string{"/usr/local/bin/stop-gpu", "--", "{resource_id}"}
	for id, want := range map[string]string{
		"gpu-x; touch PWNED":     `shell character ';'`,
		"--help":                 `starts with "-"`,
		"-rf":                    `starts with "-"`,
		"gpu x":                  "whitespace",
		"gpu-x\n":                "control",
		"gpu\u202ex":             "control or invisible",
		"gpu\u2028x":             "control or invisible",
		"gpu\u009bx":             "control or invisible",
		"$(id)":                  `shell character '$'`,
		"a`id`":                  "shell character '`'",
		"i-1|sh":                 "shell character '|'",
		"i-1&&x":                 "shell character '&'",
		"*":                      "shell character '*'",
		"it's":                   `shell character '\''`,
		strings.Repeat("a", 513): "over 512",
		"gpu\xff":                "UTF-8",
		"~root":                  "shell character '~'",
		"{short_id}":             "shell character '{'",
		"C:\\x":                  `shell character '\\'`,
		"a>b":                    "shell character '>'",
	} {
		_, err := Expand(argv, &analysis.ResourceNow{ID: id}, ArgvAllow{Resources: []string{id}})
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "{resource_id} ") {
			t.Errorf("%q: err = %v, want {resource_id} … %s", id, err, want)
		}
	}
	for _, id := range []string{"gpu-a", "i-0123456789abcdef0", "arn:aws:ec2:us-east-1:123456789012:instance/i-1",
		"/subscriptions/s/resourceGroups/g/providers/Microsoft.Compute/virtualMachines/vm-1", "训练机", "a-", "x=1,y@z", strings.Repeat("a", 512)} {
		got, err := Expand(argv, &analysis.ResourceNow{ID: id, Name: "a name with spaces"}, ArgvAllow{Resources: []string{"other", id}})
		if err != nil || got[2] != id {
			t.Errorf("%q: %q, %v", id, got, err)
		}
	}
}

// TestExpandOnlyListed: by hand, what Expand does with each shape: a value
// on no list, a placeholder inside an argument or of a field without a list
// is refused (and names the variable that carries it); arguments without
// placeholders are the config's text, "{" and all.
func TestExpandOnlyListed(t *testing.T) {
	r := &analysis.ResourceNow{ID: "reboot", Team: "nlp", Name: "box", GPUs: 8}
	allow := ArgvAllow{Resources: []string{"gpu-a"}, Teams: []string{"nlp"}}
	for _, tc := range []struct {
		argv []string
		want string // the argv joined by "|", or the error's start
	}{
		{[]string{"/bin/stop", "{resource_id}"}, `error: {resource_id} "reboot" is not exactly one of watch.allow.resources`},
		{[]string{"/bin/stop", "{team}"}, "/bin/stop|nlp"},
		{[]string{"/bin/stop", "--team={team}"}, `error: {team} inside the argument "--team={team}"`},
		{[]string{"/bin/stop", "{gpus}"}, "error: {gpus} may not be an argument here: the command has it as $FINOPS_GPUS"},
		{[]string{"{team}"}, "error: {team} may not be an argument here"},
		{[]string{"awk", "BEGIN{print}", "{x}"}, "awk|BEGIN{print}|{x}"},
	} {
		got, err := Expand(tc.argv, r, allow)
		s := strings.Join(got, "|")
		if err != nil {
			s = "error: " + err.Error()
		}
		if !strings.HasPrefix(s, tc.want) {
			t.Errorf("%q: %s, want %s", tc.argv, s, tc.want)
		}
	}
	if _, err := Expand([]string{"/bin/stop", "{resource_id}"}, r, ArgvAllow{Teams: []string{"reboot"}}); err == nil {
		t.Error("a resource id matched against the teams list")
	}
}

// TestCheckValueFollowsUnsafeRune: argv follows the project's one rule for
// invisible characters. For every code point of the BMP's first 0x3000 and
// a seeded sample past it, CheckValue refuses "a<r>b" whenever
// sanitize.UnsafeRune(r) does, naming the code point as the refusals of
// ingest do.
func TestCheckValueFollowsUnsafeRune(t *testing.T) {
	rng := rand.New(rand.NewSource(33))
	runes := make([]rune, 0, 0x3000+2000)
	for r := rune(0); r < 0x3000; r++ {
		runes = append(runes, r)
	}
	for i := 0; i < 2000; i++ {
		runes = append(runes, rune(0x3000+rng.Intn(0x10ffff-0x3000)))
	}
	refused := 0
	for _, r := range runes {
		if !utf8.ValidRune(r) || !sanitize.UnsafeRune(r) {
			continue
		}
		refused++
		err := CheckValue("a" + string(r) + "b")
		if err == nil || !strings.Contains(err.Error(), sanitize.RuneName(r)) {
			t.Errorf("%U: err = %v, want a refusal naming %s", r, err, sanitize.RuneName(r))
		}
	}
	// C0 (32) + DEL + C1 (32) alone are 65: a loop that checked nothing fails.
	if refused < 65 {
		t.Fatalf("only %d unsafe runes checked", refused)
	}
}
