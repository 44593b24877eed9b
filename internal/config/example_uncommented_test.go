package config

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// commentedKey is a commented line of finops.example.yaml that reads as a key
// a user may uncomment: "# name: value" at any indentation.
var commentedKey = regexp.MustCompile(`^\s*# [a-z_]+:(\s|$)`)

// exampleProse are the commented lines commentedKey matches that are prose,
// not keys: uncommented they would not be YAML.
var exampleProse = []string{
	"# optional: without a config",
	"# fields: fields: is the logger's",
	"# fields: with fields: given too",
}

// uncommentBlock strips "# " from the commented line that starts with marker
// (after its indentation) and from the comment lines below it at the same
// column indented deeper, which continue it (a block's nested keys), so the
// key lands in its place. It returns the new lines and which were uncommented.
func uncommentBlock(lines []string, marker string) ([]string, map[int]bool, bool) {
	out := append([]string(nil), lines...)
	done := map[int]bool{}
	for i, l := range lines {
		trimmed := strings.TrimLeft(l, " ")
		if !strings.HasPrefix(trimmed, marker) {
			continue
		}
		col := len(l) - len(trimmed)
		out[i] = l[:col] + strings.TrimPrefix(trimmed, "# ")
		done[i] = true
		for j := i + 1; j < len(lines); j++ {
			n := lines[j]
			if len(n) < col+3 || strings.TrimSpace(n[:col]) != "" || !strings.HasPrefix(n[col:], "#  ") {
				break
			}
			out[j] = n[:col] + n[col+2:]
			done[j] = true
		}
		return out, done, true
	}
	return nil, nil, false
}

// TestExampleUncommented: every commented key of finops.example.yaml,
// uncommented in its place (and, for the "or …_file" alternatives the
// comments name, swapped in), is a config that loads. A commented key the
// cases do not uncomment fails the test, so a new one cannot go unchecked.
func TestExampleUncommented(t *testing.T) {
	b, err := os.ReadFile("../../finops.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	cases := []struct {
		name   string
		marker string            // the commented line to uncomment, from its "#"
		swap   map[string]string // then replace these lines' text (one of two alternatives)
	}{
		{"report.group_by", "# group_by:", nil},
		{"billing[].currency", "# currency: USD", nil},
		{"sources.azure.account_key_env", "# account_key_env:",
			map[string]string{"sas_token_env: FINOPS_AZURE_SAS": "# sas_token_env: given account_key_env"}},
		{"sources.azure.account_key_file", "# account_key_env:",
			map[string]string{
				"account_key_env: FINOPS_AZURE_STORAGE_KEY": "account_key_file: /run/secrets/azure-key",
				"sas_token_env: FINOPS_AZURE_SAS":           "# sas_token_env: given account_key_file",
			}},
		{"sources.azure.sas_token_file", "", map[string]string{"sas_token_env: FINOPS_AZURE_SAS": "sas_token_file: /run/secrets/azure-sas"}},
		{"utilization.prometheus[].query", "# query:", nil},
		{"utilization.prometheus[].queries", "# queries:", nil},
		{"utilization.prometheus[].max_response_bytes", "# max_response_bytes:", nil},
		{"publish.s3.session_token_env", "# session_token_env:", nil},
		{"publish.s3.secret_key_file", "", map[string]string{"secret_key_env: FINOPS_S3_SECRET_KEY": "secret_key_file: /run/secrets/finops-s3"}},
		{"publish.smtp.password_file", "", map[string]string{"password_env: FINOPS_SMTP_PASSWORD": "password_file: /run/secrets/finops-smtp"}},
		{"publish.smtp.ca_file", "# ca_file:", nil},
		{"publish.link_base_url", "# link_base_url:", nil},
		{"publish.metrics_textfile", "# metrics_textfile:", nil},
		{"chargeback", "# chargeback:", nil},
		{"purchase", "# purchase:", nil},
		{"energy", "# energy:", nil},
		{"watch", "# watch:", nil},
		{"watch.channels[].url_file", "# watch:", map[string]string{
			"url_env: FINOPS_FEISHU_URL":       "url_file: /run/secrets/feishu-url",
			"secret_env: FINOPS_FEISHU_SECRET": "secret_file: /run/secrets/feishu-secret",
		}},
	}
	covered := map[int]bool{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := lines
			if c.marker != "" {
				var done map[int]bool
				var ok bool
				got, done, ok = uncommentBlock(lines, c.marker)
				if !ok {
					t.Fatalf("finops.example.yaml has no commented line %q", c.marker)
				}
				for i := range done {
					covered[i] = true
				}
			}
			got = append([]string(nil), got...)
			for from, to := range c.swap {
				n := 0
				for i, l := range got {
					if k := strings.Index(l, from); k >= 0 {
						got[i] = l[:k] + to + l[k+len(from):]
						n++
					}
				}
				if n != 1 {
					t.Fatalf("%q is on %d lines of finops.example.yaml, want 1", from, n)
				}
			}
			if _, err := Parse("finops.example.yaml", []byte(strings.Join(got, "\n"))); err != nil {
				t.Fatalf("finops.example.yaml with %s uncommented: %v", c.name, err)
			}
		})
	}
	for i, l := range lines {
		if !commentedKey.MatchString(l) || covered[i] {
			continue
		}
		prose := false
		for _, p := range exampleProse {
			prose = prose || strings.HasPrefix(strings.TrimLeft(l, " "), p)
		}
		if !prose {
			t.Errorf("finops.example.yaml:%d: commented key %q is uncommented by no case of this test", i+1, strings.TrimSpace(l))
		}
	}
}
