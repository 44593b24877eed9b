package deliver

import (
	"testing"

	"github.com/finops-oss/finops/config"
	"github.com/finops-oss/finops/publish"
)

// TestTold: a team's page and workbook are written only when this run tells
// the team about its week: its leads by email (a mail server configured) or
// its chat channel (the digest on). Leads without a mail server, or a
// channel with the digest off, are told nothing, so nothing is uploaded.
func TestTold(t *testing.T) {
	leads := config.Team{Name: "nlp", Leads: []string{"lead@example.com"}}
	chatOnly := config.Team{Name: "vision"}
	nobody := config.Team{Name: "infra"}
	smtp := &publish.SMTPConfig{Host: "127.0.0.1"}
	for _, c := range []struct {
		name   string
		smtp   *publish.SMTPConfig
		digest bool
		want   map[string]bool
	}{
		{"email only", smtp, false, map[string]bool{"nlp": true}},
		{"digest only", nil, true, map[string]bool{"vision": true}},
		{"both", smtp, true, map[string]bool{"nlp": true, "vision": true}},
		{"neither", nil, false, map[string]bool{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := &config.Config{Teams: []config.Team{leads, chatOnly, nobody}}
			cfg.Watch.Digest = c.digest
			cfg.Watch.Channels = []config.Channel{{Type: "feishu", URLEnv: "A", Teams: []string{"vision"}}}
			r, _ := newRun(t, cfg, Transports{SMTP: c.smtp}, Options{})
			for _, team := range cfg.Teams {
				if got := r.told(team); got != c.want[team.Name] {
					t.Errorf("told(%s) = %v, want %v", team.Name, got, c.want[team.Name])
				}
			}
		})
	}
}
