package deliver

import (
	"testing"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/publish"
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

// TestTeamPagesSpeltLikeAnother: report.BaseName keeps "数据组" apart from
// "平台组" (___-0f8c4195, its SHA-256's first four bytes); a team named
// "___-0f8c4195" would share its files but for teamPages' own hash.
func TestTeamPagesSpeltLikeAnother(t *testing.T) {
	cfg := &config.Config{Teams: []config.Team{{Name: "数据组", Leads: []string{"a@example.com"}},
		{Name: "___-0f8c4195", Leads: []string{"b@example.com"}}}}
	r, _ := newRun(t, cfg, Transports{}, Options{})
	res := week48Result()
	res.ByTeam = []analysis.TeamCost{{Team: "数据组", Cost: 1}, {Team: "___-0f8c4195", Cost: 2}}
	pages := r.teamPages(res, "out", nil)
	a, b := pages["数据组"], pages["___-0f8c4195"]
	if a == nil || b == nil {
		t.Fatalf("pages %v, want both teams'", pages)
	}
	if a.page != "out/finops-2026-W48-___-0f8c4195.html" || a.page == b.page || a.workbook == b.workbook {
		t.Errorf("pages %q and %q, workbooks %q and %q: want the first ___-0f8c4195 and the two apart",
			a.page, b.page, a.workbook, b.workbook)
	}
}
