package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/finops-oss/finops/internal/cli"
	"github.com/finops-oss/finops/internal/report"
	"github.com/finops-oss/finops/internal/testnum"
)

// The three-team week of issue #33 (2026-W46, Monday 2026-11-09 00:00 UTC to
// the next Monday): team cv rents gpu-cv, an RTX 4090 by the hour on weekdays
// 09:00–19:00 China time (01:00–11:00 UTC, one ¥2.00 line per hour), whose
// nvidia-smi logs hold a sample every minute of every billed hour and end
// with its bill, Friday 10:59 UTC; nlp (gpu-nlp) and search (gpu-search)
// rent an A100 for the week (包周, ¥403.20) whose logs cover every minute.
// By hand: billed 50 + 168 + 168 = 386 GPU-hours, every one monitored
// (coverage 100 %); cv's source: last sample Fri 10:59, + 1 min interval
// + 24 h stale_after = Sat 11:00 UTC, and its bill ends Fri 11:00: released,
// not stale.
var staleHosts = []struct {
	host, team, uuid string
	weekdays         bool // 01:00–11:00 UTC on weekdays only; else every minute
}{
	{"gpu-cv", "cv", "GPU-c0000000-0000-0000-0000-000000000000", true},
	{"gpu-nlp", "nlp", "GPU-b0000000-0000-0000-0000-000000000000", false},
	{"gpu-search", "search", "GPU-d0000000-0000-0000-0000-000000000000", false},
}

var staleMonday = time.Date(2026, 11, 9, 0, 0, 0, 0, time.UTC)

