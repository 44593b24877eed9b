package deliver

import (
	"bytes"
	"context"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/analysis"
	"github.com/finops-oss/finops/internal/config"
	"github.com/finops-oss/finops/internal/publish"
	"github.com/xuri/excelize/v2"
)

// TestTeamWorkbookNames: team names that reduce to the same file name
// ("数据组", "平台组" → "___") still get a workbook (and an S3 key) each.
func TestTeamWorkbookNames(t *testing.T) {
	dir := t.TempDir()
	c := &config.Config{Teams: []config.Team{{Name: "数据组", Leads: []string{"a@example.com"}}, {Name: "平台组", Leads: []string{"b@example.com"}}}}
	r, _ := newRun(t, c, Transports{}, Options{})
	scopes, err := r.scopes(context.Background(), week48Result(), dir, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(scopes) != 2 || scopes[0].workbook == scopes[1].workbook {
		t.Fatalf("scopes = %+v", scopes)
	}
	for _, s := range scopes {
		f, err := excelize.OpenFile(s.workbook)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		if base := filepath.Base(s.workbook); strings.ContainsFunc(base, func(r rune) bool { return r > 0x7e }) {
			t.Errorf("workbook name %q is not ASCII", base)
		}
	}
}

// TestTeamPageNames: each team's own HTML page is written beside its
// workbook, recorded as an artifact for upload, and linked under
// link_base_url by its key; names that reduce to one file name, or try to
// leave the folder, still get a page and a key each, inside dir and under
// the week's prefix.
func TestTeamPageNames(t *testing.T) {
	teams := []string{"数据组", "平台组", "../../etc/passwd", "a/b"}
	res := week48Result()
	res.ByTeam = nil
	c := &config.Config{Publish: config.Publish{LinkBaseURL: "https://reports.example.com/finops/"}}
	for i, name := range teams {
		res.ByTeam = append(res.ByTeam, analysis.TeamCost{Team: name, Cost: float64(i + 1)})
		c.Teams = append(c.Teams, config.Team{Name: name, Leads: []string{"lead@example.com"}})
	}
	dir := t.TempDir()
	r, _ := newRun(t, c, Transports{S3: &publish.S3Config{Bucket: "b", Prefix: "weekly"}}, Options{})
	scopes, err := r.scopes(context.Background(), res, dir, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(scopes) != len(teams) {
		t.Fatalf("%d scopes, want %d", len(scopes), len(teams))
	}
	arts, err := r.Store.Artifacts(context.Background(), week48.Label)
	if err != nil {
		t.Fatal(err)
	}
	recorded := map[string]bool{}
	for _, a := range arts {
		recorded[a.Name] = true
	}
	seen := map[string]bool{}
	for i, s := range scopes {
		name := filepath.Base(s.page)
		if filepath.Dir(s.page) != dir || seen[name] || strings.TrimSuffix(name, ".html") != strings.TrimSuffix(filepath.Base(s.workbook), ".xlsx") {
			t.Errorf("%s: page %s (workbook %s), want its own beside the workbook in %s", teams[i], s.page, s.workbook, dir)
		}
		seen[name] = true
		if strings.ContainsFunc(name, func(r rune) bool { return r > 0x7e }) || strings.ContainsAny(name, `/\`) {
			t.Errorf("%s: page name %q", teams[i], name)
		}
		if !recorded[name] || !recorded[filepath.Base(s.workbook)] {
			t.Errorf("%s: page or workbook not recorded for upload: %v", teams[i], recorded)
		}
		if want := "https://reports.example.com/finops/weekly/2026-W48/" + name; s.reportURL != want {
			t.Errorf("%s: link %q, want %q", teams[i], s.reportURL, want)
		}
		page, err := os.ReadFile(s.page)
		if err != nil {
			t.Fatal(err)
		}
		for j, other := range teams {
			if got := bytes.Contains(page, []byte(html.EscapeString(other))); got != (i == j) {
				t.Errorf("%s's page shows %s: %v", teams[i], other, got)
			}
		}
	}
}
