package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode"
)

// TestWritersDefuseUnsafeText: a value that reached the database before
// ingest refused control and invisible characters (an older database) is
// defused in every output all the same: for every rune of issue 32's ranges
// in a resource id, a resource name and a team, the CSV tables, the JSON
// summary (escaped: the same value, nothing raw), the HTML page and the
// terminal summary hold none of them raw. Checked with unicode.In over the
// categories Cc, Cf, Zl, Zp, not with sanitize; the formats' own
// whitespace (CSV's CRLF, JSON's and HTML's line breaks and indentation)
// is the only TAB, LF and CR allowed, and only where no value put it.
func TestWritersDefuseUnsafeText(t *testing.T) {
	var runes []rune
	for _, rg := range [][2]rune{{0x00, 0x1f}, {0x7f, 0x9f}, {0x2028, 0x2029}, {0x202a, 0x202e}, {0x2066, 0x2069},
		{0x200e, 0x200f}, {0x061c, 0x061c}, {0x200b, 0x200d}, {0x2060, 0x2060}, {0xfeff, 0xfeff}} {
		for r := rg[0]; r <= rg[1]; r++ {
			runes = append(runes, r)
		}
	}
	for _, r := range runes {
		if r == '\t' || r == '\n' || r == '\r' {
			continue // free text may hold them; each format writes them escaped or quoted (checked by its own tests)
		}
		res := csvResult(t)
		id := "gpu-" + string(r) + "01"
		res.ByResource[0].ResourceID = id
		res.ByResource[0].ResourceName = "name" + string(r)
		res.ByResource[0].Team = "nl" + string(r) + "p"
		res.ByTeam[0].Team = "nl" + string(r) + "p"
		outs := map[string]string{}
		for _, table := range []string{"by-resource", "by-team", "daily"} {
			var b bytes.Buffer
			if err := WriteCSV(&b, res, table); err != nil {
				t.Fatal(err)
			}
			outs["csv "+table] = b.String()
		}
		var js bytes.Buffer
		if err := WriteJSON(&js, res, Meta{}); err != nil {
			t.Fatal(err)
		}
		outs["json"] = js.String()
		var doc struct {
			ByResource []struct {
				ResourceID string `json:"resource_id"`
			} `json:"by_resource"`
		}
		if err := json.Unmarshal(js.Bytes(), &doc); err != nil || len(doc.ByResource) != 1 || doc.ByResource[0].ResourceID != id {
			t.Errorf("%U: the JSON summary does not keep the id %q (escaped): %v %+v", r, id, err, doc.ByResource)
		}
		var page bytes.Buffer
		if err := writeHTML(&page, res, Meta{}, nil); err != nil {
			t.Fatal(err)
		}
		outs["html"] = page.String()
		var term bytes.Buffer
		if err := WriteSummary(&term, res, Meta{}, false); err != nil {
			t.Fatal(err)
		}
		outs["terminal"] = term.String()
		for name, out := range outs {
			for i, c := range out {
				if c == '\t' || c == '\n' || c == '\r' {
					continue
				}
				if unicode.In(c, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp) {
					t.Errorf("%s holds %U raw at byte %d: %q", name, c, i, around(out, i))
					break
				}
			}
		}
	}
}

func around(s string, i int) string {
	lo, hi := max(i-30, 0), min(i+30, len(s))
	return fmt.Sprint(strings.ToValidUTF8(s[lo:hi], "?"))
}
