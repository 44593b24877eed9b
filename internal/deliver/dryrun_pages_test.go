package deliver

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/publish"
)

// TestDryRunTeamPagesAsDeliver: a dry run lists a team's workbook and page
// for upload only when Deliver writes them: when the team is emailed (its
// leads, with a mail server) or gets a chat digest. Leads without a mail
// server get nothing, so a dry run with S3 alone lists no team file.
func TestDryRunTeamPagesAsDeliver(t *testing.T) {
	const (
		json     = "upload s3://b/2026-W48/finops-2026-W48.json (3 bytes, application/json)"
		snapshot = "upload s3://b/2026-W48/finops-2026-W48.db.gz (database snapshot: VACUUM INTO, integrity check, gzip)"
	)
	// infra's files are the report's base name and the team's.
	teamFiles := []string{
		"upload s3://b/2026-W48/finops-2026-W48-infra.xlsx (team infra's workbook)",
		"upload s3://b/2026-W48/finops-2026-W48-infra.html (team infra's page)",
	}
	for _, tc := range []struct {
		name   string
		digest bool
		want   []string
	}{
		{"leads, no mail server, no digest", false, []string{json, snapshot}},
		{"leads and a chat channel for the team", true, []string{json, teamFiles[0], teamFiles[1], snapshot}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "finops-2026-W48.json")
			if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			c := &config.Config{Teams: []config.Team{{Name: "infra", Leads: []string{"lead@example.com"}}}}
			if tc.digest {
				c.Watch.Digest = true
				c.Watch.Channels = []config.Channel{{Type: "slack", URLEnv: "U", Teams: []string{"infra"}}}
			}
			r, out := newRun(t, c, Transports{S3: &publish.S3Config{Bucket: "b"}}, Options{})
			res := week48Result()
			res.ByTeam = []analysis.TeamCost{{Team: "infra", Cost: 1}}
			if err := r.DryRun(context.Background(), res, dir, []string{p}); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(r.Result.WouldUpload, tc.want) {
				t.Errorf("would upload\n%q\nwant\n%q\n%s", r.Result.WouldUpload, tc.want, out)
			}
		})
	}
}