// writeStaleFleet writes the week's bill (with satHour, a further line for
// gpu-cv on Saturday from that hour UTC for an hour; < 0: none), the logs
// and the config into dir, and returns the config's path.
func writeStaleFleet(t *testing.T, dir string, satHour int) string {
	t.Helper()
	cst := func(t time.Time) string { return t.Add(8 * time.Hour).Format(time.DateTime) } // AutoDL bills in China time
	bill := "实例ID,实例名称,GPU型号,计费方式,开始时间,结束时间,应付金额,原价\n"
	for d := range 5 {
		for h := 1; h < 11; h++ {
			at := staleMonday.AddDate(0, 0, d).Add(time.Duration(h) * time.Hour)
			bill += fmt.Sprintf("gpu-cv,视觉,RTX 4090 * 1,按量计费,%s,%s,¥2.00,¥2.00\n", cst(at), cst(at.Add(time.Hour)))
		}
	}
	if satHour >= 0 {
		at := staleMonday.AddDate(0, 0, 5).Add(time.Duration(satHour) * time.Hour)
		bill += fmt.Sprintf("gpu-cv,视觉,RTX 4090 * 1,按量计费,%s,%s,¥2.00,¥2.00\n", cst(at), cst(at.Add(time.Hour)))
	}
	for _, h := range staleHosts[1:] {
		bill += fmt.Sprintf("%s,训练,A100-SXM4-80GB * 1,包周,%s,%s,¥403.20,¥403.20\n", h.host, cst(staleMonday), cst(staleMonday.AddDate(0, 0, 7)))
	}
	billPath := filepath.Join(dir, "autodl.csv")
	if err := os.WriteFile(billPath, []byte(bill), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf("database: %s\nout: %s\ntimezone: UTC\nformats: [json]\nbilling:\n  - path: %s\n    mapping: autodl\nutilization:\n  nvidia_smi:\n",
		filepath.Join(dir, "f.db"), filepath.Join(dir, "out"), billPath)
	resources, teams := "resources:\n", "teams:\n"
	for _, h := range staleHosts {
		logs := filepath.Join(dir, h.host)
		if err := os.Mkdir(logs, 0o755); err != nil {
			t.Fatal(err)
		}
		for d := range 7 {
			var b strings.Builder
			b.WriteString(smiHead)
			for m := range 1440 {
				if h.weekdays && (d >= 5 || m < 60 || m >= 660) {
					continue
				}
				at := staleMonday.AddDate(0, 0, d).Add(time.Duration(m) * time.Minute)
				fmt.Fprintf(&b, "%s, NVIDIA A100-SXM4-80GB, 00000000:07:00.0, 0, %s, 60 %%, 81920 MiB, 40000 MiB\n",
					at.Format("2006/01/02 15:04:05.000"), h.uuid)
			}
			if b.Len() > len(smiHead) {
				if err := os.WriteFile(filepath.Join(logs, fmt.Sprintf("%d.csv", d)), []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		cfg += fmt.Sprintf("    - path: %s/*.csv\n      host: %s\n      timezone: UTC\n", logs, h.host)
		resources += fmt.Sprintf("  - id: %s\n    team: %s\n", h.host, h.team)
		teams += fmt.Sprintf("  - name: %s\n", h.team)
	}
	p := filepath.Join(dir, "finops.yaml")
	if err := os.WriteFile(p, []byte(cfg+resources+teams), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRunReleasedBoxNotStale: issue #33's released box through `finops run`
// and `finops report --team`. Released with its bill, the week exits 0 and no
// view says "data incomplete"; each configured log source is one row of the
// box (its glob, not the glob "ok" and its host "stale" beside it). Billed an
// hour past last sample + interval + stale_after (Saturday 11:00–12:00 UTC,
// after Sat 11:00), its source is stale: the run exits 3 and the fleet's
// report, cv's JSON, page, email and digest say so, while nlp's and search's
// (coverage 100 %, 168 of 168 GPU-hours) say nothing of it and exit 0. The
// fleet's coverage is then 386 of 387 GPU-hours (the Saturday hour has no
// sample): 99.7 %, above 80 %, so the stale source is its only reason.
func TestRunReleasedBoxNotStale(t *testing.T) {
	for _, tc := range []struct {
		name    string
		satHour int // -1: no Saturday line
		stale   bool
	}{
		{"released with its bill", -1, false},
		{"billed an hour past the limit", 11, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := writeStaleFleet(t, dir, tc.satHour)
			want := 0
			if tc.stale {
				want = cli.ExitPartial
			}
			code, out, errs := runFinops(t, "--config", cfg, "run", "--week", "2026-W46", "--no-upload", "--no-email")
			if code != want {
				t.Fatalf("run: exit %d, want %d\n%s%s", code, want, out, errs)
			}
			r := readSummary(t, filepath.Join(dir, "out", "finops-2026-W46.json"))
			billed := 386.0
			if tc.stale {
				billed = 387 // the Saturday hour
			}
			testnum.Near(t, "gpu_hours_billed", r.Totals.GPUHoursBilled, billed, 0.005)
			testnum.Near(t, "coverage", r.DataQuality.Coverage, 386/billed, 0.005)
			cvGlob := filepath.Join(dir, "gpu-cv") + "/*.csv"
			var names []string
			for _, s := range r.DataQuality.Sources {
				names = append(names, s.Name+" "+s.Status)
			}
			wantStatus := map[bool]string{false: "ok", true: "stale"}[tc.stale]
			if !strings.Contains(strings.Join(names, "\n"), cvGlob+" "+wantStatus) || len(names) != 4 {
				t.Errorf("the box's rows %q: want the bill and one row per log source, %s %s among them", names, cvGlob, wantStatus)
			}
			inc := strings.Join(r.DataQuality.Incomplete, "\n")
			if tc.stale {
				if len(r.DataQuality.Incomplete) != 1 || !strings.HasPrefix(inc, "Source "+cvGlob+" is stale: 5 files, data until 2026-11-13T10:59:00Z") {
					t.Errorf("fleet: incomplete %q, want the cv source stale and nothing else", inc)
				}
			} else if inc != "" {
				t.Errorf("fleet: incomplete %q, want nothing", inc)
			}
			for _, h := range staleHosts {
				code, out, errs := runFinops(t, "--config", cfg, "report", "--week", "2026-W46", "--team", h.team,
					"--format", "json,html,xlsx", "--out", filepath.Join(dir, "team-"+h.team))
				mine := tc.stale && h.team == "cv"
				if want := map[bool]int{false: 0, true: cli.ExitPartial}[mine]; code != want {
					t.Errorf("report --team %s: exit %d, want %d\n%s%s", h.team, code, want, out, errs)
					continue
				}
				jsons, _ := filepath.Glob(filepath.Join(dir, "team-"+h.team, "*.json"))
				pages, _ := filepath.Glob(filepath.Join(dir, "team-"+h.team, "*.html"))
				books, _ := filepath.Glob(filepath.Join(dir, "team-"+h.team, "*.xlsx"))
				if len(jsons) != 1 || len(pages) != 1 || len(books) != 1 {
					t.Fatalf("team %s wrote %q, %q and %q", h.team, jsons, pages, books)
				}
				complete := workbookKPI(t, books[0], "Data complete")
				slice := readSummary(t, jsons[0])
				page, err := os.ReadFile(pages[0])
				if err != nil {
					t.Fatal(err)
				}
				subject, text, _, err := report.EmailBody(&slice, report.EmailOptions{Team: h.team})
				if err != nil {
					t.Fatal(err)
				}
				dg, err := report.Digest(&slice, report.DigestOptions{Team: h.team})
				if err != nil {
					t.Fatal(err)
				}
				says := map[string]bool{
					"json":    len(slice.DataQuality.Incomplete) > 0,
					"page":    strings.Contains(string(page), `class="incomplete"`),
					"subject": strings.HasSuffix(subject, "· data incomplete"),
					"email":   strings.Contains(text, "is stale"),
					"digest":  strings.Contains(strings.ToLower(dg.Title+dg.Text), "data incomplete"),
					// `report` names the source by the database's group
					// (format and host), `run` by its configured glob.
					"workbook": complete == "NO: Source nvidia-smi gpu-cv is stale: 5 files, data until 2026-11-13T10:59:00Z",
				}
				if complete != "yes" && !says["workbook"] {
					t.Errorf("team %s: the workbook's Data complete reads %q", h.team, complete)
				}
				for view, s := range says {
					if s != mine {
						t.Errorf("team %s: the %s says data incomplete: %v, want %v", h.team, view, s, mine)
					}
				}
				testnum.Near(t, h.team+" coverage", slice.DataQuality.Coverage, teamCoverage(h.team, tc.stale), 0.005)
			}
		})
	}
}

// teamCoverage is a team's monitored share by hand: cv's 50 h all monitored,
// or 50 of 51 with the Saturday hour; nlp's and search's 168 of 168.
func teamCoverage(team string, satLine bool) float64 {
	if team == "cv" && satLine {
		return 50.0 / 51
	}
	return 1
}

// workbookKPI is the value beside label on a workbook's Summary sheet.
func workbookKPI(t *testing.T, path, label string) string {
	t.Helper()
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := f.GetRows("Summary")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if len(r) >= 2 && r[0] == label {
			return r[1]
		}
	}
	t.Fatalf("%s: no %q row on the Summary sheet", path, label)
	return ""
}
