package deliver

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/finops-oss/finops/config"
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
